// pacer/present_classifier.hpp - what one present says: did it wait for a vblank, when is its
// frame shown, and which vblank (if any) does it show the display's clock at?
//
//   PresentClassifier        the one rule, used by FramePacer and VsyncDetector alike
//     window(period)         how far before and after a predicted vblank a present counts as on it
//     classify(present, ...) the verdict on one present
//     classify_feedback      the verdict on a present's later feedback (its displayed time)
//   PresentVerdict           synchronised, waited, shown, the vblank observation it gives
//   VblankModel              where the caller believes the vblanks are (the classifier asks it)
//
//   pacer::PresentVerdict v = pacer::PresentClassifier::classify(present, vsync_in_use, vblanks, verified);
//   if (v.observation != pacer::VblankSource::none) tracker.add(v.vblank, present.refresh_hz, v.observation);
//
// The rule. A present is synchronised when its swap interval is N >= 1, or unknown (-1) while the
// swap paces the frames. A synchronised present that succeeded
//   * waited for a vblank when its call blocked for more than kBlockedShare (a quarter) of a
//     refresh: the swap's return is that vblank (a blocking FIFO swap returns when the OS wakes
//     the thread after the vblank), and its frame was shown then;
//   * else, when the vblanks are known, waited for the vblank v it spanned (begin < v) when it
//     returned inside the window around v: no more than `late` after it (a wake-up on a loaded
//     machine comes late) and, when the vblanks are predicted rather than last observed, up to
//     `early` before it (the prediction's own error). It was shown at min(v, return); a present
//     that waited for no vblank is shown at the first vblank after its return;
//   * else it says nothing about when it was shown.
// The window, from the period p: early = max(kMinEarly, kEarlyShare x p), late = max(early,
// min(kMaxLate, kLateShare x p)). Lopsided because a swap returns when the OS wakes the thread,
// never before the vblank: on a loaded machine many wake-ups come later than a symmetric window
// allows, and it took them for misses (measured: docs/platforms.md#measured-vsync-verdicts).
// Without predicted vblanks (FramePacer's display_lock off) the reference is the last observed
// vblank, itself often a late return, and the window is [0, early] after it, the rule from before
// vblanks were fitted.
//
// What it says about the display (PresentVerdict::observation): the host's displayed time of a
// synchronised present is a vblank (a torn present's is only when it was torn in); when the source
// gives flags (PresentFlags::known) they decide instead: vsync, a vblank; no vsync, a displayed
// time on the compositor's own timer (VblankSource::unsynced: weston 10 reports flags 0). Failing
// a displayed time, the return of a present that waited is a vblank (never early, often late:
// VblankSource::swap_return), once presents verified that the swap waits for vblanks: before
// that a swap that returns "on a vblank" may be the pacer's own wake-up (a swap that does not
// block, on Xvfb), and a fit of those would be the pacer's pacing.
// A displayed time before the call or more than 1 s after its return is no time (an uninitialised
// field): unknown.
//
// Pure logic: no clock, no allocation. Thread safety: none needed (no state).
#pragma once

#include <chrono>

#include "pacer/clock.hpp"
#include "pacer/present.hpp"

namespace pacer {

// Where the caller believes the vblanks are (FramePacer: the display's fit, or the last observed
// vblank with the reported refresh).
class VblankModel {
public:
    virtual bool known() const noexcept = 0;            // there is a vblank reference at all
    virtual bool predicted() const noexcept = 0;        // the vblanks are predicted (display lock)
    virtual std::chrono::nanoseconds period() const noexcept = 0;      // refresh period, > 0
    virtual clock::time_point next_after(clock::time_point t) const noexcept = 0;  // first > t

protected:
    ~VblankModel() = default;
};

struct VblankWindow {
    std::chrono::nanoseconds early{0};  // a present this much before a predicted vblank is on it
    std::chrono::nanoseconds late{0};   // ... and this much after it
};

struct PresentVerdict {
    bool synced = false;            // the swap waits for vblanks (see the rule)
    bool waited = false;            // it waited for a vblank
    clock::time_point displayed{};  // the host's displayed time if plausible; epoch: none
    clock::time_point shown{};      // when its frame is shown, if shown_known
    bool shown_known = false;
    VblankSource observation = VblankSource::none;  // what it gives the display's fit ...
    clock::time_point vblank{};                     // ... at this time
};

struct PresentClassifier {
    static constexpr std::chrono::nanoseconds kMinEarly{250'000};  // early never below 0.25 ms ...
    static constexpr int kEarlyPercent = 3;                        // ... or 3 % of a refresh
    static constexpr std::chrono::nanoseconds kMaxLate{2'000'000}; // late at most 2 ms ...
    static constexpr int kLateDivisor = 4;                         // ... or a quarter refresh
    static constexpr int kBlockedDivisor = 4;  // a call that blocked a quarter refresh waited

    // The window around a predicted vblank (see the rule), for a refresh period p > 0.
    static VblankWindow window(std::chrono::nanoseconds period) noexcept;
    // The present's swap waits for vblanks: interval >= 1, or unknown while vsync is in use.
    static bool synchronised(const PresentInfo& present, bool vsync_in_use) noexcept;
    // PresentInfo::displayed when plausible (not before begin, at most 1 s after end); else epoch.
    static clock::time_point displayed_time(const PresentInfo& present) noexcept;
    // The verdict on one present (see the rule). vsync_in_use: the swap paces the frames now;
    // swap_verified: presents verified that the swap waits for vblanks (VsyncStatus::detected).
    static PresentVerdict classify(const PresentInfo& present, bool vsync_in_use, const VblankModel& vblanks,
                                   bool swap_verified) noexcept;
    // Feedback for a present classified before (its id, outcome, displayed time, flags): what its
    // displayed time says about the display, and when it was shown. No waiting is judged again.
    static PresentVerdict classify_feedback(const PresentInfo& present, bool vsync_in_use) noexcept;
};

}  // namespace pacer
