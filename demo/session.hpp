// demo/session.hpp - the paced loop's state, shared by the window and the headless runner.
//
// A Session owns the FramePacer, the statistics, the fixed-step simulation (the motion test), the
// simulated work, the background load and the coarse-scheduler injection. Per frame it does O(1)
// work (FrameStats::add, which also keeps the stutter count, and a ring write); summaries, CPU
// samples and histogram bins are refreshed by refresh() about four times a second.
//
//   Session s(options);
//   while (running) {
//       const pacer::FrameTiming& t = s.begin_frame();   // pacer.wait() + statistics
//       s.mark_input();                                   // the input is read now
//       ... poll events ...
//       s.simulate();                                     // FixedStep + motion
//       s.do_work();                                      // busy spin: mean +- jitter ms
//       if (s.refresh_due()) s.refresh(with_histograms);
//       ... UI, draw ...
//       s.before_present();                               // present sync waits here
//       ... present ...
//   }
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "busy_threads.hpp"
#include "coarse_time_source.hpp"
#include "machine_cpu.hpp"
#include "options.hpp"
#include "pacer/capture.hpp"
#include "pacer/fixed_step.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/stats.hpp"
#include "pacer/status.hpp"
#include "replay.hpp"

namespace pacer_demo {

// Fixed-size history of floats for live graphs (O(1) push, read with an offset).
template <std::size_t N>
struct Ring {
    std::array<float, N> v{};
    std::size_t head = 0;   // next write
    std::size_t count = 0;
    void push(float x) noexcept {
        v[head] = x;
        head = (head + 1) % N;
        if (count < N) ++count;
    }
    // i-th oldest of the last n values (n <= count).
    float last(std::size_t n, std::size_t i) const noexcept { return v[(head + N - n + i) % N]; }
    void clear() noexcept { head = count = 0; }
};

// The demo's FixedStep settings: rate and step cap from the user, snapping to the pacing period,
// and the frame-delta clamp widened to one step for simulations slower than 4 Hz.
pacer::FixedStepConfig sim_config(double step_hz, int max_steps, std::chrono::nanoseconds period);

// t's offset from the nearest of two vblanks: next (the first after t) and next - period, in ns
// (negative: before that vblank). In [-period / 2, period / 2] for t in [next - period, next).
std::int64_t vblank_offset_ns(std::int64_t t, std::int64_t vblank, std::int64_t period) noexcept;

// Shown late (FrameTiming::shown_late) is known when something says when the frames were shown:
// presentation feedback (StatsSummary::present_feedback: displayed times, a compositor's), or a
// swap that waits for vblank (vsync in use: it returns when its frame is shown). Otherwise the
// pacer's verdict rests on the swap's return (a software swap under Xvfb: when it finished
// rendering) and says nothing about the screen. Needs frames with a latency (presents reported).
bool shown_late_known(const pacer::StatsSummary& m, bool vsync_in_use) noexcept;
// The Statistics panel's line: "Shown late  1.25 % of 4096 frames (sync frame_start)", or
// "Shown late  unknown (no presentation feedback)"; "" without frames with a latency.
std::string shown_late_text(const pacer::StatsSummary& m, bool vsync_in_use, pacer::SyncMode sync);

// A frame's own cost: the mean time from a wake-up to the next wait() (FrameTiming::work:
// simulation, work, UI, draw, swap) over the window; 0 for an empty one. The summary prints it
// (frame_cost_ms).
double frame_cost_ms(const pacer::StatsSummary& m) noexcept;

// Why the loop cannot hold its rate (hz, the rate in force): its frames' own cost is longer than
// the period, so every frame is late whatever the pacer does, e.g.
//   "cannot hold 144 Hz: a frame costs 15.38 ms (swap 10.31 ms) > 6.94 ms period"
// swap_ms: the swap's share of it (< 0: not measured, not said). "" when the frames fit, the
// window is empty, or the swap paces (vsync in use: its time is the wait, not the frame's cost).
std::string overrun_text(const pacer::StatsSummary& m, double hz, bool vsync_in_use, double swap_ms);

struct Motion {  // the fixed-step simulated object: a box bouncing left-right on [0, 1]
    double prev_x = 0, x = 0, v = 0.5;  // position (track widths), speed (track widths / s)
    void step(double dt) noexcept;
    double at(double alpha) const noexcept { return prev_x + (x - prev_x) * alpha; }
};

class Session {
public:
    static constexpr std::size_t kGraphFrames = 2048;  // frame-time graph ring (> 10 s at 144 Hz)
    static constexpr std::size_t kCpuSamples = 80;     // CPU graphs: 20 s at 4 samples/s
    static constexpr int kIntervalBins = 64;
    static constexpr int kLatenessBins = 48;
    static constexpr int kLatencyBins = 48;
    static constexpr std::int64_t kRefreshNs = 250'000'000;  // summaries and bins: 4 per second
    static constexpr std::size_t kPhaseFrames = 240;         // presents in the phase-error figures

    explicit Session(const Options& o);
    ~Session();

    const pacer::FrameTiming& begin_frame();
    void simulate();
    void do_work();
    bool refresh_due() const;
    void refresh(bool histograms);
    void reset_stats();

    // Controls. Each returns the library's verdict; a refused value leaves the old setting.
    pacer::Status set_rate(double hz);
    pacer::Status set_mode(pacer::WaitMode m);
    pacer::Status set_policy(pacer::LatePolicy p, int max_catch_up);
    pacer::Status set_waiter(const pacer::WaiterConfig& w);
    pacer::Status set_sim(double step_hz, int max_steps);
    pacer::Status set_work(double mean_ms, double jitter_ms);
    pacer::Status set_load(int threads);
    // period_ms 0 = off (real OS sleep). Switching on/off restarts the pacer's grid; its learned
    // margin and the statistics stay.
    pacer::Status set_coarse(int period_ms);
    pacer::Status set_sync(pacer::SyncMode sync);
    pacer::Status set_max_late_share(double share);
    // The display (PacerConfig::display_lock, match_display, cadence), from the next wait().
    pacer::Status set_display_lock(bool on);
    pacer::Status set_match_display(bool on);
    pacer::Status set_cadence(pacer::CadenceMode mode);
    pacer::Status set_priority(pacer::ThreadPriority p);  // the pacing thread's scheduling class

    // Each present's return (the time a blocking swap showed its frame): its offset from the
    // nearest vblank the pacer predicts goes into vblank_offset_ms, while the display is locked.
    void note_present(pacer::clock::time_point returned) noexcept;
    // |offset| quantiles over the last kPhaseFrames of them (refresh()); negative = none yet.
    double phase_p50_ms() const noexcept { return phase_p50_ms_; }
    double phase_p99_ms() const noexcept { return phase_p99_ms_; }

    // Frame markers (pacer/frame_pacer.hpp, "Sync modes and latency"): the loop reads its input
    // right after mark_input() and presents right after before_present().
    void mark_input() noexcept { pacer_->mark_input(); }
    void before_present() noexcept { pacer_->before_present(); }

    // Frame-time capture (pacer::CaptureWriter): one row per frame from record(), which the loop
    // calls once the frame is presented (the window passes the swap's timing).
    pacer::Status start_capture(const std::string& path);
    pacer::Status stop_capture();  // closes the file and writes <name>-stats.csv
    void record(const pacer::CaptureExtras& extras = {}) noexcept { capture_.add(t_, extras); }
    // A frame presented later (--render-thread): its own timing and present.
    void record(const pacer::FrameTiming& t, const pacer::CaptureExtras& extras) noexcept { capture_.add(t, extras); }
    const pacer::CaptureWriter& capture() const noexcept { return capture_; }
    pacer::CaptureWriter& capture_writer() noexcept { return capture_; }  // for presentation feedback

    // Replay (--replay, the panel's Load): the statistics, graph and histograms show a capture
    // file's frames instead of the live ones; the loop goes on pacing the window. Playing, each
    // begin_frame() adds the file's frames that fit in the time since the previous frame (the
    // file at its own pace) and pauses at the end; paused, only step() adds frames. A file that
    // cannot be read is refused with the reader's message and the demo stays as it was.
    pacer::Status start_replay(const std::string& path);
    void stop_replay();                  // back to live frames (statistics restart)
    void restart_replay();               // from the file's first frame
    void step_replay(std::size_t frames);
    void set_replay_playing(bool on) noexcept { replay_playing_ = on && replay_pos_ < replay_.size(); }
    bool replaying() const noexcept { return replay_on_; }
    bool replay_playing() const noexcept { return replay_playing_; }
    const Replay& replay() const noexcept { return replay_; }
    std::size_t replay_position() const noexcept { return replay_pos_; }  // frames shown so far
    // The target the panels draw: the file's when replaying, else the pacer's period.
    std::chrono::nanoseconds target_period() const noexcept;

    pacer::FramePacer& pacer() noexcept { return *pacer_; }
    const pacer::FixedStep& sim() const noexcept { return sim_; }
    const pacer::FixedStep::Advance& advance() const noexcept { return adv_; }
    const Motion& motion() const noexcept { return motion_; }
    const pacer::FrameTiming& timing() const noexcept { return t_; }
    const pacer::StatsSummary& summary() const noexcept { return sum_; }
    const pacer::FrameStats& stats() const noexcept { return stats_; }
    double work_ms() const noexcept { return work_ms_; }
    double work_jitter_ms() const noexcept { return jitter_ms_; }
    int load() const noexcept { return busy_.count(); }
    int coarse_ms() const noexcept { return coarse_on_ ? static_cast<int>(coarse_.period() / std::chrono::milliseconds(1)) : 0; }
    std::uint64_t frames() const noexcept { return frames_; }
    double elapsed_s() const;
    // The frame rate the pacer's grid allows frames that cost what this run's did: the target over
    // the mean of whole periods each frame's own cost (FrameTiming::work) took, at least one. A
    // correct pacer holds at least that (catch_up serves an overrun frame's successor at once);
    // 0 before a frame was measured. The windowed tests judge the frame rate against it.
    double grid_fps() const noexcept {
        return grid_slots_ > 0 ? target_hz_ * static_cast<double>(grid_frames_) / static_cast<double>(grid_slots_) : 0.0;
    }

    // Latest CPU figures (refresh()); negative = not available.
    double process_pct() const noexcept { return process_pct_; }
    double thread_pct() const noexcept { return thread_pct_; }
    double machine_pct() const noexcept { return machine_pct_; }
    // Stutters since the last reset, by the library's rule (pacer::StutterCounter, kept by stats_).
    std::uint64_t stutters() const noexcept { return stats_.stutters(); }

    // Whole-run CPU (process, 100 = one core) since construction.
    double run_process_pct();

    Ring<kGraphFrames> frame_ms;   // frame interval per frame, ms
    Ring<kGraphFrames> vblank_offset_ms;  // present return - nearest predicted vblank, ms
    Ring<kCpuSamples> cpu_process, cpu_thread, cpu_machine, share_sleep, share_spin;
    std::array<float, kIntervalBins> interval_bins{};
    std::array<float, kLatenessBins> lateness_bins{};
    std::array<float, kLatencyBins> latency_bins{};
    double interval_hi_ms = 0, lateness_hi_ms = 0, latency_hi_ms = 0;  // bins cover [0, hi)

private:
    void feed(const pacer::FrameTiming& t);  // into the statistics and the graph

    CoarseTimeSource coarse_;
    bool coarse_on_ = false;
    std::unique_ptr<pacer::FramePacer> pacer_;
    pacer::FrameStats stats_{4096};
    pacer::FixedStep sim_;
    pacer::FixedStep::Advance adv_;
    Motion motion_;
    pacer::FrameTiming t_;
    pacer::StatsSummary sum_;
    pacer::CpuMeter cpu_;
    MachineCpu machine_;
    BusyThreads busy_;
    double work_ms_, jitter_ms_;
    std::minstd_rand rng_{42};
    std::uint64_t frames_ = 0;
    std::uint64_t grid_frames_ = 0, grid_slots_ = 0;  // grid_fps()
    double target_hz_ = 0;                            // ... the period they were measured against
    std::int64_t start_ns_ = 0, last_refresh_ns_ = 0;
    std::int64_t run_cpu_start_ns_ = -1;
    double process_pct_ = -1, thread_pct_ = -1, machine_pct_ = -1;
    double phase_p50_ms_ = -1, phase_p99_ms_ = -1;
    pacer::CaptureWriter capture_;
    Replay replay_;
    bool replay_on_ = false, replay_playing_ = false;
    std::size_t replay_pos_ = 0;
    std::int64_t replay_due_ns_ = 0;  // playing: time not yet covered by fed frames
};

}  // namespace pacer_demo
