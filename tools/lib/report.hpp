// tools/lib/report.hpp - `pacer report`: frame-time captures drawn as one self-contained HTML page.
//
//   pacer::tools::AnalyzeOptions ao;
//   ao.keep_frames = true;                        // the plots need every frame
//   std::vector<pacer::tools::Analysis> series(1);
//   if (pacer::Status st = pacer::tools::analyze_file("a.csv", ao, series[0]); !st) ...
//   const std::string page = pacer::tools::render_report(series, {});
//   pacer::tools::write_file_atomically("report.html", page);
//
// The page holds inline SVG and CSS only: no script, no font, no image or style sheet from
// elsewhere, so it opens offline, from a mail attachment, in any browser. It shows, all captures
// overlaid in distinct colours with one legend:
//   * frame time over time, stutters and hitches marked (the `pacer analyze` definitions);
//   * frame rate over time, over a trailing 0.5 s window;
//   * the frame-time histogram (share of frames per bin) and the percentile curve (frame time
//     against percentile, the x axis stretched towards the tail: -log10(1 - p), so 90 %, 99 %,
//     99.9 % are equally spaced, as in CapFrameX and FrameView);
//   * the summary table: average FPS, 1 % / 0.1 % lows, p50 / p99 / p99.9 / max frame time,
//     stutters, hitches, duration, format.
//
// Size: a time series is reduced to at most 4 points per pixel column (reduce_m4), so a capture of
// millions of frames makes a page of a few hundred KB that a browser draws at once. The reduction
// keeps each column's longest frame: a single long frame is always drawn at its full height.
// When a few frames are far longer than the rest (above 1.6 x a nice bound over the p99.9 of each
// capture's frames that are neither stutters nor hitches), the frame-time axes stop at that bound
// and the longer frames are drawn as labelled marks on the top edge instead of squashing
// everything else flat (ReportOptions::max_ms sets the bound).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze.hpp"
#include "pacer/status.hpp"

namespace pacer::tools {

struct ReportOptions {
    std::string title = "Frame-time report";
    // The stutter rule, as AnalyzeOptions (pass the same values for the same verdicts).
    int stutter_window = 20;
    double stutter_factor = 2.5;
    // End of the frame-time axes (ms); 0: chosen from the captures. Longer frames are marked.
    double max_ms = 0;
};

// A reduced series: the points to draw, x ascending.
struct Series {
    std::vector<double> x, y;
};

// The M4 reduction: [x0, x1] cut into `columns` equal columns; of the points in each column the
// first, the lowest, the highest and the last, in their original order (duplicates once). A line
// through them colours the same pixel columns, to the same heights, as a line through every
// point. Points left of x0 / right of x1 count to the first / last column; columns < 1 is taken
// as 1. The result has at most 4 x columns points, in column order (x ascending when x is).
Series reduce_m4(const std::vector<double>& x, const std::vector<double>& y, double x0, double x1,
                 int columns);

// Frame rate at each frame i whose trailing window is full (time_s[i] - time_s[0] >= window_s):
// 1000 x (frames with time in (time_s[i] - window_s, time_s[i]]) / (their frame times summed), the
// average-FPS definition applied to the last window_s seconds. time_s ascending.
Series moving_fps(const std::vector<double>& time_s, const std::vector<double>& frame_ms, double window_s);

// Text for HTML content and attribute values: & < > " ' as entities, other control characters
// (which HTML does not allow) as U+FFFD. Bytes >= 0x80 pass unchanged (UTF-8).
std::string html_escape(std::string_view text);

// The page for these series (one per capture, or per process of a capture), drawn in this order.
// Each needs its frames (AnalyzeOptions::keep_frames); the summary numbers come from the Analysis.
// Label of a series: its file without the directories all the files share, and its application,
// process and swap chain when the Analysis names them.
std::string render_report(const std::vector<Analysis>& series, const ReportOptions& o);

// Writes data to `path + ".tmp"` and renames it to path once it is complete and closed, so path
// is either the old file or the whole new one; on failure the temporary file is removed.
// Errors: "cannot write PATH: reason".
Status write_file_atomically(const std::string& path, std::string_view data);

}  // namespace pacer::tools
