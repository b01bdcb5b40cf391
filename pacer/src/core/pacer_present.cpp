// FramePacer, the present side: the frame markers, present sync's wait, and what a present or a
// vblank event tells the parts (pacer_impl.hpp).
#include <algorithm>

#include "pacer/present_classifier.hpp"
#include "core/pacer_impl.hpp"

namespace pacer {

void FramePacer::Impl::mark_input() noexcept { latency_.mark_input(now()); }

// On the pacing thread. A frame other than the newest is presented a frame behind: in present
// sync it waits as a present thread's would (present_side_wait), else its marks only.
void FramePacer::Impl::before_present(std::uint64_t frame) noexcept {
    if (frame == frames_) frame = 0;
    if (!grid_.started() || !latency_.is_open(frame)) return;
    if (frame != 0) {
        publish();  // the plan as of now: the pacing thread is the present side here
        detail::PresentEvent e;
        present_side_wait(e);
        if (e.waited.period.count() != 0) take_present_wait(e, frame);
        return mark_present(frame, clock::to_ns(e.waited.period.count() != 0 ? e.call : ts_->now()));
    }
    const std::int64_t t = clock::to_ns(ts_->now());
    second_call_ = true;
    latency_.mark_work_end(clock::from_ns(t));
    if (sync_ != SyncMode::present) {
        latency_.mark_present_call(clock::from_ns(t));
        return;
    }
    present_record_ = present_wait(t);
    latency_.mark_present_call(present_record_.wake);
}

namespace {
std::int64_t first_at_or_after(std::int64_t origin, std::int64_t step, std::int64_t t) noexcept {
    if (t <= origin) return origin - (origin - t) / step * step;
    return origin + (t - origin + step - 1) / step * step;
}
}  // namespace

// Present sync on the present side (pacer_impl.hpp): the next present slot after the last one,
// at least half a period on (one present per period), waited for with the present side's waiter.
void FramePacer::Impl::present_side_wait(detail::PresentEvent& e) noexcept {
    if (!plan_.on.load(std::memory_order_relaxed)) return;
    const std::int64_t p = plan_.period.load(std::memory_order_relaxed);
    const std::int64_t v0 = plan_.vblank.load(std::memory_order_relaxed);
    const std::int64_t pv = plan_.vblank_period.load(std::memory_order_relaxed);
    if (p <= 0) return;
    const std::int64_t now = clock::to_ns(ts_->now());
    std::int64_t deadline = 0, aim = 0;
    const bool locked = v0 != 0 && pv > 0;
    if (locked) {  // a vblank at least a period after the last one, less a lead (as present_wait)
        const std::int64_t lead = std::min<std::int64_t>(1'000'000, pv / 4);
        std::int64_t earliest = now + lead;
        if (present_last_ != 0) earliest = std::max(earliest, present_last_ + p - pv / 4);
        aim = first_at_or_after(v0, pv, earliest);
        deadline = aim - lead;
    } else {
        std::int64_t earliest = now;
        if (present_last_ != 0) earliest = std::max(earliest, present_last_ + p / 2);
        deadline = aim = first_at_or_after(plan_.grid.load(std::memory_order_relaxed), p, earliest);
    }
    const auto mode = static_cast<WaitMode>(plan_.mode.load(std::memory_order_relaxed));
    const WaitResult r = present_waiter_.wait_until(clock::from_ns(deadline), mode);
    FrameTiming& t = e.waited;
    const std::int64_t wake = clock::to_ns(r.end);
    t.deadline = clock::from_ns(deadline);
    t.wake = r.end;
    t.lateness = r.lateness;
    t.interval = std::chrono::nanoseconds(present_wake_ != 0 ? wake - present_wake_ : 0);
    t.work = std::chrono::nanoseconds(present_wake_ != 0 ? now - present_wake_ : 0);  // the present side's
    t.period = std::chrono::nanoseconds(p);
    t.slept = r.slept;
    t.spun = r.spun;
    t.oversleep = r.oversleep;
    t.margin = r.margin;
    t.mode = mode;
    t.sync = SyncMode::present;
    t.source = own_source(mode);
    t.missed = r.lateness.count() > plan_.miss_tolerance.load(std::memory_order_relaxed);
    t.display_locked = locked;
    present_last_ = locked ? aim : deadline;
    present_wake_ = wake;
    e.call = r.end;
    e.aim = clock::from_ns(aim);
    e.aim_locked = locked;
}

// On the pacing thread: a present-side wait, as the record wait() returns next (present sync's
// FrameTiming describes the last wait made before a present) and as the frame's display target.
void FramePacer::Impl::take_present_wait(const detail::PresentEvent& e, std::uint64_t frame) noexcept {
    present_record_ = e.waited;
    present_record_.index = grid_.index();
    second_call_ = true;  // the present side waits: wait() returns at once
    if (e.waited.missed) ++missed_;
    latency_.aim(e.aim, e.aim_locked, frame);
}

// A frame's work ended and its present call comes, at `call`: from the present thread (drained),
// or a frame behind on the pacing thread.
void FramePacer::Impl::mark_present(std::uint64_t frame, std::int64_t call) noexcept {
    latency_.mark_work_end(clock::from_ns(call), frame);
    latency_.mark_present_call(clock::from_ns(call), frame);
}

// present sync: waits for the frame's present deadline, the grid deadline or, when the swap
// paces and the vblanks are known, the next vblank - 1 ms (a quarter period at most).
FrameTiming FramePacer::Impl::present_wait(std::int64_t now) noexcept {
    PaceSlot slot;
    WaitMode mode = active_mode();
    const bool locked = swap_paces_ && vblanks_.known();
    if (locked) {
        grid_dirty_ = true;
        const std::int64_t lead = std::min<std::int64_t>(1'000'000, vblank_period() / 4);
        slot.grid = grid_.after(clock::from_ns(next_target(now + lead) - lead));
        slot.swap_paces = true;
        mode = WaitMode::hybrid;
        slot.aim = clock::to_ns(slot.grid.deadline) + lead;
        latency_.aim(slot.grid.deadline + std::chrono::nanoseconds(lead), true);
    } else {
        leave_swap_grid(now);
        slot = grid_slot(now);
        slot.aim = clock::to_ns(slot.grid.deadline);
        latency_.aim(slot.grid.deadline, false);
    }
    slot.wait_until = clock::to_ns(slot.grid.deadline);
    const WaitResult r = waiter_.wait_until(clock::from_ns(slot.wait_until), mode);
    FrameTiming t = record(slot, r, now);
    t.sync = SyncMode::present;
    t.display_locked = locked && vblanks_.use_fit();
    return t;
}

// One present: vsync's evidence, the display's fit, and the frame's latency marks. A present with
// the id of one reported before is its feedback.
void FramePacer::Impl::report_present(const PresentInfo& in, std::uint64_t newest) noexcept {
    if (in.id != 0) {
        if (Sent* s = sent(in.id)) return feedback(*s, in);
    }
    if (in.frame != 0 && in.frame <= newest) {  // frames in flight: how far behind it was
        depths_[static_cast<std::size_t>(depth_next_)] = static_cast<std::uint8_t>(std::min<std::uint64_t>(newest - in.frame, 255));
        depth_next_ = (depth_next_ + 1) % static_cast<int>(depths_.size());
        depth_count_ = std::min(depth_count_ + 1, static_cast<int>(depths_.size()));
    }
    bool moved = false;
    const PresentInfo present = rate_.as_reported(in, &moved);
    if (moved) pending_ = true;
    vsync_.on_present(present);
    vblanks_.set_reported_hz(present.refresh_hz);
    const VsyncStatus& vs = vsync_.status();
    const PresentVerdict v = PresentClassifier::classify(present, vs.in_use, vblanks_, vs.detected);
    vblanks_.observe(present, v);
    remember(present);
    if (!grid_.started()) return;
    latency_.on_present(present.begin, present.end, v.displayed, v.shown, v.shown_known, present.frame);
}

FramePacer::Impl::Sent* FramePacer::Impl::sent(std::uint64_t id) noexcept {
    for (Sent& s : sent_)
        if (s.info.id == id) return &s;
    return nullptr;
}

void FramePacer::Impl::remember(const PresentInfo& present) noexcept {
    ++presents_.submitted;
    Sent& s = sent_[static_cast<std::size_t>(sent_next_)];
    sent_next_ = (sent_next_ + 1) % kSentKept;
    s.info = present;
    s.settled = false;
    s.judged = false;
    s.aim = aim_of(present.frame);
    s.lead_used = latency_.lead_used(present.frame);
    if (present.outcome != PresentOutcome::unknown) count_outcome(s, present.outcome);
}

void FramePacer::Impl::count_outcome(Sent& s, PresentOutcome outcome) noexcept {
    presents_.feedback = true;
    if (s.settled) return;  // a present's outcome counts once
    s.settled = true;
    if (outcome == PresentOutcome::shown) {
        ++presents_.shown;
        ++shown_since_;
    } else {
        ++presents_.dropped;
        ++dropped_since_;
    }
}

// Feedback for a present reported before: its outcome; a shown frame's displayed time goes to
// the display's fit (by what the flags say) and, while its frame is open, to its latency.
void FramePacer::Impl::feedback(Sent& s, const PresentInfo& in) noexcept {
    PresentInfo p = s.info;
    if (in.outcome != PresentOutcome::unknown) {
        p.outcome = in.outcome;
        count_outcome(s, in.outcome);
    }
    if (in.displayed.time_since_epoch().count() != 0) p.displayed = in.displayed;
    if (in.has_msc) {
        p.msc = in.msc;
        p.has_msc = true;
    }
    if (in.flags.known) p.flags = in.flags;
    if (in.completion != CompletionMode::unknown) p.completion = in.completion;
    if (in.refresh_hz > 0) p.refresh_hz = in.refresh_hz;
    s.info = p;
    if (p.outcome != PresentOutcome::unknown) judge_late(s);
    if (p.outcome != PresentOutcome::shown && p.outcome != PresentOutcome::unknown) return;
    vblanks_.set_reported_hz(p.refresh_hz);
    const PresentVerdict v = PresentClassifier::classify_feedback(p, vsync_.status().in_use);
    vblanks_.observe(p, v);
    if (!grid_.started()) return;
    latency_.on_present(p.begin, p.end, v.displayed, v.shown, v.shown_known, p.frame);
}

const FramePacer::Impl::Aim& FramePacer::Impl::aim_of(std::uint64_t frame) const noexcept {
    static const Aim none{};
    if (frame == 0) frame = frames_;
    const auto& a = aims_[static_cast<std::size_t>(frame % aims_.size())];
    return a.frame == frame ? a.aim : none;
}

// A frame started a learned lead before its display target, shown after it by the feedback that
// came once the frame was closed (and learned as on time): the lead takes the late step it missed.
// Late: never shown (skipped or discarded: a newer present took its place), shown at a later vblank
// counter than its target, or, without counters, more than half a period after it.
void FramePacer::Impl::judge_late(Sent& s) noexcept {
    if (s.judged || !s.lead_used || s.aim.target == 0) return;
    const PresentInfo& p = s.info;
    bool late = false;
    if (p.outcome != PresentOutcome::shown) late = true;
    else if (p.has_msc && s.aim.has_msc) late = p.msc > s.aim.msc;
    else if (p.displayed.time_since_epoch().count() != 0)
        late = clock::to_ns(p.displayed) > s.aim.target + vblank_period() / 2;
    else return;
    s.judged = true;
    if (late) lead_.late_feedback(grid_.period(), cfg_.max_late_share);
}

void FramePacer::Impl::report_vblank(const VblankInfo& vblank) noexcept {
    if (vblank.refresh_hz > 0) vblanks_.set_reported_hz(vblank.refresh_hz);
    vblanks_.add_vblank(vblank);
}

}  // namespace pacer
