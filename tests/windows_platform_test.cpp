// Windows backend (pacer/src/platform/windows): every rung of the sleep ladder, forced in turn,
// through the real Windows primitives; the fallbacks when a timer or a resolution request is
// refused, through the OS-call hooks; timeBeginPeriod/timeEndPeriod pairing; the thread priority
// raise (THREAD_PRIORITY_TIME_CRITICAL, MMCSS in thread mode) and its restore.
//
// Runs under Wine in CI (.ci/windows.sh) and natively on Windows. Real-clock checks assert only
// what holds on a loaded 2-core VM: no wake-up before its deadline, monotonic wake-ups, total
// time >= frames * period. The measured oversleep of a 1 ms sleep per rung is printed (lines
// starting "[ measure ]") and recorded as a test property; it is information, not a pass mark.
#include <gtest/gtest.h>

#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pacer/frame_pacer.hpp"
#include "log_capture.hpp"
#include "pacer/log.hpp"
#include "pacer/priority.hpp"
#include "pacer/time_source.hpp"
#include "platform/platform.hpp"
#include "platform/windows/sleep_ladder.hpp"

namespace {

namespace win = pacer::platform::windows;
using win::Rung;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr std::int64_t kMs = 1'000'000;

// ---- OS-call hooks that count, and optionally refuse -------------------------------------

std::atomic<int> g_begin_calls{0}, g_end_calls{0}, g_begin_ok{0}, g_create_calls{0};
std::atomic<bool> g_refuse_hr{false}, g_refuse_all_timers{false}, g_fail_set_timer{false},
    g_refuse_period{false};

void* hook_create_timer(unsigned long flags) {
    ++g_create_calls;
    if (g_refuse_all_timers || (g_refuse_hr && (flags & 0x2u))) {
        SetLastError(ERROR_INVALID_PARAMETER);  // what Windows before 10 1803 says to the flag
        return nullptr;
    }
    return CreateWaitableTimerExW(nullptr, nullptr, flags, TIMER_ALL_ACCESS);
}

bool hook_set_timer(void* timer, std::int64_t due_100ns) {
    if (g_fail_set_timer) {
        SetLastError(ERROR_INVALID_HANDLE);
        return false;
    }
    LARGE_INTEGER due{};
    due.QuadPart = -due_100ns;
    return SetWaitableTimer(static_cast<HANDLE>(timer), &due, 0, nullptr, nullptr, FALSE) != 0;
}

unsigned hook_begin_period(unsigned ms) {
    ++g_begin_calls;
    if (g_refuse_period) return TIMERR_NOCANDO;
    const unsigned r = timeBeginPeriod(ms);
    if (r == TIMERR_NOERROR) ++g_begin_ok;
    return r;
}

unsigned hook_end_period(unsigned ms) {
    ++g_end_calls;
    return timeEndPeriod(ms);
}

// Thread priority: the real calls, counted; SetThreadPriority or MMCSS refused on demand. MMCSS
// through the test's own look-up of avrt.dll, so that the handle the backend keeps can be
// compared with the one it gives back.
std::atomic<int> g_priority_sets{0}, g_mmcss_joins{0}, g_mmcss_leaves{0};
std::atomic<bool> g_refuse_priority{false}, g_refuse_mmcss{false};
std::atomic<void*> g_mmcss_joined{nullptr}, g_mmcss_left{nullptr};

using AvSetFn = HANDLE(WINAPI*)(LPCWSTR, LPDWORD);
using AvRevertFn = BOOL(WINAPI*)(HANDLE);
struct TestAvrt {
    AvSetFn join = nullptr;
    AvRevertFn leave = nullptr;
};
const TestAvrt& test_avrt() {
    static const TestAvrt a = [] {
        TestAvrt r;
        if (HMODULE dll = LoadLibraryW(L"avrt.dll")) {
            r.join = reinterpret_cast<AvSetFn>(
                reinterpret_cast<void (*)()>(GetProcAddress(dll, "AvSetMmThreadCharacteristicsW")));
            r.leave = reinterpret_cast<AvRevertFn>(
                reinterpret_cast<void (*)()>(GetProcAddress(dll, "AvRevertMmThreadCharacteristics")));
        }
        if (!r.join || !r.leave) r = TestAvrt{};
        return r;
    }();
    return a;
}

bool hook_set_thread_priority(int priority) {
    ++g_priority_sets;
    if (g_refuse_priority) {
        SetLastError(ERROR_ACCESS_DENIED);
        return false;
    }
    return SetThreadPriority(GetCurrentThread(), priority) != 0;
}

void* hook_mmcss_join(const wchar_t* task, unsigned long* task_index) {
    ++g_mmcss_joins;
    if (g_refuse_mmcss || !test_avrt().join) {
        SetLastError(g_refuse_mmcss ? ERROR_ACCESS_DENIED : ERROR_MOD_NOT_FOUND);
        return nullptr;
    }
    HANDLE h = test_avrt().join(task, task_index);
    g_mmcss_joined = h;
    return h;
}

bool hook_mmcss_leave(void* handle) {
    ++g_mmcss_leaves;
    g_mmcss_left = handle;
    return test_avrt().leave && test_avrt().leave(handle) != 0;
}

const win::OsHooks kCountingHooks{hook_create_timer, hook_set_timer,           hook_begin_period,
                                  hook_end_period,   hook_set_thread_priority, hook_mmcss_join,
                                  hook_mmcss_leave};

// ---- helpers --------------------------------------------------------------------------------

struct LogCapture : pacer_test::LogCapture {
    LogCapture() { win::reset_log_once(); }
};

// Quantile with linear interpolation at h = (N-1)p, as PresentMon and OCAT compute it.
double quantile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const double h = (static_cast<double>(v.size()) - 1.0) * p;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Resets every hook flag and the preference after each test.
class WindowsPlatform : public ::testing::Test {
protected:
    void SetUp() override {
        g_refuse_hr = g_refuse_all_timers = g_fail_set_timer = g_refuse_period = false;
        g_begin_calls = g_end_calls = g_begin_ok = g_create_calls = 0;
        g_refuse_priority = g_refuse_mmcss = false;
        g_priority_sets = g_mmcss_joins = g_mmcss_leaves = 0;
        g_mmcss_joined = g_mmcss_left = nullptr;
        own_priority_ = GetThreadPriority(GetCurrentThread());
        win::set_os_hooks(&kCountingHooks);
    }
    void TearDown() override {
        EXPECT_EQ(win::thread_state().pacing_depth, 0) << "test left the thread pacing";
        EXPECT_EQ(GetThreadPriority(GetCurrentThread()), own_priority_) << "test left the thread raised";
        SetThreadPriority(GetCurrentThread(), own_priority_);
        win::set_os_hooks(nullptr);
        win::reset_preferred_rung();
        g_refuse_hr = g_refuse_all_timers = g_fail_set_timer = g_refuse_period = false;
        // Every successful timeBeginPeriod of the test was released.
        EXPECT_EQ(g_begin_ok.load(), g_end_calls.load());
        const win::Counters c = win::counters();
        EXPECT_EQ(c.period_begins, c.period_ends);
    }
    int own_priority_ = THREAD_PRIORITY_NORMAL;
};

class Rungs : public WindowsPlatform, public ::testing::WithParamInterface<Rung> {};

std::string rung_name(const ::testing::TestParamInfo<Rung>& info) {
    return win::to_string(info.param);
}

// ---- every rung, forced ---------------------------------------------------------------------

TEST_P(Rungs, ForcedRungIsTheOneUsed) {
    win::set_preferred_rung(GetParam());
    const win::ThreadState s = win::thread_state();
    EXPECT_EQ(s.preferred, GetParam());
    EXPECT_EQ(s.rung, GetParam()) << "Wine and Windows 10 1803+ offer every rung";
    EXPECT_FALSE(s.period_held) << "no timeBeginPeriod outside begin/end_pacing";
    const std::string prim = pacer::system_time_source().sleep_primitive();
    const char* expect = GetParam() == Rung::sleep ? "Sleep" : "waitable timer";
    EXPECT_NE(prim.find(expect), std::string::npos) << prim;
}

TEST_P(Rungs, SleepNeverReturnsBeforeItsDeadline) {
    win::set_preferred_rung(GetParam());
    pacer::TimeSource& ts = pacer::system_time_source();
    for (int paced = 0; paced < 2; ++paced) {
        if (paced) ts.begin_pacing();
        for (std::int64_t d : {std::int64_t{0}, std::int64_t{1}, std::int64_t{50'000},
                               std::int64_t{400'000}, kMs, std::int64_t{1'700'000},
                               3 * kMs}) {
            for (int i = 0; i < 5; ++i) {
                const std::int64_t deadline = pacer::clock::to_ns(ts.now()) + d;
                ts.sleep_until(pacer::clock::from_ns(deadline));
                const std::int64_t woke = pacer::clock::to_ns(ts.now());
                ASSERT_GE(woke, deadline) << "rung " << win::to_string(GetParam()) << ", "
                                          << d << " ns sleep returned early";
            }
        }
        // A deadline in the past returns at once.
        const std::int64_t t0 = pacer::clock::to_ns(ts.now());
        ts.sleep_until(pacer::clock::from_ns(t0 - 5 * kMs));
        EXPECT_LT(pacer::clock::to_ns(ts.now()) - t0, 500 * kMs);
        if (paced) ts.end_pacing();
    }
}

TEST_P(Rungs, TimerResolutionHeldExactlyWhilePacing) {
    win::set_preferred_rung(GetParam());
    const bool needs_period = GetParam() != Rung::hrtimer;
    pacer::TimeSource& ts = pacer::system_time_source();

    ts.begin_pacing();
    ts.begin_pacing();  // nested: one request, not two
    win::ThreadState s = win::thread_state();
    EXPECT_EQ(s.pacing_depth, 2);
    EXPECT_EQ(s.period_held, needs_period);
    EXPECT_EQ(g_begin_calls.load(), needs_period ? 1 : 0);
    ts.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(ts.now()) + kMs));
    ts.end_pacing();
    EXPECT_EQ(win::thread_state().period_held, needs_period) << "released too early";
    EXPECT_EQ(g_end_calls.load(), 0);
    ts.end_pacing();
    s = win::thread_state();
    EXPECT_FALSE(s.period_held);
    EXPECT_EQ(g_end_calls.load(), g_begin_ok.load());
    ts.end_pacing();  // unbalanced end: ignored
    EXPECT_EQ(win::thread_state().pacing_depth, 0);
    EXPECT_EQ(g_end_calls.load(), g_begin_ok.load());
}

TEST_P(Rungs, RealClockPacingAt100Hz) {
    win::set_preferred_rung(GetParam());
    constexpr int kFrames = 50;
    for (pacer::WaitMode mode : {pacer::WaitMode::sleep, pacer::WaitMode::hybrid}) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<pacer::FrameTiming> frames;
        {
            pacer::FramePacer fp({.target_hz = 100.0, .mode = mode});
            for (int i = 0; i < kFrames; ++i) frames.push_back(fp.wait());
            EXPECT_EQ(win::thread_state().period_held, GetParam() != Rung::hrtimer);
        }
        const auto elapsed = std::chrono::steady_clock::now() - t0;
        EXPECT_FALSE(win::thread_state().period_held) << "the pacer's destructor ends pacing";

        const nanoseconds period = frames.back().period;
        EXPECT_EQ(period, milliseconds(10));
        // The first wait() anchors the grid; the other 49 each wait for a later slot.
        EXPECT_GE(elapsed, (kFrames - 1) * period) << pacer::to_string(mode);
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const pacer::FrameTiming& f = frames[i];
            EXPECT_GE(f.wake, f.deadline) << "frame " << i << " woke before its deadline";
            EXPECT_GE(f.lateness.count(), 0);
            if (i > 0) {
                EXPECT_GE(f.wake, frames[i - 1].wake) << "frame " << i;
                EXPECT_GT(f.deadline, frames[i - 1].deadline) << "frame " << i;
            }
        }
        std::printf("[ measure ] rung=%s mode=%s 100 Hz x %d: %.1f ms total, %llu missed (late > 0.5 ms)\n",
                    win::to_string(GetParam()), pacer::to_string(mode), kFrames,
                    std::chrono::duration<double, std::milli>(elapsed).count(),
                    static_cast<unsigned long long>(std::count_if(
                        frames.begin(), frames.end(), [](auto& f) { return f.missed; })));
    }
}

TEST_P(Rungs, MeasureOversleepOf1msSleep) {
    win::set_preferred_rung(GetParam());
    pacer::TimeSource& ts = pacer::system_time_source();
    pacer::PacingScope scope(ts);
    std::vector<double> over_us;
    for (int i = 0; i < 200; ++i) {
        const std::int64_t deadline = pacer::clock::to_ns(ts.now()) + kMs;
        ts.sleep_until(pacer::clock::from_ns(deadline));
        const std::int64_t late = pacer::clock::to_ns(ts.now()) - deadline;
        ASSERT_GE(late, 0);
        over_us.push_back(static_cast<double>(late) / 1e3);
    }
    const double p50 = quantile(over_us, 0.5), p99 = quantile(over_us, 0.99);
    std::printf("[ measure ] rung=%s 1 ms sleep oversleep: median %.0f us, p99 %.0f us, "
                "max %.0f us (n=%zu) via %s\n",
                win::to_string(GetParam()), p50, p99,
                *std::max_element(over_us.begin(), over_us.end()), over_us.size(),
                ts.sleep_primitive());
    RecordProperty("oversleep_median_us", static_cast<int>(p50));
    RecordProperty("oversleep_p99_us", static_cast<int>(p99));
}

INSTANTIATE_TEST_SUITE_P(Ladder, Rungs, ::testing::Values(Rung::hrtimer, Rung::timer, Rung::sleep),
                         rung_name);

// ---- bad input: the ladder falls, says so once, and the loop goes on ------------------------

TEST_F(WindowsPlatform, NoHighResolutionTimerFallsToClassicTimer) {
    LogCapture log;
    const auto before = win::counters();
    g_refuse_hr = true;
    win::set_preferred_rung(Rung::hrtimer);
    pacer::TimeSource& ts = pacer::system_time_source();
    pacer::PacingScope scope(ts);
    const win::ThreadState s = win::thread_state();
    EXPECT_EQ(s.preferred, Rung::hrtimer);
    EXPECT_EQ(s.rung, Rung::timer);
    EXPECT_TRUE(s.period_held) << "the classic timer needs timeBeginPeriod";
    EXPECT_EQ(win::counters().timer_fallbacks, before.timer_fallbacks + 1);
    EXPECT_EQ(log.count("no high-resolution waitable timer"), 1) << log.text();
    const std::int64_t deadline = pacer::clock::to_ns(ts.now()) + 2 * kMs;
    ts.sleep_until(pacer::clock::from_ns(deadline));
    EXPECT_GE(pacer::clock::to_ns(ts.now()), deadline);

    // Again on a re-choice: still works, not logged again.
    win::set_preferred_rung(Rung::hrtimer);
    EXPECT_EQ(win::thread_state().rung, Rung::timer);
    EXPECT_EQ(log.count("no high-resolution waitable timer"), 1) << log.text();
}

TEST_F(WindowsPlatform, NoTimerAtAllFallsToSleep) {
    LogCapture log;
    g_refuse_all_timers = true;
    win::set_preferred_rung(Rung::hrtimer);
    pacer::FramePacer fp({.target_hz = 200.0});
    pacer::FrameTiming prev = fp.wait();
    const win::ThreadState s = win::thread_state();
    EXPECT_EQ(s.rung, Rung::sleep);
    EXPECT_TRUE(s.period_held);
    for (int i = 0; i < 10; ++i) {
        const pacer::FrameTiming f = fp.wait();
        EXPECT_GE(f.wake, f.deadline);
        EXPECT_GE(f.wake, prev.wake);
        prev = f;
    }
    EXPECT_EQ(log.count("falling back to timeBeginPeriod + waitable timer"), 1) << log.text();
    EXPECT_EQ(log.count("falling back to timeBeginPeriod + Sleep"), 1) << log.text();
    EXPECT_NE(std::string(fp.status().waiter.sleep_primitive).find("Sleep"), std::string::npos);
}

TEST_F(WindowsPlatform, TimerFailingMidRunFallsToSleepOnce) {
    LogCapture log;
    win::set_preferred_rung(Rung::hrtimer);
    pacer::TimeSource& ts = pacer::system_time_source();
    pacer::PacingScope scope(ts);
    EXPECT_EQ(win::thread_state().rung, Rung::hrtimer);
    EXPECT_FALSE(win::thread_state().period_held);

    // Sleeps until the timer has been tried (a stalled VM can pass a deadline before the wait
    // starts, and then no timer is set).
    auto sleep_until_fallen = [&] {
        for (int i = 0; i < 50 && win::thread_state().rung != Rung::sleep; ++i) {
            const std::int64_t deadline = pacer::clock::to_ns(ts.now()) + kMs;
            ts.sleep_until(pacer::clock::from_ns(deadline));
            EXPECT_GE(pacer::clock::to_ns(ts.now()), deadline);
        }
    };
    g_fail_set_timer = true;
    sleep_until_fallen();
    win::ThreadState s = win::thread_state();
    EXPECT_EQ(s.rung, Rung::sleep);
    EXPECT_TRUE(s.period_held) << "Sleep needs the resolution request the hrtimer did not";

    // A fresh choice gets a timer that fails again: falls again, logged only the first time.
    win::set_preferred_rung(Rung::timer);
    EXPECT_EQ(win::thread_state().rung, Rung::timer);
    sleep_until_fallen();
    EXPECT_EQ(win::thread_state().rung, Rung::sleep);
    EXPECT_EQ(log.count("waitable timer failed"), 1) << log.text();
}

TEST_F(WindowsPlatform, RefusedResolutionRequestKeepsTheLoopRunning) {
    LogCapture log;
    const auto before = win::counters();
    g_refuse_period = true;
    for (Rung r : {Rung::timer, Rung::sleep}) {
        win::set_preferred_rung(r);
        pacer::FramePacer fp({.target_hz = 200.0});
        pacer::FrameTiming prev = fp.wait();
        EXPECT_EQ(win::thread_state().rung, r) << "the wait primitive itself still works";
        EXPECT_FALSE(win::thread_state().period_held);
        EXPECT_NE(std::string(fp.status().waiter.sleep_primitive).find("refused"),
                  std::string::npos);
        for (int i = 0; i < 10; ++i) {
            const pacer::FrameTiming f = fp.wait();
            EXPECT_GE(f.wake, f.deadline);
            EXPECT_GE(f.wake, prev.wake);
            prev = f;
        }
    }
    EXPECT_EQ(g_end_calls.load(), 0) << "nothing to release after a refusal";
    EXPECT_GE(win::counters().period_refusals, before.period_refusals + 2);
    EXPECT_EQ(log.count("timeBeginPeriod("), 1) << log.text();
}

TEST_F(WindowsPlatform, ChangingRungWhilePacingKeepsRequestsPaired) {
    pacer::TimeSource& ts = pacer::system_time_source();
    win::set_preferred_rung(Rung::timer);
    ts.begin_pacing();
    EXPECT_TRUE(win::thread_state().period_held);
    win::set_preferred_rung(Rung::hrtimer);
    ts.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(ts.now()) + 100'000));  // re-chooses: hrtimer needs no period
    EXPECT_EQ(win::thread_state().rung, Rung::hrtimer);
    EXPECT_FALSE(win::thread_state().period_held);
    EXPECT_EQ(g_end_calls.load(), 1);
    win::set_preferred_rung(Rung::sleep);
    EXPECT_TRUE(win::thread_state().period_held);
    ts.end_pacing();
    EXPECT_FALSE(win::thread_state().period_held);
    EXPECT_EQ(g_begin_ok.load(), 2);
    EXPECT_EQ(g_end_calls.load(), 2);
}

TEST_F(WindowsPlatform, ThreadExitingWhilePacingReleasesItsRequest) {
    win::set_preferred_rung(Rung::sleep);
    std::thread t([] {
        pacer::system_time_source().begin_pacing();  // never ended: the thread just exits
        pacer::system_time_source().sleep_until(pacer::platform::now() + std::chrono::nanoseconds(kMs));
        EXPECT_TRUE(win::thread_state().period_held);
    });
    t.join();
    EXPECT_EQ(g_begin_ok.load(), 1);
    EXPECT_EQ(g_end_calls.load(), 1) << "thread_local destructor did not release the period";
}

TEST_F(WindowsPlatform, PreferenceNamesParse) {
    Rung r = Rung::sleep;
    EXPECT_TRUE(win::parse_rung("hrtimer", &r));
    EXPECT_EQ(r, Rung::hrtimer);
    EXPECT_TRUE(win::parse_rung("timer", &r));
    EXPECT_EQ(r, Rung::timer);
    EXPECT_TRUE(win::parse_rung("sleep", &r));
    EXPECT_EQ(r, Rung::sleep);
    EXPECT_FALSE(win::parse_rung("fast", &r));
    EXPECT_FALSE(win::parse_rung(nullptr, &r));
    EXPECT_EQ(r, Rung::sleep);
}

TEST_F(WindowsPlatform, EnvironmentVariableChoosesTheStartingRung) {
    LogCapture log;
    ASSERT_EQ(_putenv_s("PACER_WIN_SLEEP", "timer"), 0);
    win::reset_preferred_rung();
    EXPECT_EQ(win::preferred_rung(), Rung::timer);
    EXPECT_EQ(win::thread_state().rung, Rung::timer);
    ASSERT_EQ(_putenv_s("PACER_WIN_SLEEP", "sleep"), 0);
    win::reset_preferred_rung();
    EXPECT_EQ(win::thread_state().rung, Rung::sleep);
    ASSERT_EQ(_putenv_s("PACER_WIN_SLEEP", "fastest"), 0);  // not a rung: logged, ignored
    win::reset_preferred_rung();
    EXPECT_EQ(win::preferred_rung(), Rung::hrtimer);
    EXPECT_EQ(log.count("PACER_WIN_SLEEP=fastest"), 1) << log.text();
    ASSERT_EQ(_putenv_s("PACER_WIN_SLEEP", ""), 0);  // removes it
    win::reset_preferred_rung();
    EXPECT_EQ(win::preferred_rung(), Rung::hrtimer);
}

// ---- thread priority (pacer/priority.hpp) ---------------------------------------------------

int thread_priority() { return GetThreadPriority(GetCurrentThread()); }

// The real OS, no hooks: each starting priority comes back after a wait mode raise, and the
// raise itself is THREAD_PRIORITY_TIME_CRITICAL without MMCSS.
TEST_F(WindowsPlatform, PriorityWaitModeRaisesForTheSleepAndPutsBack) {
    win::set_os_hooks(nullptr);
    const pacer::PriorityConfig c{pacer::ThreadPriority::wait};
    for (int own : {THREAD_PRIORITY_NORMAL, THREAD_PRIORITY_BELOW_NORMAL, THREAD_PRIORITY_ABOVE_NORMAL}) {
        ASSERT_TRUE(SetThreadPriority(GetCurrentThread(), own));
        ASSERT_EQ(thread_priority(), own);
        const pacer::PriorityGrant g = pacer::platform::raise_priority(c, milliseconds(7));
        ASSERT_TRUE(g.granted) << g.reason;
        EXPECT_EQ(thread_priority(), THREAD_PRIORITY_TIME_CRITICAL);
        EXPECT_STREQ(g.in_force, "THREAD_PRIORITY_TIME_CRITICAL");
        EXPECT_STREQ(g.reason, "");
        EXPECT_EQ(g.saved[1], 0) << "no MMCSS for a wait mode raise";
        pacer::platform::restore_priority(g);
        EXPECT_EQ(thread_priority(), own) << "own priority " << own;
    }
    ASSERT_TRUE(SetThreadPriority(GetCurrentThread(), own_priority_));

    // Through the TimeSource seam, and as many times as a waiter does (one per OS sleep).
    pacer::TimeSource& ts = pacer::system_time_source();
    for (int i = 0; i < 100; ++i) {
        const pacer::PriorityGrant g = ts.raise_priority(c, milliseconds(1));
        ASSERT_TRUE(g.granted) << g.reason;
        ASSERT_EQ(thread_priority(), THREAD_PRIORITY_TIME_CRITICAL);
        ts.restore_priority(g);
        ASSERT_EQ(thread_priority(), own_priority_);
    }
}

// The real OS, no hooks: the backend loads avrt.dll itself. Wine ships an avrt.dll whose MMCSS
// calls are stubs that succeed; a Windows without it still gets the priority.
TEST_F(WindowsPlatform, PriorityThreadModeJoinsMmcssAndLeavesIt) {
    LogCapture log;
    win::set_os_hooks(nullptr);
    const bool have_avrt = test_avrt().join != nullptr;
    const pacer::PriorityGrant g =
        pacer::platform::raise_priority({pacer::ThreadPriority::thread}, milliseconds(16));
    ASSERT_TRUE(g.granted) << g.reason;
    EXPECT_EQ(thread_priority(), THREAD_PRIORITY_TIME_CRITICAL);
    if (have_avrt) {
        EXPECT_STREQ(g.in_force, "MMCSS Games, THREAD_PRIORITY_TIME_CRITICAL");
        EXPECT_NE(g.saved[1], 0) << "the MMCSS handle is kept for the restore";
    } else {
        EXPECT_STREQ(g.in_force, "THREAD_PRIORITY_TIME_CRITICAL (no MMCSS)");
        EXPECT_EQ(log.count("MMCSS unavailable"), 1) << log.text();
    }
    std::printf("[ measure ] thread mode under this OS: %s (avrt.dll %s)\n", g.in_force,
                have_avrt ? "loaded" : "missing");
    pacer::platform::restore_priority(g);
    EXPECT_EQ(thread_priority(), own_priority_);

    // probe_priority(): the same raise, already put back when it returns.
    const pacer::PriorityGrant p = pacer::probe_priority({pacer::ThreadPriority::thread});
    EXPECT_TRUE(p.granted) << p.reason;
    EXPECT_STREQ(p.in_force, g.in_force);
    EXPECT_EQ(thread_priority(), own_priority_);
}

// The MMCSS handle taken is the one given back, once, and only in thread mode.
TEST_F(WindowsPlatform, PriorityThreadModeRevertsTheMmcssHandleItTook) {
    if (!test_avrt().join) GTEST_SKIP() << "no avrt.dll here";
    const pacer::PriorityGrant w = pacer::platform::raise_priority({pacer::ThreadPriority::wait}, milliseconds(5));
    ASSERT_TRUE(w.granted) << w.reason;
    pacer::platform::restore_priority(w);
    EXPECT_EQ(g_mmcss_joins.load(), 0) << "wait mode never joins MMCSS";
    EXPECT_EQ(g_mmcss_leaves.load(), 0);
    EXPECT_EQ(g_priority_sets.load(), 2);

    const pacer::PriorityGrant g = pacer::platform::raise_priority({pacer::ThreadPriority::thread}, milliseconds(5));
    ASSERT_TRUE(g.granted) << g.reason;
    EXPECT_EQ(g_mmcss_joins.load(), 1);
    ASSERT_NE(g_mmcss_joined.load(), nullptr);
    EXPECT_EQ(thread_priority(), THREAD_PRIORITY_TIME_CRITICAL);
    pacer::platform::restore_priority(g);
    EXPECT_EQ(g_mmcss_leaves.load(), 1);
    EXPECT_EQ(g_mmcss_left.load(), g_mmcss_joined.load());
    EXPECT_EQ(g_priority_sets.load(), 4);
    EXPECT_EQ(thread_priority(), own_priority_);
}

// The weight (high, automatic): THREAD_PRIORITY_HIGHEST, no MMCSS, the old priority back; a
// thread at HIGHEST or above already is kept (no call either way); a refusal says why.
TEST_F(WindowsPlatform, PriorityWeightIsHighestAndPutBack) {
    for (pacer::ThreadPriority mode : {pacer::ThreadPriority::high, pacer::ThreadPriority::automatic}) {
        g_priority_sets = 0;
        const pacer::PriorityGrant g = pacer::platform::raise_priority({mode}, milliseconds(7));
        ASSERT_TRUE(g.granted) << g.reason;  // Wine's processes may run on every CPU of the host
        EXPECT_STREQ(g.in_force, "THREAD_PRIORITY_HIGHEST");
        EXPECT_EQ(thread_priority(), THREAD_PRIORITY_HIGHEST);
        EXPECT_EQ(g_mmcss_joins.load(), 0) << "the weight never joins MMCSS";
        pacer::platform::restore_priority(g);
        EXPECT_EQ(thread_priority(), own_priority_);
        EXPECT_EQ(g_priority_sets.load(), 2) << "one call up, one down";
    }
    ASSERT_TRUE(SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL));
    g_priority_sets = 0;
    const pacer::PriorityGrant kept = pacer::platform::raise_priority({pacer::ThreadPriority::automatic}, milliseconds(7));
    EXPECT_TRUE(kept.granted);
    EXPECT_NE(std::string(kept.in_force).find("the thread's own, kept"), std::string::npos) << kept.in_force;
    pacer::platform::restore_priority(kept);
    EXPECT_EQ(g_priority_sets.load(), 0);
    EXPECT_EQ(thread_priority(), THREAD_PRIORITY_TIME_CRITICAL);
    ASSERT_TRUE(SetThreadPriority(GetCurrentThread(), own_priority_));

    g_refuse_priority = true;
    const pacer::PriorityGrant no = pacer::platform::raise_priority({pacer::ThreadPriority::high}, milliseconds(7));
    EXPECT_FALSE(no.granted);
    EXPECT_EQ(std::string(no.reason).rfind("THREAD_PRIORITY_HIGHEST refused: ", 0), 0u) << no.reason;
    g_refuse_priority = false;
}

// A refused SetThreadPriority: not granted, the OS's reason, nothing changed, and a restore of
// that grant touches nothing (no SetThreadPriority, no MMCSS).
TEST_F(WindowsPlatform, PriorityRefusedLeavesTheThreadAsItWas) {
    g_refuse_priority = true;
    for (pacer::ThreadPriority mode : {pacer::ThreadPriority::wait, pacer::ThreadPriority::thread}) {
        g_priority_sets = 0;
        const pacer::PriorityGrant g = pacer::platform::raise_priority({mode}, milliseconds(10));
        EXPECT_FALSE(g.granted);
        EXPECT_EQ(std::string(g.reason).rfind("THREAD_PRIORITY_TIME_CRITICAL refused: ", 0), 0u) << g.reason;
        EXPECT_NE(std::string(g.reason).find("(error 5)"), std::string::npos) << g.reason;
        EXPECT_STREQ(g.in_force, "normal");
        EXPECT_EQ(g_priority_sets.load(), 1);
        EXPECT_EQ(g_mmcss_joins.load(), 0) << "nothing joined for a refused raise";
        EXPECT_EQ(thread_priority(), own_priority_);
        std::printf("[ measure ] refused raise (%s): %s\n", pacer::to_string(mode), g.reason);

        g_refuse_priority = false;  // a restore of it would now succeed, if it tried
        pacer::platform::restore_priority(g);
        EXPECT_EQ(g_priority_sets.load(), 1) << "restore of a refused grant calls nothing";
        EXPECT_EQ(g_mmcss_leaves.load(), 0);
        EXPECT_EQ(thread_priority(), own_priority_);
        g_refuse_priority = true;
    }
}

// MMCSS refused: thread mode still gets THREAD_PRIORITY_TIME_CRITICAL, says so, logs why once,
// and leaves nothing to revert.
TEST_F(WindowsPlatform, PriorityWithoutMmcssStillRaisesTheThread) {
    LogCapture log;
    g_refuse_mmcss = true;
    for (int i = 0; i < 2; ++i) {
        const pacer::PriorityGrant g = pacer::platform::raise_priority({pacer::ThreadPriority::thread}, milliseconds(10));
        ASSERT_TRUE(g.granted) << g.reason;
        EXPECT_STREQ(g.in_force, "THREAD_PRIORITY_TIME_CRITICAL (no MMCSS)");
        EXPECT_EQ(g.saved[1], 0);
        EXPECT_EQ(thread_priority(), THREAD_PRIORITY_TIME_CRITICAL);
        pacer::platform::restore_priority(g);
        EXPECT_EQ(g_mmcss_leaves.load(), 0);
        EXPECT_EQ(thread_priority(), own_priority_);
    }
    EXPECT_EQ(g_mmcss_joins.load(), 2);
    EXPECT_EQ(log.count("MMCSS unavailable (AvSetMmThreadCharacteristicsW failed: "), 1) << log.text();
}

// The waiter on top: wait mode is raised only while it sleeps, thread mode until the pacer ends.
TEST_F(WindowsPlatform, PriorityThroughFramePacer) {
    for (pacer::ThreadPriority mode : {pacer::ThreadPriority::wait, pacer::ThreadPriority::thread}) {
        g_priority_sets = 0;
        {
            pacer::PacerConfig c{.target_hz = 100.0, .mode = pacer::WaitMode::hybrid};
            c.waiter.priority.mode = mode;
            pacer::FramePacer fp(c);
            fp.wait();  // the first wait() anchors the grid: nothing waited, nothing raised yet
            for (int i = 1; i < 10; ++i) {
                fp.wait();
                EXPECT_EQ(thread_priority(),
                          mode == pacer::ThreadPriority::thread ? THREAD_PRIORITY_TIME_CRITICAL : own_priority_)
                    << pacer::to_string(mode) << ", frame " << i;
            }
            const pacer::PriorityStatus& p = fp.status().waiter.priority;
            EXPECT_EQ(p.asked, mode);
            EXPECT_TRUE(p.granted) << p.reason;
            EXPECT_FALSE(p.refused);
            EXPECT_GE(p.raises, 1u);
            EXPECT_NE(std::string(p.in_force).find("THREAD_PRIORITY_TIME_CRITICAL"), std::string::npos) << p.in_force;
            std::printf("[ measure ] FramePacer priority=%s: %s, %llu raises, %d SetThreadPriority calls\n",
                        pacer::to_string(mode), p.in_force, static_cast<unsigned long long>(p.raises),
                        g_priority_sets.load());
        }
        EXPECT_EQ(thread_priority(), own_priority_) << "the pacer's end puts the thread back";
        EXPECT_EQ(g_mmcss_joins.load(), g_mmcss_leaves.load());
    }
}

// ---- clock and CPU time ---------------------------------------------------------------------

TEST_F(WindowsPlatform, ClockIsMonotonic) {
    // steady_clock time points reach pacer through pacer::clock::from_steady() (tested in
    // real_clock_test), so the two clocks need not share an epoch; the platform clock must never
    // go back.
    std::int64_t last = pacer::clock::to_ns(pacer::platform::now());
    for (int i = 0; i < 100000; ++i) {
        const std::int64_t n = pacer::clock::to_ns(pacer::platform::now());
        ASSERT_GE(n, last);
        last = n;
    }
}

TEST_F(WindowsPlatform, CpuTimesGrowWhenSpinning) {
    const pacer::CpuTimes c0 = pacer::platform::cpu_times();
    ASSERT_GE(c0.process.count(), 0);
    ASSERT_GE(c0.thread.count(), 0);
    const std::int64_t end = pacer::clock::to_ns(pacer::platform::now()) + 100 * kMs;
    while (pacer::clock::to_ns(pacer::platform::now()) < end) pacer::platform::relax();
    const pacer::CpuTimes c1 = pacer::platform::cpu_times();
    EXPECT_GE(c1.process.count(), c0.process.count());
    EXPECT_GE(c1.thread.count(), c0.thread.count());
    // 100 ms of spinning shows up even at a 15.6 ms accounting tick and on a loaded VM.
    EXPECT_GT(c1.thread.count() - c0.thread.count(), 10 * kMs);
}

}  // namespace
