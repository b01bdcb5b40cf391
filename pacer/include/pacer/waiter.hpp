// pacer/waiter.hpp - accurate sleep: OS sleep as far as it can be trusted, then spin.
//
//   sleep_until(t), sleep_for(d)   drop-in accurate sleeps on the real OS; any thread (state per thread)
//   HybridWaiter          the waiter: one thread at a time
//     wait_until(t, mode)       sleeps and spins until t (pacer::clock); returns WaitResult
//     wait_until_handoff, finish_wait   the same in two halves (the spin's end in the caller)
//     margin, spin_cap, status  what it learned
//     set_config, set_time_source
//     hold_priority, release_priority   a thread raised for good: now, and back to its own class
//   WaiterConfig          late_cost, half_life, initial_margin, min_margin, max_spin, priority
//   WaitResult            slept, spun, oversleep, lateness, margin, end
//   WaiterStatus          margin, spin cap, preempted spins, sleeps measured, the OS primitive,
//                         the thread's priority (asked, granted, why not)
//   set_sleep_priority(c) the free functions' priority on the calling thread (sleep_priority())
//
//   pacer::sleep_for(std::chrono::microseconds(1500));       // drop-in, per-thread state
//   pacer::sleep_until(next_deadline);                        // absolute: nothing drifts
//
//   pacer::HybridWaiter w;                                     // or own the state yourself
//   pacer::WaitResult r = w.wait_until(deadline);              // r.slept, r.spun, r.lateness ...
//
// How it works. To wait until a deadline D the waiter asks the OS to wake it at D - margin and
// spins from the wake-up to D. The margin is learned online from the OS's measured oversleep
// (wake-up time minus requested wake-up time) of every sleep this waiter has made, kept
//   * in a histogram whose old samples fade with a half-life (default 500 sleeps, about 8 s at
//     60 Hz), so the margin follows the machine when it gets busy and when it calms down;
//   * with logarithmic bins 1/8 octave wide (9 %) from 1 us to 0.26 s: O(1) per sample, no
//     allocation, ~150 additions per query.
// The margin is the one of least expected cost: expected spin time plus late_cost times the
// chance of a wake-up later than the margin (then min_margin on top, for the clock reads and the
// wake-up path). Spinning 1 us longer pays when the chance of a wake-up in that microsecond
// outweighs 1 us / late_cost; with the default 10 ms that means: cover the oversleep where it is
// dense, not a sparse cluster far out.
//   * Calm machine (oversleep a few tens of us with a tail that thins out): a high quantile, as
//     high as the 99.5 % quantile used before on the machines measured (mean + 1 sigma, the usual
//     estimator in hybrid-sleep code, is late far more often: oversleep has a heavy tail).
//   * Dense coarse oversleep (Windows' 1 ms timer: wake-ups spread over a millisecond) is covered
//     whole: every microsecond of it holds more than 1/10 000 of the wake-ups.
//   * Bad spell (some per cent of wake-ups milliseconds late because other threads hold the
//     CPU): a quantile lands in that spread, and every frame then spins into it to catch a few,
//     in spins that long that are preempted too. The least-cost margin does not chase them: it
//     spins a fraction as long per frame, with no more late frames than the quantile or a pure
//     spin (measured: docs/platforms.md#measured-the-hybrid-wait).
// A floor keeps the accuracy a spin can buy (when late_cost is at least 1 ms, kFloorLateCost: a
// smaller late_cost says that a late wake-up is worth less than a millisecond of spin, and the
// floor would spin for a sparse cluster far beyond that; the least cost alone then covers the
// dense part of the spread, a lean spin): while spins are not being
// preempted (512 in a row), the margin covers at least 99.5 % of the wake-ups the cap can catch
// (kFloorQuantile), because
// a pure spin would then be on time, and so should this waiter. The classic fake scheduler of
// hybrid-sleep tests (2 % of wake-ups a whole scheduler period late) needs it: its late cluster
// is too sparse for the cost alone. The floor ignores a cluster of fewer than 6 wake-ups
// (kFloorSamples): without that, a short burst of late wake-ups early in a run held the margin up
// for seconds, until hundreds of calm wake-ups outweighed them, at many times the spin per frame
// and no fewer late frames (measured: docs/platforms.md#measured-the-hybrid-wait).
// The margin is clamped to [min_margin, spin cap]: the cap bounds the CPU one wait can burn when
// the OS is coarse (a 15.6 ms Windows tick must not turn into 15.6 ms of spinning per frame) at
// the price of lateness on such a machine. The cap starts at max_spin and guards itself: a spin
// whose clock reads are more than 100 us apart lost the CPU to another thread (a scheduler time
// slice: under CFS a thread that spins for a few ms loses its wake-up credit and is preempted by
// whatever else is runnable), and then spinning longer only burns CPU without making the wake-up
// any earlier. Each preempted spin halves the cap (not below 250 us); 64 spins in a row without
// preemption double it again, up to max_spin. (With a fixed cap on a loaded machine, many frames
// came late out of a preempted spin: docs/platforms.md#measured-the-hybrid-wait.) What the cap
// has learned survives set_config() unless max_spin itself changes. A wake-up later than the cap
// is late whatever the margin, so it does not pull the margin up either.
//
// A wait shorter than the margin is spun entirely, and the waiter learns only from the sleeps it
// makes: at rates whose period is below initial_margin (1 ms, i.e. above ~1 kHz with some work
// per frame) lower initial_margin, or the waiter never sleeps and never learns that it could.
//
// A raised thread's spin is bounded (WaiterConfig::raised_spin_share). The cap above guards a
// thread at its own class: the busy threads it keeps from the core preempt its spin, and each
// preemption halves the cap. A raised thread (thread, high and automatic once granted; wait for
// its sleep and spin) is not preempted by them, so nothing would stop a bad spell (a host's
// steal, interrupts, a burst of late wake-ups) from teaching it a margin as long as the period:
// at 1 kHz a real-time pacer learned 2.4 ms and spun every period whole, and the busy thread on
// its core kept 2 % of the core. So while raised, the margin is chosen among those up to the spin
// bound, raised_spin_share of the period (the FramePacer's, else the wait's length): the thread
// sleeps all but that share of each period, whatever it learned, and spins a whole wait only
// when the wait is that short (until 16 sleeps are measured, a thread raised for good sleeps half
// of such a wait too). A wake-up later than the bound is
// accepted late, counted (WaiterStatus::wakeups_past_bound, WaitResult::past_spin_bound, the
// capture's PastSpinBound column) and does not pull the margin up, as one past the cap. Why the
// default share: docs/priority.md#the-raised-spins-bound.
//
// The free functions keep one HybridWaiter per thread (thread_local) and bracket each OS sleep
// with TimeSource::begin/end_pacing(): the timer slack is restored right after the wake-up, so
// that the system call costs spin time, not lateness. Hold a pacer::PacingScope around a loop of
// calls to save the system calls.
// A new thread's waiter starts from the margin other threads of the process have learned (0.5 ms
// before any has), so a fresh thread's sleep_for(1 ms) sleeps from its first call instead of
// spinning the whole millisecond.
//
// Priority (WaiterConfig::priority; pacer/priority.hpp is its manual). In wait mode the thread is
// raised right before each OS sleep and put back just before the deadline, at the end of the
// spin: as early before it as the put-back's system call takes (learned; measured:
// docs/platforms.md#measured-thread-priority), so that the caller's median is not moved. In
// thread, high and automatic modes it is raised before the first wait and stays raised until
// release_priority(), set_config() with another priority, or set_time_source().
//
// Thread safety: a HybridWaiter is used by one thread at a time.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/estimator.hpp"
#include "pacer/modes.hpp"
#include "pacer/priority.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"

namespace pacer {

struct WaiterConfig {
    // What one late wake-up is weighed as, in spin time: the margin minimizes expected spin +
    // late_cost x P(wake-up later than the margin). 0: never spin past min_margin; below 1 ms
    // (kFloorLateCost) without the floor (see above). In [0, 1 s].
    std::chrono::nanoseconds late_cost{10'000'000};
    // Samples after which an old oversleep counts half. In [8, 1e6].
    double half_life = 500.0;
    // Margin used until 16 sleeps have been measured. In [0, 1 s].
    std::chrono::nanoseconds initial_margin{1'000'000};
    // Floor of the margin: covers the clock reads and the wake-up path. In [0, max_spin].
    // Raised, it buys the thin tail the least-cost margin leaves (rare wake-ups a fraction of a
    // millisecond late) with a spin that long before every deadline: fewer intervals off, at
    // several times the CPU, about preciseSleep's
    // (measured: docs/results.md#the-thin-tail-on-a-quiet-machine).
    std::chrono::nanoseconds min_margin{20'000};
    // Cap on the spin of one wait; 0 = never spin (hybrid then behaves like sleep). In [0, 1 s].
    std::chrono::nanoseconds max_spin{4'000'000};
    // While the thread runs raised, the spin of one wait is at most this share of the period
    // (see above). In (0, 1].
    double raised_spin_share = 0.25;
    // The thread's scheduling class: normal (never changed), raised for each OS sleep (wait), or
    // raised for good (thread). pacer/priority.hpp has what each OS grants and what it costs.
    PriorityConfig priority{};
};
Status validate(const WaiterConfig& config);

// What one wait did. All durations >= 0.
struct WaitResult {
    std::chrono::nanoseconds slept{0};      // time inside the OS sleep
    std::chrono::nanoseconds spun{0};       // time spinning after it
    std::chrono::nanoseconds oversleep{0};  // OS wake-up past the requested wake-up (0: no sleep)
    std::chrono::nanoseconds lateness{0};   // return time past the deadline
    std::chrono::nanoseconds margin{0};     // margin in force for this wait
    clock::time_point end{};                // when the wait returned (TimeSource clock)
    bool os_slept = false;                  // an OS sleep was made (and measured)
    bool spin_preempted = false;            // the spin lost the CPU (clock reads > 100 us apart)
    bool past_spin_bound = false;           // raised, and woken later than the spin bound: late
};

// What a HybridWaiter has learned (HybridWaiter::status, FramePacer::status).
struct WaiterStatus {
    std::chrono::nanoseconds margin{0};    // what the next hybrid wait subtracts from its deadline
    std::chrono::nanoseconds spin_cap{0};  // max_spin, or less after preempted spins
    std::int64_t preempted_spins = 0;      // spins that lost the CPU, so far
    std::int64_t sleeps_measured = 0;      // OS sleeps whose oversleep was learned, so far
    const char* sleep_primitive = "";      // the OS wait behind the sleep (static storage)
    PriorityStatus priority{};             // the class asked for, granted, and why not
    // While raised: the longest spin a wait may make (raised_spin_share of the period), else 0.
    std::chrono::nanoseconds spin_bound{0};
    std::int64_t wakeups_past_bound = 0;   // raised wake-ups later than the spin bound, so far
};

class HybridWaiter {
public:
    // Throws ConfigError for an invalid config. ts = nullptr: the real OS.
    explicit HybridWaiter(const WaiterConfig& config = {}, TimeSource* ts = nullptr);

    // Waits until the TimeSource's clock reaches deadline, with the given mode (vsync and
    // automatic wait as hybrid: the waiter has no swap to wait on). Inline: the two halves below,
    // so that the spin ends in the caller's code.
    WaitResult wait_until(clock::time_point deadline, WaitMode mode = WaitMode::hybrid) noexcept;

    // wait_until() in two halves, for a caller with bookkeeping of its own after the wait. The
    // first half stops a spin up to kHandoff before the deadline (then r.end < deadline); the
    // caller does its bookkeeping and then calls finish_wait(), which spins the rest in the
    // caller's own code. Why: after a sleep of a few ms the code and data of the return path are
    // cold (other processes ran on the core meanwhile), and walking that path after the deadline
    // made the returns late; a spin that ends in the caller leaves only warm code between the
    // last clock read and the caller's next statement (measured:
    // docs/platforms.md#measured-the-hybrid-wait). A preemption in the caller's part is reported
    // (r.spin_preempted) but does not shrink the spin cap.
    WaitResult wait_until_handoff(clock::time_point deadline, WaitMode mode = WaitMode::hybrid) noexcept;
    static constexpr std::chrono::nanoseconds kHandoff{20'000};

    // Current margin: what the next hybrid wait would subtract from its deadline.
    std::chrono::nanoseconds margin() const noexcept;
    // Current spin cap: max_spin, or less after preempted spins (see above).
    std::chrono::nanoseconds spin_cap() const noexcept { return std::chrono::nanoseconds(cap_ns_); }
    std::int64_t preempted_spins() const noexcept { return preempted_spins_; }  // so far
    // All of the above (a margin query; docs/results.md#what-the-bookkeeping-costs).
    WaiterStatus status() const noexcept;

    // A gap this long between two clock reads of a spin means the thread was descheduled.
    static constexpr std::chrono::nanoseconds kPreemptGap{100'000};
    // The self-guarded cap never goes below this (or min_margin, if larger).
    static constexpr std::chrono::nanoseconds kMinGuardedCap{250'000};
    static constexpr int kCalmSpinsToGrow = 64;
    // The margin's floor (see above): this quantile of the wake-ups a spin can catch, when the
    // least-cost margin leaves at least kFloorSamples of them late, after kCalmSpinsForFloor
    // spins in a row without preemption.
    static constexpr double kFloorQuantile = 0.995;
    static constexpr double kFloorSamples = 6.0;
    static constexpr std::int64_t kCalmSpinsForFloor = 512;
    static constexpr std::chrono::nanoseconds kFloorLateCost{1'000'000};  // the floor's least late_cost
    static constexpr std::int64_t kWarmup = 16;  // sleeps measured before the margin is learned
    const LatenessEstimator& estimator() const noexcept { return est_; }
    const WaiterConfig& config() const noexcept { return cfg_; }
    TimeSource& time_source() const noexcept { return *ts_; }

    // Rejects an invalid config and keeps the old one. Learned samples are kept, and so is the
    // guarded spin cap unless max_spin changes (then it restarts at the new max_spin).
    Status set_config(const WaiterConfig& config);
    // Waits on another clock and OS from the next wait (nullptr: the real OS). The learned margin
    // and cap are kept: they describe the machine, and they adapt if the new source differs. A
    // thread raised for good (thread, high, automatic) is put back first, through the old source.
    void set_time_source(TimeSource* ts) noexcept;
    // Puts a thread raised for good back to its own class now (on the calling thread, which must
    // be the one that waits); the next wait raises it again while the setting says so.
    // FramePacer calls it from end_pacing() and its destructor. Nothing to do otherwise.
    void release_priority() noexcept;
    // A mode raised for good (thread, high, automatic): raises the calling thread now unless it is
    // raised or was refused (the next wait does the same); nothing in the other modes. FramePacer calls it at every
    // frame start, so that its first frame, which does not wait, is raised too.
    // A grant that comes later or changes (RealtimeKit's answer, the real-time guard: see
    // pacer/priority.hpp) is picked up here too. `period` is the frame period: the spin bound's.
    void hold_priority(std::chrono::nanoseconds period) noexcept {
        period_hint_ = period.count();
        hold(period);
    }
    void reset_estimate() noexcept { est_.reset(); }

private:
    // `wait`: the wait's length; the frame period hold_priority() was given is what the grant is
    // told (the real-time guard judges a frame's CPU against it), the wait only without one.
    void hold(std::chrono::nanoseconds wait) noexcept {
        if (!raised_for_good(cfg_.priority.mode)) return;
        const std::chrono::nanoseconds period = period_hint_ > 0 ? std::chrono::nanoseconds(period_hint_) : wait;
        if (held_) refresh(period);
        else if (!priority_.refused) raise(period);
    }
    void note_spin(bool preempted) noexcept;
    bool raise(std::chrono::nanoseconds period) noexcept;
    void refresh(std::chrono::nanoseconds period) noexcept;
    void take_grant(bool first) noexcept;  // priority_ from grant_, logged when it changed
    void forget_priority(ThreadPriority asked) noexcept;  // put back, and ask afresh next time
    bool runs_raised() const noexcept;
    std::int64_t spin_bound(std::int64_t wait) const noexcept;
    std::chrono::nanoseconds margin_within(std::int64_t cap_ns) const noexcept;

    WaiterConfig cfg_;
    TimeSource* ts_;
    LatenessEstimator est_;
    std::int64_t cap_ns_ = 0;
    int calm_spins_ = 0;
    std::int64_t spins_since_preempted_ = kCalmSpinsForFloor;
    std::int64_t preempted_spins_ = 0;
    PriorityGrant grant_{};    // the last raise (held while a mode raised for good keeps it)
    PriorityStatus priority_{};
    int level_ = 0;  // the real-time priority (> 0) or nice value (< 0) last granted: the OS's limit
    std::int64_t restore_ns_ = 5'000;  // what putting the priority back takes (wait mode), learned
    bool held_ = false;  // grant_ must be put back: granted, or asked and not yet answered
    std::int64_t period_hint_ = 0;        // the frame period hold_priority() was given (0: none)
    std::int64_t past_bound_ = 0;         // WaiterStatus::wakeups_past_bound
};

// Completes a wait that HybridWaiter::wait_until_handoff() handed off: spins on ts until its
// clock reaches deadline and fills in r.end, r.spun, r.lateness (and r.spin_preempted). Does
// nothing when r.end is already at or past the deadline. Inline on purpose (see above).
inline void finish_wait(TimeSource& ts, WaitResult& r, clock::time_point deadline) noexcept {
    const std::int64_t d = clock::to_ns(deadline);
    std::int64_t now = clock::to_ns(r.end);
    if (now >= d) return;
    const std::int64_t from = now;
    std::int64_t prev = now;
    while (now < d) {
        ts.relax();
        now = clock::to_ns(ts.now());
        if (now - prev > HybridWaiter::kPreemptGap.count()) r.spin_preempted = true;
        prev = now;
    }
    r.spun += std::chrono::nanoseconds(now - from);
    r.lateness = std::chrono::nanoseconds(now - d);
    r.end = clock::from_ns(now);
}

// Inline: out of line, the spin ended inside the library and the return path ran after the
// deadline, later at the median than a plain spin loop (measured:
// docs/platforms.md#measured-the-hybrid-wait).
inline WaitResult HybridWaiter::wait_until(clock::time_point deadline, WaitMode mode) noexcept {
    WaitResult r = wait_until_handoff(deadline, mode);
    finish_wait(*ts_, r, deadline);
    return r;
}

namespace detail {
WaitResult sleep_until_handoff(clock::time_point deadline) noexcept;
}

// Drop-in accurate sleeps on the real OS, with a per-thread HybridWaiter. Inline so that the
// last microseconds of the spin run in the caller (see wait_until_handoff()).
inline WaitResult sleep_until(clock::time_point deadline) noexcept {
    TimeSource& ts = system_time_source();
    WaitResult r = detail::sleep_until_handoff(deadline);
    finish_wait(ts, r, deadline);
    return r;
}
// On a steady_clock deadline the last microseconds are spun on steady_clock itself, so that the
// caller's own next steady_clock::now() runs warm code: spun on pacer's clock, that first read
// came later after the deadline at the median (measured:
// docs/platforms.md#measured-the-hybrid-wait).
inline WaitResult sleep_until(std::chrono::steady_clock::time_point deadline) noexcept {
    TimeSource& ts = system_time_source();
    WaitResult r = detail::sleep_until_handoff(clock::from_steady(deadline));
    auto now = std::chrono::steady_clock::now();
    const auto from = now;
    auto prev = now;
    while (now < deadline) {
        ts.relax();
        now = std::chrono::steady_clock::now();
        if (now - prev > HybridWaiter::kPreemptGap) r.spin_preempted = true;
        prev = now;
    }
    r.spun += std::chrono::duration_cast<std::chrono::nanoseconds>(now - from);
    r.lateness = std::max(std::chrono::nanoseconds(0), std::chrono::duration_cast<std::chrono::nanoseconds>(now - deadline));
    r.end = clock::from_steady(now);
    return r;
}
// The priority of the calling thread's free sleeps (pacer/priority.hpp): e.g.
// set_sleep_priority({ThreadPriority::wait}) raises each OS sleep of sleep_until/sleep_for on this
// thread. They start at normal, not at PriorityConfig's default (automatic): the thread may be
// anyone's, and no end_pacing() would put a raise back; a mode raised for good (thread, high,
// automatic) asked here stays until set_sleep_priority() asks another or the thread ends. Rejects
// an invalid config (and keeps the old one); a value already in force changes nothing.
// sleep_priority(): what was asked, granted, and why not, on this thread.
Status set_sleep_priority(const PriorityConfig& config);
PriorityStatus sleep_priority() noexcept;

inline WaitResult sleep_for(std::chrono::nanoseconds duration) noexcept {
    if (duration.count() <= 0) return {};
    return sleep_until(clock::now() + duration);
}

}  // namespace pacer
