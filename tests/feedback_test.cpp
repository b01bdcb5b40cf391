// Presentation feedback: a present's id, outcome, flags and counter (pacer/present.hpp), what
// the classifier makes of it, how FramePacer counts shown and dropped frames, the display time
// each frame is for, and another clock's times on pacer::clock (pacer/clock_offset.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include "pacer/clock_offset.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/present_classifier.hpp"
#include "pacer/sim.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using pacer::PresentClassifier;
using pacer::PresentInfo;
using pacer::PresentOutcome;
using pacer::VblankSource;
using pacer::clock;

using pacer_test::at;

PresentInfo shown_at(std::uint64_t id, std::chrono::nanoseconds displayed, bool vsync_flag) {
    PresentInfo f;
    f.id = id;
    f.outcome = PresentOutcome::shown;
    f.displayed = at(displayed);
    f.flags.known = true;
    f.flags.vsync = vsync_flag;
    return f;
}

TEST(PresentFeedback, FlagsDecideWhatADisplayedTimeIs) {
    PresentInfo p;
    p.begin = at(10ms);
    p.end = at(11ms);
    p.swap_interval = 0;  // torn, as far as the swap knows ...
    p.displayed = at(20ms);
    p.flags.known = true;
    p.flags.vsync = true;  // ... but the compositor says it showed it at a vblank
    EXPECT_EQ(PresentClassifier::classify_feedback(p, false).observation, VblankSource::displayed);
    p.swap_interval = 1;
    p.flags.vsync = false;  // weston 10: flags 0, the compositor's own timer
    const pacer::PresentVerdict v = PresentClassifier::classify_feedback(p, false);
    EXPECT_EQ(v.observation, VblankSource::unsynced);
    EXPECT_TRUE(v.shown_known);
    EXPECT_EQ(v.shown, at(20ms));
    p.flags.known = false;  // no flags: the swap interval decides, as before
    EXPECT_EQ(PresentClassifier::classify_feedback(p, false).observation, VblankSource::displayed);
}

// A loop at 100 Hz whose presents carry ids; feedback comes one frame late: every third present
// discarded, the others shown.
TEST(PresentFeedback, ThePacerCountsShownAndDroppedFrames) {
    pacer::SimulatedOs os({.granularity = 0ns});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    std::uint64_t shown = 0, dropped = 0;
    fp.wait();
    for (std::uint64_t id = 1; id <= 30; ++id) {
        os.advance(2ms);
        PresentInfo p;
        p.id = id;
        p.begin = fp.now();
        p.end = fp.now() + 100us;
        p.swap_interval = 0;
        fp.report_present(p);
        if (id > 1) {  // the previous present's feedback
            PresentInfo f = shown_at(id - 1, (fp.now() - clock::time_point{}) + 1ms, false);
            if ((id - 1) % 3 == 0) {
                f.outcome = PresentOutcome::discarded;
                f.displayed = {};
            }
            fp.report_present(f);
            fp.report_present(f);  // reported twice: counted once
        }
        const pacer::FrameTiming t = fp.wait();
        EXPECT_TRUE(t.present_feedback || id == 1);
        shown += t.presents_shown;
        dropped += t.presents_dropped;
    }
    const pacer::PresentCounts c = fp.status().presents;
    EXPECT_EQ(c.submitted, 30u) << "feedback is not a new present";
    EXPECT_EQ(c.shown, 20u);
    EXPECT_EQ(c.dropped, 9u);
    EXPECT_TRUE(c.feedback);
    EXPECT_EQ(shown, c.shown) << "the frames' counts add up to the status";
    EXPECT_EQ(dropped, c.dropped);
}

TEST(PresentFeedback, WithoutFeedbackShownIsUnknown) {
    pacer::SimulatedOs os({.granularity = 0ns});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    fp.wait();
    PresentInfo p;
    p.begin = fp.now();
    p.end = fp.now();
    fp.report_present(p);
    const pacer::FrameTiming t = fp.wait();
    EXPECT_FALSE(t.present_feedback);
    EXPECT_EQ(fp.status().presents.submitted, 1u);
    EXPECT_FALSE(fp.status().presents.feedback);
}

// A frame on the grid is for the next slot; with no vblank known that is all there is.
TEST(PresentFeedback, EachFrameNamesTheDisplayTimeItIsFor) {
    pacer::SimulatedOs os({.granularity = 0ns});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    const pacer::FrameTiming first = fp.wait();
    EXPECT_EQ(first.display_target, first.deadline + 10ms);
    for (int i = 0; i < 5; ++i) {
        os.advance(3ms);
        const pacer::FrameTiming t = fp.wait();
        EXPECT_EQ(t.display_target, t.deadline + 10ms) << i;
        EXPECT_FALSE(t.has_display_target_msc);
    }
}

// A fake pair of clocks: the source runs 210 ms behind pacer's; each read of pacer's clock takes
// 50 ns, except that some brackets are widened by a "preemption".
TEST(ClockOffset, TheNarrowestBracketWins) {
    std::int64_t now = 1'000'000'000;
    int reads = 0;
    auto pacer_clock = [&] {
        now += (++reads % 7 == 0) ? 90'000 : 50;  // every seventh read: 90 us late
        return clock::from_ns(now);
    };
    auto source = [&] { return std::chrono::nanoseconds(now - 210'000'000 + 10); };
    const pacer::ClockOffset off = pacer::measure_offset(pacer_clock, source, 16);
    ASSERT_TRUE(off.valid);
    // Source read at `now` (after the first pacer read); the midpoint is 25 ns later.
    EXPECT_EQ(off.offset, -210'000'000ns + 10ns - 25ns);
    EXPECT_EQ(off.uncertainty, 25ns);
    EXPECT_EQ(off.to_pacer(5s), clock::from_ns(5'000'000'000 + 210'000'000 - 10 + 25));
    EXPECT_FALSE(pacer::ClockOffset{}.valid);
}

}  // namespace
