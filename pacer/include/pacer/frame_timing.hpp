// pacer/frame_timing.hpp - what one paced frame looked like: FrameTiming.
//
//   FrameTiming           one frame: deadline, wake, lateness, interval, work, sleep and spin,
//                         late policy outcome, the previous frame's latency, cadence, display_dt,
//                         the display time it is for, presentation feedback since the last one
//
// The record FramePacer::wait() returns and FrameStats and CaptureWriter consume. Its own header
// so that statistics and capture code need not see the pacer.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/cadence.hpp"
#include "pacer/clock.hpp"
#include "pacer/modes.hpp"

namespace pacer {

// One frame, as FramePacer::wait() returns it. Time points are on the pacer's TimeSource clock
// (pacer/clock.hpp): the real OS clock unless a TimeSource was injected.
struct FrameTiming {
    std::uint64_t frame = 0;             // this frame's id: 1, 2, 3, ... one per wait(); a present
                                         // thread names the frame it presents with it
                                         // (PresentInfo::frame, FramePacer::before_present)
    std::uint64_t index = 0;             // grid slot of this frame (skipped slots count)
    clock::time_point deadline{};        // when this frame was due
    clock::time_point wake{};            // when wait() returned
    std::chrono::nanoseconds lateness{0};   // wake - deadline; > 0 when late, never < 0
    std::chrono::nanoseconds interval{0};   // wake - previous wake (0 for the first frame)
    std::chrono::nanoseconds work{0};       // previous wake -> this wait() call: the caller's frame
    std::chrono::nanoseconds period{0};     // target period in force for this frame (rounded)
    std::chrono::nanoseconds slept{0};      // inside the OS sleep
    std::chrono::nanoseconds spun{0};       // spinning
    std::chrono::nanoseconds oversleep{0};  // OS wake-up past the requested wake-up
    std::chrono::nanoseconds margin{0};     // hybrid margin in force
    bool past_spin_bound = false;           // the thread ran raised and woke later than its spin
                                            // bound: accepted late (pacer/waiter.hpp)
    std::uint32_t skipped = 0;              // grid slots skipped before this frame
    WaitMode mode = WaitMode::hybrid;       // the configured mode
    PacingSource source = PacingSource::hybrid;  // what actually paced this frame
    bool missed = false;                    // lateness > miss_tolerance, or skipped > 0
    bool background = false;                // paced at PacerConfig::background_hz (set_background)
    SyncMode sync = SyncMode::frame_start;  // the sync mode in force for this frame

    // latency_frame: the frame the figures below describe, 0 when none. In a single-thread loop
    // the previous frame, the one whose present came before this wait(). With a present thread
    // (presents that name their frame, PresentInfo::frame) the newest frame whose present was
    // reported since the previous wait(), one or two frames back; a frame closed without one
    // (lost, or never presented) gives zero figures like the single-thread case below.
    std::uint64_t latency_frame = 0;
    // That frame:
    // latency = its input sample (FramePacer::mark_input(), else the wake that started it) to
    // the moment it was shown: the displayed time the host reported (PresentInfo::displayed),
    // else the vblank predicted after the present call's return when the swap is synchronised,
    // else the present call's return (it tears). latency_measured says the first case.
    // No present reported, no latency: when no present of that frame reached
    // FramePacer::report_present() in time (a headless loop, a host that does not
    // report), latency and input_to_present are 0 and latency_measured and shown_late false;
    // FrameStats leaves the frame out of its latency and a capture writes MsPCLatency NA.
    std::chrono::nanoseconds latency{0};
    std::chrono::nanoseconds input_to_present{0};  // its input sample -> its present call begin
    bool latency_measured = false;
    bool shown_late = false;  // it was shown after the display deadline it was started for
                              // (sync present or just_in_time, or frame_start placed before a
                              // vblank with vsync off; otherwise frame_start has no such deadline)

    // The display (pacer/display.hpp; FramePacer's manual: display lock, cadence, display time).
    std::uint32_t cadence = 1;   // frames are paced every `cadence` refreshes (or target periods)
    double cadence_hz = 0;       // the frame rate in force: refresh (or target) / cadence
    CadenceReason cadence_reason = CadenceReason::fixed;  // why (pacer/cadence.hpp)
    std::chrono::nanoseconds display_dt{0};  // predicted display interval of this frame: the
                                             // delta to give the simulation (FixedStep)
    bool display_locked = false;  // the wait was placed against the fitted vblanks

    // The display time this frame is for: the vblank (or, while none is known, the grid time) it
    // is aimed at, and that vblank's counter when the vblanks come with one. What a present-at-a-
    // time API takes (FramePacer's manual, "Presenting at a time").
    clock::time_point display_target{};
    std::uint64_t display_target_msc = 0;
    bool has_display_target_msc = false;

    // Presentation feedback (PresentInfo::outcome) that arrived since the previous wait(): presents
    // shown, and presents that never reached the screen (skipped or discarded). present_feedback:
    // the host reports outcomes at all; without it shown frames are unknown, not the submitted ones.
    std::uint32_t presents_shown = 0;
    std::uint32_t presents_dropped = 0;
    bool present_feedback = false;
};

}  // namespace pacer
