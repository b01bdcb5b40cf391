// pacer/display.hpp - the display's vblank clock, fitted from present timestamps.
//
// DisplayTracker is FramePacer's model of the display: it takes the vblanks the host's presents
// show (each reported displayed time, and the return of a swap that waited for a vblank), fits
// the refresh period and phase on the pacer's clock, and says whether the fit can be trusted.
// Pure logic on the times it is given: no clock, no sleeping, no allocation.
//
//   pacer::DisplayTracker d;
//   d.add(displayed_time, 60.0);                 // each present's displayed time, with the refresh
//   d.on_frame(now);                             // once per frame
//   if (d.locked()) wake_at(d.next_vblank(now) - lead);
//
// The fit. The last 128 observations are kept. Each has a vblank index: its vblank counter when
// the source gives one (X11 Present's MSC, wp_presentation's sequence, DXGI's SyncRefreshCount:
// VblankSample::msc), so lost events and noisy times need no guess; else its index from the
// current estimate (round((t - reference) / period)), so lost reports (a gap of k periods),
// duplicates and missed refreshes need no special case either. A counter seen again is the same
// vblank (ignored); one that goes back, or counted samples mixed with uncounted ones, start a new
// fit. A robust line through (index, time) gives period and phase: the residuals' median and
// median absolute deviation pick the inliers (within 3.5 robust sigmas, at least 100 us), and a
// least-squares line through the inliers is the fit; two rounds, each re-indexing with the
// previous one's estimate. Displayed times are noisy both ways and the line is their centre. Swap
// returns are never early but often late (a wake-up on a loaded machine comes late), so
// their line is the early envelope: the line through the earlier half of the inliers, moved to
// their 10th percentile. The period starts from the reported refresh (or, when none is reported,
// the counted vblanks' time over their count between samples half the window apart, the median
// of those, or the median interval between observations) and
// a fit more than 2 % away from it is no fit; within that the fitted period follows the
// display's clock: skew_ppm is the difference, + when the display runs fast. Counted vblanks,
// once locked, also give the period over a longer span: every 32nd fit's vblank at the centre of
// its inliers (counter and time) goes into a ring of 64, and the least-squares line through them
// (at least 8 fits over 256 vblanks) is the fit in force, the window's line between fits only
// checking it. One window's 128 stamps of Xvfb's millisecond noise give the period far less
// exactly than the span does (measured: docs/platforms.md#measured-display-lock). A window fit
// 0.1 % off the span's period, or its last vblank more than 0.25 ms + period / 16 off the span's
// line, starts the span again. A window on slack (locked, its stamps too scattered for a firm
// fit: a starved server) changes neither: the span's line stays in force, and before the span
// holds, the last firm full window's period, with the phase from the window's inliers.
//
// States (status().state, with a reason in words; each change is logged once at info level):
//   unknown   no vblank seen yet.
//   locking   vblanks seen, fewer than 12 in the window, or their fit not trusted yet.
//   locked    at least 12 observations, three quarters of them inliers, and a robust spread
//             under period / 16 (and 1 ms): next_vblank() predicts the display. A locked fit
//             holds through bursts of outliers as long as the spread stays under period / 8.
//             Counted vblanks need no index guessed from their times: period / 4 and period / 2
//             (and 1 ms) there (an X server's timer stamps its vblanks late on a busy machine, a
//             spread wider than period / 16 at 120 Hz), and a counted vblank within 2 ms
//             (and period / 8) of the line counts as an inlier for the lock (Xvfb's
//             millisecond timer spreads its stamps over 2 ms, at times in a steady pattern
//             of one vblank in three a millisecond apart from the other two).
//   vrr       16 or more observations that fit no grid (robust spread over period / 8) and that
//             follow the frames: at least half of them shown a steady delay (within period / 8
//             and 0.5 ms) after their frame was submitted (VblankSample::submitted). That is a
//             variable-refresh display, which shows each frame as it comes; no steady grid at
//             another period either (a compositor that repaints at its own rate stays locking,
//             with that reason). vrr_min_hz / vrr_max_hz give the range of the intervals seen
//             (the shortest one and the 90th percentile). Kept until the reported refresh
//             changes (also when the timestamps stop): a variable-refresh panel fed frames at a
//             steady rate shows a steady grid, which is the pacer's, not the display's (locking
//             to it would drop the VRR cap that made it steady, and the next uneven frames would
//             show VRR again). A VRR display run at its top rate from the start is a fixed grid,
//             and locks.
//   unsynced  frames are shown on no vblank grid: the source says so (VblankSource::unsynced:
//             wp_presentation feedback without the vsync flag, "the compositor presents on its
//             own timer"), or 16 observations fit no grid and do not follow the frames (shown
//             anywhere up to a repaint period after their submit: a compositor's timer, not a
//             variable refresh; without submit times there is no evidence of one either). No
//             vblank is known: no lock, no VRR cap; shown_hz is the rate to match.
//   lost      no vblank observed for 30 frames (on_frame) and 30 periods: the timestamps
//             stopped. The next observation starts a new fit.
// A refresh change the host reports (a new reported refresh) starts a new fit at once; one it
// does not report shows as observations that leave the fit (6 of the last 8 outside its band),
// and the fit restarts from the last 8. Counted vblanks leave it only along a line of their own
// (the 8 within 0.6 of the fit's inlier band of it): a server on a busy machine delays its stamps
// by whatever each wake-up lost, and those scatter; they are outliers, not a new display. A
// change within 2 % (60 -> 59.94 Hz) is followed as skew.
// shown_hz counts the samples that carry a submit time (frames, not vblank events) over the last
// 128 of them.
//
// Measured in virtual time (tests/display_test.cpp: SimulatedDisplay with noisy, lost and
// repeated reports, skew, refresh changes, VRR and late swap returns; counted vblanks from a
// model of Xvfb on a machine that stalls): docs/platforms.md#measured-display-lock.
// Cost: the robust fit is the expensive step, so a firm lock over a full window runs one every
// 32nd sample and follows the others at O(1) (the least-squares sums of the last fit's inliers,
// the oldest sample leaving them); `pacer simulate display` prints the same figures either way
// (ten scenarios: fixed 60-240 Hz, noise, skew, refresh changes, VRR, swap-paced). What add()
// costs, locked and with a robust fit at every sample: docs/results.md#what-the-bookkeeping-costs
// (bench_bookkeeping's BM_DisplayAdd). No allocation.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/names.hpp"
#include "pacer/present.hpp"

namespace pacer {

// What the tracker knows of the display.
enum class DisplayState {
    unknown,  // no vblank seen yet
    locking,  // vblanks seen, the fit is not yet trusted
    locked,   // period and phase fitted: next_vblank() predicts the display
    vrr,      // presents show a variable-refresh display: no vblank grid to lock to
    lost,     // timestamps stopped or stopped fitting: the last fit is no longer trusted
    unsynced, // frames are shown on no vblank grid (a compositor's own timer): nothing to lock to
};
inline constexpr EnumName<DisplayState> kDisplayStateNames[] = {
    {DisplayState::unknown, "unknown"}, {DisplayState::locking, "locking"}, {DisplayState::locked, "locked"},
    {DisplayState::vrr, "vrr"},         {DisplayState::lost, "lost"},       {DisplayState::unsynced, "unsynced"},
};
inline const char* to_string(DisplayState state) noexcept { return name_of(kDisplayStateNames, state); }

struct DisplayStatus {
    DisplayState state = DisplayState::unknown;
    const char* reason = "no vblank seen yet";  // in words (static storage)
    double refresh_hz = 0;    // fitted refresh on the pacer's clock; 0 = unknown
    double reported_hz = 0;   // the refresh the host last reported; 0 = unknown
    double skew_ppm = 0;      // fitted against reported: + the display runs fast
    std::chrono::nanoseconds period{0};  // fitted refresh period, rounded
    clock::time_point vblank{};          // a fitted vblank: the phase reference
    std::chrono::nanoseconds residual{0};  // recent fit error of the observed vblanks (median)
    std::uint64_t vblanks = 0;           // observations taken
    std::uint64_t locks = 0;             // times the tracker locked (1 + re-locks)
    double vrr_min_hz = 0, vrr_max_hz = 0;  // state vrr: the range the presents showed
    double shown_hz = 0;      // frames shown per second (samples with a submit time); 0 = unknown
    bool by_counter = false;  // the fit indexes vblanks by their counter (MSC), not by their times
};

// One observation: a vblank's time and what it is, with the vblank counter (MSC) and the time
// its frame was submitted when known.
struct VblankSample {
    clock::time_point time{};
    VblankSource source = VblankSource::displayed;
    std::uint64_t msc = 0;        // the vblank counter, when has_msc
    bool has_msc = false;
    clock::time_point submitted{};  // the frame's present call (PresentInfo::begin); zero: no frame
};

class DisplayTracker {
public:
    static constexpr int kWindow = 128;     // observations kept
    static constexpr int kLockMin = 12;     // observations before a lock
    static constexpr int kVrrMin = 16;      // observations before a vrr verdict
    static constexpr int kMovedAfter = 6;   // of the last 8 observations off a locked fit: refit
    static constexpr int kMovedWindow = 8;  // (counted vblanks: and the last 16 on a line of their
    static constexpr int kMovedLineWindow = 16;  //  own; 32 when that line is later than the fit,
    static constexpr int kMovedLateWindow = 32;  //  at about its rate)
    static constexpr int kLostFrames = 30;  // frames (and periods) without a vblank: lost
    // A firm lock over a full window gets a robust fit every 32nd sample and follows the others
    // at O(1) (see the manual above).
    static constexpr int kRefitEvery = 32;

    // One observed vblank (a displayed time, or the return of a swap that waited for one), with
    // the refresh the host reported then (0 = unknown; outside [20, 1000] Hz taken as unknown).
    void add(clock::time_point vblank, double reported_hz,
             VblankSource source = VblankSource::displayed) noexcept {
        add(VblankSample{vblank, source, 0, false, {}}, reported_hz);
    }
    // The same with the counter and the submit time (see the manual: counters, unsynced, vrr).
    void add(const VblankSample& sample, double reported_hz) noexcept;
    // The refresh the host reports, on presents that show no vblank (0 = unknown). A change
    // starts a new fit.
    void set_reported_hz(double hz) noexcept;
    // Once per frame, so that the tracker notices timestamps that stop.
    void on_frame(clock::time_point now) noexcept;
    void reset() noexcept { *this = DisplayTracker(); }

    bool locked() const noexcept { return status_.state == DisplayState::locked; }
    // The first fitted vblank strictly after t. Meaningful when locked().
    clock::time_point next_vblank(clock::time_point t) const noexcept;
    std::chrono::nanoseconds period() const noexcept { return status_.period; }
    const DisplayStatus& status() const noexcept { return status_; }
    // The last observation, raw (meaningful once status().vblanks > 0).
    clock::time_point last_vblank() const noexcept { return clock::from_ns(last_t_); }
    // The counter of the fitted vblank nearest `vblank`: locked on counted vblanks only, else false.
    bool msc_at(clock::time_point vblank, std::uint64_t* msc) const noexcept;

private:
    void push(const VblankSample& s, std::int64_t t) noexcept;
    bool take_counter(const VblankSample& s) noexcept;  // false: the sample adds nothing
    bool recent_on_a_line() const noexcept;
    bool recent_line(int n, double* db, double* late) const noexcept;
    void note_frame(const VblankSample& s) noexcept;
    double index(int slot, double period, std::int64_t ref, std::int64_t ref_msc) const noexcept;
    bool follows_frames() const noexcept;
    void refit() noexcept;
    // Running sums of a least-squares line through (index, residual) points.
    struct Sums {
        double n = 0, x = 0, y = 0, xx = 0, xy = 0;
        void add(double px, double py, double weight) noexcept;  // weight -1: remove the point
        bool line(double* da, double* db) const noexcept;
    };
    // The line a robust fit indexed the window from, its inlier band and its envelope shift (ns).
    struct Anchor {
        double period = 0;
        std::int64_t ref = 0, ref_msc = 0;
        double centre = 0, band = 0, shift = 0;
        int count = 0;  // the window's samples then
    };
    void fit_once(double period, std::int64_t ref, std::int64_t ref_msc, double* out_period, std::int64_t* out_ref,
                  double* spread, int* inliers, bool record) noexcept;
    void envelope(const double* x, const double* r, const bool* in, double* da, double* db) const noexcept;
    void judge(const double* x, const double* r, double da, double db, double period, double* spread,
               int* inliers) noexcept;
    double inlier_band(double mad, double period) const noexcept;  // ns
    void keep_fit(const double* x, const double* r, const bool* in, const Sums& sums, const Anchor& anchor) noexcept;
    void follow(int slot) noexcept;
    void set_fit(double period, std::int64_t ref, std::int64_t ref_msc) noexcept;
    void decide(double spread, int inliers) noexcept;
    // Counted vblanks, firmly locked: the line through the robust fits' vblanks (long_fit_).
    void fit_span(bool firm) noexcept;
    bool span_line(double* period, double* ref) const noexcept;
    void window_centre(std::int64_t* msc, double* t) const noexcept;
    void hold_period(double period) noexcept;
    void no_grid() noexcept;
    void set_state(DisplayState state, const char* reason) noexcept;
    void restart(const char* reason, int keep) noexcept;
    double hint_period() const noexcept;
    double median_interval() const noexcept;  // between consecutive observations, 0 = none
    void vrr_range() noexcept;

    DisplayStatus status_{};
    std::int64_t t_[kWindow] = {};    // observations, a ring (oldest at head_)
    bool swap_[kWindow] = {};         // ... swap returns
    std::int64_t msc_[kWindow] = {};  // ... their counters (by_counter)
    std::int64_t sub_[kWindow] = {};  // ... their frames' submit times, 0 unknown
    static constexpr int kFrames = 128;  // shown frames kept for shown_hz
    std::int64_t frame_t_[kFrames] = {};
    int frame_head_ = 0, frame_count_ = 0;
    std::int64_t ref_msc_ = 0;        // by_counter: the counter of ref_
    std::int64_t last_msc_ = -1;      // the last sample's counter, -1 none
    int since_fit_ = 0;               // samples since the last robust fit (kRefitEvery)
    int head_ = 0, count_ = 0;
    std::int64_t last_t_ = 0;
    double period_ = 0;               // fitted period, ns (0 = none yet)
    std::int64_t ref_ = 0;            // a fitted vblank
    double band_ = 0;                 // locked: the inlier band, ns
    int off_fit_ = 0;                 // the last 8 observations off a locked fit (bits)
    int frames_since_ = 0;            // on_frame() calls since the last observation
    bool vrr_ = false;                // vrr seen since the last restart: kept
    bool firm_ = false;
    bool told_unsynced_ = false;      // the source said its frames are on no vblank (unsynced)
    // The last robust fit, as follow() continues it between robust fits:
    double x_[kWindow] = {};          // each sample's index from the anchor line
    double y_[kWindow] = {};          // ... and its residual from it, ns
    bool in_[kWindow] = {};           // ... an inlier: in sums_
    Sums sums_{};
    Anchor anchor_{};               // locked within the lock's own limits (not on slack)
    // Counted vblanks: the fitted vblank (counter, time) of each firm robust fit, a ring; the
    // line through them (fit_span) holds the period over up to kSpanFits x kRefitEvery vblanks.
    static constexpr int kSpanFits = 64;
    std::int64_t span_msc_[kSpanFits] = {};
    std::int64_t span_t_[kSpanFits] = {};
    int span_head_ = 0, span_n_ = 0;
    bool long_fit_ = false;         // the fit in force is fit_span's: follow() leaves it
    double firm_period_ = 0;        // the last firm full window's period (span or window), ns; 0 none
};

}  // namespace pacer
