// pacer_compare: the interleaved pacing comparison (the same code as `pacer compare`, which lives
// in tools/lib/compare.cpp). See `pacer_compare --help`.
#include "compare.hpp"

int main(int argc, char** argv) {
    return pacer::tools::compare_main(argc - 1, argv + 1, "pacer_compare");
}
