// pacer/waiter.hpp - accurate sleep: OS sleep as far as it can be trusted, then spin.
//
//   pacer::sleep_for(std::chrono::microseconds(1500));       // drop-in, per-thread state
//   pacer::sleep_until(next_deadline);                        // absolute: nothing drifts
//
//   pacer::HybridWaiter w;                                     // or own the state yourself
//   pacer::WaitResult r = w.wait_until(deadline);              // r.slept, r.spun, r.lateness ...
//
// How it works. To wait until a deadline D the waiter asks the OS to wake it at D - margin and
// spins from the wake-up to D. The margin is learned online from the OS's measured oversleep
// (wake-up time minus requested wake-up time) of every sleep this waiter has made:
//   * a high quantile (default 99.5 %), not mean + 1 sigma (the usual estimator in hybrid-sleep
//     code): oversleep has a heavy tail, and a mean-and-sigma margin is late far more often than
//     its "1 sigma" suggests;
//   * from a histogram whose old samples fade with a half-life (default 500 sleeps, about 8 s
//     at 60 Hz), so the margin follows the machine when it gets busy and when it calms down;
//   * with logarithmic bins 1/8 octave wide (9 %) from 1 us to 0.26 s: O(1) per sample, no
//     allocation, ~150 additions per query.
// The margin is clamped to [min_margin, spin cap]: the cap bounds the CPU one wait can burn when
// the OS is coarse (a 15.6 ms Windows tick must not turn into 15.6 ms of spinning per frame) at
// the price of lateness on such a machine. The cap starts at max_spin and guards itself: a spin
// whose clock reads are more than 100 us apart lost the CPU to another thread (a scheduler time
// slice: under CFS a thread that spins for a few ms loses its wake-up credit and is preempted by
// whatever else is runnable), and then spinning longer only burns CPU without making the wake-up
// any earlier. Each preempted spin halves the cap (not below 250 us); 64 spins in a row without
// preemption double it again, up to max_spin. Measured on a loaded 2-core virtual machine while
// compiles ran: with a fixed 4 ms cap a third of the 60 Hz frames came late out of a preempted
// spin. What the cap has learned survives set_config() unless max_spin itself changes.
//
// The quantile is taken over the oversleeps a spin can catch, those below the cap: the margin is
// the (quantile x F(cap)) quantile, F(cap) being the share of oversleeps below the cap. A wake-up
// later than the cap misses its deadline whatever the margin; leaving those out, this is the
// margin of least expected cost, spin time against lateness weighted quantile : 1 - quantile.
// In a bad spell, when a few per cent of wake-ups come 2-6 ms late and preempted spins hold the
// cap at 0.25-1 ms, the plain quantile lies beyond the cap, and every frame spun to the cap even
// when the oversleeps below it ended far short of it; this margin stops where they end. When
// they reach up to the cap (a tail without a gap) it is still close to the cap. On a calm
// machine F(cap) = 1: the plain quantile.
//
// A wait shorter than the margin is spun entirely, and the waiter learns only from the sleeps it
// makes: at rates whose period is below initial_margin (1 ms, i.e. above ~1 kHz with some work
// per frame) lower initial_margin, or the waiter never sleeps and never learns that it could.
//
// The free functions keep one HybridWaiter per thread (thread_local) and bracket each call with
// TimeSource::begin/end_pacing(); hold a pacer::PacingScope around a loop of calls to avoid that.
// A new thread's waiter starts from the margin other threads of the process have learned (0.5 ms
// before any has), so a fresh thread's sleep_for(1 ms) sleeps from its first call instead of
// spinning the whole millisecond.
//
// Thread safety: a HybridWaiter is used by one thread at a time.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"

namespace pacer {

struct WaiterConfig {
    // The margin covers this quantile of observed oversleep (of the part below the spin cap). In (0.5, 1).
    double quantile = 0.995;
    // Samples after which an old oversleep counts half. In [8, 1e6].
    double half_life = 500.0;
    // Margin used until 16 sleeps have been measured. In [0, 1 s].
    std::chrono::nanoseconds initial_margin{1'000'000};
    // Floor of the margin: covers the clock reads and the wake-up path. In [0, max_spin].
    std::chrono::nanoseconds min_margin{20'000};
    // Cap on the spin of one wait; 0 = never spin (hybrid then behaves like sleep). In [0, 1 s].
    std::chrono::nanoseconds max_spin{4'000'000};
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
};

// Decaying log-binned histogram of oversleep; the waiter's learning half. Allocation-free.
class LatenessEstimator {
public:
    static constexpr int kBinsPerOctave = 8;
    static constexpr int kOctaves = 18;                          // 1 us .. 262 ms
    static constexpr int kBins = 2 + kBinsPerOctave * kOctaves;  // + [0,1us) and overflow

    explicit LatenessEstimator(double half_life = 500.0) noexcept;
    void set_half_life(double half_life) noexcept;
    void add(std::int64_t oversleep_ns) noexcept;
    // The p-quantile of the (decayed) samples in ns, interpolated inside a bin; 0 when empty.
    std::int64_t quantile(double p) const noexcept;
    // The (decayed) share of samples below ns, interpolated inside a bin; 0 when empty.
    double fraction_below(std::int64_t ns) const noexcept;
    std::int64_t count() const noexcept { return count_; }  // samples ever added
    void reset() noexcept;

private:
    std::array<double, kBins> weight_{};
    double increment_ = 1.0;  // grows instead of shrinking every old bin
    double total_ = 0.0;
    double growth_ = 1.0;
    std::int64_t count_ = 0;
};

class HybridWaiter {
public:
    // Throws ConfigError for an invalid config. ts = nullptr: the real OS.
    explicit HybridWaiter(const WaiterConfig& config = {}, TimeSource* ts = nullptr);

    // Waits until the TimeSource's clock reaches deadline, with the given mode (vsync and
    // automatic wait as hybrid: the waiter has no swap to wait on).
    WaitResult wait_until(clock::time_point deadline, WaitMode mode = WaitMode::hybrid) noexcept;

    // wait_until() in two halves, for a caller with bookkeeping of its own after the wait. The
    // first half stops a spin up to kHandoffNs before the deadline (then r.end < deadline); the
    // caller does its bookkeeping and then calls finish_wait(), which spins the rest in the
    // caller's own code. Why: after a sleep of a few ms the code and data of the return path are
    // cold (other processes ran on the core meanwhile), and walking that path after the deadline
    // made returns 0.5-1.5 us late on a loaded 2-core virtual machine; a spin that ends in the
    // caller leaves only warm code between the last clock read and the caller's next statement
    // (0.07 us there). A preemption in the caller's part is reported (r.spin_preempted) but does
    // not shrink the spin cap.
    WaitResult wait_until_handoff(clock::time_point deadline, WaitMode mode = WaitMode::hybrid) noexcept;
    static constexpr std::int64_t kHandoffNs = 20'000;

    // Current margin: what the next hybrid wait would subtract from its deadline.
    std::chrono::nanoseconds margin() const noexcept;
    // Current spin cap: max_spin, or less after preempted spins (see above).
    std::chrono::nanoseconds spin_cap() const noexcept { return std::chrono::nanoseconds(cap_ns_); }
    std::int64_t preempted_spins() const noexcept { return preempted_spins_; }  // so far

    // A gap this long between two clock reads of a spin means the thread was descheduled.
    static constexpr std::int64_t kPreemptGapNs = 100'000;
    // The self-guarded cap never goes below this (or min_margin, if larger).
    static constexpr std::int64_t kMinGuardedCapNs = 250'000;
    static constexpr int kCalmSpinsToGrow = 64;
    const LatenessEstimator& estimator() const noexcept { return est_; }
    const WaiterConfig& config() const noexcept { return cfg_; }
    TimeSource& time_source() const noexcept { return *ts_; }

    // Rejects an invalid config and keeps the old one. Learned samples are kept, and so is the
    // guarded spin cap unless max_spin changes (then it restarts at the new max_spin).
    Status set_config(const WaiterConfig& config);
    // Waits on another clock and OS from the next wait (nullptr: the real OS). The learned margin
    // and cap are kept: they describe the machine, and they adapt if the new source differs.
    void set_time_source(TimeSource* ts) noexcept;
    void reset_estimate() noexcept { est_.reset(); }

private:
    void note_spin(bool preempted) noexcept;

    WaiterConfig cfg_;
    TimeSource* ts_;
    LatenessEstimator est_;
    std::int64_t cap_ns_ = 0;
    int calm_spins_ = 0;
    std::int64_t preempted_spins_ = 0;
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
        now = ts.now_ns();
        if (now - prev > HybridWaiter::kPreemptGapNs) r.spin_preempted = true;
        prev = now;
    }
    r.spun += std::chrono::nanoseconds(now - from);
    r.lateness = std::chrono::nanoseconds(now - d);
    r.end = clock::from_ns(now);
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
inline WaitResult sleep_until(std::chrono::steady_clock::time_point deadline) noexcept {
    return sleep_until(clock::from_steady(deadline));
}
inline WaitResult sleep_for(std::chrono::nanoseconds duration) noexcept {
    if (duration.count() <= 0) return {};
    return sleep_until(clock::now() + duration);
}

}  // namespace pacer
