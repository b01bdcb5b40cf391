// The C API (pacer/pacer.h) on the real OS clock: it has no TimeSource to inject, so only what
// holds on a loaded 2-core VM is asserted (order, never early, the error codes and texts), plus
// that no input, a NULL pointer included, crashes it or lets an exception out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "pacer/pacer.h"

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
    std::int64_t wall = 0, sum = 0, prev_deadline = t.deadline_ns;
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(pacer_wait(p, &t), PACER_OK);
        EXPECT_EQ(t.cadence, 1u);
        EXPECT_EQ(t.cadence_hz, 200.0);
        wall += t.interval_ns;
        sum += t.display_dt_ns;
        // Within half the scheduled interval (5 ms, more when a loaded machine skipped a slot).
        EXPECT_LE(std::llabs(wall - sum), (t.deadline_ns - prev_deadline) / 2) << i;
        prev_deadline = t.deadline_ns;
    }
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
    pacer_display_status s;
    ASSERT_EQ(pacer_get_display_status(p, &s), PACER_OK);
    EXPECT_EQ(s.state, PACER_DISPLAY_UNKNOWN);
    // 40 vblanks of a 59.94 Hz display, one report lost.
    const std::int64_t t0 = 1'000'000'000, period = 16'683'350;
    for (std::int64_t k = 0; k < 40; ++k)
        if (k != 17) {
            ASSERT_EQ(pacer_report_vblank(p, t0 + k * period), PACER_OK);
        }
    ASSERT_EQ(pacer_get_display_status(p, &s), PACER_OK);
    EXPECT_EQ(s.state, PACER_DISPLAY_LOCKED) << s.reason;
    EXPECT_NEAR(s.refresh_hz, 1e9 / period, 1e-3);
    EXPECT_EQ((s.vblank_ns - t0) % period, 0) << s.vblank_ns;
    EXPECT_NE(s.reason, nullptr);
    EXPECT_EQ(pacer_get_display_status(p, nullptr), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(pacer_last_error(), "out is NULL"), nullptr);
    pacer_destroy(p);
    EXPECT_EQ(pacer_report_vblank(nullptr, 0), PACER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(pacer_get_display_status(nullptr, &s), PACER_ERROR_INVALID_ARGUMENT);
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
        {now + day, now - day, -5, std::nan(""), 0, now},
        {-day, 0, 1000, -1.0, 1, -2 * day},  // displayed before the call: ignored
        {now, now, 1, std::numeric_limits<double>::infinity(), 1, now + day},  // a day later: ignored
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

}  // namespace
