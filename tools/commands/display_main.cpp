// `pacer display`: a real display's clock, read through a presentation source (X11 Present,
// Wayland's wp_presentation, or the swap's own return), and what the pacer makes of it. The
// figures and the report are in display_report.cpp (pacer_tools, so that tests reach them).
#include "display_report.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "cli_options.hpp"
#include "pacer/log.hpp"
#include "report.hpp"
#include "commands.hpp"

namespace pacer::tools {

namespace {

void add_options(cli::Parser& opts, DisplayCmdOptions& o) {
    opts.choice("--source", "the presentation source", &o.source,
                {{"x11-present", std::string("x11-present")}, {"wayland", std::string("wayland")},
                 {"swap", std::string("swap")}});
    opts.number("--hz", "HZ", "the pacer's target rate", &o.hz, cli::kNoLow, cli::kNoHigh, check_rate).range = rate_range();
    opts.flag("--present-at-time", "present pixmaps at their target counter (x11-present)", &o.present_at_time);
    opts.number("--ahead", "N", "x11-present: vblank requests kept queued (1: the quietest stamps on Xvfb;\n"
                "more: no vblank lost to a late poll)", &o.ahead, 1, kX11MaxAhead);
    opts.flag("--match-display", "pace at the display's rate (fitted, or the shown rate of a compositor's timer)",
              &o.match_display);
    opts.number("--seconds", "S", "run time (with --frames: the longest)", &o.seconds, 1.0, 3600.0);
    opts.number("--frames", "N", "--present-at-time: stop once N frames are judged", &o.frames, 1LL, 10000000LL);
    opts.flag("--json", "one JSON object instead of text", &o.json);
    opts.text("--vblanks-csv", "PATH",
              "each observed vblank to PATH: msc (the counter; empty when the source has none),\n"
              "time_ns (its time on the pacer's clock: CLOCK_MONOTONIC on Linux), error_ns (its\n"
              "time less the nearest vblank the locked fit predicted; empty until locked); x11-present:\n"
              "woke_ns (when the tool woke to read it), requested_msc and requested_ns (the next\n"
              "NotifyMSC sent then; all three empty when another stamp came in the same read)", &o.vblanks_csv);
    opts.text("--presents-csv", "PATH",
              "--present-at-time: each judged present to PATH: target_msc, deadline_ns and wake_ns\n"
              "(its frame's), sent_ns (the present call), shown_msc, shown_ns (empty: skipped)",
              &o.presents_csv);
}

// The options that depend on each other; an empty status when they fit.
Status check_options(const DisplayCmdOptions& o) {
    if (o.present_at_time && o.source != "x11-present")
        return Status::error("--present-at-time: only with --source x11-present");
    if (o.ahead != 1 && o.source != "x11-present")
        return Status::error("--ahead: only with --source x11-present");
    if (o.frames > 0 && !o.present_at_time) return Status::error("--frames: only with --present-at-time");
    if (!o.presents_csv.empty() && !o.present_at_time)
        return Status::error("--presents-csv: only with --present-at-time");
    return {};
}

// Before the run: false (and why on stderr) when a CSV file given cannot be written.
bool csv_paths_writable(const DisplayCmdOptions& o) {
    for (const std::string* path : {&o.vblanks_csv, &o.presents_csv}) {
        if (std::string why; !path->empty() && !cli::path_writable(*path, &why)) {
            std::fprintf(stderr, "pacer display: cannot write %s: %s\n", path->c_str(), why.c_str());
            return false;
        }
    }
    return true;
}

// After the run: the CSV files given; false (and why on stderr) when one could not be written.
bool write_csv_files(const DisplayCmdOptions& o, const DisplayCmdResult& r) {
    const std::pair<const std::string*, std::string> files[] = {
        {&o.vblanks_csv, o.vblanks_csv.empty() ? std::string() : format_vblanks_csv(r.vblanks)},
        {&o.presents_csv, o.presents_csv.empty() || !r.targets ? std::string() : format_presents_csv(*r.targets)}};
    for (const auto& [path, text] : files) {
        if (path->empty()) continue;
        if (const Status st = write_file_atomically(*path, text); !st) {
            std::fprintf(stderr, "pacer display: %s\n", st.message().c_str());
            return false;
        }
    }
    return true;
}

}  // namespace

int display_main(int argc, char** argv) {
    DisplayCmdOptions o;
    cli::Parser opts("pacer display", "",
                     "Opens a small window on the current display and reads its clock through a presentation\n"
                     "source: x11-present (X11's Present extension: vblank counter and time), wayland (the\n"
                     "compositor's wp_presentation feedback) or swap (the return of a vsync'd swap). Prints what\n"
                     "the pacer's display fit makes of it. With --present-at-time (x11-present), paces pixmap\n"
                     "presents with FramePacer at --hz and presents each at its target vblank counter.");
    add_options(opts, o);
    opts.epilogue = "Exit status: 0 ok, 2 bad options, no display, or a source the display lacks.";
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (const Status st = check_options(o); !st) return cli::stop(opts, st);
    if (!csv_paths_writable(o)) return 2;
    set_log_function(nullptr);  // the report says what the log would
    DisplayCmdResult r;
    r.source = o.source;
    r.vblanks.keep_stamps = !o.vblanks_csv.empty();
    std::string error;
    const bool ok = o.source == "x11-present" ? run_x11_present(o, &r, &error) : run_sdl_source(o, &r, &error);
    if (!ok) {
        std::fprintf(stderr, "pacer display: %s\n", error.c_str());
        return 2;
    }
    if (!write_csv_files(o, r)) return 2;
    const std::string out = format_display_result(r, o.json);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace pacer::tools
