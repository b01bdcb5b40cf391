// The figures of `pacer simulate display` (tools/lib/display_sim.hpp): each metric on hand-built
// present sequences with hand-computed results, the JSON's keys and null rules, and the run itself
// where its outcome does not depend on how well the pacer does.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "display_sim.hpp"
#include "pacer/log.hpp"

namespace pacer::tools {
namespace {

// A fixed 60 Hz grid: vblank n at 5 ms + n x 16'666'667 ns.
constexpr std::int64_t kBase = 5'000'000, kPeriod = 16'666'667;
std::int64_t vblank(std::int64_t n) { return kBase + n * kPeriod; }
std::int64_t grid_after(std::int64_t t) {
    if (t < kBase) return kBase;
    return vblank((t - kBase) / kPeriod + 1);
}

TEST(DisplaySimMetrics, FramesUntilForGood) {
    const std::vector<char> ok = {0, 1, 0, 1, 1, 1};
    EXPECT_EQ(frames_until_for_good(ok, 0, 6), 3u);  // locked from frame 3 on; the lock at 1 did not hold
    EXPECT_EQ(frames_until_for_good(ok, 2, 6), 1u);  // counted from frame 2
    EXPECT_EQ(frames_until_for_good(ok, 4, 6), 0u);
    EXPECT_EQ(frames_until_for_good(ok, 0, 3), std::nullopt);  // frame 2 is not locked
    EXPECT_EQ(frames_until_for_good(ok, 0, 2), 1u);            // up to frame 1 only
    EXPECT_EQ(frames_until_for_good(ok, 3, 3), std::nullopt);  // empty range
    EXPECT_EQ(frames_until_for_good(ok, 0, 99), 3u);           // end beyond the frames: the frames
    EXPECT_EQ(frames_until_for_good({}, 0, 0), std::nullopt);
    EXPECT_EQ(frames_until_for_good({1, 1, 1}, 0, 3), 0u);
}

TEST(DisplaySimMetrics, PhaseErrorFoldsWholePeriods) {
    EXPECT_EQ(phase_error_ns(1'000'100, 1'000'000, kPeriod), 100);
    EXPECT_EQ(phase_error_ns(999'900, 1'000'000, kPeriod), 100);
    // The prediction names the next vblank of a grid 100 ns early: a period minus 100 ns apart.
    EXPECT_EQ(phase_error_ns(1'000'000 + kPeriod - 100, 1'000'000, kPeriod), 100);
    EXPECT_EQ(phase_error_ns(1'000'000 + 3 * kPeriod + 250, 1'000'000, kPeriod), 250);
    EXPECT_EQ(phase_error_ns(1'000'000 - 2 * kPeriod - 250, 1'000'000, kPeriod), 250);
    // Half a period: the largest error there is.
    EXPECT_EQ(phase_error_ns(8'000'000, 0, 16'000'000), 8'000'000);
    EXPECT_EQ(phase_error_ns(7'999'999, 0, 16'000'000), 7'999'999);
    EXPECT_EQ(phase_error_ns(500, 0, 0), 500);  // no period: the plain difference
}

TEST(DisplaySimMetrics, VblanksBetweenCountsTheHalfOpenInterval) {
    EXPECT_EQ(vblanks_between(vblank(0), vblank(0), grid_after), 0);
    EXPECT_EQ(vblanks_between(vblank(0), vblank(1), grid_after), 1);
    EXPECT_EQ(vblanks_between(vblank(0), vblank(3) + 10, grid_after), 3);
    EXPECT_EQ(vblanks_between(vblank(0) + 1, vblank(1) - 1, grid_after), 0);
    EXPECT_EQ(vblanks_between(vblank(2) - 1, vblank(2), grid_after), 1);
}

TEST(DisplaySimMetrics, WantedVblanks) {
    EXPECT_EQ(wanted_vblanks(60, 60), 1);
    EXPECT_EQ(wanted_vblanks(60, 30), 2);
    EXPECT_EQ(wanted_vblanks(144, 72), 2);
    EXPECT_EQ(wanted_vblanks(144, 48), 3);
    EXPECT_EQ(wanted_vblanks(59.94, 60), 1);  // a target near the refresh is every vblank
    EXPECT_EQ(wanted_vblanks(60, 144), 1);    // faster than the display: still every vblank
    EXPECT_EQ(wanted_vblanks(0, 60), 1);
    EXPECT_EQ(wanted_vblanks(60, 0), 1);
}

// Scanouts on the grid at these vblank indices; the cadence wants a frame every `wanted` vblanks.
std::vector<ShownFrame> present_sequence(const std::vector<std::int64_t>& at, std::int64_t wanted) {
    std::vector<ShownFrame> out;
    for (std::size_t i = 1; i < at.size(); ++i)
        out.push_back({vblanks_between(vblank(at[i - 1]), vblank(at[i]), grid_after), wanted});
    return out;
}

TEST(DisplaySimMetrics, MissedVblanksEveryVblank) {
    // Gaps 1 1 2 1 3: the frame after the gap of 2 missed one vblank, the one after the gap of 3
    // two: 3 missed vblanks, 2 late frames of 5.
    const MissCount m = count_misses(present_sequence({0, 1, 2, 4, 5, 8}, 1));
    EXPECT_EQ(m.missed_vblanks, 3u);
    EXPECT_EQ(m.late_frames, 2u);
}

TEST(DisplaySimMetrics, MissedVblanksAtHalfRate) {
    // 30 fps on 60 Hz: gaps 2 2 3 2 4. The gap of 3 misses the frame due at +2 (1); the gap of 4
    // shows it at +4 instead of +2 (1); the gap of 5 would miss +2 and +4 (2).
    const MissCount m = count_misses(present_sequence({0, 2, 4, 7, 9, 13}, 2));
    EXPECT_EQ(m.missed_vblanks, 2u);
    EXPECT_EQ(m.late_frames, 2u);
    const MissCount five = count_misses(present_sequence({0, 5}, 2));
    EXPECT_EQ(five.missed_vblanks, 2u);
    EXPECT_EQ(five.late_frames, 1u);
}

TEST(DisplaySimMetrics, TornFramesAreNeverLate) {
    // Two frames in one refresh (a tear: no vblank between them), then one on time.
    std::vector<ShownFrame> s = {{0, 1}, {1, 1}};
    const MissCount m = count_misses(s);
    EXPECT_EQ(m.missed_vblanks, 0u);
    EXPECT_EQ(m.late_frames, 0u);
}

TEST(DisplaySimMetrics, DtErrorIsTheLargestDriftFromTheFirstFrame) {
    // Displayed 16'666'667, 33'333'333 and 50'000'000 ns after the first frame; simulated 17, 33
    // and 50.5 ms: drifts 333'333, 333'333 and 500'000 ns.
    const std::vector<double> sim = {0, 17e6, 33e6, 50.5e6};
    const std::vector<std::int64_t> shown = {1000, 16'667'667, 33'334'333, 50'001'000};
    EXPECT_DOUBLE_EQ(dt_error_max_ns(sim, shown), 500'000.0);
    // Offsets common to both series cancel.
    EXPECT_DOUBLE_EQ(dt_error_max_ns({7e9, 7e9 + 16'666'667}, {1000, 16'667'667}), 0.0);
    EXPECT_DOUBLE_EQ(dt_error_max_ns({1.0}, {5}), 0.0);
}

const char* const kKeys[] = {"frames",          "display_state",  "lock_frames",      "phase_error_p50_us",
                             "phase_error_p99_us", "relock_frames", "missed_vblanks",   "late_share",
                             "cadence_switches", "cadence_min_gap_s", "cadence_hz",     "dt_error_max_ms",  "dt_shown_error_max_ms", "cpu_share"};

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

TEST(DisplaySimJson, KeysAndNulls) {
    DisplaySimConfig c;
    DisplaySimResult run, base;
    run.frames = 3600;
    run.state = DisplayState::locked;
    run.lock_frames = 12;
    run.phase_error_p50_us = 40.5;
    run.phase_error_p99_us = 90;
    run.missed_vblanks = 3;
    run.late_share = 0.25;
    run.cadence_hz = 30;
    base.baseline = true;
    base.missed_vblanks = 17;
    const std::string j = format_display_json(c, run, base);
    for (const char* k : kKeys) EXPECT_EQ(count(j, std::string("\"") + k + "\": "), 2) << k << "\n" << j;
    EXPECT_NE(j.find("\"display_state\": \"locked\", \"lock_frames\": 12, \"phase_error_p50_us\": 40.5, "
                     "\"phase_error_p99_us\": 90, \"relock_frames\": null, \"missed_vblanks\": 3, \"late_share\": 0.25"),
              std::string::npos)
        << j;
    EXPECT_NE(j.find("\"baseline\": {\"frames\": 0, \"display_state\": \"unknown\", \"lock_frames\": null, "
                     "\"phase_error_p50_us\": null, \"phase_error_p99_us\": null, \"relock_frames\": null, "
                     "\"missed_vblanks\": 17"),
              std::string::npos)
        << j;
    EXPECT_NE(j.find("\"refresh_change_hz\": null, \"at_s\": null, \"vrr_min_hz\": null, \"vrr_max_hz\": null"),
              std::string::npos);
    c.change_hz = 59.94;
    c.change_at_s = 30;
    run.relock_frames = 7;
    const std::string k = format_display_json(c, run, base);
    EXPECT_NE(k.find("\"refresh_change_hz\": 59.94, \"at_s\": 30,"), std::string::npos) << k;
    EXPECT_EQ(count(k, "\"relock_frames\": 7,"), 1);
    EXPECT_EQ(count(k, "\"relock_frames\": null,"), 1);  // the baseline's
    c = {};
    c.refresh_hz = 144;
    c.vrr_min_hz = 48;
    const std::string v = format_display_json(c, run, base);
    EXPECT_NE(v.find("\"vrr_min_hz\": 48, \"vrr_max_hz\": 144"), std::string::npos) << v;
}

// ---- the run ----------------------------------------------------------------------------------

TEST(DisplaySimRun, DeterministicAndNullRules) {
    DisplaySimConfig c;
    c.seconds = 3;
    const DisplaySimResult a = run_display_sim(c, false), b = run_display_sim(c, false);
    EXPECT_EQ(a.frames, b.frames);
    EXPECT_EQ(a.missed_vblanks, b.missed_vblanks);
    EXPECT_EQ(a.dt_error_max_ms, b.dt_error_max_ms);
    EXPECT_EQ(a.cpu_share, b.cpu_share);
    // 3 s at 60 Hz, 4 +- 1 ms of work: the swap holds the loop at the refresh.
    EXPECT_NEAR(static_cast<double>(a.frames), 180.0, 3.0);
    EXPECT_FALSE(a.relock_frames.has_value());  // no refresh change
    EXPECT_EQ(a.phase_error_p50_us.has_value(), a.phase_error_p99_us.has_value());
    EXPECT_TRUE(run_display_sim(c, true).baseline);
}

TEST(DisplaySimRun, VrrNeverLocks) {
    DisplaySimConfig c;
    c.seconds = 4;
    c.refresh_hz = 144;
    c.vrr_min_hz = 48;
    c.work_ms = 8;
    c.work_jitter_ms = 3;
    for (bool baseline : {false, true}) {
        const DisplaySimResult r = run_display_sim(c, baseline);
        EXPECT_FALSE(r.lock_frames.has_value()) << baseline;  // no vblank grid to lock to
        EXPECT_FALSE(r.relock_frames.has_value());
    }
}

TEST(DisplaySimRun, FixedGridMissesWhatTheWorkCannotHold) {
    // The fixed grid without display lock at 60 Hz with 20 ms of work (+ 0.1 ms present call):
    // about 1000 / 20.1 = 49.75 frames a second on a 60 Hz display, each shown at the vblank after
    // it: 60 - 49.75 = 10.25 vblanks a second get no new frame, and that many frames (a fifth) are
    // late. 9 s are counted: 92 missed vblanks.
    DisplaySimConfig c;
    c.seconds = 10;
    c.work_ms = 20;
    c.work_jitter_ms = 0;
    c.mode = WaitMode::vsync;
    pacer::set_log_function(nullptr);  // vsync mode warns that these presents do not show vsync
    const DisplaySimResult r = run_display_sim(c, true);
    pacer::set_log_function(pacer::log_to_stderr);
    EXPECT_NEAR(static_cast<double>(r.missed_vblanks), 92.0, 6.0);
    EXPECT_NEAR(r.late_share, 10.25 / 49.75, 0.02);
    EXPECT_EQ(r.late_frames, r.missed_vblanks);  // each late frame missed exactly one vblank
    EXPECT_EQ(r.cadence_switches, 0u);           // cadence fixed
}

TEST(DisplaySimRun, RefreshChangeGivesARelockFigureOnlyWhenLocked) {
    DisplaySimConfig c;
    c.seconds = 6;
    c.change_hz = 59.94;
    c.change_at_s = 3;
    const DisplaySimResult r = run_display_sim(c, false);
    // relock_frames exists only if the run ends locked on the new period.
    if (r.relock_frames) {
        EXPECT_EQ(r.state, DisplayState::locked);
    }
    EXPECT_NEAR(static_cast<double>(r.frames), 6 * 60.0, 4.0);
}

}  // namespace
}  // namespace pacer::tools
