// pacer/sim.hpp - a virtual-time operating system for tests, tuning and the `simulate` tool.
//
//   SimulatedOs           a TimeSource in virtual time: one thread
//     advance(d), jump(d), block_until(t)   work, a clock jump, a blocking wait (d a
//                         std::chrono::nanoseconds, t a pacer::clock::time_point)
//     uniform(), exponential(mean)   its deterministic random numbers
//   SimModel              the scheduler: granularity, wake-up noise, preemption, spin preemption,
//                         thread priority (raised threads are not preempted),
//                         stalls of the whole machine
//
// SimulatedOs is a TimeSource whose clock only moves when somebody sleeps, spins or calls
// advance(). Its OS sleep behaves like a scheduler with a tick (the fake sleep of "Making an
// accurate Sleep() function", Blat Blatnik, 2020, extended):
//
//   wake = request                                    (never early)
//        + up to one scheduler period, to the next tick (granularity)
//        + exponential wake-up noise                  (jitter_mean)
//        + k preemptions of preempt each, where k >= 1 with probability preempt_probability,
//          k >= 2 with probability preempt_probability^2, ... (another process holds the CPU)
//        then, when that falls in a stall of the whole machine (stall_gap), its end
//
// and every relax() advances the clock by relax_time, so a spin loop costs virtual CPU time and
// overshoots its deadline by less than relax_time, like a real one. Times are whole nanoseconds
// (int64) throughout, and the random numbers come from a fixed-seed generator with hand-written
// transforms, so a run is identical on every platform.
//
//   using namespace std::chrono_literals;
//   pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 20us});
//   pacer::FramePacer fp({.target_hz = 144}, &os);
//   for (int i = 0; i < 1000; ++i) { os.advance(2ms); fp.wait(); }   // 2 ms of "work"
//
// pacer/sim_display.hpp adds a display and its swap chain in the same virtual time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "pacer/clock.hpp"
#include "pacer/time_source.hpp"

namespace pacer {

struct SimModel {
    std::chrono::nanoseconds granularity{1'000'000};  // scheduler period; 0 = wake exactly on request
    bool tick_aligned = false;  // true: wake on the next multiple of the period (a tick kernel);
                                // false: a uniform 0..period delay, as in that fake sleep
    std::chrono::nanoseconds jitter_mean{0};  // mean of the exponential wake-up noise
    double preempt_probability = 0.0;         // in [0, 1): chance of (another) preemption
    // Length of one preemption; std::nullopt (the default; a negative length too) = granularity.
    std::optional<std::chrono::nanoseconds> preempt{};
    std::chrono::nanoseconds relax_time{100};  // virtual time (and CPU) per relax(); <= 0: 1 ns
    // A spinning thread loses the CPU to a competing one (a time slice under CFS): per relax(),
    // after spin_preempt_after of uninterrupted spinning, with this probability per relax()
    // the clock jumps by spin_preempt (no CPU charged). 0 = never.
    double spin_preempt_probability = 0.0;
    std::chrono::nanoseconds spin_preempt_after{0};
    std::chrono::nanoseconds spin_preempt{3'000'000};
    std::chrono::nanoseconds sleep_cpu{2'000};  // CPU charged per OS sleep (system call + wake-up)
    // The whole machine stops now and then (a hypervisor's pause, a spell of kernel work on every
    // core): stalls of stall_min to stall_max (uniform), stall_gap apart on average (exponential,
    // from the end of the last). A thread that would run inside one (waking from a sleep or a
    // block, working, spinning) runs at its end; its CPU time is not charged for it. Drawn from a
    // generator of their own, so the other draws are the same with and without. 0 = none.
    std::chrono::nanoseconds stall_gap{0};
    std::chrono::nanoseconds stall_min{1'000'000};
    std::chrono::nanoseconds stall_max{12'000'000};
    // Thread priority (TimeSource::raise_priority): granted unless priority_refusal names a
    // reason; a real-time class for wait and thread, a weight for high and automatic, and either
    // way the competing threads are the engine's own (what a weight covers). A raised thread is not
    // preempted by them (no preemptions at its
    // wake-up, no spin preemption; the draws are made all the same, so runs stay comparable), but
    // it stops in a stall of the whole machine. Each raise and each put-back costs priority_call
    // of time and CPU (a system call).
    const char* priority_refusal = nullptr;
    std::chrono::nanoseconds priority_call{1'500};
};

class SimulatedOs final : public TimeSource {
public:
    explicit SimulatedOs(const SimModel& model = {}, std::uint64_t seed = 1,
                         clock::time_point start = clock::from_ns(1'000'000'000)) noexcept;

    // Takes effect from the next sleep; the clock and the counters carry on.
    void set_model(const SimModel& model) noexcept { model_ = model; }
    const SimModel& model() const noexcept { return model_; }

    // The caller's thread works for d (CPU time is charged): a frame's simulation and rendering.
    // Nothing for d <= 0.
    void advance(std::chrono::nanoseconds d) noexcept;
    // The clock jumps by d without CPU time: suspend/resume, a debugger stop. Nothing for d <= 0.
    void jump(std::chrono::nanoseconds d) noexcept;
    // The caller's thread blocks on an event that fires at t (a vblank, a fence): it wakes at t
    // plus the model's exponential wake-up noise (jitter_mean), not on a scheduler tick, and
    // is charged sleep_cpu. Returns at once, with the same cost, for a t in the past.
    void block_until(clock::time_point t) noexcept;

    std::int64_t sleeps() const noexcept { return sleeps_; }
    std::int64_t relaxes() const noexcept { return relaxes_; }

    clock::time_point now() noexcept override { return clock::from_ns(now_); }
    void sleep_until(clock::time_point deadline) noexcept override;
    void relax() noexcept override;
    CpuTimes cpu_times() noexcept override {
        return {std::chrono::nanoseconds(cpu_), std::chrono::nanoseconds(cpu_)};
    }
    const char* sleep_primitive() const noexcept override { return "simulated OS sleep"; }
    PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept override;
    void restore_priority(const PriorityGrant& grant) noexcept override;
    bool raised() const noexcept { return raised_; }  // the thread runs raised now
    // Raised or not from now, as a grant made elsewhere would (a TimeSource of a test's own that
    // scripts RealtimeKit's answer and the real-time guard's steps on a SimulatedOs).
    void set_raised(bool raised) noexcept { raised_ = raised; }
    std::int64_t raises() const noexcept { return raises_; }      // raise_priority() calls, refused too
    std::int64_t restores() const noexcept { return restores_; }  // granted raises put back

    // Uniform in [0, 1) and exponential draws from the model's generator (xoshiro256**), exposed
    // so that simulated work can share the same deterministic stream. exponential() takes and
    // returns a plain number (its unit is the caller's: callers here pass nanoseconds).
    double uniform() noexcept;
    double exponential(double mean) noexcept;

private:
    // The time a thread that is ready at t runs: t, or the end of the stall t falls in.
    std::int64_t run_at(std::int64_t t) noexcept;
    // The time `ns` of running from `from` ends, with the stalls in between.
    std::int64_t run_for(std::int64_t from, std::int64_t ns) noexcept;
    void next_stall(std::int64_t after) noexcept;

    SimModel model_;
    std::uint64_t rng_[4];
    std::uint64_t stall_rng_[4];
    std::int64_t stall_begin_ = 0, stall_end_ = 0;  // the current or next stall (stall_gap > 0)
    std::int64_t now_;      // ns, clock::to_ns of now()
    std::int64_t cpu_ = 0;  // ns
    std::int64_t sleeps_ = 0;
    std::int64_t relaxes_ = 0;
    std::int64_t spin_run_ns_ = 0;  // uninterrupted spinning so far
    bool raised_ = false;
    std::int64_t raises_ = 0, restores_ = 0;
};

}  // namespace pacer
