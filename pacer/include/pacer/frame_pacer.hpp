// pacer/frame_pacer.hpp - FramePacer: hold a loop to a frame rate on an absolute deadline grid.
//
//   pacer::FramePacer fp({.target_hz = 144.0});     // hybrid wait, catch-up late policy
//   while (running) {
//       pacer::FrameTiming t = fp.wait();           // blocks until this frame's deadline
//       update(t.display_dt); draw_and_present();
//   }
//
// The door (every member; units in ns on pacer::clock unless said; [P] the pacing thread, [R] the
// pacing thread or one present thread, [A] any thread; "Thread roles" below):
//   FramePacer(config, ts)   throws ConfigError for an invalid config; ts nullptr: the real OS
//   wait()                   [P] blocks until the frame's deadline; returns what the frame looked like
//   mark_input()             [P] the input is sampled now (optional: latency runs from here)
//   before_present(frame)    [R] the present call of `frame` comes next (sync present waits here,
//                            on the pacing thread); frame 0: the frame last waited for
//   report_present(p)        [R] how a present went (vsync, vblanks, latency; pacer/present.hpp);
//                            p.frame: the frame it shows
//   report_vblank(v)         [R] a vblank the host saw by other means (X11 Present, a vblank event)
//   desired_swap_interval()  [R] the swap interval to set: 0 vsync off, N every N-th vblank (on
//                            the present thread: as of the pacing thread's last wait())
//   set_config(c)            new settings, effective at the next wait(); same config: no-op
//   set_target_hz(hz)        set_config with a new target_hz
//   set_background(on)       minimized or unfocused: background_hz, OS sleep only, vsync off
//   config()                 the settings, pending changes included
//   status()                 [A] PacerStatus: the rate in force and why, waiter, vsync, display, ...
//   now()                    the pacer's clock (time presents with it)
//   reset()                  forget the grid: the next wait() returns at once and anchors anew
//   end_pacing()             give the thread's OS timer settings and priority back now (not at
//                            destruction)
//   set_time_source(ts)      pace on another clock and OS from the next wait()
//
// What each part decides, and where its rules and measurements are written:
//   the deadline grid and late policies        pacer/grid.hpp
//   how a wait sleeps and spins                 pacer/waiter.hpp
//   the thread's priority for the wait          pacer/priority.hpp
//   whether vsync really paces the frames       pacer/vsync.hpp
//   what a present says about the display       pacer/present_classifier.hpp
//   the display's vblanks, fitted               pacer/display.hpp, pacer/vblanks.hpp
//   the rate in force and why (match display,   pacer/rate.hpp, pacer/cadence.hpp
//     cadence governor, VRR cap, background)
//   the just-in-time lead                       pacer/lead.hpp
//   latency and late frames                     pacer/latency.hpp
//   what a frame looked like                    pacer/frame_timing.hpp
//   every setting, default and range            pacer/config.hpp
// docs/architecture.md draws how a frame's data flows through them.
//
// Sync modes (PacerConfig::sync): where the frame waits. A host loop that supports all three:
//
//   while (running) {
//       fp.wait();                // frame_start and just_in_time wait here
//       fp.mark_input();          // just before the input is read (optional: else the wake)
//       read_input(); update(); render();
//       fp.before_present();      // present waits here
//       pacer::clock::time_point t0 = fp.now();
//       swap();                   // the host's present
//       fp.report_present({t0, fp.now(), in_effect, refresh_hz});
//   }
//
//   frame_start (default): wait() waits for the grid deadline (or, when the swap paces, only for
//       a floor of 15/16 of a period after the last wake, so that a swap that does not block
//       cannot turn the loop into a busy loop, and a vsync probe does not show in the frame
//       times); before_present() returns at once. Flat frame starts; the present moves with the
//       frame's work.
//   present: wait() returns at once; before_present() waits for the present deadline: the grid
//       deadline or, when the swap paces and the vblanks are known, the next vblank - 1 ms (a
//       quarter period at most). Flat presents on jittery work; the input was read a whole frame
//       of work earlier. A host that never calls before_present() gets frame_start from its
//       second frame on. The FrameTiming of wait() then describes the wait made in the previous
//       before_present().
//   just_in_time: wait() waits until the target display time - the learned lead (pacer/lead.hpp);
//       before_present() returns at once. The target display time is the next vblank when the
//       swap paces and the vblanks are known, else the grid deadline, and at least one period
//       after the previous one (so the rate never exceeds the target); the wait is an OS sleep
//       when the target is a vblank (the lead covers the wake-up error). In WaitMode::automatic
//       the vsync verdict rests on the swap's return times, which just_in_time makes irregular
//       when the swap does not block: pair it with WaitMode::vsync, a swap that blocks, or
//       reported displayed times.
//   In the background every frame is frame_start.
//
// Vsync (WaitMode::vsync, automatic). While the swap paces, wait() only enforces the floor above.
// A host that reports no presents (a headless run, a forgotten call) cannot be paced by its swap:
// after 2 frames without a report, wait() paces with hybrid sleep again whatever the mode.
//
// Display lock (PacerConfig::display_lock, default on). The vblanks the presents show go to the
// display's fit (pacer/vblanks.hpp). With the fit:
//   vsync on, sync present and just_in_time: the present deadline and the target display time are
//       fitted vblanks, not the last (often late) swap return. On a loaded machine, with the
//       swap's returns the only vblanks, present sync then misses far fewer vblanks than when
//       aimed at the last return, at the same CPU, and just_in_time keeps its budget with a lower
//       median latency (measured in virtual time: docs/platforms.md#measured-display-lock).
//   vsync off, sync frame_start, the fit locked and renewed (a vblank in the last 4 periods):
//       frames are placed as just_in_time places them, on the fitted vblanks every N refreshes
//       (N the swap interval that serves the target), waking a learned lead before the vblank so
//       that the present lands just before it, the tear line at the bottom of the screen. A torn
//       present's displayed time is not a vblank: the host gives the vblanks with report_vblank().
//       The presents then land shortly before the next vblank, whatever the display's phase
//       (measured: docs/platforms.md#measured-display-lock). FrameTiming::display_locked marks
//       such frames.
//
// Presentation feedback. Report each present with an id (PresentInfo::id); when the API tells
// later what became of it (shown at a time and vblank counter, skipped, discarded), report that
// with the same id: it is counted (status().presents, FrameTiming::presents_shown / _dropped),
// its displayed time and counter go to the display's fit by what the source's flags say
// (pacer/present.hpp), and a frame started a learned lead before its target that was shown late
// (or never) makes the lead grow. pacer/x11_present.hpp and pacer/wayland_presentation.hpp do it
// for X11 Present and wp_presentation; DXGI hosts feed IDXGISwapChain::GetFrameStatistics as
// vblanks: report_vblank({qpc_to_pacer(SyncQPCTime), SyncRefreshCount, true}) once a frame (and
// PresentCount against the host's own count for the frames that were dropped).
//
// Presenting at a time. FrameTiming::display_target is the vblank (or, with no vblank known, the
// grid time) the frame is for, and display_target_msc its counter when the vblanks come counted.
// Hand it to the API that presents at a time:
//   Wayland wp_commit_timing_v1   wp_commit_timer_v1.set_timestamp(tv_sec_hi, tv_sec_lo, tv_nsec)
//                                 of display_target on the compositor's clock (ClockOffset),
//                                 before the wl_surface.commit; with wp_fifo_v1 when available.
//   VK_EXT_present_timing         VkPresentTimingInfoEXT::targetTime = display_target in the
//                                 swapchain's time domain (vkGetCalibratedTimestampsKHR gives the
//                                 offset), chained to vkQueuePresentKHR; past timings come back
//                                 through vkGetPastPresentationTimingEXT: report them by id.
//   VK_GOOGLE_display_timing      VkPresentTimeGOOGLE::desiredPresentTime = display_target
//                                 (CLOCK_MONOTONIC ns); vkGetPastPresentationTimingGOOGLE's
//                                 actualPresentTime is the feedback.
//   X11 PresentPixmap             target_msc = display_target_msc (x11::PresentSource::present).
//   EGL_ANDROID_presentation_time eglPresentationTimeANDROID(display, surface, display_target ns)
//                                 before eglSwapBuffers.
// A present at a time should reach the API some time before its target (a compositor repaints
// ahead; Xvfb needs half a period): pace with a lead (sync just_in_time, or frame_start with the
// display lock), and the late feedback keeps the lead long enough: on Xvfb nearly every frame is
// shown at its target counter, idle and beside a loaded machine (measured with `pacer display
// --present-at-time`: docs/platforms.md#measured-presenting-at-a-time). max_late_share 0.001:
// the lead sits near the server's edge, and a burst of late feedback moves it back in a few
// frames (pacer/lead.hpp).
//
// Display time (FrameTiming::display_dt): the delta to give the simulation. On a fixed-refresh
// display whose refresh is known, the wake interval rounded to whole refreshes; otherwise the
// scheduled interval, deadline to deadline; slewed so that the sum of the deltas follows wall
// time within half a refresh (pacer/cadence.hpp, DisplayDelta). 0 on the first frame of a grid.
//
// Background (set_background(true)): the pacer runs at background_hz (default 10 Hz, or target_hz
// when that is lower) with plain OS sleep, no spin, and asks for vsync off (a minimized window's
// swap may return at once or block for seconds). Leaving the background re-anchors the grid at
// the last deadline: no burst of catch-up frames. The pacing thread's CPU at 10 Hz is a few
// wake-ups a second, a small fraction of a per cent of a core (measured:
// docs/platforms.md#measured-framepacer-call-costs; tests/real_clock_test.cpp checks that it
// never spins and stays under 2 %).
//
// Run-time changes (set_config, set_target_hz, set_background) take effect at the next wait(): a
// new rate re-anchors the grid at the last deadline, so the next frame is one new period after
// the previous deadline. What the waiter and the lead learned is kept. A config equal to the one
// in force changes nothing (a game may push its settings every frame).
//
// Thread roles. One pacing thread calls wait(), mark_input() and the settings (every member not
// marked otherwise above). Debug builds (NDEBUG not defined) check it: a wait() from another
// thread while the first one paces logs an error and aborts; after end_pacing() another thread may
// take over. Before the first wait() the thread that made the pacer counts as the pacing thread.
// The thread's OS timer settings (Linux timer slack, Windows timer resolution;
// TimeSource::begin_pacing) are taken at its first wait() and given back when the pacer is
// destroyed on that thread or end_pacing() is called; so is a priority raised for good
// (PacerConfig::waiter.priority: thread, high and automatic, the default; pacer/priority.hpp).
//
// One present thread (a render or RHI thread) may call before_present(), report_present() and
// report_vblank() beside it, and so may the present adapters driven from it (pacer/sdl2.hpp,
// pacer/x11_present.hpp, pacer/wayland_presentation.hpp). Its calls never wait for the pacing
// thread, take no lock and allocate nothing (before_present() waits for the present slot in
// present sync, on its own): each goes into a fixed ring of 64 reports (its clock read for
// before_present), and the pacing thread applies them, in order, at its next wait(). Each such
// call takes a fraction of a microsecond, more while the two threads contend for the ring's cache
// lines, and once another thread reads status() each wait() also makes the copy (measured with
// bench/bench_bookkeeping: docs/platforms.md#measured-framepacer-call-costs). A report that finds
// the ring full (the pacing thread has not waited for 64 reports) is dropped and counted
// (PacerStatus::reports_lost). Debug builds abort on a second present thread. Calls on the pacing
// thread itself take effect at once, as in a single-thread loop.
//
// status() from any other thread returns a copy the pacing thread makes at the end of each wait()
// once some other thread has asked (the first such call sees the copy made at construction);
// the pacing thread only tries the copy's lock, so a reader never holds it up. The copy's
// next_vblank is the one after that wait().
//
// Frames in flight. Each wait() starts a frame with an id (FrameTiming::frame: 1, 2, 3, ...). A
// render thread a frame or two behind names the frame it presents: before_present(frame) and
// PresentInfo::frame. Latency (its input mark to its showing), input to present, shown late and
// the just-in-time lead's sample (its wake-up target to its present call, so the lead covers the
// game thread's and the render thread's work together) are judged per frame, and reach the
// FrameTiming of the wait() after its present (FrameTiming::latency_frame says which frame). A
// frame whose present never comes is closed without figures when 3 newer frames have started.
// A present from the present thread that names no frame is taken for the newest frame when it
// was made. PacerStatus::frames_in_flight is the measured depth.
//
//   // The game thread paces:
//   while (running) {
//       pacer::FrameTiming t = fp.wait();
//       fp.mark_input();
//       read_input();
//       update(t.display_dt);
//       hand_to_render_thread(t.frame);         // the engine's own queue
//   }
//   // The render thread presents each frame it is handed, a frame behind:
//   while (running) {
//       std::uint64_t frame = next_frame_to_render();  // blocks until one is handed over
//       render();
//       fp.before_present(frame);
//       pacer::PresentInfo p{fp.now(), {}, in_effect, refresh_hz};
//       swap();
//       p.end = fp.now();
//       p.frame = frame;
//       fp.report_present(p);
//   }
//
// Sync modes with a render thread. frame_start: the game thread waits in wait() as in a
// single-thread loop, but while vsync paces, wait() only enforces its floor (15/16 of a period),
// so the game thread runs ahead until the engine's hand-over queue and the swap chain are full:
// each frame then waits its turn in both, several periods from input to screen. just_in_time:
// the game thread wakes the learned lead before the frame's display target, the lead learned
// from the game thread's wake to the render thread's present call, so the queues stay empty and
// the latency is well under frame_start's, within its late budget (measured with `pacer simulate
// latency --render-thread`: docs/latency.md#with-a-render-thread). The one to pick with a render
// thread. present: the present thread's before_present(frame) waits for the next present slot,
// one per period: the grid, or while the swap paces and the vblanks are known the vblank a period
// after the last one less 1 ms (a quarter period at most), as the pacing thread publishes them at
// each wait(), with a waiter of its own (the pacing thread's settings as made, at the present
// thread's own priority). wait() then returns at once and describes the present thread's last
// wait; the engine's hand-over (a queue the game thread blocks on while full) carries that pace
// back to the game thread. Flat presents on jittery work, the input read a frame earlier.
//
// Cost. wait() does a few clock reads and integer operations besides sleeping and spinning, and
// never allocates (bench/bench_bookkeeping: docs/results.md#what-the-bookkeeping-costs).
// status() costs more than that on the pacing thread; once another thread reads it, each wait()
// makes the copy too
// (measured: docs/platforms.md#measured-framepacer-call-costs).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "pacer/cadence.hpp"
#include "pacer/clock.hpp"
#include "pacer/config.hpp"
#include "pacer/display.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/lead.hpp"
#include "pacer/present.hpp"
#include "pacer/rate.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"
#include "pacer/vsync.hpp"
#include "pacer/waiter.hpp"

namespace pacer {

// Presents reported, and what their feedback said (PresentInfo::id, outcome).
struct PresentCounts {
    std::uint64_t submitted = 0;  // presents reported (feedback for an earlier one not counted)
    std::uint64_t shown = 0;      // ... that feedback said reached the screen
    std::uint64_t dropped = 0;    // ... that feedback said never did (skipped, discarded)
    bool feedback = false;        // outcomes are reported at all: without, shown is unknown
};

// Everything a FramePacer can tell, read at once (FramePacer::status()).
struct PacerStatus {
    std::chrono::nanoseconds period{0};  // of the rate in force, rounded
    RateStatus rate{};                   // the rate in force and why (pacer/rate.hpp)
    bool background = false;             // set_background(true) is in force
    std::uint64_t frames = 0;            // wait() calls so far
    std::uint64_t missed = 0;            // missed frames so far
    WaiterStatus waiter{};               // the hybrid margin and spin cap learned (pacer/waiter.hpp)
    VsyncStatus vsync{};                 // is vsync pacing, and why (pacer/vsync.hpp)
    DisplayStatus display{};             // the display's fit (pacer/display.hpp)
    CadenceStatus cadence{};             // the cadence in force (pacer/cadence.hpp)
    LeadStatus lead{};                   // just_in_time's lead (pacer/lead.hpp)
    PresentCounts presents{};            // submitted, shown, dropped
    int frames_in_flight = 0;            // the median, over the last 15 presents, of how many
                                         // frames the pacing thread had started past the one
                                         // presented: 0 single-thread, 1 for a render thread a
                                         // frame behind (presents that name their frame)
    std::uint64_t reports_lost = 0;      // present-thread reports dropped: the queue was full
    clock::time_point next_vblank{};     // the first vblank after the call, while the display is
                                         // locked (epoch otherwise)
};

namespace detail {
// The end of a wait that FramePacer::wait() spins inline in the caller (HybridWaiter::
// wait_until_handoff says why); what it changed is settled at the pacer's next call.
struct Handoff {
    TimeSource* ts = nullptr;
    clock::time_point until{};  // spin to this time; the epoch (clock::time_point{}): nothing handed off
    std::chrono::nanoseconds miss_tolerance{0};
    std::chrono::nanoseconds extra{0};  // the spin's time, owed to the next display delta
    clock::time_point end{};            // when the spin ended
    bool missed = false;                // the spin's end made the frame missed
    bool pending = false;               // not yet settled
};
}  // namespace detail

class FramePacer {
public:
    explicit FramePacer(const PacerConfig& config = {}, TimeSource* ts = nullptr);
    ~FramePacer();
    FramePacer(const FramePacer&) = delete;
    FramePacer& operator=(const FramePacer&) = delete;

    FrameTiming wait() noexcept;                            // the frame loop's wait
    void mark_input() noexcept;                             // input sampled now
    void before_present(std::uint64_t frame = 0) noexcept;  // the present of `frame` comes next
    void report_present(const PresentInfo& present) noexcept;
    void report_vblank(const VblankInfo& vblank) noexcept;
    int desired_swap_interval() const noexcept;             // 0 off, N every N-th vblank

    Status set_config(const PacerConfig& config);           // refused: message, old settings stay
    Status set_target_hz(double hz);
    void set_background(bool on) noexcept;
    const PacerConfig& config() const noexcept;             // pending changes included
    PacerStatus status() const noexcept;

    clock::time_point now() const noexcept;                 // the TimeSource's clock
    void reset() noexcept;
    void end_pacing() noexcept;
    void set_time_source(TimeSource* ts) noexcept;          // nullptr: the real OS

private:
    class Impl;
    FrameTiming wait_handoff() noexcept;                    // wait() but the spin's end
    void finish_handoff(FrameTiming& t) noexcept;

    std::unique_ptr<Impl> impl_;
    detail::Handoff handoff_;
};

// Inline so that the last microseconds of the spin run in the caller's code: after a sleep the
// code of the return path is cold, and walking it after the deadline made wait() return late (see
// HybridWaiter::wait_until_handoff; measured: docs/platforms.md#measured-the-hybrid-wait).
inline FrameTiming FramePacer::wait() noexcept {
    FrameTiming t = wait_handoff();
    if (handoff_.until != clock::time_point{}) finish_handoff(t);
    return t;
}

inline void FramePacer::finish_handoff(FrameTiming& t) noexcept {
    WaitResult r;
    r.end = t.wake;
    finish_wait(*handoff_.ts, r, handoff_.until);
    handoff_.until = clock::time_point{};
    const std::chrono::nanoseconds extra = r.end - t.wake;
    t.wake = r.end;
    t.interval += extra;
    t.spun += extra;
    t.lateness = r.end > t.deadline ? r.end - t.deadline : std::chrono::nanoseconds(0);
    handoff_.missed = !t.missed && t.lateness > handoff_.miss_tolerance;
    t.missed = t.missed || handoff_.missed;
    handoff_.extra = extra;
    handoff_.end = r.end;
    handoff_.pending = true;
}

}  // namespace pacer
