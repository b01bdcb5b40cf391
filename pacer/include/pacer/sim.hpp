// pacer/sim.hpp - a virtual-time operating system for tests, tuning and the `simulate` tool.
//
//   SimulatedOs           a TimeSource in virtual time: one thread
//     advance(ns), jump(ns), block_until_ns(t)   work, a clock jump, a blocking wait (int64 ns:
//                         the seam's unit, as TimeSource counts)
//     uniform(), exponential(mean)   its deterministic random numbers
//   SimModel              the scheduler: granularity, wake-up noise, preemption, spin preemption
//
// SimulatedOs is a TimeSource whose clock only moves when somebody sleeps, spins or calls
// advance(). Its OS sleep behaves like a scheduler with a tick (the fake sleep of "Making an
// accurate Sleep() function", Blat Blatnik, 2020, extended):
//
//   wake = request                                    (never early)
//        + up to one scheduler period, to the next tick (granularity_ns)
//        + exponential wake-up noise                  (jitter_mean_ns)
//        + k preemptions of preempt_ns each, where k >= 1 with probability preempt_probability,
//          k >= 2 with probability preempt_probability^2, ... (another process holds the CPU)
//
// and every relax() advances the clock by relax_ns, so a spin loop costs virtual CPU time and
// overshoots its deadline by less than relax_ns, like a real one. The random numbers come from a
// fixed-seed generator with hand-written transforms, so a run is identical on every platform.
//
//   pacer::SimulatedOs os({.granularity_ns = 1'000'000, .jitter_mean_ns = 20'000});
//   pacer::FramePacer fp({.target_hz = 144}, &os);
//   for (int i = 0; i < 1000; ++i) { os.advance(2'000'000); fp.wait(); }   // 2 ms of "work"
//
// pacer/sim_display.hpp adds a display and its swap chain in the same virtual time.
#pragma once

#include <cstdint>

#include "pacer/time_source.hpp"

namespace pacer {

struct SimModel {
    std::int64_t granularity_ns = 1'000'000;  // scheduler period; 0 = wake exactly on request
    bool tick_aligned = false;  // true: wake on the next multiple of the period (a tick kernel);
                                // false: a uniform 0..period delay, as in that fake sleep
    std::int64_t jitter_mean_ns = 0;       // mean of the exponential wake-up noise
    double preempt_probability = 0.0;      // in [0, 1): chance of (another) preemption
    std::int64_t preempt_ns = -1;          // length of one preemption; -1 = granularity_ns
    std::int64_t relax_ns = 100;           // virtual time (and CPU) per relax()
    // A spinning thread loses the CPU to a competing one (a time slice under CFS): per relax(),
    // after spin_preempt_after_ns of uninterrupted spinning, with this probability per relax()
    // the clock jumps by spin_preempt_ns (no CPU charged). 0 = never.
    double spin_preempt_probability = 0.0;
    std::int64_t spin_preempt_after_ns = 0;
    std::int64_t spin_preempt_ns = 3'000'000;
    std::int64_t sleep_cpu_ns = 2'000;     // CPU charged per OS sleep (system call + wake-up)
};

class SimulatedOs final : public TimeSource {
public:
    explicit SimulatedOs(const SimModel& model = {}, std::uint64_t seed = 1,
                         std::int64_t start_ns = 1'000'000'000) noexcept;

    // Takes effect from the next sleep; the clock and the counters carry on.
    void set_model(const SimModel& model) noexcept { model_ = model; }
    const SimModel& model() const noexcept { return model_; }

    // The caller's thread works for ns (CPU time is charged): a frame's simulation and rendering.
    void advance(std::int64_t ns) noexcept;
    // The clock jumps by ns without CPU time: suspend/resume, a debugger stop.
    void jump(std::int64_t ns) noexcept;
    // The caller's thread blocks on an event that fires at t (a vblank, a fence): it wakes at t
    // plus the model's exponential wake-up noise (jitter_mean_ns), not on a scheduler tick, and
    // is charged sleep_cpu_ns. Returns at once, with the same cost, for a t in the past.
    void block_until_ns(std::int64_t t) noexcept;

    std::int64_t sleeps() const noexcept { return sleeps_; }
    std::int64_t relaxes() const noexcept { return relaxes_; }

    std::int64_t now_ns() noexcept override { return now_; }
    void sleep_until_ns(std::int64_t deadline_ns) noexcept override;
    void relax() noexcept override;
    CpuTimes cpu_times() noexcept override { return {cpu_, cpu_}; }
    const char* sleep_primitive() const noexcept override { return "simulated OS sleep"; }

    // Uniform in [0, 1) and exponential draws from the model's generator (xoshiro256**), exposed
    // so that simulated work can share the same deterministic stream.
    double uniform() noexcept;
    double exponential(double mean) noexcept;

private:
    SimModel model_;
    std::uint64_t rng_[4];
    std::int64_t now_;
    std::int64_t cpu_ = 0;
    std::int64_t sleeps_ = 0;
    std::int64_t relaxes_ = 0;
    std::int64_t spin_run_ns_ = 0;  // uninterrupted spinning so far
};

}  // namespace pacer
