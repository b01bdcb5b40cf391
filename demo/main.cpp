// pacer_demo - watch and tune pacer::FramePacer: live frame-time graph, histograms, percentiles,
// CPU cost and controls (SDL2 + Dear ImGui), or the same loop headless. See demo/README.md.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "headless.hpp"
#include "options.hpp"
#include "pacer/spdlog.hpp"
#include "window.hpp"

namespace {
bool has_env(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
}
}  // namespace

int main(int argc, char** argv) {
    pacer_demo::Options o;
    const pacer_demo::ParseResult r = pacer_demo::parse_options(argc, argv, &o);
    if (r.exit) {
        std::fputs(r.message.c_str(), r.exit_code == 0 ? stdout : stderr);
        if (r.exit_code != 0) std::fputc('\n', stderr);
        return r.exit_code;
    }
#if defined(__GLIBC__)
    // Keep freed heap memory instead of returning it to the OS at once. Mesa's software
    // rasteriser (Xvfb, no GPU) copies each frame's vertex buffers into fresh allocations; with
    // glibc's default 128 KiB trim threshold the heap shrank and grew every frame and the page
    // faults cost about 1-2 ms of CPU per frame, more than the whole UI (measured with perf under
    // Xvfb, see demo/README.md). 64 MiB of slack is nothing for a game.
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
    // One stderr logger for the demo's notices and pacer's own events; stdout stays for the
    // status and summary lines that scripts read.
    auto log = spdlog::stderr_color_mt("pacer_demo");
    log->set_pattern("[%n] %^%l%$: %v");
    spdlog::set_default_logger(log);
    pacer::log_to_spdlog(log);
    // The demo shows what the pacer decides (rate changes, each vsync decision): a library user
    // gets warnings only unless they ask for more.
    pacer::set_log_level(pacer::LogLevel::info);

    try {
        if (!o.headless) {
            std::string why;
            int code = pacer_demo::kNoDisplay;
#if defined(__linux__)
            // Nothing to show a window on: do not even ask SDL (whose Wayland probe prints noise).
            if (!has_env("DISPLAY") && !has_env("WAYLAND_DISPLAY") && !has_env("SDL_VIDEODRIVER"))
                why = "DISPLAY and WAYLAND_DISPLAY are not set";
            else
#endif
                code = pacer_demo::run_window(o, &why);
            if (code != pacer_demo::kNoDisplay) return code;
            spdlog::warn("no display ({}): running headless", why);
            if (!o.screenshot.empty()) {
                spdlog::error("--screenshot needs a window; none will be written");
                const int headless_code = pacer_demo::run_headless(o);
                return headless_code != 0 ? headless_code : 1;
            }
        }
        return pacer_demo::run_headless(o);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return 1;
    }
}
