// `pacer simulate`: seed 000's robustness heatmap, in virtual time. For every requested wait time
// and scheduler period, a waiter sleeps `iterations` times on a pacer::SimulatedOs whose OS sleep
// wakes up to one period late (uniform, as seed 000's fake sleep) with random preemptions, and the
// mean relative error |woke - requested| / requested is printed as a heatmap. Deterministic: the
// same options print the same table on every machine, in well under a second.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "pacer/pacer.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace {

int usage(const char* why) {
    if (why) std::fprintf(stderr, "pacer simulate: %s\n", why);
    std::fprintf(why ? stderr : stdout,
                 "usage: pacer simulate [--times-ms 0.5,1,2,4,8,16] [--periods-ms 1,2,4,6,8,10]\n"
                 "                      [--mode hybrid|sleep|spin|all] [--iterations 200]\n"
                 "                      [--preempt 0.05] [--seed 1] [--csv FILE]\n"
                 "Runs the waiter against the virtual-time OS model (pacer/sim.hpp) over a grid of requested\n"
                 "times x scheduler periods and prints the mean relative error |woke - requested| / requested\n"
                 "in percent, as in seed 000's heatmap. Deterministic.\n"
                 "  --times-ms    requested wait times, ms (each in [0.001, 1000])\n"
                 "  --periods-ms  scheduler periods of the simulated OS sleep, ms (each in [0, 100])\n"
                 "  --mode        waiter mode to simulate; all = sleep, spin and hybrid\n"
                 "  --iterations  waits per cell (1 .. 100000)\n"
                 "  --preempt     chance that a wake-up is preempted by another period ([0, 0.9])\n"
                 "  --seed        random seed of the model (0 .. 2^53)\n"
                 "  --csv         also write mode,period_ms,time_ms,rel_error_pct,cpu_pct rows to FILE\n");
    return why ? 2 : 0;
}

const char kShade[] = " .:-=+*#%@";

}  // namespace

int simulate_main(int argc, char** argv) {
    pacer::set_log_function(nullptr);
    std::vector<double> times{0.5, 1, 2, 4, 8, 16}, periods{1, 2, 4, 6, 8, 10};
    std::vector<WaitMode> modes{WaitMode::hybrid};
    long long iterations = 200, seed = 1;
    double preempt = 0.05;
    std::string csv_path;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return usage(nullptr);
        if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
        const char* v = argv[++i];
        Status st;
        if (a == "--times-ms") st = parse_list(v, "--times-ms", 0.001, 1000, times);
        else if (a == "--periods-ms") st = parse_list(v, "--periods-ms", 0, 100, periods);
        else if (a == "--iterations") st = parse_int(v, "--iterations", 1, 100000, iterations);
        else if (a == "--seed") st = parse_int(v, "--seed", 0, 1LL << 53, seed);
        else if (a == "--preempt") st = parse_number(v, "--preempt", 0, 0.9, preempt);
        else if (a == "--csv") csv_path = v;
        else if (a == "--mode") {
            WaitMode m;
            if (std::strcmp(v, "all") == 0) modes = {WaitMode::sleep, WaitMode::spin, WaitMode::hybrid};
            else if (parse_wait_mode(v, &m) && m != WaitMode::vsync && m != WaitMode::automatic) modes = {m};
            else st = Status::error(std::string("--mode: \"") + v + "\" is not sleep, spin, hybrid or all");
        } else {
            return usage(("unknown option " + a).c_str());
        }
        if (!st) return usage(st.message().c_str());
    }
    std::FILE* csv = nullptr;
    if (!csv_path.empty()) {
        csv = std::fopen(csv_path.c_str(), "w");
        if (!csv) {
            std::fprintf(stderr, "pacer simulate: cannot write %s: %s\n", csv_path.c_str(), std::strerror(errno));
            return 1;
        }
        std::fprintf(csv, "mode,period_ms,time_ms,rel_error_pct,cpu_pct\n");
    }
    std::printf("pacer simulate: %lld waits per cell, preemption chance %.3f, seed %lld\n"
                "mean relative error |woke - requested| / requested, %%; shade: ' ' < 0.1 %%, '@' >= 50 %%\n",
                iterations, preempt, seed);
    for (WaitMode mode : modes) {
        std::printf("\nmode %s\n%-12s", to_string(mode), "period \\ ms");
        for (double t : times) std::printf(" %9g", t);
        std::printf("\n");
        for (double period : periods) {
            std::printf("%9g ms ", period);
            std::string shades;
            for (double t : times) {
                SimModel m;
                m.granularity_ns = static_cast<std::int64_t>(std::llround(period * 1e6));
                m.preempt_probability = preempt;
                SimulatedOs os(m, static_cast<std::uint64_t>(seed));
                HybridWaiter w({}, &os);
                const auto req = static_cast<std::int64_t>(std::llround(t * 1e6));
                double err = 0;
                const CpuTimes c0 = os.cpu_times();
                const std::int64_t w0 = os.now_ns();
                for (long long k = 0; k < iterations; ++k) {
                    const std::int64_t start = os.now_ns();
                    (void)w.wait_until(pacer::clock::from_ns(start + req), mode);
                    err += std::fabs(static_cast<double>(os.now_ns() - start - req));
                    os.advance(100'000);  // 0.1 ms of work between waits
                }
                const double rel = 100.0 * err / static_cast<double>(iterations) / static_cast<double>(req);
                const double cpu = 100.0 * static_cast<double>(os.cpu_times().thread_ns - c0.thread_ns) /
                                   static_cast<double>(std::max<std::int64_t>(1, os.now_ns() - w0));
                std::printf(" %9.2f", rel);
                const int level = rel < 0.1 ? 0 : std::min(9, 1 + static_cast<int>(std::log2(rel / 0.1) * 8.0 / std::log2(500.0)));
                shades += kShade[level];
                if (csv) std::fprintf(csv, "%s,%g,%g,%.4f,%.2f\n", to_string(mode), period, t, rel, cpu);
            }
            std::printf("  |%s|\n", shades.c_str());
        }
    }
    if (csv && std::fclose(csv) != 0) {
        std::fprintf(stderr, "pacer simulate: cannot write %s\n", csv_path.c_str());
        return 1;
    }
    return 0;
}

}  // namespace pacer::tools
