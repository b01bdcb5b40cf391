// `pacer display --source wayland|swap`: an SDL2 window presented at --hz through pacer/sdl2.hpp;
// wayland: each commit's wp_presentation feedback (pacer/wayland_presentation.hpp); swap: the
// swap's own return, vsync asked for (the pacer's vsync mode).
#include <chrono>
#include <string>

#include "display_report.hpp"

#if defined(PACER_TOOLS_HAVE_SDL2)
#include <SDL.h>
#include <SDL_syswm.h>

#include <optional>

#include "pacer/sdl2.hpp"
#if defined(PACER_TOOLS_HAVE_WAYLAND)
#include "pacer/wayland_presentation.hpp"
#endif
#endif

namespace pacer::tools {

#if !defined(PACER_TOOLS_HAVE_SDL2)

bool run_sdl_source(const DisplayCmdOptions& o, DisplayCmdResult*, std::string* error) {
    *error = o.source + ": this pacer was built without SDL2";
    return false;
}

#else

namespace {

// SDL2 and its window, closed in reverse.
struct Window {
    SDL_Window* window = nullptr;
    SDL_Renderer* renderer = nullptr;
    ~Window() {
        if (renderer != nullptr) SDL_DestroyRenderer(renderer);
        if (window != nullptr) SDL_DestroyWindow(window);
        SDL_Quit();
    }
};

bool open_window(const DisplayCmdOptions& o, Window* w, std::string* error) {
    if (o.source == "wayland") SDL_SetHint(SDL_HINT_VIDEODRIVER, "wayland");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        *error = o.source + ": no display: " + SDL_GetError();
        return false;
    }
    // No display clock to read, even when asked for by name.
    if (sdl2::video_driver_shows_nothing()) {
        *error = o.source + ": no display: SDL's video driver is " + SDL_GetCurrentVideoDriver() +
                 ", which shows nothing (is DISPLAY or WAYLAND_DISPLAY set?)";
        return false;
    }
    w->window = SDL_CreateWindow("pacer display", 0, 0, 160, 160, SDL_WINDOW_SHOWN);
    if (w->window != nullptr) w->renderer = SDL_CreateRenderer(w->window, -1, 0);
    if (w->renderer == nullptr) {
        *error = o.source + ": cannot open a window: " + SDL_GetError();
        return false;
    }
    return true;
}

#if defined(PACER_TOOLS_HAVE_WAYLAND)
// Feedback on the window's wl_surface; false (and the reason) when it is no Wayland surface or
// the compositor offers no wp_presentation.
bool wayland_feedback(SDL_Window* w, std::optional<wayland::PresentationFeedback>* f, std::string* error) {
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(w, &info) || info.subsystem != SDL_SYSWM_WAYLAND) {
        *error = "wayland: the window is not a Wayland surface (is WAYLAND_DISPLAY set?)";
        return false;
    }
    f->emplace(info.info.wl.display, info.info.wl.surface);
    if (!(*f)->ok()) *error = std::string("wayland: ") + (*f)->error();
    return (*f)->ok();
}
#endif

}  // namespace

bool run_sdl_source(const DisplayCmdOptions& o, DisplayCmdResult* r, std::string* error) {
    Window w;
    if (!open_window(o, &w, error)) return false;
    PacerConfig c;
    c.target_hz = o.hz;
    c.mode = o.source == "swap" ? WaitMode::vsync : WaitMode::hybrid;
    c.match_display = o.match_display;
    FramePacer pacer(c);
    sdl2::RendererPresenter presenter(w.renderer);
#if defined(PACER_TOOLS_HAVE_WAYLAND)
    std::optional<wayland::PresentationFeedback> feedback;
    if (o.source == "wayland" && !wayland_feedback(w.window, &feedback, error)) return false;
#else
    if (o.source == "wayland") {
        *error = "wayland: this pacer was built without libwayland-client and wayland-protocols";
        return false;
    }
#endif
    const clock::time_point start = clock::now();
    const clock::time_point end = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(o.seconds));
    std::uint8_t shade = 0;
    while (clock::now() < end) {
        (void)pacer.wait();
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) presenter.handle_event(ev);
        SDL_SetRenderDrawColor(w.renderer, shade, 64, 128, 255);
        shade = static_cast<std::uint8_t>(shade + 3);
        SDL_RenderClear(w.renderer);
#if defined(PACER_TOOLS_HAVE_WAYLAND)
        if (feedback) feedback->request(presenter.next_id());
#endif
        presenter.present(pacer);
#if defined(PACER_TOOLS_HAVE_WAYLAND)
        if (feedback)
            feedback->poll(pacer, [&](const wayland::PresentationEvent& e) {
                if (e.presented) r->vblanks.vblank(e.seq != 0, e.seq, e.time, pacer.status());
            });
#endif
    }
    r->seconds = std::chrono::duration<double>(clock::now() - start).count();
    r->status = pacer.status();
    return true;
}

#endif

}  // namespace pacer::tools
