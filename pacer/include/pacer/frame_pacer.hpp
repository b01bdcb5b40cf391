// pacer/frame_pacer.hpp - hold a loop to a fixed frame rate on an absolute deadline grid.
//
//   pacer::FramePacer pacer({.target_hz = 144.0});   // hybrid wait, catch-up late policy
//   while (running) {
//       pacer::FrameTiming t = pacer.wait();         // blocks until this frame's deadline
//       update_and_render();
//   }
//
// Deadlines. The first wait() returns at once and anchors the grid; frame k's deadline is then
// anchor + k * period, computed in fixed point (period in 2^-32 ns) so that nothing drifts: after
// 10^6 frames at 144 Hz the deadline is within 1 ns of the exact value, and the arithmetic stays
// exact for any slot count (a week-long suspend at 10 kHz included).
//
// Late frames. When wait() is entered after its deadline, the late policy decides:
//   catch_up (default): the grid is kept; a frame whose deadline has passed returns at once, but
//       at most max_catch_up (default 1) passed deadlines are served that way; beyond that the
//       grid slots are skipped. With max_catch_up = 1 a frame that ran 0.3 ms over gives
//       16.97 + 16.37 ms instead of 16.97 + 33.3 ms, and a 10 s debugger stop yields one
//       immediate frame, not 600.
//   skip: the grid is kept and every passed slot is skipped: the late frame waits for the next
//       slot on the grid (intervals stay whole multiples of the period; one long interval).
//   resync: the grid restarts at the late wake-up (spin_sleep's "Delay", DXVK beyond one frame).
// A clock jump (suspend, debugger) is a very late frame and is handled by the same rule.
//
// Vsync (WaitMode::vsync and WaitMode::automatic; pacer/vsync.hpp says how each is decided). The
// host reports each present with report_present() and sets the swap interval
// desired_swap_interval() asks for. While the swap paces, wait() does not wait on the grid; it
// only refuses to let the loop run more than 1/16 faster than the target rate (a floor of 15/16
// of a period after the last wake), so a swap that does not block cannot turn the loop into a busy
// loop, and a vsync probe does not show in the frame times. A host that reports no presents (a headless run, a
// forgotten call) cannot be paced by its swap: after 2 frames without a report, wait() paces with
// hybrid sleep again whatever the mode.
//
// Background (set_background(true)): for a minimized or unfocused window, nobody watches the
// frames, so pacing costs should go to zero: the pacer runs at background_hz (default 10 Hz, or
// target_hz when that is lower) with plain OS sleep, no spin, and asks for vsync off (a minimized
// window's swap may return at once or block for seconds, depending on the system). Each frame's
// FrameTiming says background = true, source = sleep. Leaving the background re-anchors the grid
// at the last deadline, as a rate change does: no burst of catch-up frames. The pacing thread's
// CPU at 10 Hz is a few wake-ups a second: 0.06-0.09 % of a core measured on a 2-core VM
// (tests/real_clock_test.cpp checks that it never spins and stays under 2 %, what holds while the
// whole test suite runs beside it).
//
// Sync modes and latency (PacerConfig::sync, set_sync). Where the wait sits relative to the frame's
// work decides what the player sees. A host loop that supports all three modes marks two points of
// its frame besides wait():
//
//   while (running) {
//       pacer.wait();              // frame_start and just_in_time wait here
//       pacer.mark_input();        // just before the input is read (optional: else the wake)
//       read_input(); update(); render();
//       pacer.before_present();    // present waits here
//       t0 = pacer.now(); swap(); pacer.report_present({t0, pacer.now(), interval, hz});
//   }
//
//   frame_start (default): wait() waits for the grid deadline (or, when the swap paces, only for
//       the floor described above); before_present() returns at once. Frame starts are flat;
//       present times move with the frame's work, and with a synchronised swap the input waits in
//       the queue for the vblank: the shown input is up to a period older than the work.
//   present: wait() returns at once; before_present() waits for the frame's present deadline:
//       the grid deadline, or, when the swap paces and the vblanks are known (below), the next
//       vblank - 1 ms (a quarter period at most). Present times are flat on jittery work. A
//       host that never calls before_present() gets frame_start from its second frame on. The
//       FrameTiming of wait() then describes the wait made in the previous before_present():
//       deadline, wake (when it returned), interval (present to present), slept, spun, missed.
//   just_in_time: wait() waits until target display time - lead, lead = the learned
//       (1 - max_late_share) quantile of the time from that wake-up target to the present call
//       (the work plus the wake-up error) plus a safety offset, which also covers the present
//       call itself; before_present() returns at once. The target display time is the next
//       vblank when the swap paces and the vblanks are known, else the grid deadline. The
//       quantile is learned from the presents (report_present), or from before_present() calls,
//       or else from the next wait() call, on a fading histogram (half-life 100 frames, the
//       estimator of the hybrid margin); until 8 frames are learned the lead is one period. The
//       offset starts at period / 32, rises by period / 64 at each late frame and falls by
//       period / 64 x b / (1 - b) at each frame on time, b = max_late_share: in steady state b
//       of the frames are late, a late frame backs off at once and a calm run creeps toward
//       lower latency; two late frames in a row add half the second one's overrun at once (a
//       heavier scene). The target display time is at least one period after the previous one
//       (after the previous frame's showing when it was late), so the rate never exceeds
//       target_hz, and the wait is an OS sleep when the target is a vblank (the learned lead
//       covers the wake-up error). In WaitMode::automatic the vsync verdict rests on the swap's
//       return times, which just_in_time makes irregular when the swap does not block: pair it
//       with WaitMode::vsync, a swap that blocks, or reported displayed times.
//   In the background (set_background) every frame is frame_start.
//
// The vblanks are known from the presents: each displayed time the host reports
// (PresentInfo::displayed) of a synchronised present is a vblank; without it, the return of a swap
// that waited for a vblank (as above) is one. A swap that never waits (a loop that presents once
// per refresh into a free queue) and no displayed times leave the vblanks unknown: present and
// just_in_time then aim at the grid, whose phase against the vblanks is arbitrary. Report
// displayed times where the platform has them.
//
// Display lock (PacerConfig::display_lock, default on). The observed vblanks go to a
// DisplayTracker (pacer/display.hpp; display_status() shows it), which fits the refresh period
// and phase robustly: noisy and late timestamps, lost and repeated reports, skew against the
// reported refresh, refresh changes (re-locked within 30 frames), variable refresh (state vrr:
// no grid) and timestamps that stop (state lost). Until the fit locks (12 vblanks), the vblanks
// are the last one observed plus the reported refresh (PresentInfo::refresh_hz, else the target
// period); once it locks, the fit. On a vrr or lost display no vblank is known. With the lock:
//   vsync on, sync present and just_in_time: the present deadline and the target display time
//       are fitted vblanks, not the last (often late) swap return. Measured on a loaded machine
//       model (wake-ups 0.3 ms late on average), 60 s at 60 and 144 Hz, the swap's returns the
//       only vblanks: present sync missed 4 and 1 vblanks where the last return missed 136 and
//       526 at the same CPU per frame; just_in_time kept its 1 % budget either way with a median
//       latency of 7.9 instead of 10.2 ms (60 Hz) and 3.8 instead of 4.5 ms (144 Hz)
//       (tests/display_lock_test.cpp). A synchronised swap that spanned a fitted vblank and
//       returned up to 2 ms (a quarter period at most) after it waited for it.
//   vsync off (desired_swap_interval() 0), sync frame_start, the fit locked and renewed (a
//       vblank in the last 4 periods): frames are placed as just_in_time places them, on the
//       fitted vblanks every N refreshes (N = the swap interval that serves the target; none:
//       the target's own grid), waking a learned lead before the vblank so that the present lands
//       just before it, the tear line at the bottom of the screen. The lead and its safety offset
//       are just_in_time's, a frame presented after its vblank counting as late. A torn present's
//       displayed time is when it was torn in, not a vblank: the host gives the vblanks with
//       report_vblank() (a vblank event, DXGI frame statistics). Measured at 60 Hz with 3-5 ms
//       of work: every present 0.04-2.2 ms (p1-p99) before the next vblank, whatever the
//       display's phase.
//   FrameTiming::display_locked says that a frame's wait was placed against the fit.
// display_lock = false: the last observed vblank and the reported refresh, as before the fit.
//
// Matching the display (PacerConfig::match_display): the target rate becomes the display's
// fitted refresh once the tracker locks (target_hz until then), re-anchored like set_target_hz;
// it follows a refresh change (at once to the newly reported refresh, then its fit). A swap that
// waits at a steady rate of its own (VsyncReason::auto_other_rate: a compositor repainting every
// 19.7 ms while the mode says 60 Hz) sets the target to that rate (VsyncStatus::swap_hz), which is
// then taken for the refresh until the host reports another one: vsync is probed again at the
// next re-probe and, once verified, the swap paces at the compositor's rate. period() and
// config() show the rate in force and the configured one.
//
// Latency. A frame's latency is from its input sample (mark_input(); the wake that started it
// when not called) to the moment it was shown: the displayed time the host reported, else, when
// the swap is synchronised, the vblank it waited for (it blocked a quarter refresh or more, or it
// spanned a known vblank and returned within max(0.25 ms, 3 % of a refresh) after it: it
// returned when its frame was shown) or else the first known vblank after its return, else that
// return (the swap tears; or no vblank is known yet, and then it is a lower bound). FrameTiming
// carries it for the frame presented before each wait() (FrameTiming::latency,
// latency_measured, shown_late); FrameStats gives its percentiles. A present report counts for
// the frame in progress, the first report of a frame only.
//
// Cadence (PacerConfig::cadence = CadenceMode::automatic). When the frame's work cannot hold the
// rate, a steady lower rate looks better than frames that alternate between one and two
// refreshes. The governor (pacer/cadence.hpp: its rules and why) measures each frame's cost, from
// its wake to the present call (before_present(), else the present reported, else the next
// wait() call: FrameTiming::work), and picks the frame period as N x a base period: the
// display's refresh period once the presents show it (reported refresh and known vblanks; the
// rate is then refresh / N, at most the target: a 60 Hz target on 144 Hz runs at 48), else the
// target period. N grows at once when a tenth of the recent frames overrun, and shrinks only
// after a dwell (PacerConfig::governor, default 1 s) of headroom; two switches are at least a
// dwell apart. A switch re-anchors the grid at the last deadline as a rate change does (no burst, no
// run of skipped slots), asks the swap for interval N when vsync paces (desired_swap_interval()),
// and is logged once at info level. FrameTiming::cadence, cadence_hz and cadence_reason say what
// is in force on every frame (1, target_hz and "fixed" with CadenceMode::fixed);
// cadence_status() adds the cost and the number of switches; period() is N x base.
//
// Display time (FrameTiming::display_dt). The delta to give the simulation (FixedStep::advance):
// the frame's predicted display interval, free of the CPU's wake-up jitter. On a fixed-refresh
// display whose refresh is known: the wake interval rounded to whole refreshes; otherwise (no
// display known, VRR) the scheduled interval, deadline to deadline. Slewed so that the sum of the
// deltas follows wall time: |sum of display_dt - (wake - first wake)| stays within half a refresh
// (half a frame period when no refresh is known), through lost reports and refresh changes
// (pacer/cadence.hpp, DisplayDelta). 0 on the first frame of a grid.
//
// VRR. When display_status() says DisplayState::vrr, the period is kept inside the panel's range
// by the measured wake-up lateness (the 0.99 quantile of the pacer's own waits): at least
// 1 / vrr_max_hz + that, at most 1 / vrr_min_hz - that, so no frame comes faster than the panel
// or slower than its floor; the period in force moves by at most 2 % per frame toward it
// (pacer/cadence.hpp, vrr_period and slew_period). The cadence governor does not divide a VRR
// display's rate: any rate is shown evenly there. With cadence = automatic the period follows the
// work instead: at least the governor's quantile of the frame cost over its fit (0.9 and 0.95 by
// default), within the same range, so frames that cannot hold the target come at the rate they
// can hold, evenly, rather than late against it.
//
// Run-time changes (set_target_hz, set_mode, set_late_policy, set_sync, set_config,
// set_background) take effect at the next wait(): a new rate re-anchors the grid at the last
// deadline, so the next frame is one new period after the previous deadline. What the waiter
// learned (margin, spin cap) is kept, and so is what just_in_time learned.
//
// Cost. wait() does a few clock reads and integer operations besides sleeping and spinning
// (bench/bench_bookkeeping: well under 1 us) and never allocates.
//
// Thread safety: one thread calls wait(); the setters must be called from that thread too.
// Debug builds (NDEBUG not defined) check it: a wait() from another thread while the first one
// paces logs an error and aborts; after end_pacing() another thread may take over. In release
// builds a second thread is undefined behaviour, as for any object that is not thread-safe.
// The thread's OS timer settings (Linux timer slack, Windows timer resolution; see
// TimeSource::begin_pacing) are taken at its first wait() and given back when the pacer is
// destroyed on that thread or end_pacing() is called.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#include "pacer/cadence.hpp"
#include "pacer/clock.hpp"
#include "pacer/config.hpp"
#include "pacer/display.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/names.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"
#include "pacer/vsync.hpp"
#include "pacer/waiter.hpp"

namespace pacer {

class FramePacer {
public:
    // Throws ConfigError for an invalid config. ts = nullptr: the real OS.
    explicit FramePacer(const PacerConfig& config = {}, TimeSource* ts = nullptr);
    ~FramePacer();
    FramePacer(const FramePacer&) = delete;
    FramePacer& operator=(const FramePacer&) = delete;

    // Blocks until the next frame's deadline (see the late policy) and describes the frame.
    FrameTiming wait() noexcept;

    // Run-time changes, effective at the next wait(). Invalid values are refused with a message
    // and the current settings stay.
    Status set_target_hz(double hz);
    Status set_mode(WaitMode mode);
    Status set_late_policy(LatePolicy policy, int max_catch_up = 1);
    Status set_sync(SyncMode sync);
    Status set_config(const PacerConfig& config);
    // Minimized or unfocused: pace at background_hz with OS sleep only (see above).
    void set_background(bool on) noexcept;
    bool background() const noexcept { return background_; }

    // Vsync: report each present (see pacer/vsync.hpp); what the host should set as swap
    // interval (0 = vsync off); the current decision and its reason.
    void report_present(const PresentInfo& present) noexcept;
    // A vblank the host knows by other means than its presents (a vblank event, DXGI's frame
    // statistics, a compositor's repaint time): with vsync off it is what places the frames
    // against the display (see "Display lock"). Not needed when presents report displayed times.
    void report_vblank(clock::time_point vblank) noexcept;

    // Frame markers (see "Sync modes and latency"): the input is sampled now; the present call
    // comes next (waits in SyncMode::present, else only notes the time). No allocation.
    void mark_input() noexcept;
    void before_present() noexcept;
    // just_in_time: the lead in force (learned quantile + safety offset) and the offset alone.
    std::chrono::nanoseconds jit_lead() const noexcept;
    std::chrono::nanoseconds jit_offset() const noexcept {
        return std::chrono::nanoseconds(static_cast<std::int64_t>(jit_offset_));
    }
    int desired_swap_interval() const noexcept { return vsync_.desired_swap_interval(); }
    const VsyncStatus& vsync_status() const noexcept { return vsync_.status(); }
    const VsyncController& vsync() const noexcept { return vsync_; }
    // The display as the presents show it (pacer/display.hpp).
    const DisplayStatus& display_status() const noexcept { return display_.status(); }
    const DisplayTracker& display() const noexcept { return display_; }
    // The cadence in force and why (CadenceMode::fixed: divisor 1 at the target rate).
    const CadenceStatus& cadence_status() const noexcept { return cadence_; }

    // The pacer's clock: the TimeSource's (the real OS unless one was injected). Time presents
    // with it.
    clock::time_point now() const noexcept { return clock::from_ns(ts_->now_ns()); }

    // Paces on another clock and OS (nullptr: the real OS), for example to inject a coarse
    // scheduler at run time. The grid restarts at the next wait() as after reset(); the learned
    // margin and spin cap are kept; the display fit starts over (its times were on the old clock).
    // Call it from the pacing thread.
    void set_time_source(TimeSource* ts) noexcept;

    // Forget the grid: the next wait() returns at once and anchors a new one. Frame indices
    // continue. The learned margin is kept.
    void reset() noexcept;
    // Gives the thread's OS timer settings back now instead of at destruction; the next wait()
    // takes them again.
    void end_pacing() noexcept;

    const PacerConfig& config() const noexcept { return cfg_; }  // including pending changes
    std::chrono::nanoseconds period() const noexcept;            // of the rate in force, rounded:
                                                                 // target_hz (or the matched refresh,
                                                                 // match_display), background_hz in
                                                                 // the background
    std::uint64_t frames() const noexcept { return frames_; }    // wait() calls so far
    std::uint64_t missed() const noexcept { return missed_; }    // missed frames so far
    // The hybrid waiter, to read what it learned. Change its settings through set_config().
    const HybridWaiter& waiter() const noexcept { return waiter_; }
    TimeSource& time_source() const noexcept { return *ts_; }

private:
    // Where this frame ends: its grid slot, deadline and how long to wait.
    struct Slot {
        std::uint64_t k = 0;          // grid slot, relative to anchor_
        std::int64_t deadline = 0;    // when the frame is due
        std::int64_t wait_until = 0;  // what the waiter waits for (the floor when the swap paces)
        std::uint32_t skipped = 0;
        bool swap_paces = false;
        bool early = false;  // just_in_time: due at wait_until, ahead of the display deadline
    };
    void apply_config() noexcept;
    double active_hz() const noexcept;
    WaitMode active_mode() const noexcept { return background_ ? WaitMode::sleep : cfg_.mode; }
    void begin_thread() noexcept;
    FrameTiming first_frame(std::int64_t now) noexcept;
    Slot swap_slot() noexcept;
    Slot grid_slot(std::int64_t now) noexcept;
    FrameTiming record(const Slot& slot, const WaitResult& r, std::int64_t now) noexcept;
    void reanchor(std::int64_t anchor) noexcept;
    // Latency bookkeeping of one frame, from its start to its present.
    struct FrameMarks {
        std::int64_t start = 0;           // wake that started it
        std::int64_t input = 0;           // mark_input() (has_input)
        std::int64_t present_call = 0;    // before_present() return (has_call)
        std::int64_t work_end = 0;        // before_present() entry: the frame's work done (has_call)
        std::int64_t present_begin = 0;   // first report_present() of the frame ...
        std::int64_t present_end = 0;
        std::int64_t displayed = 0;       // ... its displayed time, 0 = unknown
        std::int64_t target = 0;          // display deadline it was started for (has_target)
        std::int64_t start_target = 0;    // just_in_time: the wake-up target (has_target)
        std::int64_t lead = 0;            // just_in_time: the lead used
        bool open = false;                // a frame is in progress (times may be 0 on a test clock)
        bool has_input = false;
        bool has_call = false;
        bool has_target = false;
        bool presented = false;
        bool locked = false;              // the target was a vblank
        bool aligned = false;             // vsync off: started so as to present before a vblank
        std::int64_t predicted = 0;       // when it is shown, if known from the vblanks ...
        bool has_prediction = false;      // ... (has_prediction)
        SyncMode sync = SyncMode::frame_start;
    };
    struct Figures {  // FrameTiming's latency fields
        std::chrono::nanoseconds latency{0}, input_to_present{0};
        bool latency_measured = false, shown_late = false;
    };
    void finish_frame(std::int64_t now, Figures& t) noexcept;
    bool vblanks_known() const noexcept;
    std::int64_t vblank_period() const noexcept;
    std::int64_t vblank_after(std::int64_t t) const noexcept;  // first vblank > t
    // Display lock: the fit is in force (display_lock and the tracker locked).
    bool use_fit() const noexcept { return cfg_.display_lock && display_.locked(); }
    void observe_vblank(const PresentInfo& present, std::int64_t displayed, bool waited) noexcept;
    bool align_torn_frames(bool swap_paces, std::int64_t now) const noexcept;
    FrameTiming aligned_frame(std::int64_t now) noexcept;
    FrameTiming lead_wait(Slot slot, std::int64_t lead, WaitMode mode, bool locked, std::int64_t now) noexcept;
    void follow_display() noexcept;  // match_display
    PresentInfo swap_rate_present(const PresentInfo& present) noexcept;
    double target_hz() const noexcept { return matched_hz_ > 0 ? matched_hz_ : cfg_.target_hz; }
    std::int64_t next_target(std::int64_t earliest) const noexcept;
    std::int64_t jit_lead_ns() const noexcept;
    FrameTiming present_wait(std::int64_t now) noexcept;
    FrameTiming wait_handoff() noexcept;  // wait() but the spin's end; sets handoff_to_
    void finish_handoff(FrameTiming& t) noexcept;
    FrameTiming pace(std::int64_t now, bool swap_paces) noexcept;
    std::int64_t deadline_of(std::uint64_t k) const noexcept;
    // Cadence, display-time delta and VRR cap (see "Cadence" above; pacer/cadence.hpp).
    void set_period(double hz) noexcept;            // the fixed-point period of this rate
    double wanted_hz() const noexcept;              // the rate the cadence and display ask for
    std::int64_t known_refresh() const noexcept;    // a fixed display's refresh period, else 0
    bool on_vrr() const noexcept { return display_.status().state == DisplayState::vrr; }
    std::int64_t frame_cost(std::int64_t now) const noexcept;  // of the frame in progress, -1 none
    void govern(std::int64_t now, std::int64_t cost) noexcept;  // before the wait
    void fill_display(FrameTiming& t) noexcept;     // after it: cadence fields and display_dt

    PacerConfig cfg_;
    TimeSource* ts_;
    HybridWaiter waiter_;
    VsyncController vsync_;
    DisplayTracker display_;
    // Active period in fixed point: whole ns + fraction in units of 2^-32 ns.
    std::int64_t period_whole_ = 0;
    std::uint64_t period_frac_ = 0;
    std::chrono::nanoseconds period_rounded_{0};  // FrameTiming::period
    std::int64_t anchor_ = 0;      // deadline of grid slot 0
    std::uint64_t k_ = 0;          // slot of the last deadline, relative to anchor_
    std::uint64_t index_base_ = 0; // frame index of slot 0
    std::int64_t last_deadline_ = 0;
    std::int64_t last_wake_ = 0;
    std::int64_t handoff_to_ = 0;  // wait() ends with a spin to this time (0: none)
    std::uint64_t frames_ = 0;
    std::uint64_t missed_ = 0;
    bool started_ = false;
    bool pending_ = false;         // config changed since the last wait()
    bool pacing_ = false;          // begin_pacing() was called ...
    std::thread::id pacing_thread_;  // ... on this thread
    bool grid_dirty_ = false;      // the swap paced: re-anchor the grid before using it
    bool background_ = false;      // set_background(true)
    // Sync modes and latency.
    FrameMarks cur_{};             // the frame in progress
    bool second_call_ = false;     // before_present() was called in the frame in progress
    bool host_presents_ = false;   // ... and in the previous one: present sync waits there
    FrameTiming present_record_{}; // present sync: the last wait made in before_present()
    std::int64_t last_target_ = 0; // display deadline of the previous frame ...
    bool have_last_target_ = false;  // ... if it had one
    std::int64_t last_seen_vblank_ = 0;  // display_lock off: the last displayed time or waited swap
    double matched_hz_ = 0;        // match_display: the display's fitted refresh in force, 0 = none
    double swap_rate_hz_ = 0;      // match_display: the swap's own rate taken for the refresh ...
    double swap_rate_reported_ = 0;  // ... while the host reports this refresh
    LatenessEstimator work_est_{100.0};  // just_in_time: wake-up target -> present call
    double jit_offset_ = 0;        // just_in_time: safety offset, ns
    bool jit_late_ = false;        // just_in_time: the last frame was shown late
    std::int64_t last_shown_ = 0;  // when the previous frame was shown (measured or predicted)
    SyncMode sync_ = SyncMode::frame_start;  // in force for the frame in progress
    bool swap_paces_ = false;      // the swap paces the frame in progress
    // Cadence, display-time delta, VRR cap.
    CadenceGovernor governor_;
    CadenceStatus cadence_{};      // what cadence_status() and FrameTiming show
    double rate_hz_ = 0;           // the rate in force outside the background (0: target_hz)
    double cadence_base_hz_ = 0;   // the governor's base as a rate (refresh, or target_hz)
    double vsync_hz_ = 0;          // the rate the vsync decision was configured with
    DisplayDelta delta_;
    std::int64_t prev_due_ = 0;    // the previous frame's deadline (display_dt's schedule)
    LatenessEstimator wake_est_{100.0};  // wake-up lateness of the pacer's own waits (VRR cap)
    std::int64_t vrr_period_ = 0;  // VRR: the period in force, slewed; 0 = not on VRR
    LatenessEstimator vrr_cost_{100.0};  // VRR with the governor on: the frames' cost
};

// Inline so that the last microseconds of the spin run in the caller's code: after a sleep the
// code of the return path is cold, and walking it after the deadline made wait() return 0.7-1.5 us
// late on a loaded virtual machine (see HybridWaiter::wait_until_handoff).
inline FrameTiming FramePacer::wait() noexcept {
    FrameTiming t = wait_handoff();
    if (handoff_to_ != 0) finish_handoff(t);
    return t;
}

inline void FramePacer::finish_handoff(FrameTiming& t) noexcept {
    WaitResult r;
    r.end = t.wake;
    finish_wait(*ts_, r, clock::from_ns(handoff_to_));
    handoff_to_ = 0;
    const std::int64_t end = clock::to_ns(r.end);
    const std::chrono::nanoseconds extra = r.end - t.wake;
    t.wake = r.end;
    t.interval += extra;
    t.spun += extra;
    delta_.carry(extra.count());  // display_dt saw the interval before it: owe it to the next
    const std::int64_t due = clock::to_ns(t.deadline);
    t.lateness = std::chrono::nanoseconds(end > due ? end - due : 0);
    if (!t.missed && t.lateness > cfg_.miss_tolerance) {
        t.missed = true;
        ++missed_;
    }
    last_wake_ = cur_.start = end;
}

}  // namespace pacer
