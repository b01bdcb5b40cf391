// tools/lib/compare.hpp - the interleaved pacing comparison, shared by `pacer compare` and the
// bench/pacer_compare executable.
#pragma once

namespace pacer::tools {

// argv: the options only (no program name). prog: the name used in messages and --help.
// Returns the exit code: 0, or 2 for bad options.
int compare_main(int argc, char** argv, const char* prog);

}  // namespace pacer::tools
