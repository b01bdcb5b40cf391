// demo/headless.hpp - the paced loop without a window.
#pragma once

#include <cstdint>

#include "options.hpp"
#include "pacer/stats.hpp"

namespace pacer_demo {

// Runs until --frames or --seconds (default kDefaultHeadlessSeconds when neither is given).
// Prints a status line about once a second and `summary: ...` at the end (stdout). Returns the
// process exit code.
int run_headless(const Options& o);

// Shared by both runners: the final, machine-checkable line, e.g.
//   summary: frames=1440 seconds=10.00 hz=144 mode=hybrid avg_fps=143.99 p99_interval_ms=7.01
//            p99_lateness_ms=0.041 missed=0 stutters=0 cpu_pct=23.5 (one line)
class Session;
// The summary line; vblank_source: where the display's vblanks came from (demo/vblank_source.hpp).
// Before it, when the frames cost more than the period, "note: cannot hold ..." (overrun_text in
// session.hpp; swap_ms the swap's mean wall time, < 0 when not measured).
void print_summary(Session& s, const char* ui, const char* vblank_source, double swap_ms);
// Closes a running capture and prints "capture: rows=N written=N dropped=N file=... stats=...";
// returns 1 (and says why on stderr) if the capture lost rows or could not be written, else 0.
int finish_capture(Session& s);

// The once-a-second line: frame rate and process CPU over the time since the previous line,
// p99 lateness over the statistics window, e.g.
//   t=3.0s frames=433 rate=144.0/s target=144Hz p99_lateness_ms=0.061 missed=0 cpu_pct=18.3 machine_pct=21
// Construct on the pacing thread.
class StatusLine {
public:
    explicit StatusLine(const Session& s);
    void print(Session& s);

private:
    std::uint64_t frames_ = 0;
    double t_ = 0;
    pacer::CpuMeter cpu_;
};

}  // namespace pacer_demo
