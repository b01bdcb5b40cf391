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
// Pure logic: no clock, no allocation. Thread safety: none.
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

class LatencyTracker {
public:
    // A new frame in this sync mode; its marks start empty (the previous frame must be closed).
    void begin(SyncMode sync) noexcept;
    void start(clock::time_point wake) noexcept { start_ = clock::to_ns(wake); }  // the wake that starts it
    void open() noexcept { open_ = true; }      // marks and presents count from now on
    bool is_open() const noexcept { return open_; }
    // The open frame was placed so that a torn present lands before its vblank (a learned lead).
    bool aligned() const noexcept { return open_ && aligned_; }
    // The display deadline the frame is started for; locked: it is a vblank.
    void aim(clock::time_point target, bool locked) noexcept;
    // Just in time: started `lead` before target, at wake_target; aligned: placed so that a torn
    // present lands before the vblank.
    void aim_early(clock::time_point target, clock::time_point wake_target, std::chrono::nanoseconds lead,
                   bool locked, bool aligned) noexcept;
    // The frame has no display deadline (frame_start on the grid, or the swap paces it).
    void no_target() noexcept { has_previous_target_ = false; }

    void mark_input(clock::time_point now) noexcept;
    void mark_work_end(clock::time_point now) noexcept;        // before_present() entry
    void mark_present_call(clock::time_point call) noexcept;   // before_present() return
    // A present report: call times, displayed time (epoch: none), predicted showing if known.
    void on_present(clock::time_point begin, clock::time_point end, clock::time_point displayed,
                    clock::time_point predicted, bool predicted_known) noexcept;

    // The frame's work: its start to the end of its work (before_present, else the present,
    // else now). None when no frame is open.
    std::optional<std::chrono::nanoseconds> cost(clock::time_point now) const noexcept;
    // Closes the open frame at `now` (see the definitions). locked_tolerance: half a refresh.
    // *sample is set when the frame was started just in time (or aligned) for a deadline.
    LatencyFigures close(clock::time_point now, std::chrono::nanoseconds locked_tolerance,
                         std::chrono::nanoseconds miss_tolerance, std::optional<LeadSample>* sample) noexcept;

    // The previous frame's display deadline (while it had one) and when it was shown.
    bool has_previous_target() const noexcept { return has_previous_target_; }
    clock::time_point previous_target() const noexcept { return clock::from_ns(previous_target_); }
    clock::time_point previous_shown() const noexcept { return clock::from_ns(previous_shown_); }

private:
    std::int64_t start_ = 0, input_ = 0, present_call_ = 0, work_end_ = 0;
    std::int64_t present_begin_ = 0, present_end_ = 0, displayed_ = 0, predicted_ = 0;
    std::int64_t target_ = 0, start_target_ = 0, lead_ = 0;
    bool open_ = false, has_input_ = false, has_call_ = false, has_target_ = false;
    bool presented_ = false, locked_ = false, aligned_ = false, has_prediction_ = false;
    SyncMode sync_ = SyncMode::frame_start;
    std::int64_t previous_target_ = 0, previous_shown_ = 0;
    bool has_previous_target_ = false;
};

}  // namespace pacer
