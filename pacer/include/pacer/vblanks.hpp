// pacer/vblanks.hpp - the display's vblanks as the pacer knows them: the tracker's fit, or, until
// it locks (and with the display lock off), the last observed vblank and the reported refresh.
//
//   Vblanks             owns the DisplayTracker; answers "where are the vblanks?" (a VblankModel)
//     observe           one present's verdict (PresentClassifier): its vblank goes to the fit
//     add_vblank        a vblank the host knows by other means (a vblank event)
//     known, period, next_after    the vblanks, fitted or from the last one observed
//     known_refresh     a fixed display's refresh period (0 on VRR or while unknown)
//     renewed           locked and a vblank seen in the last 4 periods
//
//   pacer::Vblanks v;                      // display lock on
//   v.set_fallback_period(period);         // the pacer's own period, when nothing else is known
//   v.observe(present, pacer::PresentClassifier::classify(present, vsync_in_use, v, verified));
//   if (v.known()) wake_at(v.next_after(now) - lead);
//
// With the display lock (set_lock(true), FramePacer's PacerConfig::display_lock) the vblanks are
// the tracker's fit once it locks, until then its last observation plus the reported refresh (or
// the fallback period when none is reported); none are known on a variable-refresh display or
// once the timestamps stopped (pacer/display.hpp: states vrr, lost). Without the lock they are
// the last displayed time or waited swap of any present (a torn one's displayed time included)
// and the reported refresh, the rule from before the fit existed; the tracker still fits them
// for status(). Pure logic: no clock, no allocation. Thread safety: none.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/display.hpp"
#include "pacer/present.hpp"
#include "pacer/present_classifier.hpp"

namespace pacer {

class Vblanks final : public VblankModel {
public:
    void set_lock(bool on) noexcept { lock_ = on; }
    // The period taken for the refresh when no refresh is reported or fitted, > 0 (ns).
    void set_fallback_period(std::chrono::nanoseconds period) noexcept;

    bool known() const noexcept override;
    bool predicted() const noexcept override { return lock_; }
    std::chrono::nanoseconds period() const noexcept override;
    clock::time_point next_after(clock::time_point t) const noexcept override;

    // The fit is in force: the display lock is on and the tracker locked.
    bool use_fit() const noexcept { return lock_ && tracker_.locked(); }
    // A fixed-refresh display's refresh period, fitted or reported, while the vblanks are known;
    // zero on a variable-refresh display or when unknown.
    std::chrono::nanoseconds known_refresh() const noexcept;
    bool on_vrr() const noexcept { return tracker_.status().state == DisplayState::vrr; }
    // Frames are shown on no vblank grid (DisplayState::unsynced): no vblank is known.
    bool unsynced() const noexcept { return tracker_.status().state == DisplayState::unsynced; }
    // The tracker is locked and saw a vblank within the last 4 fitted periods before `now`.
    bool renewed(clock::time_point now) const noexcept;

    // The refresh the host reports (0 unknown); a change restarts the fit.
    void set_reported_hz(double hz) noexcept { tracker_.set_reported_hz(hz); }
    // One present and its verdict: its vblank, if any, goes to the fit (and is the last one seen).
    void observe(const PresentInfo& present, const PresentVerdict& verdict) noexcept;
    // A vblank known by other means (a vblank event, DXGI frame statistics), with its counter
    // when known.
    void add_vblank(const VblankInfo& vblank) noexcept;
    void on_frame(clock::time_point now) noexcept { tracker_.on_frame(now); }
    // Forget every vblank (a new clock).
    void reset() noexcept;

    const DisplayTracker& tracker() const noexcept { return tracker_; }

private:
    DisplayTracker tracker_;
    std::int64_t last_seen_ = 0;  // display lock off: the last displayed time or waited swap
    std::int64_t fallback_ = 1;
    bool lock_ = true;
};

}  // namespace pacer
