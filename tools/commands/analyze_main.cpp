// `pacer analyze`: its options, and the files analysed one after the other (tools/lib/analyze.hpp
// does the reading and the figures; docs/capture.md shows the output).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analyze.hpp"
#include "cli_options.hpp"
#include "commands.hpp"

namespace pacer::tools {
namespace {

struct AnalyzeCommand {
    AnalyzeOptions o;
    bool json = false, list = false, frames = false, columns = false;
    double target_hz = 0;           // 0: the capture's own target
    std::uint64_t max_series = AnalyzeOptions{}.max_series;
    int stutter_window = 0;         // 0: not given
};

constexpr const char* kDescription =
    "Reads pacer captures, PresentMon CSVs (1.x and 2.x), OCAT and CapFrameX captures (CSV\n"
    "and JSON), MangoHud logs and FrameView logs and prints the summary, one column per\n"
    "series: FPS, frame-time percentiles, P1/P0.1 FPS, 1%/0.1% lows (average and integral\n"
    "definitions), stddev, pacing error against the target, jitter, stutters, hitches,\n"
    "dropped and displayed frames, CPU/GPU busy and latency (when the file has them),\n"
    "Swappy histograms in refresh periods and a frame-time histogram. A PresentMon log of\n"
    "several processes or swap chains gives one series each (the most frames first; --list\n"
    "shows them, --app/--pid/--swapchain pick). A MangoHud log written with a log interval\n"
    "(one row per interval) gets only the figures that mean something for averaged samples.";

void add_output_options(cli::Parser& opts, AnalyzeCommand& c) {
    opts.flag("--json", "JSON instead of text", &c.json);
    opts.flag("--frames", "with --json: each file's per-frame series too (time_s, frame_ms, ...)", &c.frames);
    opts.flag("--columns", "list the capture columns pacer writes and reads, with the names other\n"
              "tools write for them (no file needed)", &c.columns);
    opts.flag("--list", "list the processes and swap chains of each file (no analysis)", &c.list);
}

void add_figure_options(cli::Parser& opts, AnalyzeCommand& c) {
    opts.choice("--definitions", "quantile and stutter rules: presentmon (PresentMon 2.x's own\n"
                "statistics) or capframex (CapFrameX's: MathNet R8 quantiles,\nP1 on FPS values, its stutter average)",
                &c.o.definitions, {{"presentmon", Definitions::presentmon}, {"capframex", Definitions::capframex}});
    opts.number("--target-hz", "HZ", "pacing error against this rate", &c.target_hz, 1e-3, 1e6).default_text =
        "the capture's target";
    opts.number("--refresh-hz", "HZ", "refresh rate of the Swappy histograms (frames lasting N refresh periods)",
                &c.o.refresh_hz, 1e-3, 1e6)
        .default_text = "the target, else 60";
    opts.number("--stutter-window", "N", "frames in the stutter moving average (presentmon definitions;\n"
                "capframex takes round(10 sqrt(mean frame time ms)))", &c.stutter_window, 1, 1'000'000)
        .default_text = std::to_string(c.o.stutter_window);
    opts.number("--bins", "N", "frame-time histogram bins", &c.o.histogram_bins, 1, 1000);
}

void add_selection_options(cli::Parser& opts, AnalyzeCommand& c) {
    opts.text("--app", "NAME", "only the series of application NAME (any case)", &c.o.application);
    opts.number("--pid", "N", "only the series of process N", &c.o.process_id, 0LL, 4294967295LL).default_text =
        "every process";
    opts.text("--swapchain", "ADDR", "only the series of swap chain ADDR (hex, as in SwapChainAddress)",
              &c.o.swapchain);
    opts.number("--max-series", "N", "series analysed per file, the most frames first", &c.max_series,
                std::uint64_t{1}, std::uint64_t{1000});
}

// The options that depend on each other; an empty status when they fit.
Status check_and_apply(AnalyzeCommand& c, const cli::Parsed& parsed) {
    if (parsed.operands.empty() && !c.columns) return Status::error("no capture file given");
    if (c.frames && !c.json) return Status::error("--frames: needs --json");
    if (c.stutter_window > 0 && c.o.definitions == Definitions::capframex)
        return Status::error("--stutter-window: only with --definitions presentmon (capframex's "
                             "window is round(10 sqrt(mean frame time ms)))");
    if (c.stutter_window > 0) c.o.stutter_window = c.stutter_window;
    c.o.keep_frames = c.frames;
    if (c.target_hz > 0) c.o.target_ms = 1000.0 / c.target_hz;
    c.o.max_series = static_cast<std::size_t>(c.max_series);
    return {};
}

void write_out(const std::string& text, FILE* to) { std::fwrite(text.data(), 1, text.size(), to); }

// Each file analysed (or listed); the table of every series at the end. pacer's stats sidecars
// are skipped with a note. 1 when a file failed, or when no file was a capture.
int run(const AnalyzeCommand& c, const std::vector<std::string>& files) {
    std::vector<Analysis> as;
    std::string notes;
    int rc = 0;
    std::size_t listed = 0;
    for (const std::string& f : files) {
        FileAnalysis fa;
        if (Status st = c.list ? list_file(f, fa) : analyze_file(f, c.o, fa); !st) {
            std::fprintf(stderr, "pacer analyze: %s\n", st.message().c_str());
            rc = 1;
            continue;
        }
        if (!fa.note.empty()) notes += fa.note + "\n";
        if (fa.skipped) continue;
        if (c.list) {
            write_out(format_series(fa), stdout);
            ++listed;
            continue;
        }
        for (Analysis& a : fa.analyses) as.push_back(std::move(a));
    }
    if (as.empty()) {
        write_out(notes, stderr);
        if (rc != 0 || listed > 0) return rc;
        std::fprintf(stderr, "pacer analyze: no capture among the files given\n");
        return 1;
    }
    // The notes go before the table, or to stderr with --json (stdout stays one JSON document).
    if (c.json) write_out(notes, stderr);
    write_out(c.json ? format_json(as, c.frames) : notes + format_text(as), stdout);
    return rc;
}

}  // namespace

int analyze_main(int argc, char** argv) {
    AnalyzeCommand c;
    cli::Parser opts("pacer analyze", "FILE...", kDescription);
    add_output_options(opts, c);
    add_figure_options(opts, c);
    add_selection_options(opts, c);
    opts.epilogue = "pacer's own stats sidecars (FILE-stats.csv, Key,Value rows) are skipped with a note, so that a\n"
                    "glob over a capture folder works.\n"
                    "Exit status: 0 ok, 1 a file could not be read (the message names file and line) or no file\n"
                    "was a capture, 2 bad options.";
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (Status st = check_and_apply(c, parsed); !st) return cli::stop(opts, st);
    if (c.columns) {
        write_out(format_columns(), stdout);
        if (parsed.operands.empty()) return 0;
    }
    return run(c, parsed.operands);
}

}  // namespace pacer::tools
