// libpacer_gl_pacing.so: the GL interposer's pacing, loaded by the shim (shim.c) at the first swap
// (interface.h). The Vulkan layer's settings and behaviour (inject/settings.hpp), for a swap
// instead of a present:
//   PACER_PLACEMENT=before (the default): the wait sits just before the swap
//       (SyncMode::present); after: the wait follows the swap, the next frame starts on the grid
//       (SyncMode::frame_start);
//   the swap timed around its call and reported to the pacer with the interval the game set
//       (the vsync hand-off: where vsync holds the rate, the swap paces and the pacer does not
//       wait on top of it);
//   one window paced: the first one swapped, or another once the first has not been swapped for
//       half a second (a game with a second window swaps both in a frame; it is paced once);
//   a capture per process (PACER_CAPTURE), closed at exit, at SIGTERM and SIGINT (inject/stop.hpp).
// Every entry catches what it could throw: the game is never taken down by its pacer.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "interface.h"
#include "pacer/capture.hpp"
#include "pacer/config.hpp"
#include "pacer/frame_pacer.hpp"
#include "frames.hpp"
#include "stop.hpp"

extern char* program_invocation_short_name;  // glibc: the program's name, for the capture

namespace pacer_gl {
namespace {

using pacer_layer::Settings;

void log_line(pacer::LogLevel level, const char* message, void*) noexcept {
    std::fprintf(stderr, "pacer gl: %s: %s\n", pacer::to_string(level), message);
}

struct Gl {
    Settings settings;
    pacer::PacerConfig config;
    bool on = false;  // settings read and the pacer made

    std::mutex window_m;  // which window is paced
    std::uintptr_t window = 0;
    pacer::clock::time_point window_seen{};

    // The presenting thread's (the paced window's swaps come from one thread at a time).
    std::unique_ptr<pacer::FramePacer> fp;
    std::thread::id thread{};
    pacer::FrameTiming timing{};
    bool has_timing = false;
    std::uint64_t frames = 0;
    pacer::clock::time_point last_begin{}, begin{};

    std::mutex capture_m;  // the presenting thread, and the stop thread
    pacer::CaptureWriter capture;
    bool capturing = false;
    pacer_layer::StopSignals stop;  // last: stopped before what it closes goes
};

Gl& gl() {
    static Gl g;
    return g;
}

void close_capture() {
    Gl& g = gl();
    std::lock_guard<std::mutex> lock(g.capture_m);
    if (!g.capturing) return;
    g.capturing = false;
    (void)g.capture.close();
}

// At exit the capture is closed before the statics go (the sidecar is written then).
void at_exit() { close_capture(); }

void start() {
    Gl& g = gl();
    g.settings = pacer_layer::read_settings([](const char* name) -> const char* { return std::getenv(name); });
    pacer::set_log_function(&log_line);
    pacer::set_log_level(g.settings.log);
    if (!g.settings.on) {
        if (g.settings.log <= pacer::LogLevel::error) std::fprintf(stderr, "pacer gl: error: %s\n", g.settings.error.c_str());
        return;
    }
    const Settings& s = g.settings;
    const pacer::PacerConfig& c = g.config = pacer_layer::pacer_config(s);
    try {
        g.fp = std::make_unique<pacer::FramePacer>(c);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pacer gl: error: %s; the program runs unpaced\n", e.what());
        return;
    }
    const char* app = program_invocation_short_name != nullptr ? program_invocation_short_name : "gl";
    if (!s.capture.empty()) {
        pacer::CaptureOptions o;
        o.application = app;
        o.runtime = "OpenGL";
        if (s.hz > 0) o.config = c;
        const pacer::Status st = g.capture.open(s.capture, o);
        if (!st) {
            std::fprintf(stderr, "pacer gl: error: PACER_CAPTURE=\"%s\": %s; the program runs unpaced\n",
                         s.capture.c_str(), st.message().c_str());
            return;
        }
        g.capturing = true;
        std::atexit(&at_exit);
        g.stop.watch(&close_capture);
    }
    pacer_layer::say_started("pacer gl", s, app, g.capturing ? s.capture : std::string());
    g.on = true;
}

bool started() {
    static std::once_flag once;
    std::call_once(once, [] {
        try {
            start();
        } catch (const std::exception&) {
        }
    });
    return gl().on;
}

// Whether this swap's window is the paced one.
bool paced_window(Gl& g, std::uintptr_t window, pacer::clock::time_point now) {
    std::lock_guard<std::mutex> lock(g.window_m);
    using namespace std::chrono_literals;
    if (g.window == 0 || g.window == window || now - g.window_seen > 500ms) {
        g.window = window;
        g.window_seen = now;
        return true;
    }
    return false;
}

// The pacer belongs to the thread that swaps: another thread gets a new one with the same
// settings (as in the Vulkan layer, swapchain.cpp).
void take_thread(Gl& g) {
    const std::thread::id me = std::this_thread::get_id();
    if (g.thread == me) return;
    if (g.thread != std::thread::id{}) {
        g.fp = std::make_unique<pacer::FramePacer>(g.config);
        g.has_timing = false;
    }
    g.thread = me;
}

int before(const pacer_gl_swap* swap) {
    try {
        if (!started()) return 0;
        Gl& g = gl();
        if (!paced_window(g, swap->drawable, pacer::clock::now())) return 0;
        take_thread(g);
        if (g.settings.hz > 0 && g.settings.before) {
            g.timing = g.fp->wait();  // present sync: returns at once, before_present() waits
            g.fp->before_present();
            g.has_timing = true;
        }
        g.begin = g.fp->now();
        return 1;
    } catch (const std::exception&) {
        return 0;
    }
}

void after(const pacer_gl_swap* swap, int paced, int ok) {
    if (paced == 0) return;
    try {
        Gl& g = gl();
        pacer::PresentInfo p;
        p.begin = g.begin;
        p.end = g.fp->now();
        p.swap_interval = swap->swap_interval;
        p.ok = ok != 0;
        g.fp->report_present(p);
        {
            std::lock_guard<std::mutex> lock(g.capture_m);
            if (g.capturing)
                pacer_layer::capture_row(g.capture, g.settings, p, g.has_timing ? &g.timing : nullptr, g.frames,
                                         g.last_begin);
        }
        g.has_timing = false;
        ++g.frames;
        g.last_begin = p.begin;
        if (g.settings.hz > 0 && !g.settings.before) {  // the next frame starts on the grid
            g.timing = g.fp->wait();
            g.has_timing = true;
        }
    } catch (const std::exception&) {
    }
}

const pacer_gl_pacing kPacing{1, &before, &after};

}  // namespace
}  // namespace pacer_gl

extern "C" __attribute__((visibility("default"))) const pacer_gl_pacing* pacer_gl_pacing_v1() {
    return &pacer_gl::kPacing;
}
