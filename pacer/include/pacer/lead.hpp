// pacer/lead.hpp - the just-in-time lead: how long before its display deadline a frame must start
// so that at most a budget of frames is shown late.
//
//   LeadController     learns the lead from the frames it is shown
//     lead             the lead in force: the learned quantile of the work + a safety offset
//     prime            before anything is learned: the offset starts at period / 32
//     learn            one frame: its time from the wake-up target to its present call, and
//                      whether it was shown late
//   LeadStatus         the lead, the offset and how many frames were learned
//
//   pacer::LeadController lead;
//   wake_at(deadline - lead.lead(period, 0.01));
//   // the frame's work, its present; then, at the next frame:
//   lead.learn(present_call - wake_target, lead_used, shown_late, period, 0.01);
//
// The lead is the (1 - max_late_share) quantile of the time from the wake-up target to the
// present call (the work plus the wake-up error), learned on a fading histogram (half-life 100
// frames, pacer/estimator.hpp), plus a safety offset, clamped to [0, 4 periods]; until 8 frames
// are learned it is one period. The offset starts at period / 32, rises by period / 64 at each
// late frame and falls by period / 64 x b / (1 - b) at each frame on time, b = max_late_share: in
// steady state b of the frames are late, a late frame backs off at once and a calm run creeps
// toward lower latency. Two late frames in a row, the second overrunning its lead, add half the
// overrun at once: a heavier scene, not the tail of the work (an isolated tail frame moves the
// offset by one step only: the budget counts on those). The offset stays in [-q / 2, period], q
// the learned quantile. What it buys against waiting at the frame start, measured with
// FramePacer in virtual time: docs/latency.md#measured-in-virtual-time.
//
// Late feedback (late_feedback: a frame learned as on time, then reported shown after its target)
// within 8 frames of the previous late feedback doubles the step, up to 8 steps. Such a burst of
// frames that did their work in time and still missed says that the deadline moved (a server's
// edge, or the display's fitted phase, moved later), and one step per late frame would pay a late
// frame per step: a present for vblank k reaches the server after the frame for k + 1 was sent,
// so each miss of a present at a time costs 2-3 frames before its feedback arrives. On Xvfb,
// presenting at a target counter, the doubled steps leave fewer frames off target than one step
// per late frame, idle and beside a build; the cost is a present call made somewhat earlier
// before its target (measured: docs/platforms.md#measured-presenting-at-a-time).
//
// Pure logic: no clock, no allocation. Thread safety: none.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/estimator.hpp"

namespace pacer {

struct LeadStatus {
    std::chrono::nanoseconds lead{0};    // in force (for the period it was last asked for)
    std::chrono::nanoseconds offset{0};  // the safety offset within it
    std::int64_t learned = 0;            // frames learned so far
};

class LeadController {
public:
    static constexpr int kMinLearned = 8;         // frames before the learned lead is used
    static constexpr double kHalfLife = 100.0;    // frames, of the work's histogram

    // The lead for a frame of this period, max_late_share in [0.001, 0.5].
    std::chrono::nanoseconds lead(std::chrono::nanoseconds period, double max_late_share) const noexcept;
    // Before kMinLearned frames: the offset starts at period / 32 (call once per frame).
    void prime(std::chrono::nanoseconds period) noexcept;
    // One frame: `work` from its wake-up target to its present call, the lead it was started
    // with, and whether it was shown after its display deadline.
    void learn(std::chrono::nanoseconds work, std::chrono::nanoseconds lead_used, bool shown_late,
               std::chrono::nanoseconds period, double max_late_share) noexcept;
    // Presentation feedback that arrives after its frame was learned (1-3 frames later) and says
    // it was shown after its display deadline: the late step that frame should have taken,
    // doubled in a burst (see the manual above).
    void late_feedback(std::chrono::nanoseconds period, double max_late_share) noexcept;
    std::chrono::nanoseconds offset() const noexcept;
    std::int64_t learned() const noexcept { return work_.count(); }

private:
    static constexpr int kBurstFrames = 8;    // late feedback within this many frames of the last
    static constexpr double kMaxBurst = 8.0;  // ... doubles the step, up to this multiple

    LatenessEstimator work_{kHalfLife};
    double offset_ = 0;  // ns: fractional steps accumulate
    bool late_ = false;  // the last frame was shown late
    int since_late_ = kBurstFrames + 1;  // frames learned since the last late feedback
    double burst_ = 1.0;                 // the last late feedback's multiple of the step
};

}  // namespace pacer
