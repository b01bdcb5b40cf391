// pacer: the command-line tool. Frame-time captures (analyze, report), measurements of this machine's
// waits (probe, compare), the virtual-time model (simulate) and a headless paced loop (run).
// No SDL, no window. See docs/capture.md.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "pacer/pacer.hpp"
#include "commands.hpp"

namespace pacer::tools {
namespace {

int usage(FILE* to) {
    std::fprintf(to,
                 "usage: pacer <command> [options]     (pacer <command> --help for its options)\n"
                 "  analyze FILE...  summary of frame-time captures (pacer, PresentMon, OCAT, CapFrameX,\n"
                 "                   MangoHud, FrameView)\n"
                 "  report FILE...   the captures drawn as one self-contained HTML page (plots, summary)\n"
                 "  probe            how long this machine's wait primitives really wait\n"
                 "  compare          interleaved pacing comparison: sleep, spin, preciseSleep, the hybrid\n"
                 "                   at each thread priority, beside busy threads or processes\n"
                 "  simulate         relative-error heatmap of the waiter on the virtual-time OS model\n"
                 "  simulate latency input latency of the sync modes on a simulated vsync display\n"
                 "  simulate display display-aware pacing against the fixed grid without display lock\n"
                 "  run              a paced loop without a window, optionally captured\n"
                 "  display          the current display's clock through X11 Present, wp_presentation or\n"
                 "                   the swap, as the pacer's display fit sees it; present at a time\n"
                 "  version          print the version\n");
    return to == stdout ? 0 : 2;
}

}  // namespace

}  // namespace pacer::tools

int main(int argc, char** argv) {
    using namespace pacer::tools;
    if (argc < 2) return usage(stderr);
    const std::string cmd = argv[1];
    int n = argc - 2;
    char** rest = argv + 2;
    if (cmd == "analyze") return analyze_main(n, rest);
    if (cmd == "report") return report_main(n, rest);
    if (cmd == "probe") return probe_main(n, rest);
    if (cmd == "compare") return compare_main(n, rest, "pacer compare");
    if (cmd == "simulate") return simulate_main(n, rest);
    if (cmd == "run") return run_main(n, rest);
    if (cmd == "display") return display_main(n, rest);
    if (cmd == "version" || cmd == "--version") {
        std::printf("pacer %s\n", pacer::kVersion);
        return 0;
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(stdout);
    std::fprintf(stderr, "pacer: unknown command \"%s\"\n", cmd.c_str());
    return usage(stderr);
}
