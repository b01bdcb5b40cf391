// demo/coarse_time_source.hpp - a TimeSource whose OS sleep behaves like a coarse scheduler.
//
// Seed 000's robustness test replaced the system sleep with fakeSystemSleep(): sleep at least the
// requested time, then wait for the next tick of a scheduler with a period of 1..10 ms, and now
// and then lose another period to "another process grabbing the CPU" (5 % chance, repeated).
// CoarseTimeSource does the same on top of the real OS: it sleeps (really, no CPU burnt) to the
// requested time, then on to the next multiple of the period, then one more period with
// probability preempt_probability per round. Clock, spin and CPU time are the real OS's.
//
// The demo hands it to the pacer with FramePacer::set_time_source() when the injection is switched
// on or off; the period can change at any time (pacing thread only).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

#include "pacer/time_source.hpp"

namespace pacer_demo {

class CoarseTimeSource final : public pacer::TimeSource {
public:
    explicit CoarseTimeSource(std::chrono::nanoseconds period = std::chrono::milliseconds(4),
                              double preempt_probability = 0.05);

    void set_period(std::chrono::nanoseconds period) noexcept;  // clamped to [1 ms, 10 ms]
    std::chrono::nanoseconds period() const noexcept { return std::chrono::nanoseconds(period_ns_); }
    void set_preempt_probability(double p) noexcept;     // clamped to [0, 0.5]
    double preempt_probability() const noexcept { return preempt_p_; }

    pacer::clock::time_point now() noexcept override { return os_.now(); }
    void sleep_until(pacer::clock::time_point deadline) noexcept override;
    void relax() noexcept override { os_.relax(); }
    pacer::CpuTimes cpu_times() noexcept override { return os_.cpu_times(); }
    void begin_pacing() noexcept override { os_.begin_pacing(); }
    void end_pacing() noexcept override { os_.end_pacing(); }
    const char* sleep_primitive() const noexcept override {
        return "fake coarse scheduler (demo) over the OS sleep";
    }

private:
    pacer::TimeSource& os_;
    std::int64_t period_ns_;
    double preempt_p_;
    std::minstd_rand rng_{12345};
};

}  // namespace pacer_demo
