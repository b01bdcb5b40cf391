// pacer/present.hpp - PresentInfo: one present as the host saw it, the record every part that
// learns from presents takes (FramePacer::report_present, VsyncController, CaptureExtras).
//
//   PresentInfo           one present: begin, end, swap interval, refresh, ok; and what a
//                         presentation-feedback API says of it: id, outcome, displayed time, vblank
//                         counter, flags (pacer::clock)
//   PresentOutcome        unknown, shown, skipped, discarded
//   PresentFlags          vsync, hardware clock, hardware completion, zero copy (as the source says)
//   CompletionMode        X11 Present's: copy, flip, skip, suboptimal copy
//   VblankInfo            a vblank the host knows by other means: time, counter, flags
//   VblankSource          what an observed vblank is: a displayed time or a waited swap's return
//   kMinRefreshHz, kMaxRefreshHz   refresh rates taken as known: [20, 1000] Hz
//
//   pacer::clock::time_point t0 = fp.now();
//   SDL_GL_SwapWindow(window);
//   fp.report_present({t0, fp.now(), swap_interval_in_effect, refresh_hz});
//
// How to fill it from each platform's present API: pacer/vsync.hpp. Feedback that arrives later
// (X11 Present's CompleteNotify, wp_presentation's presented / discarded, VK_EXT_present_timing's
// past timings) is reported again with the present's id: FramePacer::report_present counts it as
// that present's outcome, not as a new present.
//
//   pacer::PresentInfo f;                   // wp_presentation presented, 1-2 frames later
//   f.id = commit_serial;
//   f.outcome = pacer::PresentOutcome::shown;
//   f.displayed = clock_offset.to_pacer(presented_raw);   // pacer/clock_offset.hpp
//   f.flags.known = true;                   // the flags below are the source's word
//   f.flags.vsync = (kind & WP_PRESENTATION_FEEDBACK_KIND_VSYNC) != 0;   // hw_clock, ... alike
//   fp.report_present(f);
#pragma once

#include <cstdint>

#include "pacer/clock.hpp"

namespace pacer {

// What a presentation-feedback API said became of a present.
enum class PresentOutcome {
    unknown,    // no feedback (yet)
    shown,      // it reached the screen (PresentInfo::displayed, msc)
    skipped,    // a newer present replaced it before it was shown (X11 Present's SKIP, a mailbox)
    discarded,  // the compositor dropped it (wp_presentation's discarded event)
};

// How the source says it showed a frame: wp_presentation_feedback's kind bits, and the same
// meaning for the other APIs. `known` false: the source gives no flags (the other fields say
// nothing); weston's flags 0 with `known` true mean: none of them, a compositor's own timer.
struct PresentFlags {
    bool known = false;
    bool vsync = false;          // shown at a vblank: not torn, not on a compositor's timer
    bool hw_clock = false;       // the time comes from the display hardware's clock
    bool hw_completion = false;  // the hardware signalled the completion
    bool zero_copy = false;      // scanned out of the client's own buffer (an X11 flip)
};

// X11 Present's completion mode (CompleteNotify of a PresentPixmap).
enum class CompletionMode { unknown, copy, flip, skip, suboptimal_copy };

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

    // Presentation feedback. id: the host's present id (a serial), 0 none; a report with the id
    // of an earlier present is that present's feedback. msc: the vblank counter (X11 MSC,
    // wp_presentation seq, DXGI PresentRefreshCount) it was shown at, when has_msc.
    std::uint64_t id = 0;
    PresentOutcome outcome = PresentOutcome::unknown;
    std::uint64_t msc = 0;
    bool has_msc = false;
    PresentFlags flags{};
    CompletionMode completion = CompletionMode::unknown;
    // The frame this present shows: its FrameTiming::frame. 0: the frame last waited for (a
    // single-thread loop). A present thread a frame or more behind the pacing thread names it, so
    // that latency, the lead and late judgements go to the right frame (FramePacer's manual).
    std::uint64_t frame = 0;
};

// A vblank the host knows by other means than its presents: X11 PresentNotifyMSC's CompleteNotify
// (msc, ust), a vblank event, DXGI GetFrameStatistics (SyncRefreshCount, SyncQPCTime). A time
// alone converts implicitly: fp.report_vblank(t).
struct VblankInfo {
    VblankInfo() = default;
    VblankInfo(clock::time_point t) noexcept : time(t) {}  // NOLINT: a time alone is a vblank
    clock::time_point time{};  // on pacer::clock (pacer/clock_offset.hpp converts other clocks)
    std::uint64_t msc = 0;     // the vblank counter, when has_msc
    bool has_msc = false;
    double refresh_hz = 0;     // the refresh the source reports; 0: unknown (the last reported stays)
};

// What an observed vblank is (DisplayTracker::add, PresentVerdict::observation).
enum class VblankSource {
    none,         // no vblank
    displayed,    // a displayed time the host reported: noisy both ways
    swap_return,  // the return of a swap that waited for the vblank: never early, often late
    unsynced,     // a displayed time the source says is no vblank (a compositor's own timer)
};

// Accepted refresh rates. Outside: treated as unknown (an EDID of 0 Hz, a driver's 1 Hz).
inline constexpr double kMinRefreshHz = 20.0;
inline constexpr double kMaxRefreshHz = 1000.0;

}  // namespace pacer
