// `pacer simulate display`: the display-aware pacer (display lock, match display, cadence
// governor, display-time delta) and the fixed grid without display lock on the same seeded work
// and display, in virtual time (tools/display_sim.hpp). Deterministic: the same options print the
// same figures.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli_options.hpp"
#include "display_sim.hpp"
#include "pacer/log.hpp"
#include "commands.hpp"

namespace pacer::tools {
namespace {

constexpr double kMinHz = 20.0, kMaxHz = 1000.0;  // DisplayConfig's refresh range

// "MIN-MAX", both refresh rates, MIN < MAX.
Status parse_vrr(std::string_view v, double* lo, double* hi) {
    const std::size_t dash = v.find('-');
    if (dash == std::string_view::npos || dash == 0)
        return Status::error(cli::quoted(v) + ": expected MIN-MAX, e.g. 48-144");
    double a = 0, b = 0;
    if (Status s = cli::parse_number<double>("MIN", v.substr(0, dash), kMinHz, kMaxHz, &a); !s) return s;
    if (Status s = cli::parse_number<double>("MAX", v.substr(dash + 1), kMinHz, kMaxHz, &b); !s) return s;
    if (a >= b) return Status::error(cli::quoted(v) + ": MIN must be below MAX");
    *lo = a;
    *hi = b;
    return {};
}

std::string text(const std::optional<std::size_t>& x, const char* none) {
    return x ? std::to_string(*x) : none;
}
std::string text(const std::optional<double>& x) {
    if (!x) return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", *x);
    return b;
}

// The command line: the simulation's settings and the options checked against each other before
// they become settings.
struct DisplayOptions {
    DisplaySimConfig cfg;
    double refresh_hz = 0;  // 0: not given
    double vrr_lo = 0, vrr_hi = 0;
    double change_hz = 0, at_s = -1;
    long long seed = 1;
    bool json = false;
};

cli::Parser display_parser(DisplayOptions* o) {
    DisplaySimConfig& cfg = o->cfg;
    cli::Parser opts("pacer simulate display", "",
                     "Runs the whole paced loop in virtual time against a simulated display: FramePacer with\n"
                     "display lock, match display and the cadence governor, a FixedStep fed with the frame's\n"
                     "display-time delta, a Linux-like OS model (50 us timer slack, wake-up noise, rare\n"
                     "preemptions) and a display with a FIFO swap chain that reports each frame's displayed\n"
                     "time. Then the same work on the same display on the fixed grid without display lock\n"
                     "(display lock off, fixed cadence, FixedStep fed with the wake-to-wake interval), and\n"
                     "both side by side. Figures are the model's ground truth (docs/latency.md, \"Display\n"
                     "lock\"). Deterministic.");
    opts.number("--refresh-hz", "HZ", "display refresh (the target rate until the display is known)", &o->refresh_hz,
                kMinHz, kMaxHz)
        .default_text = "60";
    opts.number("--skew-ppm", "PPM", "display clock against the CPU's (+: the display runs fast)", &cfg.skew_ppm,
                -1000.0, 1000.0);
    opts.number("--noise-us", "US", "+- uniform noise on the reported present and displayed times", &cfg.noise_us,
                0.0, 10000.0);
    opts.number("--queue", "N", "presents that may wait for their vblank (FIFO depth)", &cfg.queue, 1, 3);
    opts.number("--work-ms", "MS", "the frame's work: mean ...", &cfg.work_ms, 0.0, 1000.0);
    opts.number("--work-jitter-ms", "MS", "... +- uniform jitter (never below 0)", &cfg.work_jitter_ms, 0.0, 1000.0);
    opts.number("--sawtooth-s", "S", "instead of the jitter, the work ramps from mean - jitter to mean + jitter\n"
                "over S seconds, again and again (a scene that grows heavier, then resets)", &cfg.sawtooth_s, 0.1, 600.0)
        .default_text = "off";
    opts.number("--refresh-change-hz", "HZ", "the refresh changes to HZ at --at-s (fixed refresh only)",
                &o->change_hz, kMinHz, kMaxHz)
        .default_text = "no change";
    opts.number("--at-s", "T", "time of the refresh change, s (needs --refresh-change-hz)", &o->at_s, 0.001, 600.0)
        .default_text = "none";
    opts.custom("--vrr", "MIN-MAX", "a variable-refresh display over [MIN, MAX] Hz, each in [20, 1000]\n"
                "(low-framerate compensation when MAX >= 2 MIN); not with --refresh-hz",
                [o](std::string_view v) { return parse_vrr(v, &o->vrr_lo, &o->vrr_hi); })
        .default_text = "fixed refresh";
    opts.number("--seconds", "S", "virtual time of each run", &cfg.seconds, 2.0, 600.0);
    opts.number("--seed", "N", "seed of the work, the OS model and the reports", &o->seed, 0LL, 1LL << 53);
    opts.choice("--mode", "the pacer's wait mode", &cfg.mode,
                {{"auto", WaitMode::automatic}, {"vsync", WaitMode::vsync}});
    opts.flag("--json", "print one JSON object: the display-aware run, and the fixed grid without\n"
              "display lock as \"baseline\"", &o->json);
    opts.epilogue = "Exit status: 0 ok, 2 bad options.";
    return opts;
}

// The options that depend on each other, checked, then written into o->cfg.
Status resolve(DisplayOptions* o) {
    DisplaySimConfig& cfg = o->cfg;
    if ((o->change_hz > 0) != (o->at_s >= 0))
        return Status::error(o->change_hz > 0 ? "--refresh-change-hz: needs --at-s"
                                              : "--at-s: needs --refresh-change-hz");
    if (o->change_hz > 0 && o->at_s >= cfg.seconds)
        return Status::error("--at-s = " + cli::format_number(o->at_s) + ": must be below --seconds (" +
                             cli::format_number(cfg.seconds) + ")");
    if (o->vrr_hi > 0 && o->refresh_hz > 0)
        return Status::error("--vrr: not with --refresh-hz (MAX is the refresh)");
    if (o->vrr_hi > 0 && o->change_hz > 0)
        return Status::error("--vrr: not with --refresh-change-hz (the model changes fixed refresh only)");
    if (o->refresh_hz > 0) cfg.refresh_hz = o->refresh_hz;
    if (o->vrr_hi > 0) {
        cfg.refresh_hz = o->vrr_hi;
        cfg.vrr_min_hz = o->vrr_lo;
    }
    cfg.change_hz = o->change_hz;
    cfg.change_at_s = o->change_hz > 0 ? o->at_s : 0.0;
    cfg.seed = static_cast<std::uint64_t>(o->seed);
    return {};
}

// What was simulated: the display, the work, the run.
void print_setting(const DisplaySimConfig& cfg, long long seed) {
    if (cfg.vrr_min_hz > 0)
        std::printf("pacer simulate display: VRR display %g-%g Hz%s", cfg.vrr_min_hz, cfg.refresh_hz,
                    cfg.refresh_hz >= 2 * cfg.vrr_min_hz ? " with LFC" : "");
    else
        std::printf("pacer simulate display: %g Hz display", cfg.refresh_hz);
    std::printf(" (%+g ppm, report noise +-%g us, queue %d), work %g +- %g ms, %g s, seed %lld, %s wait\n",
                cfg.skew_ppm, cfg.noise_us, cfg.queue, cfg.work_ms, cfg.work_jitter_ms, cfg.seconds, seed,
                to_string(cfg.mode));
    if (cfg.sawtooth_s > 0) std::printf("the work ramps over its +- range every %g s (sawtooth)\n", cfg.sawtooth_s);
    if (cfg.change_hz > 0) std::printf("refresh changes to %g Hz at %g s\n", cfg.change_hz, cfg.change_at_s);
}

std::string fixed(const char* fmt, double x) {
    char b[40];
    std::snprintf(b, sizeof b, fmt, x);
    return b;
}

void row(const char* name, const std::string& a, const std::string& b) {
    std::printf("%-26s %16s %20s\n", name, a.c_str(), b.c_str());
}

// The two runs side by side, one figure a row.
void print_table(const DisplaySimConfig& cfg, const DisplaySimResult& run, const DisplaySimResult& base) {
    std::printf("\n%-26s %16s %20s\n", "", "display-aware", "fixed grid, no lock");
    row("frames", std::to_string(run.frames), std::to_string(base.frames));
    row("display state (end)", to_string(run.state), to_string(base.state));
    row("lock frames", text(run.lock_frames, "never"), text(base.lock_frames, "never"));
    row("phase error p50 us", text(run.phase_error_p50_us), text(base.phase_error_p50_us));
    row("phase error p99 us", text(run.phase_error_p99_us), text(base.phase_error_p99_us));
    if (cfg.change_hz > 0) row("relock frames", text(run.relock_frames, "never"), text(base.relock_frames, "never"));
    row("missed vblanks", std::to_string(run.missed_vblanks), std::to_string(base.missed_vblanks));
    row("late frames %", fixed("%.2f", 100.0 * run.late_share), fixed("%.2f", 100.0 * base.late_share));
    row("cadence switches", std::to_string(run.cadence_switches), std::to_string(base.cadence_switches));
    const auto gap = [](const std::optional<double>& g) { return g ? fixed("%.2f", *g) : std::string("-"); };
    row("shortest between switches s", gap(run.cadence_min_gap_s), gap(base.cadence_min_gap_s));
    row("frame rate at end Hz", fixed("%.2f", run.cadence_hz), fixed("%.2f", base.cadence_hz));
    row("max |sim - wall| ms", fixed("%.3f", run.dt_error_max_ms), fixed("%.3f", base.dt_error_max_ms));
    row("max |sim - shown| ms", fixed("%.3f", run.dt_shown_error_max_ms), fixed("%.3f", base.dt_shown_error_max_ms));
    row("waiting CPU %", fixed("%.2f", 100.0 * run.cpu_share), fixed("%.2f", 100.0 * base.cpu_share));
}

// One line: the missed vblanks against the CPU each run spent waiting.
void print_verdict(const DisplaySimResult& run, const DisplaySimResult& base) {
    const long long diff = static_cast<long long>(run.missed_vblanks) - static_cast<long long>(base.missed_vblanks);
    std::string than = "as many as";
    if (diff != 0) than = std::to_string(std::llabs(diff)) + (diff < 0 ? " fewer than" : " more than");
    std::printf("\nmissed vblanks: %s the fixed grid without display lock, at %.2f %% against %.2f %% CPU spent "
                "waiting\n",
                than.c_str(), 100.0 * run.cpu_share, 100.0 * base.cpu_share);
}

}  // namespace

int simulate_display_main(int argc, char** argv) {
    pacer::set_log_function(nullptr);  // the pacer's notices (vsync decisions, locks) are not the output
    DisplayOptions o;
    const cli::Parser opts = display_parser(&o);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (Status s = resolve(&o); !s) return cli::stop(opts, s);

    const DisplaySimResult run = run_display_sim(o.cfg, false);
    const DisplaySimResult base = run_display_sim(o.cfg, true);
    if (o.json) {
        const std::string out = format_display_json(o.cfg, run, base);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }
    print_setting(o.cfg, o.seed);
    print_table(o.cfg, run, base);
    print_verdict(run, base);
    return 0;
}

}  // namespace pacer::tools
