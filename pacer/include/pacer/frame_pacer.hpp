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
// 10^6 frames at 144 Hz the deadline is within 1 ns of the exact value (tests/frame_pacer_test).
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
// Vsync (WaitMode::vsync and WaitMode::automatic; pacer/vsync.hpp). The host reports each present
// with report_present() and sets the swap interval desired_swap_interval() asks for. While the
// swap paces, wait() does not wait on the grid; it only refuses to let the loop run faster than
// twice the target rate, so a swap that does not block cannot turn the loop into a busy loop.
// A host that reports no presents (a headless run, a forgotten call) cannot be paced by its swap:
// after 2 frames without a report, wait() paces with hybrid sleep again whatever the mode.
//   vsync:     the swap paces, always; vsync_status() says whether presents show it working, and a
//              warning is logged when they do not.
//   automatic: asks for vsync when the display's refresh serves the target (refresh / N within
//              0.5 % of it), trusts it after 16 locked presents, drops it after 4 unlocked ones or
//              when more than 10 % of the last 64 presents missed a vblank, and then paces with
//              hybrid sleep, vsync off. Vsync is probed again 10 s after a fallback (doubling up to
//              160 s while it keeps failing); a probe caps the loop at twice the target rate for
//              the few frames it takes. A refresh change is acted on at the next present.
//
// Run-time changes (set_target_hz, set_mode, set_late_policy, set_config) take effect at the next
// wait(): a new rate re-anchors the grid at the last deadline, so the next frame is one new period
// after the previous deadline.
//
// Cost. wait() does a few clock reads and integer operations besides sleeping and spinning
// (bench/bench_bookkeeping: well under 1 us) and never allocates.
//
// Thread safety: one thread calls wait(); the setters must be called from that thread too.
// Linux timer slack is lowered for the thread that calls wait() (see TimeSource::begin_pacing)
// from its first wait() until the pacer is destroyed on that thread (or end() is called).
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#include "pacer/status.hpp"
#include "pacer/time_source.hpp"
#include "pacer/vsync.hpp"
#include "pacer/waiter.hpp"

namespace pacer {

enum class LatePolicy {
    catch_up,  // keep the grid; serve up to max_catch_up passed deadlines at once (default)
    skip,      // keep the grid; skip every passed slot
    resync,    // restart the grid at the late wake-up
};
const char* to_string(LatePolicy policy) noexcept;
bool parse_late_policy(const char* text, LatePolicy* out) noexcept;

// Highest accepted rate. Above 10 kHz a period is shorter than one OS wake-up on any desktop OS;
// such a "frame rate" is a bug in the caller, not a pacing request.
inline constexpr double kMaxTargetHz = 10'000.0;

struct PacerConfig {
    double target_hz = 60.0;                   // frames per second, in (0, 10000]
    WaitMode mode = WaitMode::hybrid;          // how the wait is done
    LatePolicy late_policy = LatePolicy::catch_up;
    int max_catch_up = 1;                      // catch_up only: passed deadlines served at once, [0, 1000]
    // A frame counts as missed when it wakes this much after its deadline or skips a slot.
    // Default 0.5 ms: 3 % of a 60 Hz frame, 7 % at 144 Hz. In [0, 1 s].
    std::chrono::nanoseconds miss_tolerance{500'000};
    WaiterConfig waiter{};                     // hybrid mode's margin learning and spin cap
};
Status validate(const PacerConfig& config);

// One frame, as returned by wait(). Time points are on the TimeSource's clock: for the system
// source on Linux and Windows they compare with std::chrono::steady_clock::now().
struct FrameTiming {
    std::uint64_t index = 0;                        // grid slot of this frame (skips count)
    std::chrono::steady_clock::time_point deadline;  // when this frame was due
    std::chrono::steady_clock::time_point wake;      // when wait() returned
    std::chrono::nanoseconds lateness{0};   // wake - deadline; > 0 when late, never < 0
    std::chrono::nanoseconds interval{0};   // wake - previous wake (0 for the first frame)
    std::chrono::nanoseconds work{0};       // previous wake -> this wait() call: the caller's frame
    std::chrono::nanoseconds period{0};     // target period in force for this frame (rounded)
    std::chrono::nanoseconds slept{0};      // inside the OS sleep
    std::chrono::nanoseconds spun{0};       // spinning
    std::chrono::nanoseconds oversleep{0};  // OS wake-up past the requested wake-up
    std::chrono::nanoseconds margin{0};     // hybrid margin in force
    std::uint32_t skipped = 0;              // grid slots skipped before this frame
    WaitMode mode = WaitMode::hybrid;       // the configured mode
    PacingSource source = PacingSource::hybrid;  // what actually paced this frame
    bool missed = false;                    // lateness > miss_tolerance, or skipped > 0
};

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
    Status set_config(const PacerConfig& config);

    // Vsync: report each present (see pacer/vsync.hpp); what the host should set as swap
    // interval (0 = vsync off); the current decision and its reason.
    void report_present(const PresentInfo& present) noexcept;
    int desired_swap_interval() const noexcept { return vs_.swap_interval; }
    VsyncStatus vsync_status() const noexcept { return vs_; }
    const VsyncDetector& vsync_detector() const noexcept { return detector_; }

    // Forget the grid: the next wait() returns at once and anchors a new one. Frame indices
    // continue. The learned margin is kept.
    void reset() noexcept;
    // Restore the thread's timer slack now (also done by the destructor on the pacing thread).
    void end() noexcept;

    const PacerConfig& config() const noexcept { return cfg_; }  // including pending changes
    std::chrono::nanoseconds period() const noexcept;            // of the config above, rounded
    std::uint64_t frames() const noexcept { return frames_; }    // wait() calls so far
    std::uint64_t missed() const noexcept { return missed_; }    // missed frames so far
    HybridWaiter& waiter() noexcept { return waiter_; }
    TimeSource& time_source() const noexcept { return *ts_; }

private:
    enum class Vsync { off, waiting, probing, verified, fallback };
    void apply_config() noexcept;
    void decide_vsync(std::int64_t now) noexcept;
    void set_vsync(Vsync state, int interval, const char* reason, bool warn = false) noexcept;
    std::int64_t deadline_of(std::uint64_t k) const noexcept;

    PacerConfig cfg_;
    TimeSource* ts_;
    HybridWaiter waiter_;
    // Active period in fixed point: whole ns + fraction in units of 2^-32 ns.
    std::int64_t period_whole_ = 0;
    std::uint64_t period_frac_ = 0;
    std::int64_t anchor_ = 0;      // deadline of grid slot 0
    std::uint64_t k_ = 0;          // slot of the last deadline, relative to anchor_
    std::uint64_t index_base_ = 0; // frame index of slot 0
    std::int64_t last_deadline_ = 0;
    std::int64_t last_wake_ = 0;
    std::uint64_t frames_ = 0;
    std::uint64_t missed_ = 0;
    bool started_ = false;
    bool pending_ = false;         // config changed since the last wait()
    bool pacing_ = false;          // begin_pacing() was called ...
    std::thread::id pacing_thread_;  // ... on this thread
    // Vsync
    VsyncDetector detector_;
    VsyncStatus vs_;
    Vsync vstate_ = Vsync::off;
    double refresh_hz_ = 0;
    int interval_in_effect_ = -1;
    int settle_ = 0;                    // presents to ignore after a swap-interval change
    int probe_presents_ = 0;
    std::int64_t next_probe_ns_ = 0;
    std::int64_t probe_backoff_ns_ = 0;
    bool last_locked_ = false;
    bool present_failed_ = false;
    bool grid_dirty_ = false;           // the swap paced: re-anchor the grid before using it
    int waits_without_present_ = 0;
};

}  // namespace pacer
