// pacer: the command-line tool. Frame-time captures (analyze), measurements of this machine's
// waits (probe, compare), the virtual-time model (simulate) and a headless paced loop (run).
// No SDL, no window. See docs/capture.md.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "analyze.hpp"
#include "cli_util.hpp"
#include "pacer/pacer.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace {

int analyze_usage(const char* why) {
    if (why) std::fprintf(stderr, "pacer analyze: %s\n", why);
    std::fprintf(why ? stderr : stdout,
                 "usage: pacer analyze [options] FILE...\n"
                 "Reads pacer captures, PresentMon CSVs (1.x and 2.x) and MangoHud logs and prints the\n"
                 "summary, one column per file: FPS, frame-time percentiles, P1/P0.1 FPS, 1%%/0.1%% lows\n"
                 "(average and integral definitions), stddev, pacing error against the target, jitter,\n"
                 "stutters, hitches, histograms in refresh periods and a frame-time histogram.\n"
                 "  --json              JSON instead of text\n"
                 "  --target-hz HZ      pacing error against this rate (default: the capture's target)\n"
                 "  --refresh-hz HZ     refresh rate of the histograms (default: target, else 60)\n"
                 "  --app NAME          only rows whose Application is NAME (PresentMon logs of many apps)\n"
                 "  --stutter-window N  frames in the stutter moving average (default 20)\n"
                 "  --bins N            frame-time histogram bins (default 20)\n"
                 "Exit status: 0 ok, 1 a file could not be read (the message names file and line), 2 bad options.\n");
    return why ? 2 : 0;
}

int usage(FILE* to) {
    std::fprintf(to,
                 "usage: pacer <command> [options]     (pacer <command> --help for its options)\n"
                 "  analyze FILE...  summary of frame-time captures (pacer, PresentMon, MangoHud)\n"
                 "  probe            how long this machine's wait primitives really wait\n"
                 "  compare          interleaved pacing comparison: sleep, spin, seed 000, hybrid\n"
                 "  simulate         relative-error heatmap of the waiter on the virtual-time OS model\n"
                 "  run              a paced loop without a window, optionally captured\n"
                 "  version          print the version\n");
    return to == stdout ? 0 : 2;
}

}  // namespace

int analyze_main(int argc, char** argv) {
    AnalyzeOptions o;
    bool json = false;
    std::vector<std::string> files;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return analyze_usage(nullptr);
        if (a == "--json") {
            json = true;
            continue;
        }
        if (a.size() > 1 && a[0] == '-' && a != "-") {
            if (i + 1 >= argc) return analyze_usage(("missing value after " + a).c_str());
            const char* v = argv[++i];
            Status st;
            long long n = 0;
            double hz = 0;
            if (a == "--target-hz") {
                st = parse_number(v, "--target-hz", 1e-3, 1e6, hz);
                if (st) o.target_ms = 1000.0 / hz;
            } else if (a == "--refresh-hz") {
                st = parse_number(v, "--refresh-hz", 1e-3, 1e6, o.refresh_hz);
            } else if (a == "--app") {
                o.application = v;
            } else if (a == "--stutter-window") {
                st = parse_int(v, "--stutter-window", 1, 1'000'000, n);
                o.stutter_window = static_cast<int>(n);
            } else if (a == "--bins") {
                st = parse_int(v, "--bins", 1, 1000, n);
                o.histogram_bins = static_cast<int>(n);
            } else {
                return analyze_usage(("unknown option " + a).c_str());
            }
            if (!st) return analyze_usage(st.message().c_str());
            continue;
        }
        files.push_back(a);
    }
    if (files.empty()) return analyze_usage("no capture file given");
    std::vector<Analysis> as;
    int rc = 0;
    for (const std::string& f : files) {
        Analysis a;
        if (Status st = analyze_file(f, o, a); !st) {
            std::fprintf(stderr, "pacer analyze: %s\n", st.message().c_str());
            rc = 1;
            continue;
        }
        as.push_back(std::move(a));
    }
    if (!as.empty()) {
        const std::string out = json ? format_json(as) : format_text(as);
        std::fwrite(out.data(), 1, out.size(), stdout);
    }
    return rc;
}

}  // namespace pacer::tools

int main(int argc, char** argv) {
    using namespace pacer::tools;
    if (argc < 2) return usage(stderr);
    const std::string cmd = argv[1];
    int n = argc - 2;
    char** rest = argv + 2;
    if (cmd == "analyze") return analyze_main(n, rest);
    if (cmd == "probe") return probe_main(n, rest);
    if (cmd == "compare") return compare_main(n, rest, "pacer compare");
    if (cmd == "simulate") return simulate_main(n, rest);
    if (cmd == "run") return run_main(n, rest);
    if (cmd == "version" || cmd == "--version") {
        std::printf("pacer %s\n", pacer::kVersion);
        return 0;
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(stdout);
    std::fprintf(stderr, "pacer: unknown command \"%s\"\n", cmd.c_str());
    return usage(stderr);
}
