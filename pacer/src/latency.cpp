#include "pacer/latency.hpp"

#include <algorithm>

namespace pacer {

void LatencyTracker::begin(SyncMode sync) noexcept {
    const std::int64_t prev_target = previous_target_, prev_shown = previous_shown_;
    const bool has_prev = has_previous_target_;
    *this = LatencyTracker();
    previous_target_ = prev_target;
    previous_shown_ = prev_shown;
    has_previous_target_ = has_prev;
    sync_ = sync;
}

void LatencyTracker::aim(clock::time_point target, bool locked) noexcept {
    target_ = previous_target_ = clock::to_ns(target);
    has_target_ = has_previous_target_ = true;
    locked_ = locked;
}

void LatencyTracker::aim_early(clock::time_point target, clock::time_point wake_target,
                               std::chrono::nanoseconds lead, bool locked, bool aligned) noexcept {
    aim(target, locked);
    start_target_ = clock::to_ns(wake_target);
    lead_ = lead.count();
    aligned_ = aligned;
}

void LatencyTracker::mark_input(clock::time_point now) noexcept {
    if (!open_) return;
    input_ = clock::to_ns(now);
    has_input_ = true;
}

void LatencyTracker::mark_work_end(clock::time_point now) noexcept {
    has_call_ = true;
    work_end_ = clock::to_ns(now);
}

void LatencyTracker::mark_present_call(clock::time_point call) noexcept { present_call_ = clock::to_ns(call); }

void LatencyTracker::on_present(clock::time_point begin, clock::time_point end, clock::time_point displayed,
                                clock::time_point predicted, bool predicted_known) noexcept {
    const std::int64_t b = clock::to_ns(begin), d = clock::to_ns(displayed);
    if (!presented_) {
        presented_ = true;
        present_begin_ = b;
        present_end_ = clock::to_ns(end);
        displayed_ = d;
        predicted_ = clock::to_ns(predicted);
        has_prediction_ = predicted_known;
    } else if (displayed_ == 0 && d != 0 && b == present_begin_) {
        displayed_ = d;  // the same present reported again, now with its displayed time
    }
}

std::optional<std::chrono::nanoseconds> LatencyTracker::cost(clock::time_point now) const noexcept {
    if (!open_) return std::nullopt;
    const std::int64_t end = has_call_ ? work_end_ : presented_ ? present_begin_ : clock::to_ns(now);
    return std::chrono::nanoseconds(std::max<std::int64_t>(0, end - start_));
}

LatencyFigures LatencyTracker::close(clock::time_point now_tp, std::chrono::nanoseconds locked_tolerance,
                                     std::chrono::nanoseconds miss_tolerance,
                                     std::optional<LeadSample>* sample) noexcept {
    LatencyFigures t;
    if (sample) sample->reset();
    if (!open_) return t;
    const std::int64_t now = clock::to_ns(now_tp);
    const std::int64_t input = has_input_ ? input_ : start_;
    const std::int64_t call = presented_ ? present_begin_ : has_call_ ? present_call_ : now;
    const std::int64_t end = presented_ ? present_end_ : call;
    std::int64_t shown = end;
    if (displayed_ != 0) {
        shown = displayed_;
        t.measured = true;
    } else if (presented_ && has_prediction_) {
        shown = predicted_;
    }
    t.latency = std::chrono::nanoseconds(std::max<std::int64_t>(0, shown - input));
    t.input_to_present = std::chrono::nanoseconds(std::max<std::int64_t>(0, call - input));
    if (has_target_) {
        // A torn frame is late as soon as it lands after the vblank: the tear is on screen.
        const std::int64_t tol = aligned_ ? 0 : locked_ ? locked_tolerance.count() : miss_tolerance.count();
        t.shown_late = shown > target_ + tol;
    }
    previous_shown_ = shown;
    // The lead learns from the wake-up target to the present call, so that it covers the wake-up
    // error too; not to its return: a swap that blocks returns at the vblank whatever the work,
    // and the lead would learn itself. The call's own cost is left to the offset.
    if ((sync_ == SyncMode::just_in_time || aligned_) && has_target_ && sample)
        *sample = LeadSample{std::chrono::nanoseconds(call - start_target_), std::chrono::nanoseconds(lead_),
                             t.shown_late};
    // No present reported, no latency: nothing says the frame was shown, so its figures stay zero
    // (the lead above still learns from its work, and the next deadline from where it ended).
    return presented_ ? t : LatencyFigures{};
}

}  // namespace pacer
