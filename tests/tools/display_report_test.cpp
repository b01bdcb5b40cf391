// `pacer display`'s report (tools/lib/display_report.cpp): the text says an unknown value one way,
// "unknown", holds no JSON, and its reason is true of the source it ran on; the JSON keeps its
// keys and nulls.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "display_report.hpp"
#include "pacer/log.hpp"
#include "pacer/sim.hpp"

namespace pacer::tools {
namespace {

using namespace std::chrono_literals;

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

// What `pacer display --source x11-present` sees on a 60 Hz server: counted vblank events, no
// presents (display_x11.cpp feeds the pacer and the judge the same way).
DisplayCmdResult vblank_events_only(int n) {
    set_log_function(nullptr);
    SimulatedOs os(SimModel{.granularity = 0ns, .jitter_mean = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns}, 1,
                   clock::from_ns(1'000'000'000));
    FramePacer fp({.target_hz = 60.0}, &os);
    DisplayCmdResult r;
    r.source = "x11-present";
    r.ahead = 1;
    for (int k = 0; k < n; ++k) {
        os.advance(16'666'667ns);
        r.vblanks.expect(fp.status());
        VblankInfo v(os.now());
        v.msc = 100 + static_cast<std::uint64_t>(k);
        v.has_msc = true;
        fp.report_vblank(v);
        r.vblanks.vblank(true, v.msc, v.time, fp.status());
    }
    r.status = fp.status();
    r.seconds = 1.0;
    return r;
}

TEST(DisplayReport, TextFromVblankEventsSaysUnknownOneWayAndHoldsNoJson) {
    const DisplayCmdResult r = vblank_events_only(60);
    ASSERT_EQ(r.status.display.state, DisplayState::locked) << r.status.display.reason;
    ASSERT_TRUE(r.vblanks.lock_vblanks.has_value());
    const std::string text = format_display_result(r, false);
    SCOPED_TRACE(text);
    EXPECT_TRUE(has(text, "source x11-present, 60 vblanks in 1.0 s\n"));
    // No presents here: the reason names what the fit came from, true of vblank events and presents.
    EXPECT_TRUE(has(text, "display locked: period and phase fitted from the observed vblanks\n"));
    EXPECT_FALSE(has(text, "from the presents"));
    EXPECT_TRUE(has(text, ", reported unknown, "));  // no source said the refresh
    EXPECT_TRUE(has(text, "; locked after " + std::to_string(*r.vblanks.lock_vblanks) + " vblanks, 1 lock(s)\n"));
    EXPECT_TRUE(has(text, "; counter steps 1 (59 times)\n"));
    EXPECT_TRUE(has(text, "presents submitted 0, shown unknown, dropped unknown (no presentation feedback)\n"));
    // One way to say unknown, and no JSON.
    for (const char* other : {"null", " 0.0000 Hz", "{", "}", "\""}) EXPECT_FALSE(has(text, other)) << other;

    // The JSON is unchanged: the same keys, null for unknown, the counter steps as an object.
    const std::string json = format_display_result(r, true);
    SCOPED_TRACE(json);
    EXPECT_TRUE(has(json, "\"reason\": \"period and phase fitted from the observed vblanks\""));
    EXPECT_TRUE(has(json, "\"reported_hz\": null"));
    EXPECT_TRUE(has(json, "\"msc_step_counts\": {\"1\": 59}"));
    EXPECT_TRUE(has(json, "\"submitted\": 0, \"shown\": null, \"dropped\": null"));
}

TEST(DisplayReport, TextBeforeAnyVblankAndWithFeedback) {
    DisplayCmdResult r;
    r.source = "wayland";
    r.seconds = 10.0;
    r.status.rate.hz = 60.0;
    const std::string none = format_display_result(r, false);
    SCOPED_TRACE(none);
    EXPECT_TRUE(has(none, "source wayland, 0 vblanks in 10.0 s\n"));
    EXPECT_TRUE(has(none, "fitted unknown, reported unknown, shown unknown; never locked\n"));
    EXPECT_TRUE(has(none, "next-vblank error p50 unknown, p99 unknown; counter steps unknown\n"));
    EXPECT_TRUE(has(none, "rate in force 60.0000 Hz: "));

    // Presentation feedback: shown and dropped are counts, and nothing says they are unknown.
    r.status.presents.submitted = 600;
    r.status.presents.feedback = true;
    r.status.presents.shown = 598;
    r.status.presents.dropped = 2;
    r.targets = TargetJudge{};
    const std::string fed = format_display_result(r, false);
    SCOPED_TRACE(fed);
    EXPECT_TRUE(has(fed, "presents submitted 600, shown 598, dropped 2\n"));
    EXPECT_FALSE(has(fed, "feedback"));
    EXPECT_TRUE(has(fed, "present at time: 0 of 0 on their target counter (unknown), 0 late, 0 skipped, 0 paced unlocked\n"));
    for (const char* other : {"null", "{", "}"}) EXPECT_FALSE(has(fed, other)) << other;
}

}  // namespace
}  // namespace pacer::tools
