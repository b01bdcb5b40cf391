// `pacer run`: a paced loop without a window (the demo's headless mode), optionally captured.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli_options.hpp"
#include "pacer/pacer.hpp"
#include "commands.hpp"
#include "priority_text.hpp"

namespace pacer::tools {
namespace {

void busy_for(TimeSource& ts, std::int64_t ns) {
    const std::int64_t end = pacer::clock::to_ns(ts.now()) + ns;
    while (pacer::clock::to_ns(ts.now()) < end) {
    }
}

struct RunOptions {
    PacerConfig cfg;
    double seconds = 5, work_ms = 0;
    long long frames = -1;  // -1: from --seconds
    std::string capture, app = "pacer-run";
};

cli::Parser run_parser(RunOptions* o) {
    cli::Parser opts("pacer run", "",
                     "Paces a loop on this machine without a window (busy work per frame, then wait()) and prints\n"
                     "the pacer's statistics; with --capture, writes a PresentMon-compatible capture and its\n"
                     "-stats.csv sidecar (pacer/capture.hpp).");
    opts.number("--hz", "HZ", "target rate", &o->cfg.target_hz, cli::kNoLow, cli::kNoHigh, check_rate)
        .range = rate_range();
    // Headless there is no swap to pace by: vsync and auto have nothing to measure.
    opts.choice("--mode", "wait mode", &o->cfg.mode,
                cli::names_of(pacer::kWaitModeNames, {WaitMode::sleep, WaitMode::spin, WaitMode::hybrid}));
    opts.choice("--late-policy", "what a late frame does", &o->cfg.late_policy,
                cli::names_of(pacer::kLatePolicyNames));
    opts.choice("--cadence", "cadence governor (pacer/cadence.hpp)", &o->cfg.cadence,
                cli::names_of(pacer::kCadenceModeNames));
    opts.number("--seconds", "S", "run time", &o->seconds, 0.01, 86400.0);
    opts.number("--frames", "N", "run this many frames instead", &o->frames, 1LL, 1'000'000'000LL)
        .default_text.clear();
    opts.number("--work-ms", "MS", "busy work per frame", &o->work_ms, 0.0, 1000.0);
    opts.text("--capture", "FILE", "capture file (created or truncated)", &o->capture);
    opts.text("--app", "NAME", "Application column of the capture", &o->app);
    return opts;
}

// `frames` frames of busy work then wait(), each added to the statistics and the capture.
void pace(const RunOptions& o, FramePacer& pacer, FrameStats& stats, CaptureWriter& cap) {
    TimeSource& ts = system_time_source();
    const auto work_ns = static_cast<std::int64_t>(o.work_ms * 1e6);
    bool reported = false;
    for (long long k = 0; k < o.frames; ++k) {
        const FrameTiming t = pacer.wait();
        stats.add(t);
        cap.add(t);
        if (cap.failed() && !reported) {  // the loop goes on; say it once
            std::fprintf(stderr, "pacer run: %s (the loop goes on)\n", cap.status().message().c_str());
            reported = true;
        }
        busy_for(ts, work_ns);
    }
}

// The pacing thread's priority at the end (priority_text.hpp): what is in force, the lever and who
// granted it; the raised spin's bound and the wake-ups past it; what the real-time guard did.
void print_priority(const PacerConfig& cfg, const WaiterStatus& w) {
    std::printf("thread priority %s: %s\n", to_string(cfg.waiter.priority.mode), priority_text(w.priority).c_str());
    std::printf("%s\n", spin_bound_text(w, cfg.waiter.raised_spin_share).c_str());
    if (const std::string guard = guard_text(w.priority); !guard.empty()) std::printf("%s\n", guard.c_str());
}

void print_summary(const RunOptions& o, FramePacer& pacer, const FrameStats& stats, const CpuUsage& u) {
    const PacerConfig& cfg = o.cfg;
    const StatsSummary s = stats.summarize();
    std::printf("pacer run: %lld frames at %g Hz, mode %s, late policy %s, sleep primitive %s\n", o.frames,
                cfg.target_hz, to_string(cfg.mode), to_string(cfg.late_policy),
                system_time_source().sleep_primitive());
    std::printf("average FPS %.2f, frame time p50 %.3f ms p99 %.3f ms max %.3f ms, lateness p99 %.1f us, "
                "missed %zu, 1%% low %.2f FPS, thread CPU %.1f %%\n",
                s.avg_fps, to_ms(s.interval.p50), to_ms(s.interval.p99), to_ms(s.interval.max), to_ms(s.lateness.p99) * 1000,
                s.missed, s.low1_fps, u.thread_pct);
    // |frame time - period| (pacer/stats.hpp), the figure `pacer compare` judges by.
    if (s.interval_error_frames > 0)
        std::printf("interval_error p99 %.1f us, off_100us_share %.2f %% (intervals off by more than 100 us)\n",
                    to_ms(s.interval_error.p99) * 1000, 100 * s.off_100us_share);
    else
        std::printf("interval_error: no frame time with a period\n");
    if (cfg.cadence == CadenceMode::automatic) {
        const CadenceStatus& c = pacer.status().cadence;
        std::printf("cadence %u at the end (%g Hz; switches %llu; frame cost p90 %.3f ms): %s\n", c.divisor, c.hz,
                    static_cast<unsigned long long>(c.switches), to_ms(c.cost), c.reason);
    }
    print_priority(cfg, pacer.status().waiter);
}

}  // namespace

int run_main(int argc, char** argv) {
    pacer::set_log_function(nullptr);  // the summary below says what the log would
    RunOptions o;
    const cli::Parser opts = run_parser(&o);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (Status st = validate(o.cfg); !st) return cli::stop(opts, st);
    if (o.frames < 0) o.frames = std::max(1LL, static_cast<long long>(o.seconds * o.cfg.target_hz));

    FramePacer pacer(o.cfg);
    FrameStats stats(std::min<long long>(o.frames, 1 << 20));
    CaptureWriter cap;
    if (!o.capture.empty()) {
        CaptureOptions co;
        co.application = o.app;
        co.config = o.cfg;
        co.notes = "pacer run, work " + std::to_string(o.work_ms) + " ms/frame";
        if (Status st = cap.open(o.capture, co); !st) {
            std::fprintf(stderr, "pacer run: %s\n", st.message().c_str());
            return 1;
        }
    }
    CpuMeter cpu;
    pace(o, pacer, stats, cap);
    print_summary(o, pacer, stats, cpu.sample());
    if (o.capture.empty()) return 0;
    if (const Status st = cap.close(); !st) {
        std::fprintf(stderr, "pacer run: %s\n", st.message().c_str());
        return 1;
    }
    // The first frame has no frame time, hence no row.
    std::printf("capture: %s (%llu rows), summary %s\n", o.capture.c_str(),
                static_cast<unsigned long long>(cap.rows_written()), CaptureWriter::stats_path(o.capture).c_str());
    return 0;
}

}  // namespace pacer::tools
