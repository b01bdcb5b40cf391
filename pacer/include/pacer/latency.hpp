// pacer/latency.hpp - from a frame's marks (its start, input sample, present call, present) to
// its latency figures: how old its input was when it was shown, and whether it was late.
//
//   LatencyTracker     the marks of the frame in progress; closes it into figures
//     begin / start    a new frame, started by the wake at a time
//     aim, aim_early   the display deadline it is started for (present sync; just in time)
//     mark_input, mark_work_end, mark_present_call, on_present   the frame's marks
//     close            at the next frame: its LatencyFigures and what the lead learns from it
//     cost             its work so far: wake to the end of its work (the cadence governor's input)
//   LatencyFigures     latency, input to present, measured or predicted, shown late
//
//   pacer::LatencyTracker tracker;
//   tracker.begin(pacer::SyncMode::frame_start);  tracker.start(wake);  tracker.open();
//   tracker.mark_input(now);                     // then the frame's work and its present:
//   tracker.on_present(present_begin, present_end, displayed_time, predicted_shown, true);
//   std::optional<pacer::LeadSample> sample;     // what the just-in-time lead learns
//   pacer::LatencyFigures f = tracker.close(next_wake, half_refresh, miss_tolerance, &sample);
//
// Definitions. Latency runs from the input sample (mark_input; the wake that started the frame
// when there is none) to the moment the frame was shown: the displayed time the host reported,
// else the time predicted from its present (PresentClassifier: the vblank its synchronised swap
// waited for or the first one after its return), else the present's return (the swap tears; or
// no vblank is known yet, and then it is a lower bound). Input to present runs to the present
// call's begin. A frame with a display deadline is shown late when shown after it by more than:
// nothing for a frame placed to land before a vblank with vsync off (the tear is on screen), half
// a refresh for a frame aimed at a vblank, the miss tolerance otherwise. A present report counts
// for the frame in progress, its first report only (the same present reported again may add its
// displayed time). No present reported, no latency: a frame closed without a present report
// (on_present) has zero figures, not shown late. The lead's sample still takes its present
// call: before_present, else the next frame's start.
//
// Frames in flight. A frame is known by its id (FramePacer's FrameTiming::frame; 0: the newest
// frame, the one just started). While presents come without a frame id (a single-thread loop), a
// present belongs to the newest frame and close() closes it at the next frame, presented or not.
// Once a present names its frame (a render thread presenting a frame or two behind the thread that
// waits), close() closes each frame at the first call after its present was reported, in any
// order, and a frame still without one when kMaxInFlight newer frames have started is closed
// unpresented (its report was lost, or it was never presented): zero figures, as above. The marks
// of before_present and the present carry the frame id; mark_input, aim and start belong to the
// newest frame.
//
// Pure logic: no clock, no allocation. Thread safety: none (FramePacer's pacing thread owns it).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "pacer/clock.hpp"
#include "pacer/modes.hpp"

namespace pacer {

// All zero (and false) for a frame without a present report.
struct LatencyFigures {
    std::chrono::nanoseconds latency{0};           // input sample -> shown
    std::chrono::nanoseconds input_to_present{0};  // input sample -> present call
    bool measured = false;     // shown at a displayed time the host reported
    bool shown_late = false;   // shown after the display deadline it was started for
};

// What the just-in-time lead learns from a closed frame (LeadController::learn).
struct LeadSample {
    std::chrono::nanoseconds work{0};  // wake-up target -> present call
    std::chrono::nanoseconds lead{0};  // the lead the frame was started with
    bool shown_late = false;
};

// One frame closed by LatencyTracker::close_due.
struct ClosedFrame {
    std::uint64_t frame = 0;  // its id (0: it had none)
    bool presented = false;   // a present of it was reported (else its figures are zero)
    LatencyFigures figures{};
    std::optional<LeadSample> sample;  // when started just in time (or aligned) for a deadline
};

class LatencyTracker {
public:
    static constexpr int kMaxInFlight = 4;  // frames open at once: the newest and 3 behind it

    // A new frame in this sync mode, the newest; its marks start empty. A single-thread loop
    // closes the previous frame first (close); with frames in flight the older ones stay open.
    void begin(SyncMode sync, std::uint64_t frame = 0) noexcept;
    void start(clock::time_point wake) noexcept;  // the wake that starts the newest frame
    void open() noexcept;                         // marks and presents count from now on
    bool is_open(std::uint64_t frame = 0) const noexcept { return find(frame) != nullptr; }
    // The frame was placed so that a torn present lands before its vblank (a learned lead).
    bool aligned(std::uint64_t frame = 0) const noexcept;
    // The frame was started a learned lead before its display target (just in time, or aligned).
    bool lead_used(std::uint64_t frame = 0) const noexcept;
    // The display deadline the frame (0: the newest) is started for; locked: it is a vblank.
    void aim(clock::time_point target, bool locked, std::uint64_t frame = 0) noexcept;
    // Just in time: started `lead` before target, at wake_target; aligned: placed so that a torn
    // present lands before the vblank.
    void aim_early(clock::time_point target, clock::time_point wake_target, std::chrono::nanoseconds lead,
                   bool locked, bool aligned) noexcept;
    // The newest frame has no display deadline (frame_start on the grid, or the swap paces it).
    void no_target() noexcept { has_previous_target_ = false; }

    void mark_input(clock::time_point now) noexcept;  // the newest frame's input sample
    void mark_work_end(clock::time_point now, std::uint64_t frame = 0) noexcept;       // before_present() entry
    void mark_present_call(clock::time_point call, std::uint64_t frame = 0) noexcept;  // before_present() return
    // A present report: call times, displayed time (epoch: none), predicted showing if known.
    // frame != 0 names the frame it presents (and from then on frames stay in flight).
    void on_present(clock::time_point begin, clock::time_point end, clock::time_point displayed,
                    clock::time_point predicted, bool predicted_known, std::uint64_t frame = 0) noexcept;

    // The newest frame's work: its start to the end of its work (before_present, else the
    // present, else now). None when no frame is open.
    std::optional<std::chrono::nanoseconds> cost(clock::time_point now) const noexcept;
    // Closes the frames due at `now` (see "Frames in flight"), oldest first, into out[0..n); returns
    // n (at most kMaxInFlight). locked_tolerance: half a refresh.
    int close_due(clock::time_point now, std::chrono::nanoseconds locked_tolerance,
                  std::chrono::nanoseconds miss_tolerance, ClosedFrame* out) noexcept;
    // close_due for a loop that needs the last one only: its figures, and its sample in *sample.
    LatencyFigures close(clock::time_point now, std::chrono::nanoseconds locked_tolerance,
                         std::chrono::nanoseconds miss_tolerance, std::optional<LeadSample>* sample) noexcept;

    bool in_flight() const noexcept { return pipelined_; }  // presents name their frames
    int open_frames() const noexcept { return count_; }

    // The previous frame's display deadline (while it had one) and when the last closed frame was
    // shown.
    bool has_previous_target() const noexcept { return has_previous_target_; }
    clock::time_point previous_target() const noexcept { return clock::from_ns(previous_target_); }
    clock::time_point previous_shown() const noexcept { return clock::from_ns(previous_shown_); }

private:
    struct Marks {
        std::uint64_t id = 0;
        std::int64_t start = 0, input = 0, present_call = 0, work_end = 0;
        std::int64_t present_begin = 0, present_end = 0, displayed = 0, predicted = 0;
        std::int64_t target = 0, start_target = 0, lead = 0;
        bool open = false, has_input = false, has_call = false, has_target = false;
        bool presented = false, locked = false, aligned = false, has_prediction = false;
        SyncMode sync = SyncMode::frame_start;
    };
    const Marks* find(std::uint64_t frame) const noexcept;
    Marks* find(std::uint64_t frame) noexcept;
    Marks* newest() noexcept { return count_ > 0 ? &frames_[count_ - 1] : nullptr; }
    ClosedFrame close_one(const Marks& m, std::int64_t now, std::int64_t locked_tolerance,
                          std::int64_t miss_tolerance) noexcept;
    void remove(int i) noexcept;

    Marks frames_[kMaxInFlight] = {};  // open frames, oldest first
    int count_ = 0;
    bool pipelined_ = false;
    std::int64_t previous_target_ = 0, previous_shown_ = 0;
    bool has_previous_target_ = false;
};

}  // namespace pacer
