// demo/options.hpp - the demo's command line: parsed strictly, checked against the library's rules.
//
//   pacer_demo::Options o;
//   pacer_demo::ParseResult r = pacer_demo::parse_options(argc, argv, &o);
//   if (r.exit) return r.exit_code;          // --help (0) or a bad option (2, message in r.message)
//
// The parser is the `pacer` tool's (cli/cli_options.hpp): numbers must parse as a whole ("60x", "",
// "1e999" and "nan" are refused). Ranges come from pacer::validate() where the library has a rule
// (rate, simulation rate), from the demo otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "cli_options.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/vsync.hpp"
#include "pacer/waiter.hpp"

namespace pacer_demo {

inline constexpr int kMaxLoadThreads = 64;       // background busy threads
inline constexpr double kMaxWorkMs = 1000.0;     // simulated work per frame
inline constexpr double kDefaultHeadlessSeconds = 10.0;

struct Options {
    double hz = 60.0;
    pacer::WaitMode mode = pacer::WaitMode::hybrid;
    pacer::LatePolicy policy = pacer::LatePolicy::catch_up;
    pacer::SyncMode sync = pacer::SyncMode::frame_start;  // where the frame waits
    double max_late_share = 0.01;  // just_in_time: share of frames allowed to be shown late
    bool display_lock = true;    // place waits against the fitted vblanks (PacerConfig::display_lock)
    bool match_display = false;  // target = the display's refresh once known
    std::string vblank_source = "auto";  // auto, x11-present, wayland, swap, none (vblank_source.hpp)
    pacer::CadenceMode cadence = pacer::CadenceMode::fixed;  // the cadence governor
    pacer::ThreadPriority priority = pacer::ThreadPriority::automatic;  // the pacing thread's class
    double seconds = 0.0;        // 0 = no time bound (headless: kDefaultHeadlessSeconds if no bound)
    std::uint64_t frames = 0;    // 0 = no frame bound
    int load = 0;                // background busy threads
    double work_ms = 1.0;        // simulated work per frame: mean ...
    double work_jitter_ms = 0.5; // ... +- uniform jitter
    bool vsync = false;          // sleep/spin/hybrid: ask for swap interval 1
    bool render_thread = false;  // draw and present on a render thread (render_thread.hpp)
    double refresh_hz = 0;       // display refresh override; 0 = what SDL reports
    double fake_vsync_hz = 0;    // > 0: the swap blocks on a steady clock of this rate (presenter.hpp)
    double sim_hz = 60.0;
    int coarse_ms = 0;           // fake coarse scheduler period; 0 = real OS sleep
    bool headless = false;
    std::string screenshot;      // PNG path; empty = none
    std::string capture;         // frame-time capture path (CSV); empty = none
    std::string replay;          // capture file to show instead of the live frames; empty = none
    std::uint64_t screenshot_frame = 120;
};

struct ParseResult {
    bool exit = false;     // true: stop now with exit_code
    int exit_code = 0;
    std::string message;   // for stderr (error) or stdout (help)
};

ParseResult parse_options(int argc, const char* const* argv, Options* out);
std::string usage();

using pacer::cli::path_writable;  // cli/cli_options.hpp

}  // namespace pacer_demo
