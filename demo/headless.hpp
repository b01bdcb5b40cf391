// demo/headless.hpp - the paced loop without a window.
#pragma once

#include "options.hpp"

namespace pacer_demo {

// Runs until --frames or --seconds (default kDefaultHeadlessSeconds when neither is given).
// Prints a status line about once a second and `summary: ...` at the end (stdout). Returns the
// process exit code.
int run_headless(const Options& o);

// Shared by both runners: the final, machine-checkable line, e.g.
//   summary: frames=1440 seconds=10.00 hz=144 mode=hybrid avg_fps=143.99 p99_interval_ms=7.01
//            p99_lateness_ms=0.041 missed=0 stutters=0 cpu_pct=23.5 (one line)
class Session;
void print_summary(Session& s, const char* ui);
void print_status(Session& s);

}  // namespace pacer_demo
