// pacer/sim_display.hpp - a display and its swap chain in virtual time, beside SimulatedOs.
//
//   SimulatedDisplay      a display and swap chain in virtual time: one thread
//     present(interval)   a present at the OS's time; may block; returns PresentResult
//     vblank_after(t), refresh_period_at(t), refresh_hz_at(t)   the model's truth (t a
//                         clock::time_point of the SimulatedOs, periods std::chrono::nanoseconds)
//   DisplayConfig         refresh, skew, phase, queue depth, VRR range, LFC, report noise and losses
//   PresentResult         what the model did and what the host learns (PresentResult::info())
//
// SimulatedDisplay is what the host's present call talks to, modelled exactly (whole ns: times are
// clock::time_point and lengths std::chrono::nanoseconds, int64 inside; a fixed-seed generator),
// so that pacing against a display can be tested and tuned in virtual time:
//
//   using namespace std::chrono_literals;
//   pacer::SimulatedOs os({.granularity = 0ns});
//   pacer::SimulatedDisplay display(os, {.refresh_hz = 60, .queue_depth = 2});
//   pacer::FramePacer fp({.target_hz = 60, .mode = pacer::WaitMode::automatic}, &os);
//   for (int i = 0; i < 600; ++i) {
//       fp.wait();
//       os.advance(4ms);                                              // 4 ms of work
//       const pacer::PresentResult r = display.present(fp.desired_swap_interval());  // may block
//       for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
//   }
//   // fp.status().vsync.code == pacer::VsyncReason::auto_verified
//
// The model:
//
//   Refresh. A fixed-refresh display scans out at vblanks spaced 1 / refresh_hz apart on its own
//   clock, which runs clock_ppm parts per million fast (+) or slow (-) against the CPU's: +100 ppm
//   gains 100 us per second, so in CPU time a period lasts period * 1e6 / (1e6 + ppm) and the
//   display's phase drifts by exactly ppm x elapsed time. The first vblank is phase after the
//   model's construction. A refresh change (refresh_changes, e.g. 60 -> 59.94 or 144 -> 60) takes
//   effect at the first vblank at or after its time; vblanks are then spaced by the new period.
//   Vblank times are kept in fixed point (2^-32 ns) from each change, so they do not drift: after
//   10^6 periods a vblank is within 1 ns of its exact time.
//
//   FIFO (vsync on, swap interval N >= 1). A present latches at the first vblank strictly after
//   it is queued (when the call returns) and at least N vblanks after the previous present's. Up to queue_depth (1-3)
//   presents may wait for their vblank; a present that finds the queue full blocks the calling
//   thread until the oldest waiting one is shown (as a real FIFO swap chain does; the thread wakes
//   through SimulatedOs::block_until, so the OS model's wake-up noise applies). A host that
//   renders faster than the refresh therefore returns from each present on a vblank, and each
//   frame is shown queue_depth vblanks after its present returned.
//
//   Tearing (swap interval 0, or vsync = false: a driver that ignores the interval). The present
//   reaches the screen as soon as the call returns and never blocks. Presents still waiting in
//   the FIFO keep their vblanks.
//
//   VRR (vrr_min_hz > 0: a range [vrr_min_hz, refresh_hz]). A present is scanned out at once if at
//   least the min period (1 / refresh_hz) has passed since the start of the last scanout, else
//   when it has. Below the floor the panel cannot hold an image longer than the max period
//   (1 / vrr_min_hz) and repeats the last frame; a present that arrives during such a repeat waits
//   for it to end (up to one min period: the judder of low frame rates). With low-framerate
//   compensation (lfc, needs refresh_hz >= 2 x vrr_min_hz) the driver expects the next frame one
//   present-to-present interval after the last present and spreads k repeats evenly over the gap
//   to it, k the fewest that keep each within the max period, so that a frame that comes on time
//   finds the panel free (a late one can still meet a repeat, as on real panels).
//   A present at exactly the time of a repeat takes the repeat's place. The queue and blocking
//   rules are the FIFO's.
//
//   Displayed time. What the viewer sees: the scanout start (the vblank, the tear, the VRR
//   scanout) plus compositor_delay, a fixed compositor delay.
//
//   Reports. What the host learns of each present: the time its present call returned (it timed
//   the call itself) and the displayed time (a presentation-feedback API), each with uniform
//   integer noise in [-report_noise, +report_noise], whole ns (the return time never before the call).
//   With drop_probability the report is lost; otherwise with duplicate_probability it arrives
//   twice (PresentResult::reports is 0, 1 or 2). Every present draws the same number of random
//   numbers, so changing one probability does not reshuffle the others' outcomes.
//
// Thread safety: none; one thread, like the SimulatedOs it drives.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pacer/clock.hpp"
#include "pacer/sim.hpp"
#include "pacer/status.hpp"
#include "pacer/present.hpp"

namespace pacer {

// From `at` after the model's construction, the display refreshes at hz (fixed refresh only).
struct RefreshChange {
    std::chrono::nanoseconds at{0};
    double hz = 60.0;
};

// Accepted ranges; validate() names the field and the range of the first value outside.
struct DisplayConfig {
    double refresh_hz = 60.0;         // [20, 1000]: the fixed refresh, or the VRR range's top
    double clock_ppm = 0.0;           // [-1000, 1000]: the display clock's skew against the CPU's
    std::chrono::nanoseconds phase{0};  // [0, one period): first vblank after construction
    int queue_depth = 2;              // [1, 3]: presents that may wait for their vblank at once
    bool vsync = true;                // false: the driver ignores the swap interval, always tears
    double vrr_min_hz = 0.0;          // 0: fixed refresh; else VRR over [vrr_min_hz, refresh_hz]
    bool lfc = false;                 // VRR: low-framerate compensation (refresh_hz >= 2 x min)
    std::chrono::nanoseconds compositor_delay{0};  // [0, 1 s]: added to the displayed time
    std::chrono::nanoseconds present_cpu{0};  // [0, 1 s]: CPU work of the present call before it queues
    std::chrono::nanoseconds report_noise{0};  // [0, 10 ms]: noise on reported timestamps
    double drop_probability = 0.0;          // [0, 1]: a present's report is lost
    double duplicate_probability = 0.0;     // [0, 1]: a (kept) report arrives twice
    std::uint64_t seed = 1;                 // the reports' generator
    std::vector<RefreshChange> refresh_changes = {};  // increasing at > 0; not with VRR
};
Status validate(const DisplayConfig& config);

// One present, as the model ran it. Times are on the SimulatedOs's clock.
struct PresentResult {
    std::uint64_t id = 0;            // 0, 1, 2, ... in present order
    clock::time_point begin{};       // the call
    clock::time_point returned{};    // the call returned (after blocking, if it blocked)
    clock::time_point scanout{};     // the vblank it latched at (tear: when it reached the screen)
    clock::time_point displayed{};   // scanout + compositor_delay
    bool blocked = false;            // the queue was full: the call waited for a vblank
    bool torn = false;               // shown at once, without waiting for a vblank
    int swap_interval = 0;           // as asked by the host
    double refresh_hz = 0;           // what the host would read as the display's refresh (nominal)
    // What the host learns: 0 (lost), 1 or 2 (duplicated) reports of these noisy timestamps.
    int reports = 1;
    clock::time_point reported_returned{};
    clock::time_point reported_displayed{};

    // The report as FramePacer::report_present takes it.
    PresentInfo info() const noexcept {
        return {begin, reported_returned, swap_interval, refresh_hz, true, reported_displayed};
    }
};

class SimulatedDisplay {
public:
    // Throws ConfigError for an invalid config. The display starts at os.now().
    SimulatedDisplay(SimulatedOs& os, const DisplayConfig& config);

    // A present with this swap interval (0 = vsync off; 1..8 = latch at least that many vblanks
    // after the previous present) at the OS's current time. Advances the OS clock by the call's
    // CPU work and, when the queue is full, blocks until a slot frees.
    PresentResult present(int swap_interval = 1) noexcept;

    // Fixed refresh: the first vblank strictly after t. VRR: the earliest scanout a present made
    // at t could get, given the presents so far.
    clock::time_point vblank_after(clock::time_point t) const noexcept;
    // Fixed refresh: the refresh period in force at t in CPU time (skew applied), rounded to 1 ns.
    // VRR: the min period (1 / refresh_hz).
    std::chrono::nanoseconds refresh_period_at(clock::time_point t) const noexcept;
    // The nominal refresh rate in force at t, as the OS would tell the host (no skew).
    double refresh_hz_at(clock::time_point t) const noexcept;

    const DisplayConfig& config() const noexcept { return cfg_; }
    clock::time_point start() const noexcept { return clock::from_ns(start_); }  // os.now() at construction
    std::uint64_t presents() const noexcept { return next_id_; }
    // VRR: scanouts that repeated the last frame so far (counted up to the last present).
    std::uint64_t repeats() const noexcept { return repeats_; }

private:
    // A run of vblanks at one period: base + n * period (whole ns + frac / 2^32 ns), n >= 0.
    struct Segment {
        std::int64_t base = 0;
        std::int64_t whole = 0;
        std::uint64_t frac = 0;
        double hz = 0;  // nominal
    };
    static Segment make_segment(std::int64_t base, double hz, double ppm) noexcept;
    static std::int64_t vblank_of(const Segment& s, std::int64_t n) noexcept;
    static std::int64_t first_vblank_after(const Segment& s, std::int64_t t) noexcept;  // > t
    std::size_t segment_at(std::int64_t t) const noexcept;
    std::int64_t fixed_vblank_after(std::int64_t t) const noexcept;
    std::int64_t vrr_earliest(std::int64_t t, std::int64_t* repeats) const noexcept;
    void vrr_commit(std::int64_t ready, std::int64_t scanout) noexcept;
    double uniform() noexcept;
    std::int64_t noise() noexcept;

    SimulatedOs& os_;
    DisplayConfig cfg_;
    std::int64_t start_ = 0;
    std::vector<Segment> segments_;
    // VRR: the panel's periods in CPU ns, the last new frame's scanout and when the repeats of
    // it fall (every repeat_spacing_ after it), and the host's present cadence for LFC.
    std::int64_t min_period_ = 0, max_period_ = 0;
    std::int64_t last_frame_ = 0;
    std::int64_t repeat_spacing_ = 0;
    std::int64_t last_ready_ = 0, ready_interval_ = 0;  // ready_interval_ 0: not known yet
    bool have_ready_ = false;
    std::uint64_t repeats_ = 0;
    std::int64_t shown_[3] = {0, 0, 0};  // scanouts of the last queued presents, by id % 3
    std::int64_t last_shown_ = 0;        // scanout of the last queued present
    std::uint64_t queued_ = 0;           // presents that went through the queue so far
    std::uint64_t next_id_ = 0;
    std::uint64_t rng_[4];
};

}  // namespace pacer
