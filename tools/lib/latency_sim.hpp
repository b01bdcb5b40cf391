// tools/lib/latency_sim.hpp - one host loop with frame markers on a virtual-time OS and display, for
// `pacer simulate latency` and the latency tests.
//
// The host: wait(); mark_input(); work; before_present(); present on a SimulatedDisplay (fixed
// refresh, vsync on, one present may wait in the queue: a present that finds one waiting blocks
// until it is shown, as a double-buffered FIFO swap does); report_present() with the displayed
// time. With a render thread (LatencySimConfig::render_thread) the present is the render
// thread's, a frame behind, on the same display model. Figures are ground truth from the simulation, not the pacer's own bookkeeping:
//   latency        input sample (right after wait()) -> displayed time (the vblank);
//   late frame     shown more than 1.5 target periods after the frame before it (the display
//                  repeated the previous image: a frame missed the vblank it was meant for);
//   present-interval error   |begin of a present call - begin of the previous one - period|;
//   cpu_share      virtual CPU time of the host thread (work, spins, sleep calls) / wall time.
// The first second is warm-up and is not counted (LatencySimConfig::warm_up_s).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pacer/frame_pacer.hpp"
#include "pacer/sim.hpp"

namespace pacer::tools {

struct WorkModel {
    enum class Kind { lognormal, constant, replay } kind = Kind::lognormal;
    double mean_ms = 4.0;  // lognormal: mean (not median) of the work; constant: the work
    double sigma = 0.5;    // lognormal: sigma of log(work)
    std::vector<double> replay_ms;  // replay: per-frame work, repeated when the run is longer
};

struct LatencySimConfig {
    double hz = 60.0;              // target rate and display refresh
    WorkModel work;
    double step_at_s = -1;         // < 0: no step
    double step_factor = 2.0;      // work multiplied by this from step_at_s on
    double max_late_share = 0.01;
    double seconds = 60.0;
    double warm_up_s = 1.0;        // not counted: the first seconds (0: from the first frame)
    std::uint64_t seed = 1;
    bool report_displayed = true;  // false: the host knows only when its present calls returned
    double clock_ppm = 0;          // the display clock's skew against the CPU's
    // A render thread: the pacing (game) thread does (1 - render_share) of each frame's work and
    // hands the frame over; the render thread does the rest and presents it, reporting it with
    // its frame id (a frame behind, as an engine's render thread is). The hand-over is a one-slot
    // queue: the game thread waits while the render thread has not yet picked up the frame
    // before. Its presents go to a FIFO of one buffer: the call returns once the frame queued
    // before it was shown.
    bool render_thread = false;
    double render_share = 0.5;
};

struct LatencySimResult {
    SyncMode sync = SyncMode::frame_start;
    bool render_thread = false;       // LatencySimConfig::render_thread
    std::size_t frames = 0;           // counted (after the warm-up)
    double latency_p50_ms = 0, latency_p99_ms = 0;
    double late_share = 0;
    std::size_t late = 0;
    double present_interval_p99_error_ms = 0;
    double cpu_share = 0;
    std::optional<long> recovery_frames;  // with a step: frames after it until the late share of
                                          // the next 100 frames is within the budget's bound
    double pacer_latency_p50_ms = 0;      // what FrameTiming::latency said, for comparison
};

// The work trace all sync modes share (ms per frame, before any step).
std::vector<double> work_trace(const WorkModel& work, std::size_t frames, std::uint64_t seed);
// The (1 - late_share) quantile of the work model (lognormal: closed form; else of the trace).
double work_quantile_ms(const WorkModel& work, double p);
// Late frames allowed in n by the binomial 95 % upper bound for share b: n b + 1.96 sqrt(n b (1-b)).
double late_bound(std::size_t n, double b);

LatencySimResult run_latency_sim(const LatencySimConfig& config, SyncMode sync);

// The OS model both `pacer simulate latency` and `pacer simulate display` pace on: a Linux-like
// scheduler, 50 us timer slack, exponential wake-up noise of 20 us mean, 0.2 % of sleeps
// preempted for 1 ms.
SimModel linux_like_os();

}  // namespace pacer::tools
