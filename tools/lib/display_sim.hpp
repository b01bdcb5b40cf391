// tools/lib/display_sim.hpp - the whole paced loop against a simulated display, for
// `pacer simulate display` and its tests.
//
// The host: wait(); work; present on a SimulatedDisplay (FIFO queue, swap interval as the pacer
// asks); report_present() with the displayed time; a FixedStep fed with the frame's delta. Two
// runs on the same seeded work and display: the display-aware pacer (display_lock, match_display,
// cadence automatic, FixedStep fed with FrameTiming::display_dt) and the baseline, the fixed grid
// without display lock (display_lock off, cadence fixed, FixedStep fed with FrameTiming::interval).
//
// The figures are ground truth from the model, not the pacer's own bookkeeping:
//   lock_frames      frames until DisplayTracker::locked() holds for good (before a refresh change);
//   phase error      |the pacer's next_vblank(wake) - the model's vblank_after(wake)|, folded into
//                    half a period, on every frame where the tracker is locked;
//   relock_frames    frames after the refresh change until locked with a fitted period within
//                    0.1 % of the model's, for good;
//   missed_vblanks   vblanks at which no new frame was shown although the frame rate in force
//                    (FrameTiming::cadence_hz) wanted one, from the model's scanout times;
//   late_share       share of shown frames that came after the vblank they were due at;
//   dt_error_max_ms  largest |simulated time of the FixedStep - wall time (the wakes)|, both
//                    from the first counted frame;
//   dt_shown_error_max_ms  the same against the displayed times: also moves when the latency
//                    does (a queue that drains after a cadence switch shifts every later frame);
//   cpu_share        virtual CPU the waiting costs the thread / wall time: inside
//                    FramePacer::wait() and blocked in the present call (the call's own work
//                    left out), so that waiting moved from the swap into wait() counts on both sides.
// The first second is warm-up for missed vblanks, late share, dt error and CPU; lock and phase
// count from the first frame.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pacer/display.hpp"
#include "pacer/frame_pacer.hpp"

namespace pacer::tools {

struct DisplaySimConfig {
    double refresh_hz = 60.0;        // fixed refresh, or the VRR range's top
    double skew_ppm = 0.0;           // the display clock against the CPU's
    double noise_us = 0.0;           // uniform noise on the reported timestamps, +-
    int queue = 2;                   // presents that may wait for their vblank
    double work_ms = 4.0;            // per frame: mean ...
    double work_jitter_ms = 1.0;     // ... +- uniform jitter (never below 0)
    double sawtooth_s = 0.0;         // > 0: instead, a ramp over [mean - jitter, mean + jitter] of this period
    double change_hz = 0.0;          // > 0: the refresh changes to this ...
    double change_at_s = 0.0;        // ... at this time
    double vrr_min_hz = 0.0;         // > 0: VRR over [vrr_min_hz, refresh_hz] (LFC when the range allows)
    double seconds = 60.0;
    std::uint64_t seed = 1;
    WaitMode mode = WaitMode::automatic;  // automatic or vsync
};

struct DisplaySimResult {
    bool baseline = false;             // the fixed grid without display lock
    std::size_t frames = 0;            // presents in the run
    DisplayState state = DisplayState::unknown;  // the tracker's, at the end
    std::optional<std::size_t> lock_frames;
    std::optional<double> phase_error_p50_us, phase_error_p99_us;
    std::optional<std::size_t> relock_frames;
    std::uint64_t missed_vblanks = 0;
    std::size_t late_frames = 0, counted_frames = 0;  // counted: shown after the warm-up
    double late_share = 0;
    std::size_t cadence_switches = 0;
    std::optional<double> cadence_min_gap_s;  // shortest time between two switches (null: < 2)
    double cadence_hz = 0;             // the frame rate in force at the end
    double dt_error_max_ms = 0;
    double dt_shown_error_max_ms = 0;
    double cpu_share = 0;
};

// ---- the metrics, as pure functions of what the run recorded ----------------------------------

// Index k - begin of the first k in [begin, end) from which ok[] holds up to end; nullopt when
// ok[end - 1] is false or the range is empty.
std::optional<std::size_t> frames_until_for_good(const std::vector<char>& ok, std::size_t begin, std::size_t end);

// predicted - truth folded into [-period / 2, period / 2), as a magnitude: a prediction one
// whole period off names the same vblank grid.
std::int64_t phase_error_ns(std::int64_t predicted, std::int64_t truth, std::int64_t period);

// Vblanks v with a < v <= b, of the grid that vblank_after (first vblank > t) describes.
std::int64_t vblanks_between(std::int64_t a, std::int64_t b,
                             const std::function<std::int64_t(std::int64_t)>& vblank_after);

// Vblanks per frame the frame rate in force asks for on this refresh (at least 1).
std::int64_t wanted_vblanks(double refresh_hz, double frame_hz);

// One new frame on screen: the vblanks since the previous new frame, and the vblanks per frame
// the frame rate in force wanted.
struct ShownFrame {
    std::int64_t vblanks = 1;
    std::int64_t wanted = 1;
};
struct MissCount {
    std::uint64_t missed_vblanks = 0;  // sum of ceil(vblanks / wanted) - 1 over late frames
    std::size_t late_frames = 0;       // frames with vblanks > wanted
};
MissCount count_misses(const std::vector<ShownFrame>& shown);

// Largest |(sim[k] - sim[0]) - (shown[k] - shown[0])|, ns; 0 for fewer than two frames.
double dt_error_max_ns(const std::vector<double>& sim_ns, const std::vector<std::int64_t>& shown_ns);

// ---- the runs ---------------------------------------------------------------------------------

DisplaySimResult run_display_sim(const DisplaySimConfig& config, bool baseline);

// One JSON object: the configuration, the display-aware run's figures and "baseline" (the fixed
// grid without display lock) with the same keys; null where a figure does not exist (no lock, no
// refresh change).
std::string format_display_json(const DisplaySimConfig& config, const DisplaySimResult& run,
                                const DisplaySimResult& baseline);

}  // namespace pacer::tools
