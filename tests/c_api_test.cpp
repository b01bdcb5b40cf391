// The C API (pacer/pacer.h). On the real OS clock, as a C program uses it, only what holds on a
// loaded 2-core VM is asserted (order, never early, the error codes and texts), plus that no
// input, a NULL pointer included, crashes it or lets an exception out. Pacing through C is tested
// in virtual time with a C pacer on a SimulatedOs (pacer::capi::create, the library's internal
// entry point): run-time changes, the waiter's settings, and that captures and statistics from C
// are exactly the C++ ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "c_api/c_api_internal.hpp"  // pacer::capi::create: a C pacer on a SimulatedOs
#include "pacer/pacer.h"
#include "pacer/pacer.hpp"
#include "present_thread.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;

namespace {

struct Logged {
    std::vector<std::pair<int, std::string>> lines;
    static void collect(int level, const char* message, void* user) {
        static_cast<Logged*>(user)->lines.emplace_back(level, message);
    }
};

// Routes pacer's log into a Logged while in scope, and restores the defaults after.
struct CLogCapture {
    Logged logged;
    CLogCapture() {
        EXPECT_EQ(pacer_set_log_function(Logged::collect, &logged), PACER_OK);
        EXPECT_EQ(pacer_set_log_level(PACER_LOG_DEBUG), PACER_OK);
    }
    ~CLogCapture() {
        EXPECT_EQ(pacer_set_log_function(pacer_log_to_stderr, nullptr), PACER_OK);
        EXPECT_EQ(pacer_set_log_level(PACER_LOG_WARN), PACER_OK);
    }
};

pacer_config config_at(double hz) {
    pacer_config c = pacer_config_default();
    c.target_hz = hz;
    return c;
}

TEST(CApi, DefaultsAreTheCppDefaults) {
    const pacer_config c = pacer_config_default();
    EXPECT_EQ(c.target_hz, 60.0);
    EXPECT_EQ(c.mode, PACER_MODE_HYBRID);
    EXPECT_EQ(c.late_policy, PACER_LATE_CATCH_UP);
    EXPECT_EQ(c.max_catch_up, 1);
    EXPECT_EQ(c.miss_tolerance_ns, 500'000);
    EXPECT_EQ(c.background_hz, 10.0);
    EXPECT_EQ(c.sync, PACER_SYNC_FRAME_START);
    EXPECT_EQ(c.max_late_share, 0.01);
    pacer_frame_pacer* p = pacer_create(nullptr);  // NULL config: the defaults
    ASSERT_NE(p, nullptr);
    pacer_frame_timing t;
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.period_ns, 16'666'667);
    pacer_destroy(p);
}

TEST(CApi, WaitsInOrderAndNeverEarly) {
    const pacer_config c = config_at(200.0);
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    pacer_frame_timing prev{}, t{};
    const std::int64_t start = pacer_now_ns();
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
        EXPECT_GE(t.wake_ns, t.deadline_ns);
        EXPECT_GE(t.wake_ns, start);
        EXPECT_LE(t.wake_ns, pacer_now_ns());
        EXPECT_EQ(t.lateness_ns, t.wake_ns - t.deadline_ns);
        EXPECT_EQ(t.period_ns, 5'000'000);
        EXPECT_EQ(t.mode, PACER_MODE_HYBRID);
        EXPECT_GE(t.slept_ns, 0);
        EXPECT_GE(t.spun_ns, 0);
        if (i == 0) {
            EXPECT_EQ(t.interval_ns, 0);
        } else {
            EXPECT_GT(t.index, prev.index);
            EXPECT_EQ(t.interval_ns, t.wake_ns - prev.wake_ns);
            EXPECT_GE(t.work_ns, 0);
            // Deadlines sit on the grid: a whole number of periods apart (fixed point, +-1 ns).
            const std::int64_t slots = static_cast<std::int64_t>(t.index - prev.index);
            EXPECT_NEAR(static_cast<double>(t.deadline_ns - prev.deadline_ns), 5e6 * static_cast<double>(slots), 1.0);
            EXPECT_EQ(t.skipped + 1, slots);
        }
        prev = t;
    }
    ASSERT_EQ(pacer_wait(p, nullptr), PACER_OK);  // the timing is optional
    pacer_destroy(p);
}

// pacer_create(config with one field changed by set) returns NULL and says message.
template <class Set>
void expect_refused(Set set, const char* message) {
    pacer_config config = pacer_config_default();
    set(config);
    EXPECT_EQ(pacer_create(&config), nullptr);
    EXPECT_STREQ(pacer_last_error(), message);
}

// The C API's two-thread loop: the pacing thread waits; a render thread presents the frame it
// was handed with pacer_before_present_frame and pacer_report_present (present.frame), and the
// figures come back named by frame.
TEST(CApi, TwoThreadLoopReportsFramesInFlight) {
    pacer_config c = pacer_config_default();
    c.target_hz = 500.0;
    c.mode = PACER_MODE_SLEEP;
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    pacer_test::PresentThread render([p](std::uint64_t f) {
        pacer_before_present_frame(p, f);
        pacer_present present = {};
        present.begin_ns = pacer_now_ns();
        present.end_ns = pacer_now_ns();
        present.ok = 1;
        present.frame = f;
        pacer_report_present(p, &present);
    });
    int named = 0;
    for (int i = 0; i < 200; ++i) {
        pacer_frame_timing t;
        ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
        EXPECT_EQ(t.frame, static_cast<std::uint64_t>(i + 1));
        if (t.latency_frame != 0) {
            ++named;
            EXPECT_LT(t.latency_frame, t.frame);
        }
        render.hand(t.frame);
    }
    render.stop();
    pacer_status s;
    ASSERT_EQ(pacer_get_status(p, &s), PACER_OK);
    EXPECT_EQ(s.reports_lost, 0u);
    EXPECT_GE(s.frames_in_flight, 0);
    EXPECT_LE(s.frames_in_flight, 3);
    EXPECT_GT(named, 0);
    pacer_destroy(p);
}

TEST(CApi, CreateRefusesBadConfigsWithTheMessage) {
    const char* const hz_range = ": must be a finite number in (0, 10000]";
    expect_refused([](pacer_config& c) { c.target_hz = std::nan(""); }, (std::string("target_hz = nan") + hz_range).c_str());
    expect_refused([](pacer_config& c) { c.target_hz = 0.0; }, (std::string("target_hz = 0") + hz_range).c_str());
    expect_refused([](pacer_config& c) { c.target_hz = 1e9; }, (std::string("target_hz = 1e+09") + hz_range).c_str());
    expect_refused([](pacer_config& c) { c.target_hz = -std::numeric_limits<double>::infinity(); },
                   (std::string("target_hz = -inf") + hz_range).c_str());
    expect_refused([](pacer_config& c) { c.mode = 9; }, "mode = 9: not a WaitMode");
    expect_refused([](pacer_config& c) { c.late_policy = -1; }, "late_policy = -1: not a LatePolicy");
    expect_refused([](pacer_config& c) { c.max_catch_up = 1001; }, "max_catch_up = 1001: must be in [0, 1000] frames");
    expect_refused([](pacer_config& c) { c.miss_tolerance_ns = -1; }, "miss_tolerance = -1 ns: must be in [0, 1e9] ns");
    expect_refused([](pacer_config& c) { c.background_hz = 0; }, "background_hz = 0: must be a finite number in (0, 10000]");
    expect_refused([](pacer_config& c) { c.sync = 3; }, "sync = 3: not a SyncMode");
    expect_refused([](pacer_config& c) { c.max_late_share = 0.6; }, "max_late_share = 0.6: must be in [0.001, 0.5]");
    expect_refused([](pacer_config& c) { c.cadence = 2; }, "cadence = 2: not a CadenceMode");
}

// The cadence fields on the real clock: fixed cadence is divisor 1 at the target; the display
// delta's sum stays within half the scheduled interval of the wake intervals' (no display known).
TEST(CApi, CadenceAndDisplayDeltaFields) {
    pacer_config c = pacer_config_default();
    EXPECT_EQ(c.cadence, PACER_CADENCE_FIXED);
    c.target_hz = 200.0;
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    pacer_frame_timing t;
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.display_dt_ns, 0);  // the first frame
    std::int64_t wall = 0, sum = 0, max_late = std::max<std::int64_t>(0, t.lateness_ns);
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
        EXPECT_EQ(t.cadence, 1u);
        EXPECT_EQ(t.cadence_hz, 200.0);
        // 0 is a delta too: the sum is slewed to the wall clock, and a loaded machine's late
        // wake-ups leave it ahead (beside two busy loops and three other tests: 2 of 20).
        EXPECT_GE(t.display_dt_ns, 0) << i;
        wall += t.interval_ns;
        sum += t.display_dt_ns;
        max_late = std::max(max_late, t.lateness_ns);
    }
    // The deltas follow the grid (20 x 5 ms), the wall clock the wake-ups: they part by the
    // wake-ups' lateness (a loaded machine wakes a thread milliseconds late, and a late frame's
    // successor is due at once) and by the slots a late frame made the grid skip.
    EXPECT_LE(std::llabs(wall - sum), 2 * 5'000'000 + 2 * max_late) << "wall " << wall << " sum " << sum;
    EXPECT_GE(sum, 10 * 5'000'000) << "the deltas reach C";
    pacer_destroy(p);
    c.cadence = PACER_CADENCE_AUTO;
    p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_GE(t.cadence, 1u);
    EXPECT_GT(t.cadence_hz, 0.0);
    pacer_destroy(p);
}

// The display through C: vblanks the host saw, the fit, its status; defaults; NULL arguments.
TEST(CApi, DisplayLockSettingsVblanksAndStatus) {
    pacer_config c = pacer_config_default();
    EXPECT_EQ(c.display_lock, 1);
    EXPECT_EQ(c.match_display, 0);
    c.match_display = 1;
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    pacer_status status;
    ASSERT_EQ(pacer_get_status(p, &status), PACER_OK);
    EXPECT_EQ(status.display.state, PACER_DISPLAY_UNKNOWN);
    // 40 vblanks of a 59.94 Hz display, one report lost.
    const std::int64_t t0 = 1'000'000'000, period = 16'683'350;
    for (std::int64_t k = 0; k < 40; ++k)
        if (k != 17) {
            ASSERT_EQ(pacer_report_vblank(p, t0 + k * period), PACER_OK);
        }
    ASSERT_EQ(pacer_get_status(p, &status), PACER_OK);
    const pacer_display_status& s = status.display;
    EXPECT_EQ(s.state, PACER_DISPLAY_LOCKED) << s.reason;
    EXPECT_NEAR(s.refresh_hz, 1e9 / period, 1e-3);
    EXPECT_NEAR(static_cast<double>(s.period_ns), static_cast<double>(period), 1.0);
    EXPECT_EQ((s.vblank_ns - t0) % period, 0) << s.vblank_ns;
    EXPECT_EQ(s.vblanks, 39u);
    EXPECT_EQ(s.locks, 1u);
    ASSERT_NE(s.reason, nullptr);
    EXPECT_GT(std::strlen(s.reason), 0u);
    EXPECT_EQ(pacer_get_status(p, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_get_status: out is NULL");
    pacer_destroy(p);
    EXPECT_EQ(pacer_report_vblank(nullptr, 0), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_get_status(nullptr, &status), PACER_ERROR_INVALID_ARGUMENT);
}

TEST(CApi, SyncModesMarkersAndLatency) {
    pacer_config c = config_at(200.0);
    c.mode = PACER_MODE_SLEEP;
    c.sync = PACER_SYNC_PRESENT;
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    pacer_frame_timing t;
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.sync, PACER_SYNC_PRESENT);
    const std::int64_t start = t.wake_ns;
    ASSERT_EQ(pacer_mark_input(p), PACER_OK);
    const std::int64_t input_after = pacer_now_ns();
    ASSERT_EQ(pacer_before_present(p), PACER_OK);  // present sync: waits for the 5 ms deadline
    const std::int64_t after_wait = pacer_now_ns();
    EXPECT_GE(after_wait, start + 5'000'000);
    pacer_present present{};
    present.begin_ns = after_wait;
    present.end_ns = pacer_now_ns();
    present.swap_interval = 0;
    present.ok = 1;
    present.displayed_ns = present.end_ns + 3'000'000;  // shown 3 ms after the call returned
    ASSERT_EQ(pacer_report_present(p, &present), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.latency_measured, 1);
    // input (between start and input_after) -> displayed
    EXPECT_GE(t.latency_ns, present.displayed_ns - input_after);
    EXPECT_LE(t.latency_ns, present.displayed_ns - start);
    EXPECT_GE(t.input_to_present_ns, present.begin_ns - input_after);
    EXPECT_LE(t.input_to_present_ns, present.begin_ns - start);
    EXPECT_EQ(pacer_set_sync(p, PACER_SYNC_JUST_IN_TIME), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.sync, PACER_SYNC_JUST_IN_TIME);
    EXPECT_EQ(pacer_set_sync(p, 5), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "sync = 5: not a SyncMode");
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.sync, PACER_SYNC_JUST_IN_TIME);  // the refused value changed nothing
    pacer_destroy(p);
}

TEST(CApi, LastErrorIsPerThread) {
    const pacer_config bad = config_at(0.0);
    EXPECT_EQ(pacer_create(&bad), nullptr);
    std::string other = "unset";
    std::thread([&] { other = pacer_last_error(); }).join();
    EXPECT_EQ(other, "");  // nothing failed on that thread
    EXPECT_STREQ(pacer_last_error(), "target_hz = 0: must be a finite number in (0, 10000]");
}

TEST(CApi, RefusedSettersKeepTheSettingsAndSayWhy) {
    CLogCapture log;
    const pacer_config c = config_at(200.0);
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(pacer_set_target_hz(p, std::nan("")), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "target_hz = nan: must be a finite number in (0, 10000]");
    EXPECT_EQ(pacer_set_mode(p, 5), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "mode = 5: not a WaitMode");
    EXPECT_EQ(pacer_set_late_policy(p, 3, 1), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_late_policy(p, PACER_LATE_SKIP, -1), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "max_catch_up = -1: must be in [0, 1000] frames");
    pacer_frame_timing t;
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.period_ns, 5'000'000);
    EXPECT_EQ(t.mode, PACER_MODE_HYBRID);
    // Each refusal is a warning in the log, through the C callback.
    int warnings = 0;
    for (const auto& [level, message] : log.logged.lines)
        warnings += level == PACER_LOG_WARN && message.find("setting refused") != std::string::npos;
    EXPECT_EQ(warnings, 4);

    EXPECT_EQ(pacer_set_target_hz(p, 250.0), PACER_OK);
    EXPECT_EQ(pacer_set_mode(p, PACER_MODE_SPIN), PACER_OK);
    EXPECT_EQ(pacer_set_late_policy(p, PACER_LATE_RESYNC, 0), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.period_ns, 4'000'000);
    EXPECT_EQ(t.mode, PACER_MODE_SPIN);
    EXPECT_EQ(t.source, PACER_SOURCE_SPIN);
    EXPECT_EQ(t.slept_ns, 0);
    EXPECT_EQ(t.background, 0);
    // The background cap: 10 Hz, OS sleep, the spin mode set above notwithstanding.
    EXPECT_EQ(pacer_set_background(p, 1), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.background, 1);
    EXPECT_EQ(t.period_ns, 100'000'000);
    EXPECT_EQ(t.source, PACER_SOURCE_SLEEP);
    EXPECT_EQ(t.spun_ns, 0);
    EXPECT_EQ(pacer_set_background(p, 0), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(t.background, 0);
    EXPECT_EQ(t.period_ns, 4'000'000);
    pacer_destroy(p);
}

TEST(CApi, PresentsReachTheVsyncDecision) {
    pacer_config c = config_at(60.0);
    c.mode = PACER_MODE_AUTO;
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(pacer_desired_swap_interval(p), 0);  // auto: no present has reported the display yet
    pacer_frame_timing t;
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    pacer_present present{};
    present.begin_ns = pacer_now_ns();
    present.end_ns = pacer_now_ns();
    present.swap_interval = 0;
    present.refresh_hz = 60.0;
    present.ok = 1;
    EXPECT_EQ(pacer_report_present(p, &present), PACER_OK);
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    EXPECT_EQ(pacer_desired_swap_interval(p), 1);  // a 60 Hz display serves 60 Hz: vsync probed
    EXPECT_EQ(pacer_report_present(p, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_report_present: the present is NULL");
    pacer_destroy(p);
}

TEST(CApi, NullPacerIsRefusedEverywhere) {
    pacer_frame_timing t;
    t.index = 7;
    EXPECT_EQ(pacer_wait(nullptr, &t), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(t.index, 0u);  // zeroed
    EXPECT_STREQ(pacer_last_error(), "pacer_wait: the pacer is NULL");
    EXPECT_EQ(pacer_wait(nullptr, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_target_hz(nullptr, 60.0), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_set_target_hz: the pacer is NULL");
    EXPECT_EQ(pacer_set_mode(nullptr, PACER_MODE_SLEEP), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_late_policy(nullptr, PACER_LATE_SKIP, 0), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_background(nullptr, 1), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_sync(nullptr, PACER_SYNC_PRESENT), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_mark_input(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_mark_input: the pacer is NULL");
    EXPECT_EQ(pacer_before_present(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    const pacer_present present{};
    EXPECT_EQ(pacer_report_present(nullptr, &present), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_report_present(nullptr, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_LT(pacer_desired_swap_interval(nullptr), 0);
    EXPECT_STREQ(pacer_last_error(), "pacer_desired_swap_interval: the pacer is NULL");
    pacer_config config = pacer_config_default();
    EXPECT_EQ(pacer_get_config(nullptr, &config), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_config(nullptr, &config), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_set_config: the pacer is NULL");
    EXPECT_EQ(pacer_reset(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_end_pacing(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    pacer_status status;
    EXPECT_EQ(pacer_get_status(nullptr, &status), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_get_status: the pacer is NULL");
    pacer_destroy(nullptr);
}

TEST(CApi, OddPresentsAndTimesDoNotCrash) {
    CLogCapture log;  // the failed present's warning
    const pacer_config c = config_at(1000.0);
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr);
    // Presents that end before they begin, far from now, with absurd refresh rates. (Not at the
    // int64 limits: time differences there overflow, in the C++ API as well.)
    const std::int64_t now = pacer_now_ns();
    const std::int64_t day = 86'400'000'000'000;
    const pacer_present odd[] = {
        {now + day, now - day, -5, std::nan(""), 0, now, 0, 0, 0, 0, 0, 0},
        {-day, 0, 1000, -1.0, 1, -2 * day, 0, 0, 0, 0, 0, 0},  // displayed before the call: ignored
        {now, now, 1, std::numeric_limits<double>::infinity(), 1, now + day, 0, 0, 0, 0, 0, 0},  // a day later
        {now, now, 1, 60.0, 1, 0, 7, 99, ~0ULL, 5, ~0U, 0},  // an outcome out of range: unknown; every flag
        {now, now, 1, 60.0, 1, 0, 7, -1, 3, 1, 0, 0},      // feedback for id 7, outcome out of range
    };
    for (const pacer_present& present : odd) {
        EXPECT_EQ(pacer_report_present(p, &present), PACER_OK);
        pacer_frame_timing t;
        EXPECT_EQ(pacer_wait(p, &t), PACER_OK);
        EXPECT_GE(t.wake_ns, t.deadline_ns);
        EXPECT_EQ(t.latency_measured, 0);
        EXPECT_GE(t.latency_ns, 0);
    }
    pacer_destroy(p);
    const std::int64_t small = std::numeric_limits<std::int64_t>::min();
    EXPECT_EQ(pacer_sleep_until_ns(small), 0);  // long past: returns at once, on time
    EXPECT_EQ(pacer_sleep_for_ns(-1'000'000), 0);
    EXPECT_EQ(pacer_sleep_for_ns(small), 0);
}

TEST(CApi, SleepsNeverReturnEarly) {
    for (std::int64_t d : {0LL, 1LL, 50'000LL, 1'000'000LL, 3'000'000LL}) {
        const std::int64_t t0 = pacer_now_ns();
        const std::int64_t late = pacer_sleep_for_ns(d);
        const std::int64_t took = pacer_now_ns() - t0;
        EXPECT_GE(late, 0);
        EXPECT_GE(took, d);
        EXPECT_LT(took, d + 2'000'000'000) << "a loaded VM may be slow, but not this slow";
    }
    const std::int64_t deadline = pacer_now_ns() + 2'000'000;
    EXPECT_GE(pacer_sleep_until_ns(deadline), 0);
    EXPECT_GE(pacer_now_ns(), deadline);
}

TEST(CApi, LogRouting) {
    {
        CLogCapture log;
        EXPECT_EQ(pacer_log_level(), PACER_LOG_DEBUG);
        const pacer_config c = config_at(123.0);
        pacer_frame_pacer* p = pacer_create(&c);  // "pacing at 123 Hz ..." at info level
        ASSERT_NE(p, nullptr);
        pacer_destroy(p);
        ASSERT_FALSE(log.logged.lines.empty());
        EXPECT_EQ(log.logged.lines.front().first, PACER_LOG_INFO);
        EXPECT_NE(log.logged.lines.front().second.find("123"), std::string::npos);
    }
    EXPECT_EQ(pacer_log_level(), PACER_LOG_WARN);
    EXPECT_EQ(pacer_set_log_level(PACER_LOG_OFF + 1), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_set_log_level(-1), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_log_level(), PACER_LOG_WARN);
    // Silence, then a new sink replaces the previous one (each one freed once: ASan's business).
    Logged a, b;
    EXPECT_EQ(pacer_set_log_function(nullptr, nullptr), PACER_OK);
    EXPECT_EQ(pacer_set_log_function(Logged::collect, &a), PACER_OK);
    EXPECT_EQ(pacer_set_log_function(Logged::collect, &b), PACER_OK);
    pacer_frame_pacer* p = pacer_create(nullptr);
    EXPECT_EQ(pacer_set_target_hz(p, 0.0), PACER_ERROR_INVALID_ARGUMENT);
    pacer_destroy(p);
    EXPECT_TRUE(a.lines.empty());
    ASSERT_EQ(b.lines.size(), 1u);
    EXPECT_EQ(b.lines[0].first, PACER_LOG_WARN);
    EXPECT_EQ(pacer_set_log_function(pacer_log_to_stderr, nullptr), PACER_OK);
}

// ---- Settings, status and version ----------------------------------------------------------------

TEST(CApi, VersionIsTheLibrarys) {
    EXPECT_STREQ(pacer_version(), pacer::kVersion);
    const std::string expected = std::to_string(PACER_VERSION_MAJOR) + "." + std::to_string(PACER_VERSION_MINOR) +
                                 "." + std::to_string(PACER_VERSION_PATCH);
    EXPECT_EQ(pacer_version(), expected);
}

// Every field of pacer_config against the C++ PacerConfig it became: a swap of two fields in one
// direction and back in the other would survive a round trip, not this.
void expect_config_reached_cpp(const pacer_config& c, const pacer::PacerConfig& d) {
    EXPECT_EQ(d.target_hz, c.target_hz);
    EXPECT_EQ(static_cast<int>(d.mode), c.mode);
    EXPECT_EQ(static_cast<int>(d.late_policy), c.late_policy);
    EXPECT_EQ(d.max_catch_up, c.max_catch_up);
    EXPECT_EQ(d.miss_tolerance.count(), c.miss_tolerance_ns);
    EXPECT_EQ(d.background_hz, c.background_hz);
    EXPECT_EQ(static_cast<int>(d.sync), c.sync);
    EXPECT_EQ(d.max_late_share, c.max_late_share);
    EXPECT_EQ(static_cast<int>(d.cadence), c.cadence);
    EXPECT_EQ(d.display_lock, c.display_lock != 0);
    EXPECT_EQ(d.match_display, c.match_display != 0);
    EXPECT_EQ(d.waiter.late_cost.count(), c.waiter.late_cost_ns);
    EXPECT_EQ(d.waiter.half_life, c.waiter.half_life);
    EXPECT_EQ(d.waiter.initial_margin.count(), c.waiter.initial_margin_ns);
    EXPECT_EQ(d.waiter.min_margin.count(), c.waiter.min_margin_ns);
    EXPECT_EQ(d.waiter.max_spin.count(), c.waiter.max_spin_ns);
    EXPECT_EQ(static_cast<int>(d.waiter.priority.mode), c.waiter.priority);
    EXPECT_EQ(d.waiter.priority.realtime_priority, c.waiter.realtime_priority);
    EXPECT_EQ(d.waiter.priority.round_robin, c.waiter.round_robin != 0);
    EXPECT_EQ(d.waiter.priority.nice, c.waiter.nice);
    EXPECT_EQ(d.waiter.raised_spin_share, c.waiter.raised_spin_share);
    EXPECT_EQ(d.governor.min_hz, c.governor.min_hz);
    EXPECT_EQ(d.governor.dwell.count(), c.governor.dwell_ns);
    EXPECT_EQ(d.governor.quantile, c.governor.quantile);
    EXPECT_EQ(d.governor.fit, c.governor.fit);
    EXPECT_EQ(d.governor.headroom, c.governor.headroom);
}

// A config with every field away from its default.
pacer_config unusual_config() {
    pacer_config c = pacer_config_default();
    c.target_hz = 120.0;
    c.mode = PACER_MODE_SPIN;
    c.late_policy = PACER_LATE_SKIP;
    c.max_catch_up = 3;
    c.miss_tolerance_ns = 250'000;
    c.background_hz = 5.0;
    c.sync = PACER_SYNC_PRESENT;
    c.max_late_share = 0.02;
    c.cadence = PACER_CADENCE_AUTO;
    c.display_lock = 0;
    c.match_display = 1;
    c.waiter = {5'000'000, 250.0, 2'000'000, 50'000, 1'500'000, PACER_PRIORITY_WAIT, 7, 1, -12, 0.5};
    c.governor = {30.0, 500'000'000, 0.8, 0.9, 0.7};
    return c;
}

TEST(CApi, ConfigReachesTheCppPacerFieldByField) {
    expect_config_reached_cpp(pacer_config_default(), pacer::PacerConfig{});
    const pacer_config defaults = pacer_config_default();
    EXPECT_EQ(defaults.waiter.max_spin_ns, 4'000'000);  // the documented defaults, spelled out
    EXPECT_EQ(defaults.waiter.min_margin_ns, 20'000);
    EXPECT_EQ(defaults.waiter.raised_spin_share, 0.25);
    EXPECT_EQ(defaults.governor.dwell_ns, 1'000'000'000);

    const pacer_config c = unusual_config();
    pacer_frame_pacer* p = pacer_create(&c);
    ASSERT_NE(p, nullptr) << pacer_last_error();
    expect_config_reached_cpp(c, p->impl.config());
    pacer_config got{};
    ASSERT_EQ(pacer_get_config(p, &got), PACER_OK);
    expect_config_reached_cpp(got, p->impl.config());

    // pacer_set_config: all at once, and back through pacer_get_config.
    pacer_config next = pacer_config_default();
    next.waiter.max_spin_ns = 700'000;
    next.governor.min_hz = 24.0;
    ASSERT_EQ(pacer_set_config(p, &next), PACER_OK);
    expect_config_reached_cpp(next, p->impl.config());
    ASSERT_EQ(pacer_get_config(p, &got), PACER_OK);
    expect_config_reached_cpp(got, p->impl.config());
    EXPECT_EQ(got.waiter.max_spin_ns, 700'000);

    // Refused: the message names the field, the settings stay.
    pacer_config bad = next;
    bad.waiter.min_margin_ns = 800'000;
    EXPECT_EQ(pacer_set_config(p, &bad), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(pacer_last_error(), "min_margin cannot exceed max_spin"), nullptr) << pacer_last_error();
    bad = next;
    bad.governor.headroom = 0.99;
    EXPECT_EQ(pacer_set_config(p, &bad), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "governor.headroom = 0.99: must be in (0, fit = 0.95)");
    bad = next;
    bad.waiter.priority = 5;
    EXPECT_EQ(pacer_set_config(p, &bad), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "waiter.priority.mode = 5: must be normal, wait, thread, high or automatic");
    bad = next;
    bad.waiter.nice = 0;
    EXPECT_EQ(pacer_set_config(p, &bad), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "waiter.priority.nice = 0: must be in [-20, -1]");
    for (const double share : {0.0, -0.25, 1.5, std::nan("")}) {  // validated as WaiterConfig's: (0, 1]
        bad = next;
        bad.waiter.raised_spin_share = share;
        EXPECT_EQ(pacer_set_config(p, &bad), PACER_ERROR_INVALID_ARGUMENT) << share;
        EXPECT_NE(std::strstr(pacer_last_error(), "waiter.raised_spin_share = "), nullptr) << pacer_last_error();
        EXPECT_NE(std::strstr(pacer_last_error(), "must be in (0, 1]"), nullptr) << pacer_last_error();
    }
    bad = next;
    bad.waiter.raised_spin_share = 1.0;  // the whole period: accepted
    EXPECT_EQ(pacer_set_config(p, &bad), PACER_OK) << pacer_last_error();
    EXPECT_EQ(p->impl.config().waiter.raised_spin_share, 1.0);
    ASSERT_EQ(pacer_set_config(p, &next), PACER_OK);
    bad = next;
    bad.waiter.max_spin_ns = -1;
    EXPECT_EQ(pacer_set_config(p, &bad), PACER_ERROR_INVALID_ARGUMENT);
    expect_config_reached_cpp(next, p->impl.config());
    EXPECT_EQ(pacer_set_config(p, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_set_config: config is NULL");
    EXPECT_EQ(pacer_get_config(p, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    pacer_destroy(p);
}

// A C pacer on a SimulatedOs: the C API in virtual time.
struct SimPacer {
    pacer::SimulatedOs os;
    pacer_frame_pacer* p;
    explicit SimPacer(const pacer_config& c, std::uint64_t seed = 7)
        : os({.granularity = 1ms, .jitter_mean = 30us, .preempt_probability = 0.02}, seed),
          p(pacer::capi::create(&c, &os)) {
        EXPECT_NE(p, nullptr) << pacer_last_error();
    }
    ~SimPacer() { pacer_destroy(p); }
    SimPacer(const SimPacer&) = delete;
    SimPacer& operator=(const SimPacer&) = delete;
    // A present right now on the simulated clock, shown 5 ms later, as the swap interval asked.
    void present(double refresh_hz) {
        pacer_present present{};
        present.begin_ns = pacer::clock::to_ns(os.now());
        os.advance(300us);
        present.end_ns = pacer::clock::to_ns(os.now());
        present.swap_interval = pacer_desired_swap_interval(p);
        present.refresh_hz = refresh_hz;
        present.ok = 1;
        present.displayed_ns = present.end_ns + 5'000'000;
        EXPECT_EQ(pacer_report_present(p, &present), PACER_OK);
    }
};

// The thread priority from C: asked through the config, reported in the status, put back by
// pacer_end_pacing(); the free sleeps' own setting validated.
TEST(CApi, PriorityIsAskedAndReported) {
    pacer_config c = pacer_config_default();
    c.waiter.priority = PACER_PRIORITY_THREAD;
    SimPacer sp(c);
    for (int i = 0; i < 10; ++i) {
        sp.os.advance(2ms);
        pacer_frame_timing t;
        ASSERT_EQ(pacer_wait(sp.p, &t), PACER_OK);
    }
    pacer_status st;
    ASSERT_EQ(pacer_get_status(sp.p, &st), PACER_OK);
    EXPECT_EQ(st.waiter.priority.asked, PACER_PRIORITY_THREAD);
    EXPECT_EQ(st.waiter.priority.granted, 1);
    EXPECT_EQ(st.waiter.priority.raised_now, 1);
    EXPECT_EQ(st.waiter.priority.raises, 1u);
    EXPECT_STREQ(st.waiter.priority.in_force, "simulated real-time 5");
    EXPECT_STREQ(st.waiter.priority.reason, "");
    EXPECT_EQ(st.waiter.priority.lever, PACER_PRIORITY_LEVER_REALTIME);
    EXPECT_EQ(st.waiter.priority.by, PACER_PRIORITY_BY_OS);
    EXPECT_EQ(st.waiter.priority.pending, 0);
    EXPECT_TRUE(sp.os.raised());
    ASSERT_EQ(pacer_end_pacing(sp.p), PACER_OK);
    EXPECT_FALSE(sp.os.raised());

    EXPECT_EQ(pacer_set_sleep_priority(PACER_PRIORITY_WAIT, 0), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(pacer_last_error(), "realtime_priority = 0"), nullptr) << pacer_last_error();
    EXPECT_EQ(pacer_set_sleep_priority(9, 5), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_sleep_priority(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    pacer_priority_status sleeps;
    ASSERT_EQ(pacer_sleep_priority(&sleeps), PACER_OK);
    EXPECT_EQ(sleeps.asked, PACER_PRIORITY_NORMAL);
    EXPECT_EQ(pacer_probe_priority(0, 0, &sleeps), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_probe_priority(5, 0, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_probe_priority_mode(PACER_PRIORITY_HIGH, 5, 0, 0, &sleeps), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(pacer_last_error(), "nice = 0"), nullptr) << pacer_last_error();
    EXPECT_EQ(pacer_probe_priority_mode(7, 5, 0, -15, &sleeps), PACER_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(pacer_probe_priority_mode(PACER_PRIORITY_HIGH, 5, 0, -15, &sleeps), PACER_OK);
    EXPECT_EQ(sleeps.asked, PACER_PRIORITY_HIGH);
    EXPECT_EQ(sleeps.granted, sleeps.refused ? 0 : 1);
    // The probe says which lever was granted and by whom: the weight (or a host's class, kept).
    if (sleeps.granted) {
        EXPECT_NE(sleeps.lever, PACER_PRIORITY_LEVER_NONE) << sleeps.in_force;
        EXPECT_NE(sleeps.by, PACER_PRIORITY_BY_NONE) << sleeps.in_force;
    } else {
        EXPECT_EQ(sleeps.lever, PACER_PRIORITY_LEVER_NONE) << sleeps.reason;
        EXPECT_EQ(sleeps.by, PACER_PRIORITY_BY_NONE) << sleeps.reason;
    }
}

// automatic is the C default too; high's weight is asked at the configured nice value.
TEST(CApi, AutomaticIsTheDefaultAndHighAsksTheNiceValue) {
    EXPECT_EQ(pacer_config_default().waiter.priority, PACER_PRIORITY_AUTOMATIC);
    EXPECT_EQ(pacer_config_default().waiter.nice, -15);
    pacer_config c = pacer_config_default();
    c.waiter.priority = PACER_PRIORITY_HIGH;
    c.waiter.nice = -12;
    SimPacer sp(c);
    pacer_frame_timing t;
    ASSERT_EQ(pacer_wait(sp.p, &t), PACER_OK);
    pacer_status st;
    ASSERT_EQ(pacer_get_status(sp.p, &st), PACER_OK);
    EXPECT_EQ(st.waiter.priority.asked, PACER_PRIORITY_HIGH);
    EXPECT_EQ(st.waiter.priority.raised_now, 1);
    EXPECT_STREQ(st.waiter.priority.in_force, "simulated nice -12");
    EXPECT_EQ(st.waiter.priority.lever, PACER_PRIORITY_LEVER_WEIGHT);
    EXPECT_EQ(st.waiter.priority.by, PACER_PRIORITY_BY_OS);
}

// A SimulatedOs whose raise RealtimeKit grants, as the Linux platform reports it, and whose
// real-time guard puts the thread back when told to (TimeSource::refresh_priority, as the
// platform's helper thread does): a grant that changes while the loop runs. One sleep, late_sleep,
// wakes 3 ms late (a host's steal: what no class wins against).
class GuardedOs final : public pacer::TimeSource {
public:
    pacer::SimulatedOs os{{.granularity = 0ns, .jitter_mean = 15us}, 7};
    bool demote = false;           // the next refresh puts the thread back
    std::int64_t late_sleep = -1;  // this sleep (0 the first) wakes 3 ms late
    std::int64_t sleeps = 0;

    pacer::clock::time_point now() noexcept override { return os.now(); }
    void sleep_until(pacer::clock::time_point d) noexcept override {
        os.sleep_until(d);
        if (sleeps++ == late_sleep) os.jump(3ms);
    }
    void relax() noexcept override { os.relax(); }
    pacer::CpuTimes cpu_times() noexcept override { return os.cpu_times(); }
    const char* sleep_primitive() const noexcept override { return "guarded"; }
    pacer::PriorityGrant raise_priority(const pacer::PriorityConfig& c, std::chrono::nanoseconds p) noexcept override {
        pacer::PriorityGrant g = os.raise_priority(c, p);
        g.by = pacer::PriorityGrantor::realtimekit;
        std::snprintf(g.in_force, sizeof g.in_force, "SCHED_RR %d (RealtimeKit, RLIMIT_RTTIME 200 ms)",
                      c.realtime_priority);
        return g;
    }
    bool refresh_priority(pacer::PriorityGrant& g, std::chrono::nanoseconds) noexcept override {
        if (!demote || !g.granted) return false;
        demote = false;
        os.restore_priority(g);
        g.granted = false;
        g.pending = true;  // the guard raises it again after a calm run
        g.lever = pacer::PriorityLever::none;
        g.by = pacer::PriorityGrantor::none;
        ++g.demotions;
        std::snprintf(g.guard, sizeof g.guard, "%s", kGuardStep);
        std::snprintf(g.reason, sizeof g.reason, "the real-time guard raises the thread again after 2 s of calm");
        return true;
    }
    void restore_priority(const pacer::PriorityGrant& g) noexcept override { os.restore_priority(g); }

    static constexpr const char* kGuardStep =
        "put the thread back to its own class: a frame ran 55 ms of CPU without sleeping (its bound: 50 ms)";
};

// What pacer_get_status says of the thread priority beyond asked and granted: the lever and who
// granted it, the spin bound of a raised thread and the wake-ups past it, and the real-time
// guard's put-back (pending, demotions, its step) with the bound gone.
TEST(CApi, PriorityLeverGrantorGuardAndSpinBoundReachC) {
    pacer::set_log_function(nullptr);
    GuardedOs gos;
    gos.late_sleep = 40;
    pacer_config c = config_at(100.0);
    c.waiter.priority = PACER_PRIORITY_THREAD;
    c.waiter.raised_spin_share = 0.1;
    pacer_frame_pacer* p = pacer::capi::create(&c, &gos);
    ASSERT_NE(p, nullptr) << pacer_last_error();
    pacer_frame_timing t;
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
        gos.os.advance(1ms);
    }
    pacer_status st;
    ASSERT_EQ(pacer_get_status(p, &st), PACER_OK);
    EXPECT_EQ(st.waiter.priority.granted, 1);
    EXPECT_EQ(st.waiter.priority.raised_now, 1);
    EXPECT_EQ(st.waiter.priority.pending, 0);
    EXPECT_EQ(st.waiter.priority.lever, PACER_PRIORITY_LEVER_REALTIME);
    EXPECT_EQ(st.waiter.priority.by, PACER_PRIORITY_BY_REALTIMEKIT);
    EXPECT_STREQ(st.waiter.priority.in_force, "SCHED_RR 5 (RealtimeKit, RLIMIT_RTTIME 200 ms)");
    EXPECT_EQ(st.waiter.priority.demotions, 0u);
    EXPECT_STREQ(st.waiter.priority.guard, "");
    EXPECT_EQ(st.waiter.spin_bound_ns, 1'000'000);  // raised_spin_share 0.1 of the 10 ms period
    EXPECT_EQ(st.waiter.wakeups_past_bound, 1);     // the sleep woken 3 ms late
    EXPECT_LE(st.waiter.margin_ns, st.waiter.spin_bound_ns);

    gos.demote = true;  // the guard puts the thread back: seen at the next frame
    ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
    ASSERT_EQ(pacer_get_status(p, &st), PACER_OK);
    EXPECT_EQ(st.waiter.priority.granted, 0);
    EXPECT_EQ(st.waiter.priority.refused, 0);
    EXPECT_EQ(st.waiter.priority.raised_now, 0);
    EXPECT_EQ(st.waiter.priority.pending, 1);
    EXPECT_EQ(st.waiter.priority.lever, PACER_PRIORITY_LEVER_NONE);
    EXPECT_EQ(st.waiter.priority.by, PACER_PRIORITY_BY_NONE);
    EXPECT_EQ(st.waiter.priority.demotions, 1u);
    EXPECT_STREQ(st.waiter.priority.guard, GuardedOs::kGuardStep);
    EXPECT_STREQ(st.waiter.priority.in_force, "normal");
    EXPECT_STREQ(st.waiter.priority.reason, "the real-time guard raises the thread again after 2 s of calm");
    EXPECT_EQ(st.waiter.spin_bound_ns, 0);  // not raised: no bound
    EXPECT_EQ(st.waiter.wakeups_past_bound, 1);
    EXPECT_FALSE(gos.os.raised());
    pacer_destroy(p);
}

// Work that varies, with a long frame every 97: late frames, catch-ups, cadence changes.
std::int64_t work_ns(int frame) { return 2'000'000 + (frame % 7) * 500'000 + (frame % 97 == 0 ? 9'000'000 : 0); }

// Every field, by name, so that a mismatch says which.
void expect_same(const pacer_frame_timing& a, const pacer_frame_timing& b, int frame) {
#define PACER_EXPECT_SAME(field) EXPECT_EQ(a.field, b.field) << #field " at frame " << frame
    PACER_EXPECT_SAME(index);
    PACER_EXPECT_SAME(deadline_ns);
    PACER_EXPECT_SAME(wake_ns);
    PACER_EXPECT_SAME(lateness_ns);
    PACER_EXPECT_SAME(interval_ns);
    PACER_EXPECT_SAME(work_ns);
    PACER_EXPECT_SAME(period_ns);
    PACER_EXPECT_SAME(slept_ns);
    PACER_EXPECT_SAME(spun_ns);
    PACER_EXPECT_SAME(oversleep_ns);
    PACER_EXPECT_SAME(margin_ns);
    PACER_EXPECT_SAME(skipped);
    PACER_EXPECT_SAME(missed);
    PACER_EXPECT_SAME(mode);
    PACER_EXPECT_SAME(source);
    PACER_EXPECT_SAME(background);
    PACER_EXPECT_SAME(sync);
    PACER_EXPECT_SAME(latency_ns);
    PACER_EXPECT_SAME(input_to_present_ns);
    PACER_EXPECT_SAME(latency_measured);
    PACER_EXPECT_SAME(shown_late);
    PACER_EXPECT_SAME(cadence);
    PACER_EXPECT_SAME(cadence_hz);
    PACER_EXPECT_SAME(cadence_reason);
    PACER_EXPECT_SAME(display_dt_ns);
    PACER_EXPECT_SAME(display_locked);
#undef PACER_EXPECT_SAME
}

// The waiter's settings from C: max_spin_ns = 0 never spins; raised at run time, spins return.
TEST(CApi, TheSpinCapIsSetFromC) {
    pacer::set_log_function(nullptr);
    pacer_config c = config_at(144.0);
    c.waiter.max_spin_ns = 0;
    c.waiter.min_margin_ns = 0;
    SimPacer sim(c);
    pacer_frame_timing t{};
    std::int64_t spun = 0, slept = 0;
    for (int i = 0; i < 500; ++i) {
        ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
        spun += t.spun_ns;
        slept += t.slept_ns;
        sim.os.advance(std::chrono::nanoseconds(work_ns(i)));
    }
    EXPECT_EQ(spun, 0);
    EXPECT_GT(slept, 0);
    pacer_status status;
    ASSERT_EQ(pacer_get_status(sim.p, &status), PACER_OK);
    EXPECT_EQ(status.waiter.spin_cap_ns, 0);

    pacer_config more = c;
    more.waiter.max_spin_ns = 2'000'000;
    ASSERT_EQ(pacer_set_config(sim.p, &more), PACER_OK);
    std::int64_t max_margin = 0, oversleep = 0;
    for (int i = 0; i < 500; ++i) {
        ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
        spun += t.spun_ns;
        max_margin = std::max(max_margin, t.margin_ns);
        oversleep += t.oversleep_ns;
        EXPECT_LE(t.spun_ns, 2'000'000 + 100'000) << i;  // the cap, plus the inline hand-off's relax
        sim.os.advance(std::chrono::nanoseconds(work_ns(i)));
    }
    EXPECT_GT(spun, 0);
    EXPECT_GT(max_margin, 0);
    EXPECT_LE(max_margin, 2'000'000);
    EXPECT_GT(oversleep, 0);  // a 1 ms scheduler period: the OS wakes late
    ASSERT_EQ(pacer_get_status(sim.p, &status), PACER_OK);
    EXPECT_EQ(status.waiter.spin_cap_ns, 2'000'000);
}

// Setting what is in force, every frame and through every setter, leaves every frame as it was
// without the calls: no re-anchored grid, no vsync decision taken again (FramePacer::set_config
// does nothing for the config in force, and every C setter goes through it).
TEST(CApi, SettingTheValuesInForceEveryFrameChangesNothing) {
    pacer::set_log_function(nullptr);
    pacer_config c = config_at(144.0);
    c.mode = PACER_MODE_AUTO;
    c.cadence = PACER_CADENCE_AUTO;
    SimPacer plain(c), setting(c);
    pacer_frame_timing a{}, b{};
    for (int i = 0; i < 3000; ++i) {
        ASSERT_EQ(pacer_wait(plain.p, &a), PACER_OK);
        ASSERT_EQ(pacer_wait(setting.p, &b), PACER_OK);
        expect_same(a, b, i);
        if (::testing::Test::HasFailure()) break;
        pacer_config in_force{};
        ASSERT_EQ(pacer_get_config(setting.p, &in_force), PACER_OK);
        ASSERT_EQ(pacer_set_target_hz(setting.p, 144.0), PACER_OK);
        ASSERT_EQ(pacer_set_mode(setting.p, PACER_MODE_AUTO), PACER_OK);
        ASSERT_EQ(pacer_set_late_policy(setting.p, PACER_LATE_CATCH_UP, 1), PACER_OK);
        ASSERT_EQ(pacer_set_sync(setting.p, PACER_SYNC_FRAME_START), PACER_OK);
        ASSERT_EQ(pacer_set_config(setting.p, &in_force), PACER_OK);
        ASSERT_EQ(pacer_set_background(setting.p, 0), PACER_OK);
        plain.os.advance(std::chrono::nanoseconds(work_ns(i)));
        setting.os.advance(std::chrono::nanoseconds(work_ns(i)));
        plain.present(144.0);
        setting.present(144.0);
    }
    pacer_status sa, sb;
    ASSERT_EQ(pacer_get_status(plain.p, &sa), PACER_OK);
    ASSERT_EQ(pacer_get_status(setting.p, &sb), PACER_OK);
    EXPECT_EQ(sa.frames, 3000u);
    EXPECT_EQ(sb.frames, sa.frames);
    EXPECT_EQ(sb.missed, sa.missed);
    EXPECT_EQ(sb.vsync.code, sa.vsync.code);
    EXPECT_EQ(sb.cadence.switches, sa.cadence.switches);
    EXPECT_EQ(sb.display.locks, sa.display.locks);
}

// pacer_get_status against what the frames showed and the C++ enums' texts.
TEST(CApi, StatusCountsFramesAndNamesTheDecisions) {
    pacer::set_log_function(nullptr);
    pacer_config c = config_at(144.0);
    c.mode = PACER_MODE_AUTO;  // no present reported: auto waits for one
    SimPacer sim(c);
    pacer_frame_timing t{};
    std::uint64_t missed = 0;
    for (int i = 0; i < 300; ++i) {
        ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
        missed += static_cast<std::uint64_t>(t.missed);
        sim.os.advance(std::chrono::nanoseconds(work_ns(i)));
    }
    pacer_status s;
    ASSERT_EQ(pacer_get_status(sim.p, &s), PACER_OK);
    EXPECT_EQ(s.frames, 300u);
    EXPECT_EQ(s.missed, missed);
    EXPECT_GT(missed, 0u);  // the 11 ms frames
    EXPECT_EQ(s.period_ns, t.period_ns);
    EXPECT_EQ(s.background, 0);
    EXPECT_EQ(s.vsync.code, PACER_VSYNC_AUTO_WAITING);
    EXPECT_STREQ(s.vsync.reason, pacer::to_string(pacer::VsyncReason::auto_waiting));
    EXPECT_EQ(s.vsync.in_use, 0);
    EXPECT_EQ(s.cadence.divisor, 1u);
    EXPECT_EQ(s.cadence.code, PACER_CADENCE_REASON_FIXED);
    EXPECT_STREQ(s.cadence.reason, pacer::describe(pacer::CadenceReason::fixed));
    EXPECT_EQ(s.display.state, PACER_DISPLAY_UNKNOWN);
    EXPECT_EQ(s.waiter.spin_cap_ns, c.waiter.max_spin_ns);
    // The margin the status shows is the one the next wait uses.
    ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
    EXPECT_EQ(t.margin_ns, s.waiter.margin_ns);
    EXPECT_GT(t.margin_ns, 0);
    // The background, in the status and the frames.
    ASSERT_EQ(pacer_set_background(sim.p, 1), PACER_OK);
    ASSERT_EQ(pacer_get_status(sim.p, &s), PACER_OK);
    EXPECT_EQ(s.background, 1);
    EXPECT_EQ(s.period_ns, 100'000'000);
}

TEST(CApi, ResetStartsANewGridAndEndPacingHandsOver) {
    pacer::set_log_function(nullptr);
    SimPacer sim(config_at(100.0));
    pacer_frame_timing t{};
    for (int i = 0; i < 5; ++i) ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
    const std::uint64_t index = t.index;
    EXPECT_GT(t.interval_ns, 0);
    sim.os.jump(1s);  // a loading screen
    ASSERT_EQ(pacer_reset(sim.p), PACER_OK);
    const std::int64_t before = pacer::clock::to_ns(sim.os.now());
    ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
    EXPECT_EQ(t.interval_ns, 0);  // the first frame of a new grid, at once
    EXPECT_EQ(t.wake_ns, before);
    EXPECT_GT(t.index, index);
    EXPECT_EQ(pacer_end_pacing(sim.p), PACER_OK);
    ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
    EXPECT_EQ(t.interval_ns, 10'000'000 + t.lateness_ns);
}

// ---- Captures and statistics from C: the C++ ones, byte for byte ---------------------------------

using pacer_test::temp_path;

using pacer_test::read_lines;

// Every field of FrameTiming, by name.
void expect_same(const pacer::FrameTiming& a, const pacer::FrameTiming& b, int frame) {
#define PACER_EXPECT_SAME(field) EXPECT_TRUE(a.field == b.field) << #field " at frame " << frame
    PACER_EXPECT_SAME(index);
    PACER_EXPECT_SAME(deadline);
    PACER_EXPECT_SAME(wake);
    PACER_EXPECT_SAME(lateness);
    PACER_EXPECT_SAME(interval);
    PACER_EXPECT_SAME(work);
    PACER_EXPECT_SAME(period);
    PACER_EXPECT_SAME(slept);
    PACER_EXPECT_SAME(spun);
    PACER_EXPECT_SAME(oversleep);
    PACER_EXPECT_SAME(margin);
    PACER_EXPECT_SAME(skipped);
    PACER_EXPECT_SAME(mode);
    PACER_EXPECT_SAME(source);
    PACER_EXPECT_SAME(missed);
    PACER_EXPECT_SAME(background);
    PACER_EXPECT_SAME(sync);
    PACER_EXPECT_SAME(latency);
    PACER_EXPECT_SAME(input_to_present);
    PACER_EXPECT_SAME(latency_measured);
    PACER_EXPECT_SAME(shown_late);
    PACER_EXPECT_SAME(cadence);
    PACER_EXPECT_SAME(cadence_hz);
    PACER_EXPECT_SAME(cadence_reason);
    PACER_EXPECT_SAME(display_dt);
    PACER_EXPECT_SAME(display_locked);
#undef PACER_EXPECT_SAME
}

// A C pacer and a C++ FramePacer on identical simulated machines, with presents and a cadence
// governor, so that every FrameTiming field moves. Calls frame(c, cpp, present) for each frame.
template <class Frame>
void run_side_by_side(int frames, Frame frame) {
    pacer::set_log_function(nullptr);
    pacer_config c = config_at(144.0);
    c.cadence = PACER_CADENCE_AUTO;
    c.sync = PACER_SYNC_JUST_IN_TIME;
    SimPacer sim(c);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 30us, .preempt_probability = 0.02}, 7);
    pacer::FramePacer fp(pacer::capi::to_cpp(c), &os);
    pacer_frame_timing ct{};
    for (int i = 0; i < frames; ++i) {
        ASSERT_EQ(pacer_wait(sim.p, &ct), PACER_OK);
        const pacer::FrameTiming t = fp.wait();
        expect_same(ct, pacer::capi::to_c(t), i);  // the C pacer is the C++ pacer
        expect_same(pacer::capi::to_cpp(ct), t, i);  // and the C timing converts back losslessly
        sim.os.advance(std::chrono::nanoseconds(work_ns(i)));
        os.advance(std::chrono::nanoseconds(work_ns(i)));
        pacer_present present{};
        present.begin_ns = pacer::clock::to_ns(os.now());
        present.end_ns = present.begin_ns + 300'000;
        present.swap_interval = 0;
        present.refresh_hz = 60.0;
        present.ok = i % 50 != 0;
        present.displayed_ns = present.end_ns + 4'000'000;
        ASSERT_EQ(pacer_report_present(sim.p, &present), PACER_OK);
        fp.report_present(pacer::capi::to_cpp(present));
        frame(ct, t, present);
        if (::testing::Test::HasFailure()) return;
    }
}

TEST(CApi, CaptureFromCIsTheCppCapture) {
    const std::string c_path = temp_path("c.csv"), cpp_path = temp_path("cpp.csv");
    pacer_capture_options o = pacer_capture_options_default();
    o.application = "game";
    const pacer_config config = unusual_config();
    o.config = &config;
    o.notes = "load: none, see \"notes\"";
    pacer_capture* cap = pacer_capture_open(c_path.c_str(), &o);
    ASSERT_NE(cap, nullptr) << pacer_last_error();
    pacer::CaptureWriter writer;
    pacer::CaptureOptions options;
    options.application = "game";
    options.config = pacer::capi::to_cpp(config);
    options.notes = o.notes;
    ASSERT_TRUE(writer.open(cpp_path, options).ok());
    pacer_capture_extras extras = pacer_capture_extras_default();
    std::vector<pacer_present> sent;  // presents by id - 1, for their feedback two frames later
    run_side_by_side(1500, [&](const pacer_frame_timing& ct, const pacer::FrameTiming& t, const pacer_present& p) {
        pacer_present with_id = p;
        with_id.id = sent.size() + 1;
        sent.push_back(with_id);
        pacer::CaptureExtras e;
        e.present = pacer::capi::to_cpp(with_id);
        extras.present = &with_id;
        if (t.index % 3 == 0) {  // sometimes what the engine measured besides
            extras.until_displayed_ns = e.until_displayed.count() + 7'000'000;
            e.until_displayed = std::chrono::nanoseconds(extras.until_displayed_ns);
            extras.pacing_source = e.pacing_source = "engine";
        } else {
            extras = pacer_capture_extras_default();
            extras.present = &with_id;
        }
        ASSERT_EQ(pacer_capture_add(cap, &ct, &extras), PACER_OK);
        writer.add(t, e);
        if (sent.size() < 3 || t.index % 7 == 0) return;  // some feedback never comes
        pacer_present fb = sent[sent.size() - 3];
        fb.outcome = t.index % 5 == 0 ? PACER_PRESENT_DISCARDED : PACER_PRESENT_SHOWN;
        fb.displayed_ns = fb.outcome == PACER_PRESENT_SHOWN ? fb.end_ns + 8'000'000 : 0;
        ASSERT_EQ(pacer_capture_feedback(cap, &fb), PACER_OK);
        writer.feedback(pacer::capi::to_cpp(fb));
    });
    pacer_capture_status st;
    ASSERT_EQ(pacer_capture_get_status(cap, &st), PACER_OK);
    EXPECT_EQ(st.rows, writer.rows());
    EXPECT_EQ(st.rows_written, writer.rows_written());
    EXPECT_EQ(st.rows_buffered, writer.rows_buffered());
    EXPECT_EQ(st.rows_without_frame_time, writer.rows_without_frame_time());
    EXPECT_GT(st.rows_without_feedback, 100u);
    EXPECT_EQ(st.rows_without_feedback, writer.rows_without_feedback());
    EXPECT_EQ(st.failed, 0);
    EXPECT_STREQ(st.error, "");
    EXPECT_EQ(pacer_capture_close(cap), PACER_OK);
    ASSERT_TRUE(writer.close().ok());

    const std::vector<std::string> c_rows = read_lines(c_path), cpp_rows = read_lines(cpp_path);
    ASSERT_GT(cpp_rows.size(), 1000u);
    EXPECT_TRUE(c_rows == cpp_rows);
    // The feedback reached the rows: shown and discarded among them (a row without feedback has
    // the simulated display's own displayed time: shown).
    const std::string header = pacer::CaptureWriter::header();
    const auto dropped_at = std::count(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(header.find("Dropped")), ',');
    std::map<std::string, int> dropped;
    for (std::size_t i = 1; i < c_rows.size(); ++i) {
        std::size_t b = 0;
        for (int k = 0; k < dropped_at; ++k) b = c_rows[i].find(',', b) + 1;
        ++dropped[c_rows[i].substr(b, c_rows[i].find(',', b) - b)];
    }
    EXPECT_GT(dropped["0"], 500);
    EXPECT_GT(dropped["1"], 100);
    const std::vector<std::string> c_stats = read_lines(pacer::CaptureWriter::stats_path(c_path));
    const std::vector<std::string> cpp_stats = read_lines(pacer::CaptureWriter::stats_path(cpp_path));
    ASSERT_EQ(c_stats.size(), cpp_stats.size());
    ASSERT_GT(c_stats.size(), 40u);
    for (std::size_t i = 0; i < c_stats.size(); ++i) {
        if (cpp_stats[i].rfind("Capture,", 0) == 0) continue;  // the file name differs
        EXPECT_EQ(c_stats[i], cpp_stats[i]);
    }
}

void expect_same(const pacer_distribution& a, const pacer::TimeDistribution& b, const char* what) {
    using pacer::to_ms;
    EXPECT_EQ(a.mean, to_ms(b.mean)) << what;
    EXPECT_EQ(a.stddev, to_ms(b.stddev)) << what;
    EXPECT_EQ(a.min, to_ms(b.min)) << what;
    EXPECT_EQ(a.max, to_ms(b.max)) << what;
    EXPECT_EQ(a.p50, to_ms(b.p50)) << what;
    EXPECT_EQ(a.p90, to_ms(b.p90)) << what;
    EXPECT_EQ(a.p95, to_ms(b.p95)) << what;
    EXPECT_EQ(a.p99, to_ms(b.p99)) << what;
    EXPECT_EQ(a.p999, to_ms(b.p999)) << what;
}

TEST(CApi, StatsFromCAreTheCppStats) {
    pacer_stats* stats = pacer_stats_create(256);
    ASSERT_NE(stats, nullptr);
    pacer::FrameStats cpp(256);
    run_side_by_side(1000, [&](const pacer_frame_timing& ct, const pacer::FrameTiming& t, const pacer_present&) {
        ASSERT_EQ(pacer_stats_add(stats, &ct), PACER_OK);
        cpp.add(t);
    });
    pacer_stats_summary s;
    ASSERT_EQ(pacer_stats_summarize(stats, &s), PACER_OK);
    const pacer::StatsSummary d = cpp.summarize();
    EXPECT_EQ(s.frames, d.frames);
    EXPECT_EQ(s.frames, 256u);
    expect_same(s.interval_ms, d.interval, "interval_ms");
    expect_same(s.lateness_ms, d.lateness, "lateness_ms");
    expect_same(s.latency_ms, d.latency, "latency_ms");
    EXPECT_GT(s.latency_ms.p50, 0.0);
    EXPECT_EQ(s.target_ms, pacer::to_ms(d.target));
    EXPECT_EQ(s.avg_fps, d.avg_fps);
    EXPECT_EQ(s.low1_fps, d.low1_fps);
    EXPECT_EQ(s.low01_fps, d.low01_fps);
    EXPECT_EQ(s.missed, d.missed);
    EXPECT_EQ(s.missed_total, d.missed_total);
    EXPECT_EQ(s.skipped_total, d.skipped_total);
    EXPECT_EQ(s.frames_total, d.frames_total);
    EXPECT_EQ(s.frames_total, 1000u);
    EXPECT_EQ(s.latency_frames, d.latency_frames);
    EXPECT_EQ(s.shown_late, d.shown_late);
    EXPECT_EQ(s.stutters, d.stutters);
    EXPECT_EQ(s.stutters_total, d.stutters_total);
    EXPECT_EQ(s.work_share, d.work_share);
    EXPECT_EQ(s.sleep_share, d.sleep_share);
    EXPECT_EQ(s.spin_share, d.spin_share);
    expect_same(s.interval_error_ms, d.interval_error, "interval_error_ms");
    EXPECT_EQ(s.interval_error_frames, d.interval_error_frames);
    EXPECT_EQ(s.interval_error_frames, 256u);  // the pacer gives every frame its period
    EXPECT_EQ(s.off_100us_share, d.off_100us_share);

    std::vector<float> c_series(300, -1.0f), cpp_series(300, -1.0f);
    size_t n = 0;
    ASSERT_EQ(pacer_stats_series(stats, PACER_METRIC_LATENESS, c_series.data(), c_series.size(), &n), PACER_OK);
    EXPECT_EQ(n, cpp.series_ms(pacer::FrameMetric::lateness, cpp_series));
    EXPECT_EQ(n, 256u);
    EXPECT_TRUE(c_series == cpp_series);
    std::vector<float> c_bins(32), cpp_bins(32);
    pacer_histogram_counts counts;
    ASSERT_EQ(pacer_stats_histogram(stats, PACER_METRIC_INTERVAL, 0.0, 14.0, c_bins.data(), c_bins.size(), &counts),
              PACER_OK);
    const pacer::HistogramCounts h =
        cpp.histogram(pacer::FrameMetric::interval, std::chrono::nanoseconds(0), std::chrono::milliseconds(14), cpp_bins);
    EXPECT_TRUE(c_bins == cpp_bins);
    EXPECT_EQ(counts.placed, h.placed);
    EXPECT_EQ(counts.below, h.below);
    EXPECT_EQ(counts.above, h.above);
    EXPECT_EQ(counts.placed, 256u);

    ASSERT_EQ(pacer_stats_reset(stats), PACER_OK);
    ASSERT_EQ(pacer_stats_summarize(stats, &s), PACER_OK);
    EXPECT_EQ(s.frames, 0u);
    EXPECT_EQ(s.frames_total, 0u);
    pacer_stats_destroy(stats);
}

// The new fields come after the old ones: a struct that only grows.
static_assert(offsetof(pacer_stats_summary, interval_error_ms) > offsetof(pacer_stats_summary, spin_share));
static_assert(offsetof(pacer_stats_summary, off_100us_share) > offsetof(pacer_stats_summary, interval_error_frames));

// A C timing of interval_ns paced at period_ns (0: no period known).
pacer_frame_timing c_paced(std::int64_t interval_ns, std::int64_t period_ns) {
    pacer_frame_timing t{};
    t.interval_ns = interval_ns;
    t.period_ns = period_ns;
    return t;
}

// Hand-computed: four frames at 10 ms (errors 0, 50, 150, 300 us), then two at 20 ms after a rate
// change (errors 100 and 250 us, each against its own 20 ms), and one without a period (left out).
TEST(CApi, StatsIntervalErrorAgainstEachFramesOwnPeriod) {
    pacer_stats* stats = pacer_stats_create(16);
    ASSERT_NE(stats, nullptr);
    pacer_stats_summary s;
    ASSERT_EQ(pacer_stats_summarize(stats, &s), PACER_OK);  // no frames
    EXPECT_EQ(s.interval_error_frames, 0u);
    EXPECT_EQ(s.interval_error_ms.p99, 0.0);
    EXPECT_EQ(s.off_100us_share, 0.0);
    for (const pacer_frame_timing& t :
         {c_paced(10'000'000, 10'000'000), c_paced(9'950'000, 10'000'000), c_paced(10'150'000, 10'000'000),
          c_paced(10'300'000, 10'000'000), c_paced(20'100'000, 20'000'000), c_paced(19'750'000, 20'000'000),
          c_paced(33'000'000, 0)})
        ASSERT_EQ(pacer_stats_add(stats, &t), PACER_OK);
    ASSERT_EQ(pacer_stats_summarize(stats, &s), PACER_OK);
    EXPECT_EQ(s.frames, 7u);
    EXPECT_EQ(s.interval_error_frames, 6u);
    // Sorted 0, 50, 100, 150, 250, 300 us: p99 at h = 4.95, p50 at h = 2.5.
    EXPECT_DOUBLE_EQ(s.interval_error_ms.p99, 0.2975);
    EXPECT_DOUBLE_EQ(s.interval_error_ms.p50, 0.125);
    EXPECT_DOUBLE_EQ(s.interval_error_ms.max, 0.3);
    EXPECT_DOUBLE_EQ(s.off_100us_share, 0.5);  // 150, 250, 300 us; exactly 100 us is not off
    ASSERT_EQ(pacer_stats_reset(stats), PACER_OK);
    const pacer_frame_timing none = c_paced(16'000'000, 0);
    ASSERT_EQ(pacer_stats_add(stats, &none), PACER_OK);
    ASSERT_EQ(pacer_stats_summarize(stats, &s), PACER_OK);
    EXPECT_EQ(s.frames, 1u);
    EXPECT_EQ(s.interval_error_frames, 0u);
    EXPECT_EQ(s.interval_error_ms.max, 0.0);
    EXPECT_EQ(s.off_100us_share, 0.0);
    pacer_stats_destroy(stats);
}

TEST(CApi, StatsRefuseBadInputWithTheReason) {
    EXPECT_EQ(pacer_stats_create(1), nullptr);
    EXPECT_STREQ(pacer_last_error(), "pacer_stats_create: capacity = 1: must be at least 2 frames");
    EXPECT_EQ(pacer_stats_create(0), nullptr);
    EXPECT_EQ(pacer_stats_create(std::numeric_limits<size_t>::max()), nullptr);  // refused before allocating
    EXPECT_NE(std::strstr(pacer_last_error(), "out of memory"), nullptr) << pacer_last_error();
    pacer_stats* stats = pacer_stats_create(2);
    ASSERT_NE(stats, nullptr);
    float values[4];
    size_t n = 99;
    EXPECT_EQ(pacer_stats_series(stats, 6, values, 4, &n), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_stats_series: metric = 6: not a pacer_frame_metric value");
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(pacer_stats_series(stats, PACER_METRIC_WORK, nullptr, 4, &n), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_stats_series(stats, PACER_METRIC_WORK, nullptr, 0, &n), PACER_OK);  // nothing asked
    EXPECT_EQ(pacer_stats_histogram(stats, PACER_METRIC_WORK, 5.0, 1.0, values, 4, nullptr),
              PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(),
                 "pacer_stats_histogram: [5, 1) ms in 4 bins: needs finite bounds, hi > lo and bins");
    EXPECT_EQ(pacer_stats_histogram(stats, PACER_METRIC_WORK, 0.0, std::nan(""), values, 4, nullptr),
              PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_stats_histogram(stats, PACER_METRIC_WORK, 0.0, 1.0, values, 0, nullptr),
              PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_stats_histogram(stats, -1, 0.0, 1.0, values, 4, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_stats_add(stats, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_stats_add: the timing is NULL");
    pacer_stats_summary s;
    EXPECT_EQ(pacer_stats_summarize(stats, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_stats_summarize(nullptr, &s), PACER_ERROR_INVALID_ARGUMENT);
    const pacer_frame_timing t{};
    EXPECT_EQ(pacer_stats_add(nullptr, &t), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_stats_add: the stats is NULL");
    EXPECT_EQ(pacer_stats_reset(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    pacer_stats_destroy(stats);
    pacer_stats_destroy(nullptr);
}

TEST(CApi, CaptureRefusesBadInputWithTheReason) {
    EXPECT_EQ(pacer_capture_open(nullptr, nullptr), nullptr);
    EXPECT_STREQ(pacer_last_error(), "pacer_capture_open: path is NULL");
    EXPECT_EQ(pacer_capture_open("/nonexistent-dir-of-pacer/capture.csv", nullptr), nullptr);
    EXPECT_NE(std::strstr(pacer_last_error(), "capture: cannot open /nonexistent-dir-of-pacer/capture.csv"), nullptr)
        << pacer_last_error();
    pacer_capture_options o = pacer_capture_options_default();
    pacer_config bad = pacer_config_default();
    bad.target_hz = -1.0;
    o.config = &bad;
    const std::string path = temp_path("bad.csv");
    EXPECT_EQ(pacer_capture_open(path.c_str(), &o), nullptr);
    EXPECT_STREQ(pacer_last_error(), "capture: config: target_hz = -1: must be a finite number in (0, 10000]");

    pacer_capture* cap = pacer_capture_open(path.c_str(), nullptr);
    ASSERT_NE(cap, nullptr) << pacer_last_error();
    pacer_frame_timing t{};
    t.mode = 9;
    EXPECT_EQ(pacer_capture_add(cap, &t, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_capture_add: timing->mode = 9: not a pacer_mode value");
    t.mode = PACER_MODE_HYBRID;
    t.cadence_reason = -2;
    EXPECT_EQ(pacer_capture_add(cap, &t, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_capture_add: timing->cadence_reason = -2: not a pacer_cadence_reason value");
    EXPECT_EQ(pacer_capture_add(cap, nullptr, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_capture_add: the timing is NULL");
    EXPECT_EQ(pacer_capture_add(nullptr, &t, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    pacer_present fb{};
    fb.id = 1;
    fb.outcome = 7;
    EXPECT_EQ(pacer_capture_feedback(cap, &fb), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_capture_feedback: feedback->outcome = 7: not a pacer_present_outcome value");
    EXPECT_EQ(pacer_capture_feedback(cap, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_capture_feedback: the feedback is NULL");
    EXPECT_EQ(pacer_capture_feedback(nullptr, &fb), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_capture_flush(nullptr), PACER_ERROR_INVALID_ARGUMENT);
    pacer_capture_status st;
    EXPECT_EQ(pacer_capture_get_status(cap, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_capture_get_status(nullptr, &st), PACER_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(pacer_capture_get_status(cap, &st), PACER_OK);
    EXPECT_EQ(st.rows, 0u);  // the refused timings wrote nothing
    EXPECT_EQ(pacer_capture_flush(cap), PACER_OK);
    EXPECT_EQ(pacer_capture_close(cap), PACER_OK);
    EXPECT_EQ(pacer_capture_close(nullptr), PACER_OK);
    const std::vector<std::string> lines = read_lines(path);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], pacer::CaptureWriter::header());
}

#if defined(__linux__)  // /dev/full
TEST(CApi, AFullDiskKeepsTheLoopRunningAndCloseSaysWhy) {
    pacer::set_log_function(nullptr);
    pacer_capture_options o = pacer_capture_options_default();
    o.buffer_bytes = 4096;
    o.write_stats = 0;
    pacer_capture* cap = pacer_capture_open("/dev/full", &o);
    ASSERT_NE(cap, nullptr) << pacer_last_error();
    SimPacer sim(config_at(144.0));
    pacer_frame_timing t{};
    pacer_capture_status st{};
    for (int i = 0; i < 1000; ++i) {
        ASSERT_EQ(pacer_wait(sim.p, &t), PACER_OK);
        ASSERT_EQ(pacer_capture_add(cap, &t, nullptr), PACER_OK);  // the loop goes on
        sim.os.advance(1ms);
    }
    ASSERT_EQ(pacer_capture_get_status(cap, &st), PACER_OK);
    EXPECT_EQ(st.failed, 1);
    EXPECT_EQ(st.rows, 1000u);
    EXPECT_EQ(st.rows_written, 0u);
    EXPECT_GT(st.rows_dropped, 0u);
    EXPECT_NE(std::strstr(st.error, "/dev/full"), nullptr) << st.error;
    EXPECT_NE(std::strstr(st.error, "No space left"), nullptr) << st.error;
    const std::string error = st.error;
    EXPECT_EQ(pacer_capture_close(cap), PACER_ERROR_IO);
    EXPECT_EQ(pacer_last_error(), error);
}
#endif

TEST(CApi, CpuMeterFromC) {
    pacer_cpu_meter* meter = pacer_cpu_meter_create();
    ASSERT_NE(meter, nullptr);
    // Burn CPU on this thread for 50 ms, and on until its CPU clock has moved (at most 2 s):
    // Windows counts thread time in scheduler ticks (15.6 ms), Wine in 10 ms ticks.
    pacer::TimeSource& ts = pacer::system_time_source();
    const std::int64_t thread_before = ts.cpu_times().thread.count();
    const std::int64_t start = pacer_now_ns();
    volatile std::uint64_t spins = 0;
    while (pacer_now_ns() < start + 50'000'000 ||
           (ts.cpu_times().thread.count() == thread_before && pacer_now_ns() < start + 2'000'000'000))
        spins = spins + 1;
    pacer_cpu_usage u;
    ASSERT_EQ(pacer_cpu_meter_sample(meter, &u), PACER_OK);
    EXPECT_EQ(u.valid, 1);
    EXPECT_GE(u.wall_s, 0.05);
    EXPECT_GT(u.thread_pct, 0.0);
    EXPECT_GT(u.process_pct, 0.0);
    EXPECT_EQ(pacer_cpu_meter_sample(meter, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_cpu_meter_sample(nullptr, &u), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(pacer_last_error(), "pacer_cpu_meter_sample: the meter is NULL");
    pacer_cpu_meter_destroy(meter);
    pacer_cpu_meter_destroy(nullptr);
}

}  // namespace
