// tools/tools.hpp - the subcommands of the `pacer` tool. Each takes its options (argv without the
// program and subcommand names) and returns the exit code: 0 ok, 1 unreadable input or failed
// output, 2 bad options.
#pragma once

namespace pacer::tools {

int analyze_main(int argc, char** argv);
int probe_main(int argc, char** argv);
int compare_main(int argc, char** argv, const char* prog);
int simulate_main(int argc, char** argv);
int run_main(int argc, char** argv);

}  // namespace pacer::tools
