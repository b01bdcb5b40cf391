// The just-in-time lead (pacer/lead.hpp) and the latency marks (pacer/latency.hpp), each on its
// own, against hand-computed values.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "pacer/latency.hpp"
#include "pacer/lead.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using pacer::LatencyFigures;
using pacer::LatencyTracker;
using pacer::LeadController;
using pacer::LeadSample;
using pacer::SyncMode;
using pacer::clock;

using pacer_test::at;
using pacer_test::k60;

TEST(LeadController, OnePeriodUntilEightFramesAreLearned) {
    LeadController lead;
    EXPECT_EQ(lead.lead(k60, 0.01), k60);
    lead.prime(k60);
    EXPECT_EQ(lead.offset(), 520'833ns);  // period / 32
    for (int i = 0; i < LeadController::kMinLearned - 1; ++i) lead.learn(4ms, k60, false, k60, 0.01);
    EXPECT_EQ(lead.lead(k60, 0.01), k60);
    lead.learn(4ms, k60, false, k60, 0.01);
    // The quantile of 4 ms samples lies in 4 ms's 9 % bin; plus the offset, now below period / 32.
    EXPECT_GT(lead.lead(k60, 0.01), 3900us);
    EXPECT_LT(lead.lead(k60, 0.01), 4ms + 700us);
    lead.prime(k60);  // learned: priming no longer resets the offset
    EXPECT_LT(lead.offset(), 520'833ns);
}

// b = 0.01: a frame on time lowers the offset by period / 64 x 0.01 / 0.99; a late one raises it
// by period / 64; a second late frame in a row that overran its lead adds half the overrun.
TEST(LeadController, TheOffsetStepsByTheBudget) {
    LeadController lead;
    lead.prime(k60);
    const double step = 16'666'667.0 / 64.0;
    lead.learn(4ms, k60, false, k60, 0.01);
    EXPECT_NEAR(static_cast<double>(lead.offset().count()), 520'833.3 - step * 0.01 / 0.99, 1.0);
    const double before = static_cast<double>(lead.offset().count());
    lead.learn(4ms, 3ms, true, k60, 0.01);  // late, but the previous frame was not
    EXPECT_NEAR(static_cast<double>(lead.offset().count()), before + step, 1.0);
    const double once = static_cast<double>(lead.offset().count());
    lead.learn(5ms, 3ms, true, k60, 0.01);  // late again, 2 ms over its lead: + step + 1 ms
    EXPECT_NEAR(static_cast<double>(lead.offset().count()), once + step + 1e6, 1.0);
    // The offset never exceeds a period.
    for (int i = 0; i < 200; ++i) lead.learn(20ms, 3ms, true, k60, 0.01);
    EXPECT_LE(lead.offset(), k60);
}

// Late feedback (frames learned as on time, reported late afterwards) within 8 frames of the
// previous one doubles the step: 1, 2, 4, 8, 8 steps; after more than 8 frames without it, one
// step again. Each also undoes the on-time fall the frame took.
TEST(LeadController, LateFeedbackInABurstDoublesTheStepUpToEight) {
    LeadController lead;
    lead.prime(k60);
    const double step = 16'666'667.0 / 64.0, fall = step * 0.01 / 0.99;
    for (int i = 0; i < 20; ++i) lead.learn(1ms, 3ms, false, k60, 0.01);
    auto offset = [&] { return static_cast<double>(lead.offset().count()); };
    for (double multiple : {1.0, 2.0, 4.0, 8.0, 8.0}) {
        lead.learn(1ms, 3ms, false, k60, 0.01);
        const double before = offset();
        lead.late_feedback(k60, 0.01);
        EXPECT_NEAR(offset(), before + multiple * step + fall, 1.0) << multiple;
    }
    // 8 frames on time: still in the burst.
    for (int i = 0; i < 8; ++i) lead.learn(1ms, 3ms, false, k60, 0.01);
    double before = offset();
    lead.late_feedback(k60, 0.01);
    EXPECT_NEAR(offset(), before + 8 * step + fall, 1.0);
    // 9 frames: the burst is over.
    for (int i = 0; i < 9; ++i) lead.learn(1ms, 3ms, false, k60, 0.01);
    before = offset();
    lead.late_feedback(k60, 0.01);
    EXPECT_NEAR(offset(), before + step + fall, 1.0);
    // A late frame that learn() itself judged takes one step, burst or not.
    lead.learn(1ms, 3ms, false, k60, 0.01);
    lead.late_feedback(k60, 0.01);
    before = offset();
    lead.learn(1ms, 3ms, true, k60, 0.01);
    EXPECT_NEAR(offset(), before + step, 1.0);
}

TEST(LeadController, TheLeadStaysWithinFourPeriods) {
    LeadController lead;
    lead.prime(k60);
    for (int i = 0; i < 100; ++i) lead.learn(200ms, 10ms, true, k60, 0.01);
    EXPECT_EQ(lead.lead(k60, 0.01), 4 * k60);
}

// A frame started at 100 ms, its input at 101 ms, work done at 104 ms, presented 104-105 ms and
// shown (displayed time) at 116 ms.
TEST(LatencyTracker, FromTheInputToTheDisplayedTime) {
    LatencyTracker t;
    t.begin(SyncMode::frame_start);
    t.start(at(100ms));
    t.open();
    t.mark_input(at(101ms));
    t.mark_work_end(at(104ms));
    t.mark_present_call(at(104ms));
    EXPECT_EQ(t.cost(at(110ms)), 4ms) << "from the wake to the end of the work";
    t.on_present(at(104ms), at(105ms), at(116ms), at(117ms), true);
    const LatencyFigures f = t.close(at(117ms), 8ms, 500us, nullptr);
    EXPECT_EQ(f.latency, 15ms);
    EXPECT_EQ(f.input_to_present, 3ms);
    EXPECT_TRUE(f.measured);
    EXPECT_FALSE(f.shown_late) << "no display deadline";
    EXPECT_EQ(t.previous_shown(), at(116ms));
}

TEST(LatencyTracker, PredictedThenReturnThenNextFrame) {
    LatencyTracker t;
    t.begin(SyncMode::frame_start);
    t.start(at(100ms));
    t.open();
    // No input mark: from the wake. Predicted showing from the present's verdict.
    t.on_present(at(104ms), at(105ms), clock::time_point{}, at(116'666'667ns), true);
    LatencyFigures f = t.close(at(117ms), 8ms, 500us, nullptr);
    EXPECT_EQ(f.latency, 16'666'667ns);
    EXPECT_FALSE(f.measured);
    // No prediction: the present's return (a lower bound when the vblanks are unknown).
    t.begin(SyncMode::frame_start);
    t.start(at(200ms));
    t.open();
    t.on_present(at(204ms), at(205ms), clock::time_point{}, clock::time_point{}, false);
    EXPECT_EQ(t.close(at(210ms), 8ms, 500us, nullptr).latency, 5ms);
}

// No present reported, no latency: a frame closed without on_present() has zero figures, with or
// without before_present's marks, while its cost and the lead's sample still come from its work.
TEST(LatencyTracker, NoPresentReportedNoLatency) {
    LatencyTracker t;
    t.begin(SyncMode::frame_start);
    t.start(at(300ms));
    t.open();
    t.mark_input(at(301ms));
    EXPECT_EQ(t.cost(at(309ms)), 9ms);
    LatencyFigures f = t.close(at(309ms), 8ms, 500us, nullptr);
    EXPECT_EQ(f.latency, 0ns);
    EXPECT_EQ(f.input_to_present, 0ns);
    EXPECT_FALSE(f.measured);
    // before_present's marks are no present: still nothing, and not shown late, although the
    // frame ended 6 ms past its deadline; the lead learns its work all the same.
    t.begin(SyncMode::just_in_time);
    t.start(at(400ms));
    t.aim_early(at(410ms), at(400ms), 10ms, false, false);
    t.open();
    t.mark_input(at(401ms));
    t.mark_work_end(at(416ms));
    t.mark_present_call(at(416ms));
    std::optional<LeadSample> sample;
    f = t.close(at(420ms), 8ms, 500us, &sample);
    EXPECT_EQ(f.latency, 0ns);
    EXPECT_EQ(f.input_to_present, 0ns);
    EXPECT_FALSE(f.shown_late);
    ASSERT_TRUE(sample.has_value());
    EXPECT_EQ(sample->work, 16ms) << "wake-up target to the before_present call";
    EXPECT_TRUE(sample->shown_late) << "the lead backs off from work that overran its deadline";
}

TEST(LatencyTracker, AReportOfTheSamePresentAddsItsDisplayedTime) {
    LatencyTracker t;
    t.begin(SyncMode::frame_start);
    t.start(at(100ms));
    t.open();
    t.on_present(at(104ms), at(105ms), clock::time_point{}, clock::time_point{}, false);
    t.on_present(at(104ms), at(105ms), at(118ms), clock::time_point{}, false);  // the feedback came
    t.on_present(at(130ms), at(131ms), at(140ms), clock::time_point{}, false);  // another present: not this frame's
    const LatencyFigures f = t.close(at(150ms), 8ms, 500us, nullptr);
    EXPECT_EQ(f.latency, 18ms);
    EXPECT_TRUE(f.measured);
}

// Shown late: after the deadline by more than the miss tolerance (frame on the grid), half a
// refresh (aimed at a vblank), or at all (placed before a vblank with vsync off).
TEST(LatencyTracker, ShownLateByTheKindOfDeadline) {
    const auto run = [](bool locked, bool aligned, std::chrono::nanoseconds shown) {
        LatencyTracker t;
        t.begin(aligned ? SyncMode::frame_start : SyncMode::just_in_time);
        t.start(at(100ms));
        t.aim_early(at(116ms), at(105ms), 11ms, locked, aligned);
        t.open();
        t.on_present(at(113ms), at(114ms), at(shown), clock::time_point{}, false);
        std::optional<LeadSample> sample;
        const LatencyFigures f = t.close(at(120ms), 8ms, 500us, &sample);
        EXPECT_TRUE(sample.has_value());
        if (sample) {
            EXPECT_EQ(sample->work, 8ms) << "wake-up target to present call";
            EXPECT_EQ(sample->lead, 11ms);
            EXPECT_EQ(sample->shown_late, f.shown_late);
        }
        return f.shown_late;
    };
    EXPECT_FALSE(run(false, false, 116ms + 500us));
    EXPECT_TRUE(run(false, false, 116ms + 501us));
    EXPECT_FALSE(run(true, false, 116ms + 8ms));
    EXPECT_TRUE(run(true, false, 116ms + 8ms + 1ns));
    EXPECT_FALSE(run(true, true, 116ms));
    EXPECT_TRUE(run(true, true, 116ms + 1ns));
}

TEST(LatencyTracker, OnlyAnOpenFrameCounts) {
    LatencyTracker t;
    t.begin(SyncMode::just_in_time);
    t.mark_input(at(1ms));  // not open yet: ignored
    EXPECT_FALSE(t.cost(at(2ms)).has_value());
    std::optional<LeadSample> sample = LeadSample{};
    const LatencyFigures f = t.close(at(3ms), 8ms, 500us, &sample);
    EXPECT_EQ(f.latency, 0ns);
    EXPECT_FALSE(sample.has_value());
    // A frame on the grid (frame_start, no deadline) teaches the lead nothing.
    t.begin(SyncMode::frame_start);
    t.start(at(10ms));
    t.open();
    (void)t.close(at(20ms), 8ms, 500us, &sample);
    EXPECT_FALSE(sample.has_value());
    // The previous target is remembered across frames until a frame without one.
    t.begin(SyncMode::present);
    t.aim(at(40ms), false);
    t.begin(SyncMode::present);
    EXPECT_TRUE(t.has_previous_target());
    EXPECT_EQ(t.previous_target(), at(40ms));
    t.no_target();
    EXPECT_FALSE(t.has_previous_target());
}

}  // namespace
