// FramePacer, the present side: the frame markers, present sync's wait, and what a present or a
// vblank event tells the parts (pacer_impl.hpp).
#include <algorithm>

#include "pacer/present_classifier.hpp"
#include "pacer_impl.hpp"

namespace pacer {

void FramePacer::Impl::mark_input() noexcept { latency_.mark_input(now()); }

void FramePacer::Impl::before_present() noexcept {
    if (!grid_.started() || !latency_.is_open()) return;
    second_call_ = true;
    const std::int64_t t = ts_->now_ns();
    latency_.mark_work_end(clock::from_ns(t));
    if (sync_ != SyncMode::present) {
        latency_.mark_present_call(clock::from_ns(t));
        return;
    }
    present_record_ = present_wait(t);
    latency_.mark_present_call(present_record_.wake);
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
        latency_.aim(slot.grid.deadline + std::chrono::nanoseconds(lead), true);
    } else {
        leave_swap_grid(now);
        slot = grid_slot(now);
        latency_.aim(slot.grid.deadline, false);
    }
    slot.wait_until = clock::to_ns(slot.grid.deadline);
    const WaitResult r = waiter_.wait_until(clock::from_ns(slot.wait_until), mode);
    FrameTiming t = record(slot, r, now);
    t.sync = SyncMode::present;
    t.display_locked = locked && vblanks_.use_fit();
    return t;
}

// One present: vsync's evidence, the display's fit, and the frame's latency marks.
void FramePacer::Impl::report_present(const PresentInfo& in) noexcept {
    bool moved = false;
    const PresentInfo present = rate_.as_reported(in, &moved);
    if (moved) pending_ = true;
    vsync_.on_present(present);
    vblanks_.set_reported_hz(present.refresh_hz);
    const PresentVerdict v = PresentClassifier::classify(present, vsync_.status().in_use, vblanks_);
    vblanks_.observe(present, v);
    if (!grid_.started() || !latency_.is_open()) return;
    latency_.on_present(present.begin, present.end, v.displayed, v.shown, v.shown_known);
}

void FramePacer::Impl::report_vblank(clock::time_point vblank) noexcept { vblanks_.add_vblank(vblank); }

}  // namespace pacer
