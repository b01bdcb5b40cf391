#include "options.hpp"

#include <cstdio>
#include <limits>
#include <string_view>

#include "cli_options.hpp"
#include "pacer/fixed_step.hpp"
#include "session.hpp"

namespace pacer_demo {

namespace {

pacer::Status check_rate(double hz) {
    pacer::PacerConfig c;
    c.target_hz = hz;
    return pacer::validate(c);
}

pacer::Status check_sim_rate(double hz) {
    return pacer::validate(sim_config(hz, 8, std::chrono::nanoseconds(0)));
}

pacer::Status check_refresh(double hz) {
    if (hz == 0 || (hz >= pacer::kMinRefreshHz && hz <= pacer::kMaxRefreshHz)) return {};
    return pacer::Status::error(pacer::cli::format_number(hz) + " is neither 0 nor in [" +
                                pacer::cli::format_number(pacer::kMinRefreshHz) + ", " +
                                pacer::cli::format_number(pacer::kMaxRefreshHz) + "]");
}

pacer::Status take_path(std::string_view v, std::string* out) {
    std::string why;
    if (!path_writable(std::string(v), &why))
        return pacer::Status::error(pacer::cli::quoted(v) + ": cannot write there: " + why);
    *out = std::string(v);
    return {};
}

// The rows of make_parser(), in the order of the usage: what the pacer does ...
void add_pacing_options(pacer::cli::Parser& p, Options* o) {
    using pacer::cli::format_number;
    p.number("--hz", "RATE", "target frame rate", &o->hz, pacer::cli::kNoLow, pacer::cli::kNoHigh, check_rate)
        .range = "in (0, " + format_number(pacer::kMaxTargetHz) + "]";
    p.choice("--mode", "wait mode; vsync: the swap paces; auto: vsync when verified, else hybrid", &o->mode,
             pacer::cli::names_of(pacer::kWaitModeNames));
    p.choice("--policy", "late-frame policy", &o->policy,
             pacer::cli::names_of(pacer::kLatePolicyNames));
    p.choice("--sync", "where the frame waits: frame_start (on the grid), present (just\n"
             "before the present: flat presents), just_in_time (late as the learned work allows)",
             &o->sync, pacer::cli::names_of(pacer::kSyncModeNames));
    p.number("--max-late-share", "X", "just_in_time: share of frames allowed to be shown late", &o->max_late_share,
             0.001, 0.5);  // pacer::validate's range
    p.choice("--display-lock", "place the waits against the fitted vblanks (from the presents or the vblank source)", &o->display_lock,
             {{"on", true}, {"off", false}});
    p.flag("--match-display", "target rate = the display's refresh once it is known", &o->match_display);
    p.choice("--cadence", "auto: the highest whole divisor of the refresh the work sustains", &o->cadence,
             pacer::cli::names_of(pacer::kCadenceModeNames));
    p.choice("--priority", "the pacing thread's scheduling class: automatic (the default: the strongest\n"
             "safe lever granted here, a real-time class or a weight), high (a weight), wait\n"
             "(real-time for each wait), thread (real-time for good), normal (never changed); what\n"
             "was granted, the lever and by whom are shown (pacer/priority.hpp)",
             &o->priority, pacer::cli::names_of(pacer::kThreadPriorityNames));
}

// ... how long the loop runs and what it carries ...
void add_load_options(pacer::cli::Parser& p, Options* o) {
    constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();
    p.number("--seconds", "S", "stop after S seconds (0 = no bound)", &o->seconds, 0.0, 1e6).default_text =
        "window 0, headless " + pacer::cli::format_number(kDefaultHeadlessSeconds);
    p.number("--frames", "N", "stop after N frames (0 = no bound)", &o->frames, std::uint64_t{0}, kNoEnd);
    p.number("--load", "N", "background busy threads", &o->load, 0, kMaxLoadThreads);
    p.number("--work-ms", "MS", "simulated work per frame (busy spin)", &o->work_ms, 0.0, kMaxWorkMs);
    p.number("--work-jitter-ms", "MS", "+- uniform jitter of the work", &o->work_jitter_ms, 0.0, kMaxWorkMs);
}

// ... the display, the simulation and the scheduler ...
void add_display_options(pacer::cli::Parser& p, Options* o) {
    using pacer::cli::format_number;
    p.choice("--vsync", "request vsync in sleep/spin/hybrid modes; vsync and auto\n"
             "modes set the swap interval themselves", &o->vsync, {{"on", true}, {"off", false}});
    p.number("--refresh-hz", "RATE", "display refresh rate when the display cannot tell (Xvfb);\n"
             "0 asks the display", &o->refresh_hz, pacer::cli::kNoLow, pacer::cli::kNoHigh, check_refresh)
        .range = "0 or in [" + format_number(pacer::kMinRefreshHz) + ", " +
                 format_number(pacer::kMaxRefreshHz) + "]";
    p.choice("--vblank-source", "where the display's vblanks come from: auto (what the window\n"
             "system offers), x11-present, wayland (wp_presentation), swap (the swap's return), none",
             &o->vblank_source, {{"auto", std::string("auto")}, {"x11-present", std::string("x11-present")},
                                 {"wayland", std::string("wayland")}, {"swap", std::string("swap")},
                                 {"none", std::string("none")}});
    p.flag("--render-thread", "draw and present on a second thread, a frame behind the pacing\n"
           "thread, as an engine's render thread (window; headless with --fake-vsync)", &o->render_thread);
    p.number("--fake-vsync", "HZ", "a stand-in vsync'd display: the swap blocks until the next tick\n"
             "of a steady HZ clock (window and headless)", &o->fake_vsync_hz, pacer::kMinRefreshHz,
             pacer::kMaxRefreshHz)
        .default_text = "off";
    // FixedStepConfig states its limit in a comment only: (0, 100000].
    p.number("--sim-hz", "RATE", "fixed simulation rate", &o->sim_hz, pacer::cli::kNoLow, pacer::cli::kNoHigh,
             check_sim_rate)
        .range = "in (0, 100000]";
    p.number("--coarse-ms", "P", "fake coarse scheduler of period P ms (0 = real OS sleep)", &o->coarse_ms, 0,
             10);
}

// ... and the window, the files it reads and writes.
void add_output_options(pacer::cli::Parser& p, Options* o) {
    p.flag("--headless", "no window, even if a display is available", &o->headless);
    p.custom("--capture", "FILE.csv", "capture every frame to FILE.csv (PresentMon columns + pacer's)\n"
             "and a summary to FILE-stats.csv; read them with `pacer analyze`",
             [o](std::string_view v) { return take_path(v, &o->capture); });
    p.text("--replay", "FILE", "show a capture file (pacer's, PresentMon's, MangoHud's, ...) in the\n"
           "panels instead of the live frames; headless: print its summary line", &o->replay);
    p.custom("--screenshot", "FILE.png", "write a PNG of the window after --screenshot-frame frames",
             [o](std::string_view v) { return take_path(v, &o->screenshot); });
    p.number("--screenshot-frame", "N", "frame of the screenshot", &o->screenshot_frame, std::uint64_t{1},
             std::numeric_limits<std::uint64_t>::max());
}

// The demo's options, written into *o.
pacer::cli::Parser make_parser(Options* o) {
    pacer::cli::Parser p(
        "pacer_demo", "",
        "Paces a game-like loop with pacer::FramePacer and shows frame times, histograms, CPU cost\n"
        "and controls (SDL2 + Dear ImGui). Without a display, or with --headless, it runs the same\n"
        "loop without a window, prints a status line every second and a summary line at the end.");
    add_pacing_options(p, o);
    add_load_options(p, o);
    add_display_options(p, o);
    add_output_options(p, o);
    p.epilogue = "Exit status: 0 ok, 1 runtime failure (e.g. screenshot not written), 2 bad command line.";
    return p;
}

ParseResult fail(std::string msg) {
    ParseResult r;
    r.exit = true;
    r.exit_code = 2;
    r.message = "pacer_demo: " + std::move(msg) + " (see --help)";
    return r;
}

}  // namespace

std::string usage() {
    Options o;
    return make_parser(&o).usage();
}

ParseResult parse_options(int argc, const char* const* argv, Options* out) {
    Options o;
    const pacer::cli::Parser p = make_parser(&o);
    const pacer::cli::Parsed r = p.parse(argc > 0 ? argc - 1 : 0, argv + (argc > 0 ? 1 : 0));
    if (r.help) return {true, 0, p.usage()};
    if (!r.status) return fail(r.status.message());
    if (o.headless && !o.screenshot.empty()) return fail("--screenshot needs the window, not --headless");
    if (!o.screenshot.empty() && o.frames != 0 && o.frames < o.screenshot_frame)
        return fail("--frames " + std::to_string(o.frames) + " ends before --screenshot-frame " +
                    std::to_string(o.screenshot_frame));
    if (o.vblank_source == "none") o.display_lock = false;  // no vblanks: nothing to lock to
    *out = o;
    return {};
}

}  // namespace pacer_demo
