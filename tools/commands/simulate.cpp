// `pacer simulate`: the robustness heatmap of "Making an accurate Sleep() function" (2020), in
// virtual time. For every requested wait time and scheduler period, a waiter sleeps `iterations`
// times on a pacer::SimulatedOs whose OS sleep wakes up to one period late (uniform, as that
// article's fake sleep) with random preemptions, and the mean relative error
// |woke - requested| / requested is printed as a heatmap. Deterministic: the same options print
// the same table on every machine, in well under a second.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "pacer/pacer.hpp"
#include "commands.hpp"

using namespace std::chrono_literals;

namespace pacer::tools {
namespace {

const char kShade[] = " .:-=+*#%@";

struct HeatmapOptions {
    std::vector<double> times{0.5, 1, 2, 4, 8, 16}, periods{1, 2, 4, 6, 8, 10};
    std::vector<WaitMode> modes{WaitMode::hybrid};
    long long iterations = 200, seed = 1;
    double preempt = 0.05;
    std::string csv_path;
};

cli::Parser heatmap_parser(HeatmapOptions* o) {
    cli::Parser opts("pacer simulate", "",
                     "Runs the waiter against the virtual-time OS model (pacer/sim.hpp) over a grid of requested\n"
                     "times x scheduler periods and prints the mean relative error |woke - requested| / requested\n"
                     "in percent, as in the heatmap of \"Making an accurate Sleep() function\". Deterministic.\n"
                     "`pacer simulate latency --help`: the sync modes' input latency on a simulated display.\n"
                     "`pacer simulate display --help`: display lock, cadence and display-time delta against\n"
                     "the fixed grid without display lock, on a simulated display.");
    opts.list("--times-ms", "LIST", "requested wait times, ms", &o->times, 0.001, 1000.0);
    opts.list("--periods-ms", "LIST", "scheduler periods of the simulated OS sleep, ms", &o->periods, 0.0, 100.0);
    opts.choice("--mode", "waiter mode to simulate; all = sleep, spin and hybrid", &o->modes,
                {{"sleep", {WaitMode::sleep}},
                 {"spin", {WaitMode::spin}},
                 {"hybrid", {WaitMode::hybrid}},
                 {"all", {WaitMode::sleep, WaitMode::spin, WaitMode::hybrid}}});
    opts.number("--iterations", "N", "waits per cell", &o->iterations, 1LL, 100000LL);
    opts.number("--preempt", "P", "chance that a wake-up is preempted by another period", &o->preempt, 0.0, 0.9);
    opts.number("--seed", "N", "random seed of the model", &o->seed, 0LL, 1LL << 53);
    opts.text("--csv", "FILE", "also write mode,period_ms,time_ms,rel_error_pct,cpu_pct rows to FILE", &o->csv_path);
    return opts;
}

struct Cell {
    double rel_error_pct = 0;  // mean |woke - requested| / requested
    double cpu_pct = 0;        // the waiting thread's CPU over the cell's virtual time
};

// `iterations` waits of t ms, 0.1 ms of work between them, on a fresh model whose OS sleep wakes
// up on the scheduler's period.
Cell simulate_cell(const HeatmapOptions& o, WaitMode mode, double period, double t) {
    SimModel m;
    m.granularity = std::chrono::nanoseconds(std::llround(period * 1e6));
    m.preempt_probability = o.preempt;
    SimulatedOs os(m, static_cast<std::uint64_t>(o.seed));
    WaiterConfig wc;  // the thread's own class: the preemptions the model draws are the point
    wc.priority.mode = ThreadPriority::normal;
    HybridWaiter w(wc, &os);
    const auto req = static_cast<std::int64_t>(std::llround(t * 1e6));
    double err = 0;
    const CpuTimes c0 = os.cpu_times();
    const std::int64_t w0 = pacer::clock::to_ns(os.now());
    for (long long k = 0; k < o.iterations; ++k) {
        const std::int64_t start = pacer::clock::to_ns(os.now());
        (void)w.wait_until(pacer::clock::from_ns(start + req), mode);
        err += std::fabs(static_cast<double>(pacer::clock::to_ns(os.now()) - start - req));
        os.advance(100us);  // 0.1 ms of work between waits
    }
    Cell c;
    c.rel_error_pct = 100.0 * err / static_cast<double>(o.iterations) / static_cast<double>(req);
    c.cpu_pct = 100.0 * static_cast<double>(os.cpu_times().thread.count() - c0.thread.count()) /
                static_cast<double>(std::max<std::int64_t>(1, pacer::clock::to_ns(os.now()) - w0));
    return c;
}

// ' ' below 0.1 %, then steps on a log scale up to '@' from 50 %.
char shade(double rel) {
    const int level = rel < 0.1 ? 0 : std::min(9, 1 + static_cast<int>(std::log2(rel / 0.1) * 8.0 / std::log2(500.0)));
    return kShade[level];
}

// One mode's table: a row per period, a column per requested time, and the row's shades.
void print_grid(const HeatmapOptions& o, WaitMode mode, std::FILE* csv) {
    std::printf("\nmode %s\n%-12s", to_string(mode), "period \\ ms");
    for (double t : o.times) std::printf(" %9g", t);
    std::printf("\n");
    for (double period : o.periods) {
        std::printf("%9g ms ", period);
        std::string shades;
        for (double t : o.times) {
            const Cell c = simulate_cell(o, mode, period, t);
            std::printf(" %9.2f", c.rel_error_pct);
            shades += shade(c.rel_error_pct);
            if (csv) std::fprintf(csv, "%s,%g,%g,%.4f,%.2f\n", to_string(mode), period, t, c.rel_error_pct, c.cpu_pct);
        }
        std::printf("  |%s|\n", shades.c_str());
    }
}

}  // namespace

int simulate_main(int argc, char** argv) {
    if (argc >= 1 && std::strcmp(argv[0], "latency") == 0) return simulate_latency_main(argc - 1, argv + 1);
    if (argc >= 1 && std::strcmp(argv[0], "display") == 0) return simulate_display_main(argc - 1, argv + 1);
    pacer::set_log_function(nullptr);
    HeatmapOptions o;
    const cli::Parser opts = heatmap_parser(&o);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    std::FILE* csv = nullptr;
    if (!o.csv_path.empty()) {
        csv = std::fopen(o.csv_path.c_str(), "w");
        if (!csv) {
            std::fprintf(stderr, "pacer simulate: cannot write %s: %s\n", o.csv_path.c_str(), std::strerror(errno));
            return 1;
        }
        std::fprintf(csv, "mode,period_ms,time_ms,rel_error_pct,cpu_pct\n");
    }
    std::printf("pacer simulate: %lld waits per cell, preemption chance %.3f, seed %lld\n"
                "mean relative error |woke - requested| / requested, %%; shade: ' ' < 0.1 %%, '@' >= 50 %%\n",
                o.iterations, o.preempt, o.seed);
    for (WaitMode mode : o.modes) print_grid(o, mode, csv);
    if (csv && std::fclose(csv) != 0) {
        std::fprintf(stderr, "pacer simulate: cannot write %s\n", o.csv_path.c_str());
        return 1;
    }
    return 0;
}

}  // namespace pacer::tools
