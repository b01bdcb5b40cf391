// tools/commands/commands.hpp - the subcommands of the `pacer` tool (tools/commands/pacer_cli.cpp
// dispatches them). Each takes its options (argv without the program and subcommand names) and
// returns the exit code: 0 ok, 1 unreadable input or failed output, 2 bad options.
#pragma once

#include "compare.hpp"  // compare_main: in the library, shared with bench/pacer_compare
#include "tools.hpp"

namespace pacer::tools {

int analyze_main(int argc, char** argv);            // analyze_main.cpp
int probe_main(int argc, char** argv);              // probe.cpp
int simulate_main(int argc, char** argv);           // simulate.cpp
int simulate_latency_main(int argc, char** argv);   // simulate_latency.cpp: `pacer simulate latency`
int simulate_display_main(int argc, char** argv);   // simulate_display.cpp: `pacer simulate display`
int run_main(int argc, char** argv);                // run.cpp
int display_main(int argc, char** argv);            // display_main.cpp
int report_main(int argc, char** argv);             // report_main.cpp

}  // namespace pacer::tools
