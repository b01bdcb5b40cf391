// `pacer run`: a paced loop without a window (the demo's headless mode), optionally captured.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli_util.hpp"
#include "pacer/pacer.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace {

int usage(const char* why) {
    if (why) std::fprintf(stderr, "pacer run: %s\n", why);
    std::fprintf(why ? stderr : stdout,
                 "usage: pacer run [--hz 60] [--mode hybrid|sleep|spin] [--late-policy catch_up|skip|resync]\n"
                 "                 [--seconds 5 | --frames N] [--work-ms 0] [--capture FILE] [--app NAME]\n"
                 "Paces a loop on this machine without a window (busy work per frame, then wait()) and prints\n"
                 "the pacer's statistics; with --capture, writes a PresentMon-compatible capture and its\n"
                 "-stats.csv sidecar (pacer/capture.hpp).\n"
                 "  --hz           target rate, (0, 10000]\n"
                 "  --seconds      run time, [0.01, 86400] (default 5)\n"
                 "  --frames       run this many frames instead, [1, 1e9]\n"
                 "  --work-ms      busy work per frame, [0, 1000]\n"
                 "  --capture      capture file (created or truncated)\n"
                 "  --app          Application column of the capture (default pacer-run)\n");
    return why ? 2 : 0;
}

void busy_for(TimeSource& ts, std::int64_t ns) {
    const std::int64_t end = ts.now_ns() + ns;
    while (ts.now_ns() < end) {
    }
}

}  // namespace

int run_main(int argc, char** argv) {
    pacer::set_log_function(nullptr);  // the summary below says what the log would
    PacerConfig cfg;
    double seconds = 5, work_ms = 0;
    long long frames = -1;
    std::string capture, app = "pacer-run";
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return usage(nullptr);
        if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
        const char* v = argv[++i];
        Status st;
        if (a == "--hz") st = parse_number(v, "--hz", 0, 1e9, cfg.target_hz);
        else if (a == "--seconds") st = parse_number(v, "--seconds", 0.01, 86400, seconds);
        else if (a == "--frames") st = parse_int(v, "--frames", 1, 1'000'000'000, frames);
        else if (a == "--work-ms") st = parse_number(v, "--work-ms", 0, 1000, work_ms);
        else if (a == "--capture") capture = v;
        else if (a == "--app") app = v;
        else if (a == "--mode") {
            // Headless there is no swap to pace by: vsync and auto have nothing to measure.
            if (!parse_wait_mode(v, &cfg.mode) || cfg.mode == WaitMode::vsync || cfg.mode == WaitMode::automatic)
                st = Status::error(std::string("--mode: \"") + v + "\" is not sleep, spin or hybrid");
        } else if (a == "--late-policy") {
            if (!parse_late_policy(v, &cfg.late_policy))
                st = Status::error(std::string("--late-policy: \"") + v + "\" is not catch_up, skip or resync");
        } else {
            return usage(("unknown option " + a).c_str());
        }
        if (!st) return usage(st.message().c_str());
    }
    if (Status st = validate(cfg); !st) return usage(st.message().c_str());
    if (frames < 0) frames = std::max(1LL, static_cast<long long>(seconds * cfg.target_hz));

    FramePacer pacer(cfg);
    FrameStats stats(std::min<long long>(frames, 1 << 20));
    CaptureWriter cap;
    if (!capture.empty()) {
        CaptureOptions co;
        co.application = app;
        co.config = cfg;
        co.notes = "pacer run, work " + std::to_string(work_ms) + " ms/frame";
        if (Status st = cap.open(capture, co); !st) {
            std::fprintf(stderr, "pacer run: %s\n", st.message().c_str());
            return 1;
        }
    }
    CpuMeter cpu;
    TimeSource& ts = system_time_source();
    const auto work_ns = static_cast<std::int64_t>(work_ms * 1e6);
    bool reported = false;
    for (long long k = 0; k < frames; ++k) {
        const FrameTiming t = pacer.wait();
        stats.add(t);
        cap.add(t);
        if (cap.failed() && !reported) {  // the loop goes on; say it once
            std::fprintf(stderr, "pacer run: %s (the loop goes on)\n", cap.status().message().c_str());
            reported = true;
        }
        busy_for(ts, work_ns);
    }
    const CpuUsage u = cpu.sample();
    const StatsSummary s = stats.summarize();
    std::printf("pacer run: %lld frames at %g Hz, mode %s, late policy %s, sleep primitive %s\n", frames,
                cfg.target_hz, to_string(cfg.mode), to_string(cfg.late_policy), ts.sleep_primitive());
    std::printf("average FPS %.2f, frame time p50 %.3f ms p99 %.3f ms max %.3f ms, lateness p99 %.1f us, "
                "missed %zu, 1%% low %.2f FPS, thread CPU %.1f %%\n",
                s.avg_fps, s.interval_ms.p50, s.interval_ms.p99, s.interval_ms.max, s.lateness_ms.p99 * 1000,
                s.missed, s.low1_fps, u.thread_pct);
    if (!capture.empty()) {
        const std::uint64_t written = cap.rows_written(), rows = cap.rows();
        const Status st = cap.close();
        if (!st) {
            std::fprintf(stderr, "pacer run: %s\n", st.message().c_str());
            return 1;
        }
        std::printf("capture: %s (%llu rows), summary %s\n", capture.c_str(),
                    static_cast<unsigned long long>(std::max(written, rows)),
                    CaptureWriter::stats_path(capture).c_str());
    }
    return 0;
}

}  // namespace pacer::tools
