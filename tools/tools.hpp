// tools/tools.hpp - the subcommands of the `pacer` tool. Each takes its options (argv without the
// program and subcommand names) and returns the exit code: 0 ok, 1 unreadable input or failed
// output, 2 bad options.
#pragma once

#include <string>

#include "cli_options.hpp"
#include "pacer/frame_pacer.hpp"

namespace pacer::tools {

int analyze_main(int argc, char** argv);
int probe_main(int argc, char** argv);
int compare_main(int argc, char** argv, const char* prog);
int simulate_main(int argc, char** argv);
int simulate_latency_main(int argc, char** argv);  // `pacer simulate latency`
int simulate_display_main(int argc, char** argv);  // `pacer simulate display`
int run_main(int argc, char** argv);
int display_main(int argc, char** argv);  // display_cmd.cpp
int report_main(int argc, char** argv);  // report.cpp

// A target rate as the library accepts it (validate), for the tools' --hz.
inline Status check_rate(double hz) {
    PacerConfig c;
    c.target_hz = hz;
    return validate(c);
}
inline std::string rate_range() { return "in (0, " + cli::format_number(kMaxTargetHz) + "]"; }

}  // namespace pacer::tools
