// pacer/fixed_step.hpp - fixed simulation rate with render interpolation ("Fix Your Timestep").
//
//   FixedStep             the accumulator: one thread
//     advance(delta)      a frame's real time in; steps to simulate and the interpolation alpha out
//     step(), step_seconds()   one step (a chrono duration; seconds for world.step())
//     alpha, backlog, total_steps, set_config, reset
//   FixedStepConfig       step_hz, max_steps, max_frame_delta, snap_period, snap_tolerance
//
//   pacer::FixedStep sim({.step_hz = 120.0, .snap_period = fp.status().period});
//   while (running) {
//       pacer::FrameTiming t = fp.wait();
//       pacer::FixedStep::Advance a = sim.advance(t.display_dt);
//       for (int i = 0; i < a.steps; ++i) world.step(sim.step_seconds());
//       render(lerp(world.previous, world.current, a.alpha));
//   }
//
// The delta to give is FrameTiming::display_dt, the frame's predicted display interval (whole
// refreshes of a known display, else the scheduled interval, slewed to follow wall time: see
// pacer/frame_pacer.hpp, "Display time"). FrameTiming::interval, wake to wake, also works but
// carries the OS's wake-up jitter into alpha (the render moves by it). Snapping and display_dt
// agree when snap_period is the refresh period or the pacer's period (fp.status().period): the
// deltas already are whole multiples of it, which snapping leaves as they are, and the small
// corrections display_dt slews in are carried, not lost (tests/cadence_pacer_test).
//
// advance(frame_delta) adds the frame's real time to an accumulator and says how many whole
// steps to simulate; alpha = leftover / step in [0, 1) is how far the render is between the last
// two simulated states. Three guards:
//   * max_frame_delta (default 250 ms, Glenn Fiedler's clamp, or one step at rates below 4 Hz): a
//     debugger pause or a resume from suspend becomes one long frame of that length, not minutes
//     of simulation;
//   * max_steps (default 8, Godot's limit): no spiral of death when steps cost more than they
//     cover; the time that did not fit is dropped and reported;
//   * snapping (off unless snap_period > 0): a delta within snap_tolerance (default 0.2 ms, Tyler
//     Glaiel's figure, or a quarter period for periods under 0.8 ms) of a whole multiple of the
//     pacing period is used as that multiple, so timer
//     jitter around 16.67 ms does not give 0-step / 2-step frames at equal rates. The difference is
//     carried, never lost: simulated time stays within snap_tolerance of real time.
// The defaults hold at every rate; a value that is set explicitly is checked against its range.
//
// Arithmetic is in double nanoseconds; the accumulator stays below a few steps, so steps * step
// tracks elapsed time to well under 1 ns per hour (tests/fixed_step_test).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "pacer/status.hpp"

namespace pacer {

struct FixedStepConfig {
    double step_hz = 60.0;                             // simulation rate, in (0, 100000]
    int max_steps = 8;                                 // per advance(), in [1, 1000]
    // Clamp, in [one step, 10 s]. Unset: 250 ms, or one step if that is longer.
    std::optional<std::chrono::nanoseconds> max_frame_delta{};
    std::chrono::nanoseconds snap_period{0};           // pacing period to snap to; 0 = off
    // In [0, snap_period / 4]. Unset: 0.2 ms, or snap_period / 4 if that is shorter.
    std::optional<std::chrono::nanoseconds> snap_tolerance{};
};
Status validate(const FixedStepConfig& config);

class FixedStep {
public:
    struct Advance {
        int steps = 0;                        // simulation steps to run now
        double alpha = 0.0;                   // interpolation factor in [0, 1)
        std::chrono::nanoseconds dropped{0};  // time discarded by the clamp or the step cap
        bool snapped = false;                 // the delta was snapped to the pacing period
    };

    // Throws ConfigError for an invalid config.
    explicit FixedStep(const FixedStepConfig& config = {});

    // A negative delta (a clock that went backwards) counts as zero.
    Advance advance(std::chrono::nanoseconds frame_delta) noexcept;

    // One step, exactly (1 / step_hz: a fraction of a nanosecond kept).
    std::chrono::duration<double, std::nano> step() const noexcept { return std::chrono::duration<double, std::nano>(step_ns_); }
    double step_seconds() const noexcept { return step_ns_ * 1e-9; }  // the same, in seconds for world.step()
    double alpha() const noexcept { return acc_ns_ / step_ns_; }
    std::uint64_t total_steps() const noexcept { return total_steps_; }
    // Real time given to advance() minus time dropped, minus time simulated: the accumulator
    // plus the snap carry. Always in [-snap_tolerance, step + snap_tolerance).
    std::chrono::duration<double, std::nano> backlog() const noexcept {
        return std::chrono::duration<double, std::nano>(acc_ns_ + carry_ns_);
    }

    // Rejected configs keep the old one. The accumulator is kept (alpha is rescaled naturally).
    Status set_config(const FixedStepConfig& config);
    const FixedStepConfig& config() const noexcept { return cfg_; }
    void reset() noexcept;

    // The clamp and snap tolerance in force: the configured values or their defaults.
    std::chrono::nanoseconds max_frame_delta() const noexcept { return max_delta_; }
    std::chrono::nanoseconds snap_tolerance() const noexcept { return tolerance_; }

private:
    void apply(const FixedStepConfig& config) noexcept;

    FixedStepConfig cfg_;
    std::chrono::nanoseconds max_delta_{0}, tolerance_{0};
    double step_ns_ = 0.0;
    double acc_ns_ = 0.0;    // in [0, step)
    double carry_ns_ = 0.0;  // real time not yet given to the accumulator because of snapping
    std::uint64_t total_steps_ = 0;
};

}  // namespace pacer
