// pacer::sdl2 as a game uses it (pacer/sdl2.hpp), compiled with the host's strict flags as C++17
// and C++20. Compiled only: running it takes a window (tests/sdl2/ runs it under Xvfb).
#include <pacer/sdl2.hpp>
#include <pacer/sdl2.hpp>  // a second inclusion is a no-op

#include <pacer/pacer.hpp>

// The README's three lines, for an SDL_Renderer game and for an OpenGL one.
void renderer_frame(pacer::FramePacer& pacer, pacer::sdl2::RendererPresenter& present, SDL_Renderer* renderer) {
    pacer.wait();
    SDL_RenderClear(renderer);
    present.present(pacer);
}

void gl_frame(pacer::FramePacer& pacer, pacer::sdl2::GlPresenter& present, const SDL_Event& event) {
    present.handle_event(event);
    pacer.wait();
    const pacer::PresentInfo info = present.present(pacer, 1);  // the game's own interval
    (void)info;
}

double refresh_of(SDL_Window* window) { return pacer::sdl2::display_refresh_hz(window); }

// RealtimeKit through SDL, on the pacing thread before pacing: a real-time class, or the weight.
bool raise_pacing_thread(bool realtime) {
    const pacer::PriorityGrant g = realtime ? pacer::sdl2::request_realtime() : pacer::sdl2::request_high();
    return g.granted;
}
