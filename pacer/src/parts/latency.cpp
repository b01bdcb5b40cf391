#include "pacer/latency.hpp"

#include <algorithm>

namespace pacer {

void LatencyTracker::begin(SyncMode sync, std::uint64_t frame) noexcept {
    if (!pipelined_) count_ = 0;             // a single-thread loop: one frame at a time
    if (count_ == kMaxInFlight) remove(0);   // close_due closes the oldest first: not reached
    Marks& m = frames_[count_++];
    m = Marks();
    m.id = frame;
    m.sync = sync;
}

void LatencyTracker::start(clock::time_point wake) noexcept {
    if (Marks* m = newest()) m->start = clock::to_ns(wake);
}

void LatencyTracker::open() noexcept {
    if (Marks* m = newest()) m->open = true;
}

const LatencyTracker::Marks* LatencyTracker::find(std::uint64_t frame) const noexcept {
    if (count_ == 0) return nullptr;
    if (frame == 0) return frames_[count_ - 1].open ? &frames_[count_ - 1] : nullptr;
    for (int i = 0; i < count_; ++i)
        if (frames_[i].id == frame) return frames_[i].open ? &frames_[i] : nullptr;
    return nullptr;
}

LatencyTracker::Marks* LatencyTracker::find(std::uint64_t frame) noexcept {
    return const_cast<Marks*>(static_cast<const LatencyTracker*>(this)->find(frame));
}

bool LatencyTracker::aligned(std::uint64_t frame) const noexcept {
    const Marks* m = find(frame);
    return m && m->aligned;
}

bool LatencyTracker::lead_used(std::uint64_t frame) const noexcept {
    const Marks* m = find(frame);
    return m && (m->sync == SyncMode::just_in_time || m->aligned);
}

void LatencyTracker::aim(clock::time_point target, bool locked, std::uint64_t frame) noexcept {
    previous_target_ = clock::to_ns(target);
    has_previous_target_ = true;
    if (Marks* m = frame == 0 ? newest() : find(frame)) {
        m->target = previous_target_;
        m->has_target = true;
        m->locked = locked;
    }
}

void LatencyTracker::aim_early(clock::time_point target, clock::time_point wake_target,
                               std::chrono::nanoseconds lead, bool locked, bool aligned) noexcept {
    aim(target, locked);
    if (Marks* m = newest()) {
        m->start_target = clock::to_ns(wake_target);
        m->lead = lead.count();
        m->aligned = aligned;
    }
}

void LatencyTracker::mark_input(clock::time_point now) noexcept {
    if (Marks* m = find(0)) {
        m->input = clock::to_ns(now);
        m->has_input = true;
    }
}

void LatencyTracker::mark_work_end(clock::time_point now, std::uint64_t frame) noexcept {
    if (Marks* m = find(frame)) {
        m->has_call = true;
        m->work_end = clock::to_ns(now);
    }
}

void LatencyTracker::mark_present_call(clock::time_point call, std::uint64_t frame) noexcept {
    if (Marks* m = find(frame)) m->present_call = clock::to_ns(call);
}

void LatencyTracker::on_present(clock::time_point begin, clock::time_point end, clock::time_point displayed,
                                clock::time_point predicted, bool predicted_known, std::uint64_t frame) noexcept {
    if (frame != 0) pipelined_ = true;
    Marks* m = find(frame);
    if (!m) return;
    const std::int64_t b = clock::to_ns(begin), d = clock::to_ns(displayed);
    if (!m->presented) {
        m->presented = true;
        m->present_begin = b;
        m->present_end = clock::to_ns(end);
        m->displayed = d;
        m->predicted = clock::to_ns(predicted);
        m->has_prediction = predicted_known;
    } else if (m->displayed == 0 && d != 0 && b == m->present_begin) {
        m->displayed = d;  // the same present reported again, now with its displayed time
    }
}

std::optional<std::chrono::nanoseconds> LatencyTracker::cost(clock::time_point now) const noexcept {
    const Marks* m = find(0);
    if (!m) return std::nullopt;
    const std::int64_t end = m->has_call ? m->work_end : m->presented ? m->present_begin : clock::to_ns(now);
    return std::chrono::nanoseconds(std::max<std::int64_t>(0, end - m->start));
}

void LatencyTracker::remove(int i) noexcept {
    std::copy(frames_ + i + 1, frames_ + count_, frames_ + i);
    --count_;
}

int LatencyTracker::close_due(clock::time_point now_tp, std::chrono::nanoseconds locked_tolerance,
                              std::chrono::nanoseconds miss_tolerance, ClosedFrame* out) noexcept {
    const std::int64_t now = clock::to_ns(now_tp);
    int n = 0;
    for (int i = 0; i < count_;) {
        const Marks& m = frames_[i];
        // In flight, a frame waits for its present until kMaxInFlight - 1 newer frames are open
        // (the next begin() would push it out).
        const bool due = !pipelined_ || m.presented || (i == 0 && count_ == kMaxInFlight);
        if (!due) {
            ++i;
            continue;
        }
        if (m.open) out[n++] = close_one(m, now, locked_tolerance.count(), miss_tolerance.count());
        remove(i);
    }
    return n;
}

LatencyFigures LatencyTracker::close(clock::time_point now, std::chrono::nanoseconds locked_tolerance,
                                     std::chrono::nanoseconds miss_tolerance,
                                     std::optional<LeadSample>* sample) noexcept {
    ClosedFrame closed[kMaxInFlight];
    const int n = close_due(now, locked_tolerance, miss_tolerance, closed);
    if (sample) sample->reset();
    if (n == 0) return {};
    if (sample) *sample = closed[n - 1].sample;
    return closed[n - 1].figures;
}

ClosedFrame LatencyTracker::close_one(const Marks& m, std::int64_t now, std::int64_t locked_tolerance,
                                      std::int64_t miss_tolerance) noexcept {
    ClosedFrame c;
    c.frame = m.id;
    c.presented = m.presented;
    LatencyFigures& t = c.figures;
    const std::int64_t input = m.has_input ? m.input : m.start;
    const std::int64_t call = m.presented ? m.present_begin : m.has_call ? m.present_call : now;
    const std::int64_t end = m.presented ? m.present_end : call;
    std::int64_t shown = end;
    if (m.displayed != 0) {
        shown = m.displayed;
        t.measured = true;
    } else if (m.presented && m.has_prediction) {
        shown = m.predicted;
    }
    t.latency = std::chrono::nanoseconds(std::max<std::int64_t>(0, shown - input));
    t.input_to_present = std::chrono::nanoseconds(std::max<std::int64_t>(0, call - input));
    if (m.has_target) {
        // A torn frame is late as soon as it lands after the vblank: the tear is on screen.
        const std::int64_t tol = m.aligned ? 0 : m.locked ? locked_tolerance : miss_tolerance;
        t.shown_late = shown > m.target + tol;
    }
    previous_shown_ = shown;
    // The lead learns from the wake-up target to the present call, so that it covers the wake-up
    // error too; not to its return: a swap that blocks returns at the vblank whatever the work,
    // and the lead would learn itself. The call's own cost is left to the offset. With frames in
    // flight the call is the present thread's: the lead covers the whole pipeline's work. A frame
    // in flight closed without a present or a present call says nothing of its work.
    if ((m.sync == SyncMode::just_in_time || m.aligned) && m.has_target && (m.presented || m.has_call || !pipelined_))
        c.sample = LeadSample{std::chrono::nanoseconds(call - m.start_target), std::chrono::nanoseconds(m.lead),
                              t.shown_late};
    // No present reported, no latency: nothing says the frame was shown, so its figures stay zero
    // (the lead above still learns from its work, and the next deadline from where it ended).
    if (!m.presented) t = LatencyFigures{};
    return c;
}

}  // namespace pacer
