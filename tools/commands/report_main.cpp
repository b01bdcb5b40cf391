// tools/commands/report_main.cpp - `pacer report`: captures drawn into one HTML page (the page
// itself: tools/lib/report.cpp).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "analyze.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "report.hpp"

namespace pacer::tools {

int report_main(int argc, char** argv) {
    AnalyzeOptions ao;
    ao.keep_frames = true;
    ao.keep_columns = false;  // the plots draw the frame times only
    ReportOptions ro;
    std::string out;
    cli::Parser opts("pacer report", "FILE... -o REPORT.html",
                     "Draws frame-time captures (whatever `pacer analyze` reads: pacer, PresentMon, OCAT,\n"
                     "CapFrameX, MangoHud, FrameView; each process and swap chain a series) into\n"
                     "one self-contained HTML page, all captures overlaid: frame time over time with stutters\n"
                     "and hitches marked, FPS over time, the frame-time histogram, the percentile curve and the\n"
                     "summary table. No script, nothing loaded from the network.");
    opts.text("-o", "FILE", "the page to write (required)", &out);
    opts.text("--output", "FILE", "the same as -o", &out);
    opts.text("--title", "TEXT", "the page's title", &ro.title).default_text = cli::quoted(ro.title);
    opts.text("--app", "NAME", "only rows whose Application is NAME (PresentMon logs of many apps)", &ao.application);
    opts.number("--stutter-window", "N", "frames in the stutter moving average", &ao.stutter_window, 1, 1'000'000);
    opts.number("--max-ms", "MS", "end of the frame-time axes (longer frames: marks on the top edge)",
                &ro.max_ms, 0.001, 3'600'000.0).default_text = "from the captures";
    opts.epilogue = "pacer's own stats sidecars (FILE-stats.csv, Key,Value rows) are skipped with a note, so that a\n"
                    "glob over a capture folder works.\n"
                    "Exit status: 0 ok, 1 a file could not be read (the message names file and line), no file was a\n"
                    "capture, or the page could not be written (a partial page is never left at its path), 2 bad options.";
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (parsed.operands.empty()) return cli::stop(opts, Status::error("no capture file given"));
    if (out.empty()) return cli::stop(opts, Status::error("no output file given (-o REPORT.html)"));
    ro.stutter_window = ao.stutter_window;
    ro.stutter_factor = ao.stutter_factor;
    std::vector<Analysis> series;
    int rc = 0;
    for (const std::string& f : parsed.operands) {
        // Each process and swap chain of a file is a series of its own, as in `pacer analyze`.
        FileAnalysis fa;
        if (Status st = analyze_file(f, ao, fa); !st) {
            std::fprintf(stderr, "pacer report: %s\n", st.message().c_str());
            rc = 1;
            continue;
        }
        // pacer's stats sidecars (fa.skipped) are skipped with their note: a glob over a capture folder.
        if (!fa.note.empty()) std::fprintf(stderr, "%s\n", fa.note.c_str());
        for (Analysis& a : fa.analyses) series.push_back(std::move(a));
    }
    if (rc == 0 && series.empty()) {
        std::fprintf(stderr, "pacer report: no capture among the files given\n");
        rc = 1;
    }
    if (rc != 0) {
        std::fprintf(stderr, "pacer report: no report written\n");
        return rc;
    }
    const std::string page = render_report(series, ro);
    if (Status st = write_file_atomically(out, page); !st) {
        std::fprintf(stderr, "pacer report: %s\n", st.message().c_str());
        return 1;
    }
    std::printf("report: %s (%zu capture%s, %.0f KB)\n", out.c_str(), series.size(), series.size() == 1 ? "" : "s",
                static_cast<double>(page.size()) / 1024.0);
    return 0;
}

}  // namespace pacer::tools
