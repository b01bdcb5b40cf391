// pacer: the command-line tool. Frame-time captures (analyze, report), measurements of this machine's
// waits (probe, compare), the virtual-time model (simulate) and a headless paced loop (run).
// No SDL, no window. See docs/capture.md.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "analyze.hpp"
#include "cli_options.hpp"
#include "pacer/pacer.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace {

int usage(FILE* to) {
    std::fprintf(to,
                 "usage: pacer <command> [options]     (pacer <command> --help for its options)\n"
                 "  analyze FILE...  summary of frame-time captures (pacer, PresentMon, OCAT, CapFrameX,\n"
                 "                   MangoHud, FrameView)\n"
                 "  report FILE...   the captures drawn as one self-contained HTML page (plots, summary)\n"
                 "  probe            how long this machine's wait primitives really wait\n"
                 "  compare          interleaved pacing comparison: sleep, spin, preciseSleep, hybrid\n"
                 "  simulate         relative-error heatmap of the waiter on the virtual-time OS model\n"
                 "  simulate latency input latency of the sync modes on a simulated vsync display\n"
                 "  simulate display display-aware pacing against the fixed grid without display lock\n"
                 "  run              a paced loop without a window, optionally captured\n"
                 "  display          the current display's clock through X11 Present, wp_presentation or\n"
                 "                   the swap, as the pacer's display fit sees it; present at a time\n"
                 "  version          print the version\n");
    return to == stdout ? 0 : 2;
}

}  // namespace

int analyze_main(int argc, char** argv) {
    AnalyzeOptions o;
    bool json = false, list = false;
    double target_hz = 0;  // 0: the capture's own target
    cli::Parser opts("pacer analyze", "FILE...",
                  "Reads pacer captures, PresentMon CSVs (1.x and 2.x), OCAT and CapFrameX captures (CSV\n"
                  "and JSON), MangoHud logs and FrameView logs and prints the summary, one column per\n"
                  "series: FPS, frame-time percentiles, P1/P0.1 FPS, 1%/0.1% lows (average and integral\n"
                  "definitions), stddev, pacing error against the target, jitter, stutters, hitches,\n"
                  "dropped and displayed frames, CPU/GPU busy and latency (when the file has them),\n"
                  "Swappy histograms in refresh periods and a frame-time histogram. A PresentMon log of\n"
                  "several processes or swap chains gives one series each (the most frames first; --list\n"
                  "shows them, --app/--pid/--swapchain pick). A MangoHud log written with a log interval\n"
                  "(one row per interval) gets only the figures that mean something for averaged samples.");
    bool frames = false;
    opts.flag("--json", "JSON instead of text", &json);
    opts.flag("--frames", "with --json: each file's per-frame series too (time_s, frame_ms, ...)", &frames);
    opts.choice("--definitions", "quantile and stutter rules: presentmon (PresentMon 2.x's own\n"
                "statistics) or capframex (CapFrameX's: MathNet R8 quantiles,\nP1 on FPS values, its stutter average)",
                &o.definitions, {{"presentmon", Definitions::presentmon}, {"capframex", Definitions::capframex}});
    opts.number("--target-hz", "HZ", "pacing error against this rate", &target_hz, 1e-3, 1e6).default_text =
        "the capture's target";
    opts.number("--refresh-hz", "HZ", "refresh rate of the Swappy histograms (frames lasting N refresh periods)", &o.refresh_hz, 1e-3, 1e6).default_text =
        "the target, else 60";
    opts.flag("--list", "list the processes and swap chains of each file (no analysis)", &list);
    opts.text("--app", "NAME", "only the series of application NAME (any case)", &o.application);
    opts.number("--pid", "N", "only the series of process N", &o.process_id, 0LL, 4294967295LL).default_text =
        "every process";
    opts.text("--swapchain", "ADDR", "only the series of swap chain ADDR (hex, as in SwapChainAddress)",
              &o.swapchain);
    std::uint64_t max_series = o.max_series;
    opts.number("--max-series", "N", "series analysed per file, the most frames first", &max_series,
                std::uint64_t{1}, std::uint64_t{1000});
    int stutter_window = 0;  // 0: not given
    opts.number("--stutter-window", "N", "frames in the stutter moving average (presentmon definitions;\n"
                "capframex takes round(10 sqrt(mean frame time ms)))", &stutter_window, 1, 1'000'000)
        .default_text = std::to_string(o.stutter_window);
    opts.number("--bins", "N", "frame-time histogram bins", &o.histogram_bins, 1, 1000);
    opts.epilogue = "Exit status: 0 ok, 1 a file could not be read (the message names file and line), 2 bad options.";
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (parsed.operands.empty()) return cli::stop(opts, Status::error("no capture file given"));
    if (frames && !json) return cli::stop(opts, Status::error("--frames: needs --json"));
    if (stutter_window > 0 && o.definitions == Definitions::capframex)
        return cli::stop(opts, Status::error("--stutter-window: only with --definitions presentmon (capframex's "
                                             "window is round(10 sqrt(mean frame time ms)))"));
    if (stutter_window > 0) o.stutter_window = stutter_window;
    o.keep_frames = frames;
    if (target_hz > 0) o.target_ms = 1000.0 / target_hz;
    o.max_series = static_cast<std::size_t>(max_series);
    const std::vector<std::string>& files = parsed.operands;
    std::vector<Analysis> as;
    std::string notes;
    int rc = 0;
    for (const std::string& f : files) {
        FileAnalysis fa;
        if (Status st = list ? list_file(f, fa) : analyze_file(f, o, fa); !st) {
            std::fprintf(stderr, "pacer analyze: %s\n", st.message().c_str());
            rc = 1;
            continue;
        }
        if (list) {
            const std::string out = format_series(fa);
            std::fwrite(out.data(), 1, out.size(), stdout);
            continue;
        }
        if (!fa.note.empty()) notes += fa.note + "\n";
        for (Analysis& a : fa.analyses) as.push_back(std::move(a));
    }
    if (!as.empty()) {
        // The notes go before the table, or to stderr with --json (stdout stays one JSON document).
        if (json) std::fwrite(notes.data(), 1, notes.size(), stderr);
        const std::string out = json ? format_json(as, frames) : notes + format_text(as);
        std::fwrite(out.data(), 1, out.size(), stdout);
    }
    return rc;
}

}  // namespace pacer::tools

int main(int argc, char** argv) {
    using namespace pacer::tools;
    if (argc < 2) return usage(stderr);
    const std::string cmd = argv[1];
    int n = argc - 2;
    char** rest = argv + 2;
    if (cmd == "analyze") return analyze_main(n, rest);
    if (cmd == "report") return report_main(n, rest);
    if (cmd == "probe") return probe_main(n, rest);
    if (cmd == "compare") return compare_main(n, rest, "pacer compare");
    if (cmd == "simulate") return simulate_main(n, rest);
    if (cmd == "run") return run_main(n, rest);
    if (cmd == "display") return display_main(n, rest);
    if (cmd == "version" || cmd == "--version") {
        std::printf("pacer %s\n", pacer::kVersion);
        return 0;
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(stdout);
    std::fprintf(stderr, "pacer: unknown command \"%s\"\n", cmd.c_str());
    return usage(stderr);
}
