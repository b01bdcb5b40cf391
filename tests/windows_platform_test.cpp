// Windows backend (pacer/src/platform/windows): every rung of the sleep ladder, forced in turn,
// through the real Windows primitives; the fallbacks when a timer or a resolution request is
// refused, through the OS-call hooks; timeBeginPeriod/timeEndPeriod pairing.
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

const win::OsHooks kCountingHooks{hook_create_timer, hook_set_timer, hook_begin_period,
                                  hook_end_period};

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
        win::set_os_hooks(&kCountingHooks);
    }
    void TearDown() override {
        EXPECT_EQ(win::thread_state().pacing_depth, 0) << "test left the thread pacing";
        win::set_os_hooks(nullptr);
        win::reset_preferred_rung();
        g_refuse_hr = g_refuse_all_timers = g_fail_set_timer = g_refuse_period = false;
        // Every successful timeBeginPeriod of the test was released.
        EXPECT_EQ(g_begin_ok.load(), g_end_calls.load());
        const win::Counters c = win::counters();
        EXPECT_EQ(c.period_begins, c.period_ends);
    }
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
