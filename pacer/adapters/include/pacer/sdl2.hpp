// pacer/sdl2.hpp - present through SDL2 and tell the pacer how it went (optional target pacer::sdl2).
//
//   target_link_libraries(game PRIVATE pacer::pacer pacer::sdl2)
//
//   pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::automatic});
//   pacer::sdl2::RendererPresenter present(renderer); // or GlPresenter present(window) for OpenGL
//   while (running) { fp.wait(); update(); draw(renderer); present.present(fp); }
//
// present() replaces the game's SDL_RenderPresent(renderer) (RendererPresenter) or
// SDL_GL_SwapWindow(window) (GlPresenter). Each call
//   1. sets the swap interval the pacer asks for (FramePacer::desired_swap_interval()), only when
//      that changes: SDL_RenderSetVSync or SDL_GL_SetSwapInterval;
//   2. re-reads the display's refresh rate when it is due (see "Refresh" below);
//   3. presents, timed with FramePacer::now() just before and just after the call;
//   4. reports it: FramePacer::report_present() with the interval in effect and the refresh rate.
// In vsync and auto modes the pacer then decides, from the presents themselves, whether vsync
// really paces the frames (pacer/vsync.hpp); in sleep, spin and hybrid modes it asks for
// interval 0 (vsync off). A game that wants vsync in those modes anyway passes its own interval:
// present(fp, 1). Nothing is allocated; a present costs two clock reads besides SDL's call.
//
// What is reported is what SDL's public API shows, never more:
//   - swap_interval(): 0 or N when SDL took it, -1 when it refused it. SDL_RenderSetVSync takes 0
//     and 1 only, so a request for 2 (30 fps on a 60 Hz display) is reported refused and the pacer
//     paces with its own wait. Since SDL 2.0.18, SDL_RenderSetVSync(r, 1) returns success even
//     when the back-end refused it, and SDL_RenderPresent then sleeps to a whole-millisecond
//     timer instead (SDL_Delay: presents alternate around the period, not on the display's
//     vblank; measured: docs/platforms.md#measured-presentation-sources-and-clocks).
//     RendererPresenter checks what it can: the software renderer has no vsync, and an OpenGL
//     renderer's interval is read back with SDL_GL_GetSwapInterval() (the renderer's context
//     must be current, as it is unless the game made another one current). When the back-end
//     did not take it, it switches SDL's stand-in off again and reports -1, so the pacer's own
//     wait paces instead of a timer that pretends to be vsync. Other back-ends (Direct3D, Metal)
//     are taken at SDL's word; the pacer's evidence decides in any case.
//   - refresh_hz(): the display's refresh rate, 0 when SDL does not know it (SDL reports 0 under
//     Xvfb and some virtual displays; the pacer then paces with hybrid sleep, vsync off). SDL2
//     reports whole hertz: a 59.94 Hz mode may read 59 or 60; 59 does not serve a 60 Hz target
//     (pacer::compatible_swap_interval), so auto mode then paces with hybrid sleep. A game that
//     knows better (a settings menu, another API) gives the rate with set_refresh_hz().
//
// Refresh. The rate is read at the first present, every kRefreshEvery presents after that
// (SDL's display modes are cached, so a read is cheap: no round trip to the display server), at
// the next present after handle_event() saw the window move or change display, and after
// set_refresh_hz(). A windowed or desktop-fullscreen window reads the desktop mode of the
// display it is on (SDL_GetCurrentDisplayMode); an exclusive-fullscreen window its own mode
// (SDL_GetWindowDisplayMode).
//
// OpenGL: GlPresenter needs the window's GL context current on the calling thread, as
// SDL_GL_SwapWindow does. Thread safety: a presenter is used by the thread that calls the
// pacer's wait(), like the FramePacer itself.
//
// Real-time from RealtimeKit (Linux): request_realtime(). A desktop user may not put a thread in
// a real-time class itself (RLIMIT_RTPRIO 0 and no CAP_SYS_NICE: pacer's ThreadPriority::wait
// and thread are refused, pacer/priority.hpp), but RealtimeKit (rtkit-daemon, on the system bus)
// hands out SCHED_RR to whom polkit allows: on a desktop, the user of the active local session.
// SDL asks it; this asks SDL, on the pacing thread, before pacing:
//
//   SDL_Init(0);                                                     // SDL connects to D-Bus here
//   const pacer::PriorityGrant rt = pacer::sdl2::request_realtime();  // on the pacing thread
//   if (!rt.granted) log(rt.reason);  // pacing goes on at the thread's own class
//
// It calls SDL_SetThreadPriority(SDL_THREAD_PRIORITY_TIME_CRITICAL) with
// SDL_HINT_THREAD_FORCE_REALTIME_TIME_CRITICAL "1" and SDL_HINT_THREAD_PRIORITY_POLICY "rr" for
// that call only, then puts both hints back as they were (SDL's audio thread asks TIME_CRITICAL
// too: with the hint left set it would ask RealtimeKit as well), and reads the class the thread
// really runs at (sched_getscheduler): granted for SCHED_RR or SCHED_FIFO, level the priority,
// in_force e.g. "SCHED_RR 20 (RealtimeKit, RLIMIT_RTTIME 100 ms)" (the soft limit); refused with
// SDL's error and the remedy in reason. saved[] is unused: see "Giving it back" below.
// What SDL 2 does on Linux (2.26.5's src/core/linux/SDL_threadprio.c, the same to 2.32):
//   - it never sets a real-time class itself: it always asks RealtimeKit (MakeThreadRealtimeWithPID
//     on the system bus, or the desktop portal's Realtime interface when the session bus has one),
//     even for root. A grant through SDL is RealtimeKit's; a process that may raise itself (root,
//     CAP_SYS_NICE, RLIMIT_RTPRIO) is refused where no RealtimeKit answers, and the reason then
//     says that ThreadPriority::wait and thread serve it without D-Bus.
//   - it asks for the most RealtimeKit hands out, MaxRealtimePriority: 20 with rtkit 0.13's
//     defaults (pacer's own realtime_priority is 5).
//   - it uses D-Bus only when a session bus exists, though RealtimeKit is on the system bus: a game
//     started without one (over ssh, from a service) is refused. The reason says so when the
//     process surely has none: no DBUS_SESSION_BUS_ADDRESS, no $XDG_RUNTIME_DIR/bus, no DISPLAY.
//   - before asking it sets RLIMIT_RTTIME for the whole process (RealtimeKit refuses a process
//     without one): hard RealtimeKit's RTTimeUSecMax, 200 ms, soft half of it, 100 ms; also when
//     refused. The thread gets SCHED_RESET_ON_FORK: a child process starts at SCHED_OTHER.
//   - it waits 300 ms for the answer (SDL_dbus.c; what the call took in the test:
//     docs/platforms.md#measured-thread-priority). RealtimeKit asks polkit before it answers
//     and does not learn that SDL gave up: a later answer is reported as a refusal, yet may
//     raise the thread afterwards (read in the sources, not seen); a second call then reports
//     the grant.
//   - its error says nothing of why: "setpriority() failed" for every refusal. RealtimeKit's own
//     answer (org.freedesktop.DBus.Error.AccessDenied, "Operation not permitted", when polkit says
//     no) stays inside SDL, so the remedy names the usual causes.
//
// The budget. The kernel counts the CPU time a real-time thread runs without sleeping or blocking:
// at the soft RLIMIT_RTTIME it sends SIGXCPU, which ends the process unless handled, at the hard
// one SIGKILL: a thread that spins without a system call gets SIGXCPU soon after it has run the
// soft limit's CPU time and SIGKILL soon after the hard one's (measured with RealtimeKit through
// SDL, tests/priority/realtimekit_check.cpp: docs/platforms.md#measured-thread-priority). A
// frame that computes 100 ms without a pause (a level load, shader compilation) ends the game:
// keep such work off the raised thread, or give the class back first.
// The limit is the whole process's: it covers any thread raised later, pacer's
// ThreadPriority::thread too.
//
// With pacer: ThreadPriority::automatic (the default) and normal keep what RealtimeKit granted:
// pacer never lowers a thread's class (tested: 60 frames at 240 Hz all read SCHED_RR 20, and
// automatic reports "SCHED_RR (the thread's own, kept)"). wait and thread ask the kernel
// directly, for SCHED_FIFO at PriorityConfig::realtime_priority (5): a desktop user is refused
// (RLIMIT_RTPRIO 0) and the thread keeps RealtimeKit's SCHED_RR 20 (tested); a process that may
// do so gets SCHED_FIFO 5 instead, below what RealtimeKit gave, for the sleeps (wait) or for good
// (thread). So with RealtimeKit, keep automatic or normal.
//
// Giving it back: sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &zero) on that thread
// (an unprivileged thread may not clear the flag; tested). SDL_SetThreadPriority(
// SDL_THREAD_PRIORITY_NORMAL) does not (tested): SDL 2 then only changes the nice level.
// Other OSes: a refused grant, "RealtimeKit is Linux only".
//
// The weight from RealtimeKit (Linux): request_high(nice = -15). pacer's ThreadPriority::automatic
// (the default) and high lower the pacing thread's nice value, within SCHED_OTHER, where the
// process may do so itself; a desktop user may not (RLIMIT_NICE 0, no CAP_SYS_NICE: automatic is
// refused quietly, high with a warning, pacer/priority.hpp). RealtimeKit grants it over D-Bus
// (MakeThreadHighPriority, polkit action org.freedesktop.RealtimeKit1.acquire-high-priority), down
// to its min-nice-level, -15 by default. No real-time class: no RLIMIT_RTTIME budget, nothing the
// kernel kills a long frame for. Ask on the pacing thread, before pacing:
//
//   SDL_Init(0);                                                 // SDL connects to D-Bus here
//   const pacer::PriorityGrant w = pacer::sdl2::request_high();  // on the pacing thread
//   if (!w.granted) log(w.reason);  // pacing goes on; automatic still raises where it may
//   pacer::FramePacer fp;           // automatic keeps it: "nice -15 (the thread's own, kept)"
//
// The rule: a nice value below the thread's own, kept until given back, and never to a child
// process. RealtimeKit may take its grant back first: its reset_known() (rtkit 0.13's
// rtkit-daemon.c) puts every thread it raised, nice grants included, back to SCHED_OTHER at
// nice 0 when its canary watchdog finds the machine starved, when asked to (ResetKnown,
// rtkitctl --reset-known) and when rtkit-daemon exits. pacer does not watch for that (its
// status still reads the kept grant): ask request_high() again for the weight back (tested
// through ResetKnown: nice 0, pacer's status unchanged, a second request_high() granted).
// Granted when the nice value really went down (read back with getpriority() on the thread's
// id): level the nice value in force, in_force "nice -15 (RealtimeKit)" or
// "nice -15 (setpriority)"; saved[0] the thread's id, saved[1] its nice value before. A thread
// already at the asked nice value or lower, or already real-time (RealtimeKit would put it back
// to SCHED_OTHER), is kept as it is and nothing is asked: granted, "nice -15 (the thread's own,
// kept)" or "SCHED_RR (the thread's own, kept)". A nice value outside [-20, -1] is refused.
// The mechanism: SDL_LinuxSetThreadPriority(tid, nice) (SDL 2.26.5's
// src/core/linux/SDL_threadprio.c) calls setpriority() first and asks RealtimeKit
// (MakeThreadHighPriorityWithPID, on the system bus, or the desktop portal's Realtime interface
// when the session bus has one) only when that fails, at RealtimeKit's MinNiceLevel when the
// asked value is below it: request_high(-20) gets -15 from a default RealtimeKit. The two paths
// are told apart by SCHED_RESET_ON_FORK where the thread had it off before: RealtimeKit sets it
// with its grant, SDL's setpriority() does not (both tested). Where the thread had it already,
// by what the kernel lets the process do (can_nice), read before the call: CAP_SYS_NICE (root
// has it) or a soft RLIMIT_NICE of 20 - nice or more is "setpriority", otherwise RealtimeKit;
// that guess is wrong where a security module refuses setpriority() or the capability is held
// in a user namespace only (SDL then asks RealtimeKit). SDL waits 300 ms for RealtimeKit's
// answer, as for request_realtime: a later answer reads as a grant only if it came before the
// getpriority() that follows.
// Children: RealtimeKit (rtkit 0.13's process_set_high_priority) puts the thread at
// SCHED_OTHER | SCHED_RESET_ON_FORK before its setpriority(): a child process starts at nice 0.
// SDL's own setpriority() leaves the flag alone: request_high() then sets it (an unprivileged
// thread may set it, not clear it), and where that fails it puts the old nice value back and
// refuses. Tested: SDL_LinuxSetThreadPriority alone leaves a thread with the flag where
// RealtimeKit granted it and without where root's setpriority() did; after request_high(), a
// child forked by root (setpriority) or by nobody (RealtimeKit) starts at nice 0.
// Refusals: SDL's error is "setpriority() failed" whatever happened; the reason names the usual
// cause: no D-Bus session bus (SDL 2 then uses no D-Bus at all, as for request_realtime), else
// RealtimeKit and its polkit rule. Nothing is changed when refused.
// With pacer: keep automatic (tested: it keeps the grant, "nice -15 (the thread's own, kept)",
// and end_pacing() leaves it), or high with PriorityConfig::nice at the granted value or above
// (kept the same way). A PriorityConfig::nice below the grant is asked of the kernel, refused,
// and the thread keeps RealtimeKit's value.
// Giving it back: setpriority(PRIO_PROCESS, saved[0], saved[1]) (or 0) from any thread of the
// process: a higher nice value is always allowed (tested, as nobody). SCHED_RESET_ON_FORK stays
// (an unprivileged thread may not clear it; harmless: children start at nice 0 anyway).
// Other OSes: a refused grant, "RealtimeKit is Linux only".
//
// Header-only on purpose: it compiles in the game's own build against the game's own SDL2, so the
// pacer library never depends on SDL. Requires SDL 2.0.18 or later (SDL_RenderSetVSync).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#endif

#if __has_include(<SDL.h>)
#include <SDL.h>  // SDL2::SDL2 and `sdl2-config --cflags` put SDL2's own directory on the path
#else
#include <SDL2/SDL.h>
#endif

#if !SDL_VERSION_ATLEAST(2, 0, 18)
#error "pacer/sdl2.hpp needs SDL 2.0.18 or later (SDL_RenderSetVSync)"
#endif

#include "pacer/clock.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/present.hpp"
#include "pacer/priority.hpp"

namespace pacer::sdl2 {

// The refresh rate of the display `window` is on, in Hz; 0 when SDL does not know it.
inline double display_refresh_hz(SDL_Window* window) noexcept {
    if (window == nullptr) return 0.0;
    SDL_DisplayMode mode{};
    // Exclusive fullscreen (not FULLSCREEN_DESKTOP, which includes the FULLSCREEN bit): the
    // window sets the display's mode.
    if ((SDL_GetWindowFlags(window) & SDL_WINDOW_FULLSCREEN_DESKTOP) == SDL_WINDOW_FULLSCREEN &&
        SDL_GetWindowDisplayMode(window, &mode) == 0 && mode.refresh_rate > 0)
        return mode.refresh_rate;
    const int display = SDL_GetWindowDisplayIndex(window);
    if (display >= 0 && SDL_GetCurrentDisplayMode(display, &mode) == 0 && mode.refresh_rate > 0)
        return mode.refresh_rate;
    return 0.0;
}

// True when SDL's video driver (after SDL_Init(SDL_INIT_VIDEO)) shows nothing: with no display
// SDL 2.26 quietly falls back to its "offscreen" (EGL pbuffer) or "dummy" driver, so a window
// opens, but nobody sees it and no display clock stands behind its presents.
inline bool video_driver_shows_nothing() noexcept {
    const char* driver = SDL_GetCurrentVideoDriver();
    return driver != nullptr && (std::strcmp(driver, "offscreen") == 0 || std::strcmp(driver, "dummy") == 0);
}

namespace detail {

// What GlPresenter and RendererPresenter share: the interval bookkeeping, the refresh rate and
// the timed, reported present.
class Presenter {
public:
    static constexpr int kRefreshEvery = 120;  // presents between two reads of the refresh rate

    // The interval in effect: 0 off, N every N-th vblank, -1 refused (or before the first present).
    int swap_interval() const noexcept { return in_effect_; }
    // The interval last asked of SDL (-1 before the first present).
    int requested_interval() const noexcept { return requested_; }
    double refresh_hz() const noexcept { return refresh_hz_; }  // reported with each present; 0 unknown
    std::uint64_t presents() const noexcept { return presents_; }
    // The id the next present is reported with (PresentInfo::id: 1, 2, 3, ...), for a feedback
    // source that must name it before the swap (pacer/wayland_presentation.hpp).
    std::uint64_t next_id() const noexcept { return presents_ + 1; }
    const PresentInfo& last_present() const noexcept { return last_; }
    SDL_Window* window() const noexcept { return window_; }

    // The display's refresh rate as the game knows it, reported instead of SDL's; 0 goes back
    // to SDL's. Takes effect at the next present.
    void set_refresh_hz(double hz) noexcept {
        override_hz_ = hz > 0 ? hz : 0.0;
        refresh_due_ = true;
    }
    // Optional: pass the game's SDL events; a window that moved or went to another display, or a
    // display that changed, has its refresh rate re-read at the next present.
    void handle_event(const SDL_Event& e) noexcept {
        if (e.type == SDL_DISPLAYEVENT) {
            refresh_due_ = true;
        } else if (e.type == SDL_WINDOWEVENT && window_ != nullptr && e.window.windowID == SDL_GetWindowID(window_)) {
            const auto what = e.window.event;
            if (what == SDL_WINDOWEVENT_MOVED || what == SDL_WINDOWEVENT_DISPLAY_CHANGED ||
                what == SDL_WINDOWEVENT_SHOWN || what == SDL_WINDOWEVENT_RESTORED)
                refresh_due_ = true;
        }
    }

protected:
    explicit Presenter(SDL_Window* window) noexcept : window_(window) {}

    // set(n) asks SDL for interval n and returns what is in effect (n or -1); swap() presents.
    template <class Set, class Swap>
    PresentInfo present_with(FramePacer& pacer, int interval, Set&& set, Swap&& swap,
                             std::uint64_t frame = 0) noexcept {
        if (interval < 0) interval = 0;
        if (interval != requested_) {
            requested_ = interval;
            in_effect_ = set(interval);
        }
        if (refresh_due_ || since_read_ >= kRefreshEvery) {
            refresh_hz_ = override_hz_ > 0 ? override_hz_ : display_refresh_hz(window_);
            refresh_due_ = false;
            since_read_ = 0;
        }
        ++since_read_;
        const clock::time_point begin = pacer.now();
        swap();
        const clock::time_point end = pacer.now();
        last_ = PresentInfo{begin, end, in_effect_, refresh_hz_, true};  // SDL2's presents return nothing
        last_.id = ++presents_;
        last_.frame = frame;
        pacer.report_present(last_);
        return last_;
    }

    SDL_Window* window_;

private:
    int requested_ = -1;
    int in_effect_ = -1;
    double refresh_hz_ = 0;
    double override_hz_ = 0;
    bool refresh_due_ = true;
    int since_read_ = 0;
    std::uint64_t presents_ = 0;
    PresentInfo last_{};
};

// The present calls of GlPresenter and RendererPresenter (CRTP): Derived gives set_interval(n),
// which asks SDL for interval n and returns what is in effect (n or -1), and swap_now(), which
// presents.
template <class Derived>
class PresentMethods : public Presenter {
public:
    // Presents with the interval the pacer asks for.
    PresentInfo present(FramePacer& pacer) noexcept { return present(pacer, pacer.desired_swap_interval()); }
    // Presents with the game's own interval (sleep, spin and hybrid modes; in vsync and auto modes
    // the pacer's choice is the one that works).
    PresentInfo present(FramePacer& pacer, int swap_interval) noexcept {
        return present_frame_with(pacer, swap_interval, 0);
    }
    // From a render thread (GlPresenter: the GL context current there): the present of `frame`
    // (FrameTiming::frame), with the interval the pacer asks for.
    PresentInfo present_frame(FramePacer& pacer, std::uint64_t frame) noexcept {
        return present_frame_with(pacer, pacer.desired_swap_interval(), frame);
    }

protected:
    explicit PresentMethods(SDL_Window* window) noexcept : Presenter(window) {}

private:
    PresentInfo present_frame_with(FramePacer& pacer, int swap_interval, std::uint64_t frame) noexcept {
        Derived& d = static_cast<Derived&>(*this);
        return present_with(
            pacer, swap_interval, [&d](int n) noexcept { return d.set_interval(n); }, [&d]() noexcept { d.swap_now(); },
            frame);
    }
};

}  // namespace detail

// An OpenGL window: SDL_GL_SetSwapInterval + SDL_GL_SwapWindow.
class GlPresenter : public detail::PresentMethods<GlPresenter> {
public:
    explicit GlPresenter(SDL_Window* window) noexcept : PresentMethods(window) {}

private:
    friend class detail::PresentMethods<GlPresenter>;
    static int set_interval(int n) noexcept { return SDL_GL_SetSwapInterval(n) == 0 ? n : -1; }
    void swap_now() noexcept { SDL_GL_SwapWindow(window_); }
};

// An SDL_Renderer: SDL_RenderSetVSync + SDL_RenderPresent.
class RendererPresenter : public detail::PresentMethods<RendererPresenter> {
public:
    // The refresh rate is that of `window`'s display; by default the renderer's own window.
    explicit RendererPresenter(SDL_Renderer* renderer, SDL_Window* window = nullptr) noexcept
        : PresentMethods(window != nullptr ? window : (renderer != nullptr ? SDL_RenderGetWindow(renderer) : nullptr)),
          renderer_(renderer) {}

    // SDL_RenderSetVSync(renderer, n), then what really is in effect: n, or -1 when SDL refused
    // it or only simulates it with a timer (which is then switched off again).
    static int set_vsync(SDL_Renderer* renderer, int n) noexcept {
        if (renderer == nullptr || n < 0 || n > 1) return -1;  // SDL2's renderer knows on and off only
        if (SDL_RenderSetVSync(renderer, n) != 0) return -1;
        SDL_RendererInfo info{};
        if (SDL_GetRendererInfo(renderer, &info) != 0) return -1;
        if (n == 0) return 0;
        bool real = (info.flags & SDL_RENDERER_PRESENTVSYNC) != 0 && (info.flags & SDL_RENDERER_SOFTWARE) == 0;
        if (real && info.name != nullptr && std::strncmp(info.name, "opengl", 6) == 0)
            real = SDL_GL_GetSwapInterval() != 0;  // 1, or -1 for adaptive vsync: the driver took it
        if (real) return 1;
        SDL_RenderSetVSync(renderer, 0);  // no SDL_Delay stand-in for vsync
        return -1;
    }

    SDL_Renderer* renderer() const noexcept { return renderer_; }

private:
    friend class detail::PresentMethods<RendererPresenter>;
    int set_interval(int n) noexcept { return set_vsync(renderer_, n); }
    void swap_now() noexcept { SDL_RenderPresent(renderer_); }

    SDL_Renderer* renderer_;
};

#if defined(__linux__)
namespace detail {

// The remedies request_realtime() and request_high() name when RealtimeKit did not answer yes.
inline constexpr const char* kRealtimeKitRemedy =
    "install and run rtkit-daemon, and allow org.freedesktop.RealtimeKit1 for this user in polkit";
inline constexpr const char* kNoSessionBusRemedy =
    "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS): SDL 2 asks RealtimeKit only with one; start the game in the "
    "desktop session";

// True when this process surely has no D-Bus session bus, where libdbus 1.14 looks for one: no
// DBUS_SESSION_BUS_ADDRESS, no $XDG_RUNTIME_DIR/bus socket (systemd's user bus), and no X display
// it could start one for (autolaunch). SDL 2 then uses no D-Bus at all, the system bus included.
inline bool surely_no_session_bus() noexcept {
    if (std::getenv("DBUS_SESSION_BUS_ADDRESS") != nullptr || std::getenv("DISPLAY") != nullptr) return false;
    const char* run = std::getenv("XDG_RUNTIME_DIR");
    if (run == nullptr) return true;
    char path[256];
    struct stat st {};
    const int n = std::snprintf(path, sizeof path, "%s/bus", run);
    return n > 0 && n < static_cast<int>(sizeof path) && !(stat(path, &st) == 0 && S_ISSOCK(st.st_mode));
}

// An SDL hint set to a value while it lives, then as it was: the game's own value, the
// environment's, or none.
class ScopedHint {
public:
    ScopedHint(const char* name, const char* value) noexcept : name_(name) {
        const char* old = SDL_GetHint(name);
        had_ = old != nullptr;
        if (had_) std::snprintf(old_, sizeof old_, "%s", old);
        const char* env = SDL_getenv(name);
        // The environment's value (or none) comes back with SDL_ResetHint; the game's own, set
        // back at the priority that always takes (it outranked the environment before, too).
        from_env_ = had_ ? env != nullptr && std::strcmp(env, old_) == 0 : env == nullptr;
        SDL_SetHintWithPriority(name, value, SDL_HINT_OVERRIDE);
    }
    ~ScopedHint() {
#if SDL_VERSION_ATLEAST(2, 24, 0)
        if (from_env_) {
            SDL_ResetHint(name_);
            return;
        }
#endif
        SDL_SetHintWithPriority(name_, had_ ? old_ : nullptr, SDL_HINT_OVERRIDE);
    }
    ScopedHint(const ScopedHint&) = delete;
    ScopedHint& operator=(const ScopedHint&) = delete;

private:
    const char* name_;
    char old_[32] = "";
    bool had_ = false;
    bool from_env_ = false;
};

// True when the kernel lets this process lower a thread's nice value to `nice` itself, as
// setpriority() decides it (can_nice): CAP_SYS_NICE in the effective set (root has it), or the
// soft RLIMIT_NICE at 20 - nice or more.
inline bool may_set_nice_itself(int nice) noexcept {
    rlimit rl{};
    if (getrlimit(RLIMIT_NICE, &rl) == 0 &&
        (rl.rlim_cur == RLIM_INFINITY || 20 - nice <= static_cast<long long>(rl.rlim_cur)))
        return true;
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return false;
    char line[256];
    unsigned long long caps = 0;
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::sscanf(line, "CapEff: %llx", &caps) == 1) break;
    std::fclose(f);
    return ((caps >> 23) & 1ULL) != 0;  // CAP_SYS_NICE
}

}  // namespace detail
#endif

// The calling thread made real-time by RealtimeKit through SDL (SDL_Init must have been called):
// granted, with the class in force, or refused with why and the remedy. Manual: "Real-time from
// RealtimeKit" above.
inline PriorityGrant request_realtime() noexcept {
    PriorityGrant g;
#if defined(__linux__)
    int asked;
    char sdl_error[64];  // SDL's text, e.g. "setpriority() failed": the reason keeps room for the remedy
    {
        // For this call only: SDL's audio thread asks TIME_CRITICAL too. The policy hint, in case
        // the game set it to "current" or "other" (SDL then only changes the nice level).
        detail::ScopedHint realtime_hint(SDL_HINT_THREAD_FORCE_REALTIME_TIME_CRITICAL, "1");
        detail::ScopedHint policy_hint(SDL_HINT_THREAD_PRIORITY_POLICY, "rr");
        asked = SDL_SetThreadPriority(SDL_THREAD_PRIORITY_TIME_CRITICAL);
        std::snprintf(sdl_error, sizeof sdl_error, "%s", SDL_GetError());
    }
    const int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
    sched_param param{};
    if ((policy == SCHED_RR || policy == SCHED_FIFO) && sched_getparam(0, &param) == 0) {
        g.granted = true;
        g.level = param.sched_priority;
        const char* name = policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO";
        // SDL 2 has no real-time class of its own on Linux: when its call succeeded, RealtimeKit
        // granted it. Otherwise the thread already ran real-time (raised by someone else).
        const char* by = asked == 0 ? "RealtimeKit, " : "";
        rlimit rt{};
        if (getrlimit(RLIMIT_RTTIME, &rt) == 0 && rt.rlim_cur != RLIM_INFINITY)
            std::snprintf(g.in_force, sizeof g.in_force, "%s %d (%sRLIMIT_RTTIME %lld ms)", name, g.level, by,
                          static_cast<long long>(rt.rlim_cur / 1000));
        else if (asked == 0)
            std::snprintf(g.in_force, sizeof g.in_force, "%s %d (RealtimeKit)", name, g.level);
        else
            std::snprintf(g.in_force, sizeof g.in_force, "%s %d", name, g.level);
        return g;
    }
    const char* remedy = detail::kRealtimeKitRemedy;
    if (probe_priority().granted)  // raises and puts back: may this process do it itself?
        remedy = "this process may raise itself: ThreadPriority::wait or thread need no RealtimeKit";
    else if (detail::surely_no_session_bus())
        remedy = detail::kNoSessionBusRemedy;
    if (asked == 0)
        std::snprintf(g.reason, sizeof g.reason, "SCHED_RR not granted (SDL said yes, the thread is not real-time); %s",
                      remedy);
    else
        std::snprintf(g.reason, sizeof g.reason, "SCHED_RR not granted (SDL: %s); %s", sdl_error, remedy);
#else
    std::snprintf(g.reason, sizeof g.reason, "RealtimeKit is Linux only");
#endif
    return g;
}

#if defined(__linux__)
namespace detail {

// request_high's first step: the thread as it is. True when it is decided already: kept (real-time,
// or at nice <= the asked value: nothing asked, like ThreadPriority::automatic) or unusable.
inline bool weight_decided_before_asking(int nice, id_t tid, int* policy, int* old_nice, PriorityGrant& g) noexcept {
    if (nice < -20 || nice > -1) {
        std::snprintf(g.reason, sizeof g.reason, "nice %d not asked: the weight is a nice value in [-20, -1]", nice);
        return true;
    }
    *policy = sched_getscheduler(0);  // with SCHED_RESET_ON_FORK when it is set
    const int base = *policy & ~SCHED_RESET_ON_FORK;
    if (*policy >= 0) errno = 0;  // getpriority() may return -1 as a nice value: errno tells
    *old_nice = *policy < 0 ? 0 : getpriority(PRIO_PROCESS, tid);
    if (*policy < 0 || (*old_nice == -1 && errno != 0)) {
        std::snprintf(g.reason, sizeof g.reason, "nice %d not asked: the thread's class could not be read (%s)", nice,
                      std::strerror(errno));
        return true;
    }
    if (base == SCHED_FIFO || base == SCHED_RR || *old_nice <= nice) {
        // Real-time already (RealtimeKit would put it back to SCHED_OTHER), or as low already.
        g.granted = true;
        g.level = *old_nice;
        if (base == SCHED_FIFO || base == SCHED_RR)
            std::snprintf(g.in_force, sizeof g.in_force, "%s (the thread's own, kept)",
                          base == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR");
        else
            std::snprintf(g.in_force, sizeof g.in_force, "nice %d (the thread's own, kept)", *old_nice);
        return true;
    }
    if (base != SCHED_OTHER && base != SCHED_BATCH) {
        std::snprintf(g.reason, sizeof g.reason, "nice %d not asked: the thread's class is SCHED_IDLE or a deadline "
                      "class, the host's choice", nice);
        return true;
    }
    return false;
}

// The nice value went down to now: pacer's rule is that a child process never inherits a negative
// nice value. RealtimeKit sets SCHED_RESET_ON_FORK with its grant; SDL's own setpriority() does
// not: set it here (any thread may set it, only a privileged one clear it). Who granted it:
// RealtimeKit set the flag, SDL's setpriority() did not; the guess (itself) where the thread had
// the flag before.
inline void seal_weight(PriorityGrant& g, id_t tid, int old_nice, int now, bool flag_before, bool itself) noexcept {
    const int after = sched_getscheduler(0);
    const bool by_setpriority = !flag_before && after >= 0 ? (after & SCHED_RESET_ON_FORK) == 0 : itself;
    sched_param zero{};
    if (after >= 0 && (after & SCHED_RESET_ON_FORK) == 0 &&
        sched_setscheduler(0, after | SCHED_RESET_ON_FORK, &zero) != 0) {
        const int err = errno;
        setpriority(PRIO_PROCESS, tid, old_nice);  // a higher nice value is always allowed
        std::snprintf(g.reason, sizeof g.reason,
                      "nice %d given back: SCHED_RESET_ON_FORK could not be set (%s), and a child process "
                      "would inherit it",
                      now, std::strerror(err));
        return;
    }
    g.granted = true;
    g.level = now;
    std::snprintf(g.in_force, sizeof g.in_force, "nice %d (%s)", now, by_setpriority ? "setpriority" : "RealtimeKit");
    g.saved[0] = tid;
    g.saved[1] = old_nice;
}

}  // namespace detail
#endif

// The calling thread's weight, a nice value below its own, through SDL: setpriority() where the
// process may, else RealtimeKit (SDL_Init must have been called). Granted, with the nice value in
// force, or refused with why and the remedy. Manual: "The weight from RealtimeKit" above.
inline PriorityGrant request_high(int nice = -15) noexcept {
    PriorityGrant g;
#if defined(__linux__)
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    int policy = -1, old_nice = 0;
    if (detail::weight_decided_before_asking(nice, tid, &policy, &old_nice, g)) return g;
    const bool flag_before = (policy & SCHED_RESET_ON_FORK) != 0;
    // SDL tries setpriority() first (it succeeds where the kernel lets the process do it), then
    // RealtimeKit: what the process may is a guess at who granted it, read before the call.
    const bool itself = detail::may_set_nice_itself(nice);
    const int asked = SDL_LinuxSetThreadPriority(static_cast<Sint64>(tid), nice);
    char sdl_error[64];
    std::snprintf(sdl_error, sizeof sdl_error, "%s", SDL_GetError());
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, tid);
    if (now < old_nice && errno == 0) {
        detail::seal_weight(g, tid, old_nice, now, flag_before, itself);
        return g;
    }
    const char* remedy = detail::kRealtimeKitRemedy;
    if (itself)
        remedy = "setpriority() refused it although the process may (CAP_SYS_NICE or RLIMIT_NICE); a security "
                 "module?";
    else if (detail::surely_no_session_bus())
        remedy = detail::kNoSessionBusRemedy;
    if (asked == 0)
        std::snprintf(g.reason, sizeof g.reason, "nice %d not granted (SDL said yes, the thread reads nice %d); %s",
                      nice, now, remedy);
    else
        std::snprintf(g.reason, sizeof g.reason, "nice %d not granted (SDL: %s); %s", nice, sdl_error, remedy);
#else
    (void)nice;
    std::snprintf(g.reason, sizeof g.reason, "RealtimeKit is Linux only");
#endif
    return g;
}

}  // namespace pacer::sdl2
