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
//     timer instead (SDL_Delay; at 60 Hz presents came 15.4 and 16.4 ms apart, alternating, under
//     Xvfb: not the display's vblank). RendererPresenter checks what it can: the software
//     renderer has no vsync, and an OpenGL renderer's interval is read back with
//     SDL_GL_GetSwapInterval() (the renderer's context must be current, as it is unless the game
//     made another one current). When the back-end did not take it, it switches SDL's stand-in
//     off again and reports -1, so the pacer's own wait paces instead of a timer that pretends to
//     be vsync. Other back-ends (Direct3D, Metal) are taken at SDL's word; the pacer's evidence
//     decides in any case.
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
// Header-only on purpose: it compiles in the game's own build against the game's own SDL2, so the
// pacer library never depends on SDL. Requires SDL 2.0.18 or later (SDL_RenderSetVSync).
#pragma once

#include <cstdint>
#include <cstring>

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
    PresentInfo present_with(FramePacer& pacer, int interval, Set&& set, Swap&& swap) noexcept {
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

}  // namespace detail

// An OpenGL window: SDL_GL_SetSwapInterval + SDL_GL_SwapWindow.
class GlPresenter : public detail::Presenter {
public:
    explicit GlPresenter(SDL_Window* window) noexcept : Presenter(window) {}

    // Presents with the interval the pacer asks for.
    PresentInfo present(FramePacer& pacer) noexcept { return present(pacer, pacer.desired_swap_interval()); }
    // Presents with the game's own interval (sleep, spin and hybrid modes; in vsync and auto modes
    // the pacer's choice is the one that works).
    PresentInfo present(FramePacer& pacer, int swap_interval) noexcept {
        SDL_Window* w = window_;
        return present_with(
            pacer, swap_interval, [](int n) noexcept { return SDL_GL_SetSwapInterval(n) == 0 ? n : -1; },
            [w]() noexcept { SDL_GL_SwapWindow(w); });
    }
};

// An SDL_Renderer: SDL_RenderSetVSync + SDL_RenderPresent.
class RendererPresenter : public detail::Presenter {
public:
    // The refresh rate is that of `window`'s display; by default the renderer's own window.
    explicit RendererPresenter(SDL_Renderer* renderer, SDL_Window* window = nullptr) noexcept
        : Presenter(window != nullptr ? window : (renderer != nullptr ? SDL_RenderGetWindow(renderer) : nullptr)),
          renderer_(renderer) {}

    PresentInfo present(FramePacer& pacer) noexcept { return present(pacer, pacer.desired_swap_interval()); }
    PresentInfo present(FramePacer& pacer, int swap_interval) noexcept {
        SDL_Renderer* r = renderer_;
        return present_with(
            pacer, swap_interval, [r](int n) noexcept { return set_vsync(r, n); },
            [r]() noexcept { SDL_RenderPresent(r); });
    }

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
    SDL_Renderer* renderer_;
};

}  // namespace pacer::sdl2
