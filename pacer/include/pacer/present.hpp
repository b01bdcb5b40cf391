// pacer/present.hpp - PresentInfo: one present as the host saw it, the record every part that
// learns from presents takes (FramePacer::report_present, VsyncController, CaptureExtras).
//
//   PresentInfo           begin, end, swap interval, refresh, ok, displayed time (pacer::clock)
//   VblankSource          what an observed vblank is: a displayed time or a waited swap's return
//   kMinRefreshHz, kMaxRefreshHz   refresh rates taken as known: [20, 1000] Hz
//
//   pacer::clock::time_point t0 = pacer.now();
//   SDL_GL_SwapWindow(window);
//   pacer.report_present({t0, pacer.now(), swap_interval_in_effect, refresh_hz});
//
// How to fill it from each platform's present API: pacer/vsync.hpp.
#pragma once

#include "pacer/clock.hpp"

namespace pacer {

// One present, as the host saw it.
struct PresentInfo {
    clock::time_point begin{};  // just before the swap call
    clock::time_point end{};    // just after it returned
    int swap_interval = -1;  // interval in effect: 0 off, N >= 1, -1 unknown or refused
    double refresh_hz = 0;   // display refresh rate; 0 = unknown
    bool ok = true;          // the swap call succeeded
    // When the frame reached the screen, if the host knows it (a presentation-feedback API such
    // as VK_GOOGLE_display_timing or wp_presentation; a simulated display); zero = unknown. Used
    // for latency (FrameTiming::latency) and the just-in-time target, not for the vsync verdict.
    // A time before begin or more than 1 s after end is ignored (taken as unknown).
    clock::time_point displayed{};
};

// What an observed vblank is (DisplayTracker::add, PresentVerdict::observation).
enum class VblankSource {
    none,         // no vblank
    displayed,    // a displayed time the host reported: noisy both ways
    swap_return,  // the return of a swap that waited for the vblank: never early, often late
};

// Accepted refresh rates. Outside: treated as unknown (an EDID of 0 Hz, a driver's 1 Hz).
inline constexpr double kMinRefreshHz = 20.0;
inline constexpr double kMaxRefreshHz = 1000.0;

}  // namespace pacer
