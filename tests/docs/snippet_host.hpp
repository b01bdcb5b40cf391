// The host the documentation's C++ examples are written into (tests/docs/snippets.py): every name
// an example takes from its game, engine or window system, declared here and nowhere else.
// Everything else an example names must be pacer's own, from the installed headers. The examples
// are compiled, not run: declarations are enough.
//
// A name belongs here when a reader of the example sees at once that it is the game's (its loop
// condition, its update and draw, its swap and what the swap reported). Never pacer's own names,
// and never `pacer`: that is the namespace, and an example that calls `pacer.wait()` must fail.
#pragma once

#include <pacer/pacer.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

// ---- The FramePacer of the examples: README.md's first example names it fp ----------------------
extern pacer::FramePacer fp;

// ---- The game's loop ----------------------------------------------------------------------------
extern bool running;
void read_input();
void update();                              // one fixed tick
void update(double dt_seconds);
void update(std::chrono::nanoseconds dt);
void render();
void render(double alpha);                  // interpolated between the last two simulated states
void update_and_render();
void draw_and_present();
void swap();                                // the host's present (swap call)
void swap_buffers();
void swap_and_report_present();
// An engine with a render thread: the game thread hands each simulated frame over.
void hand_to_render_thread(std::uint64_t frame);
std::uint64_t next_frame_to_render();       // blocks until a frame is handed over

// The simulated world of the fixed-step examples.
struct State {};
State lerp(const State& a, const State& b, double alpha);
void render(const State& state);
struct World {
    State previous, current;
    void step(double seconds);
};
extern World world;

// The engine's log and menus.
void log(const std::string& message);
struct Engine {
    void log(bool warning, const char* message);
};
extern Engine engine;
void add_menu_item(const char* name, pacer::WaitMode value);

// ---- What the host's present said ---------------------------------------------------------------
extern int in_effect;                       // the swap interval in effect (-1: refused)
extern int swap_interval;                   // the same, as docs/capture.md names it
extern int swap_interval_in_effect;         // the same, as pacer/present.hpp names it
extern double refresh_hz;                   // the display's refresh rate, 0 unknown
extern pacer::clock::time_point shown_at;   // a presentation-feedback API's displayed time
extern pacer::PresentInfo present;          // one present, as reported

// ---- The times and facts a caller of the pure-logic parts hands them ----------------------------
extern pacer::clock::time_point now, wake, deadline, next_deadline, next_wake;
extern pacer::clock::time_point displayed_time, predicted_shown, present_begin, present_end;
extern pacer::clock::time_point present_call, wake_target;
extern std::chrono::nanoseconds period, lead, lead_used, oversleep, half_refresh, miss_tolerance;
extern bool shown_late, vsync_in_use, verified;
extern pacer::Vblanks vblanks;              // where the caller believes the vblanks are
extern pacer::DisplayTracker tracker;
void wake_at(pacer::clock::time_point t);   // the caller's own sleep
void wait_until(pacer::clock::time_point t);

// ---- wp_presentation's presented event (pacer/clock_offset.hpp, pacer/present.hpp) --------------
extern std::int64_t sec, nsec;              // its time on the compositor's clock
extern std::uint64_t commit_serial;         // the host's id of the commit it is for
extern std::uint32_t kind;                  // its flags
extern std::chrono::nanoseconds presented_raw;
extern pacer::ClockOffset clock_offset;

// ---- Window systems, in the examples that use them ----------------------------------------------
#ifdef PACER_SNIPPETS_SDL2
#include <SDL.h>
#include <pacer/sdl2.hpp>
extern SDL_Window* window;
extern SDL_Renderer* renderer;
void draw(SDL_Renderer* renderer);
#endif

#ifdef PACER_SNIPPETS_SPDLOG
#include <pacer/spdlog.hpp>
#endif

#ifdef PACER_SNIPPETS_X11_PRESENT
#include <pacer/x11_present.hpp>
extern xcb_window_t xid;                    // the window's X11 id (SDL_GetWindowWMInfo)
#endif

#ifdef PACER_SNIPPETS_VULKAN
#include <pacer/vulkan.hpp>
extern VkDevice device;
extern VkSwapchainKHR swapchain;
extern VkQueue queue;
extern VkPresentInfoKHR present_info;        // the game's present of its swapchain
void record_and_submit();
void recreate_swapchain();
#endif

#ifdef PACER_SNIPPETS_WAYLAND
#include <SDL_syswm.h>
#include <pacer/wayland_presentation.hpp>
extern SDL_SysWMinfo info;                  // SDL_GetWindowWMInfo of the game's window
extern pacer::sdl2::GlPresenter presenter;
#endif
