// The interleaved pacing comparison: `pacer compare` and bench/pacer_compare (moved here from
// bench/pacer_compare.cpp so that both run the same code).
//
// For each rate and each number of busy threads, every strategy paces the same loop in short
// chunks, one strategy after the other, round after round, so that the machine's slow drifts hit
// all of them alike. Reported per strategy: deadline lateness percentiles (wake - deadline),
// interval error (|interval - period|), share of wall time spent spinning, and the pacing thread's
// CPU % (median over chunks). Ratios against the other strategies are printed under each table.
//
//   pacer compare [--hz 60,144] [--load 0,1] [--seconds 2] [--rounds 3] [--work-ms 0] [--csv FILE]
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "compare.hpp"
#include "pacer/pacer.hpp"
#include "precise_sleep.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace {

struct Options {
    std::vector<double> hz{60.0, 144.0};
    std::vector<int> load{0, 1};
    double seconds = 2.0;
    int rounds = 3;
    double work_ms = 0.0;
    std::string csv;
};

enum Strategy { kSleep, kSpin, kPrecise, kSleepUntil, kHybrid, kStrategies };
const char* kNames[kStrategies] = {"sleep (absolute OS sleep)", "spin", "preciseSleep (Blatnik 2020)",
                                   "pacer::sleep_until", "pacer hybrid"};
const char* kShort[kStrategies] = {"sleep", "spin", "precise", "sleep_until", "hybrid"};

struct Samples {
    std::vector<double> late_us, interr_us, cpu_pct;
    double spun_ns = 0, wall_ns = 0;
};

double q(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return pacer::percentile_sorted(v, p);
}

void busy_work(std::int64_t ns) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    while (std::chrono::steady_clock::now() < end) {
    }
}

// One chunk of one strategy: paces for `seconds`, appends what it saw.
void run_chunk(Strategy s, double hz, const Options& o, pacer::FramePacer& fp,
               bench::PreciseSleep& seed, Samples& out) {
    pacer::TimeSource& ts = pacer::system_time_source();
    const auto work_ns = static_cast<std::int64_t>(o.work_ms * 1e6);
    const auto frames = static_cast<int>(o.seconds * hz);
    const std::int64_t period = static_cast<std::int64_t>(std::llround(1e9 / hz));
    pacer::CpuMeter cpu;
    const std::int64_t t0 = ts.now_ns();
    double spun = 0;
    // Lateness is what the caller sees: its own clock read right after the wait returned.
    if (s == kPrecise || s == kSleepUntil) {
        // A loop of absolute deadlines, so that lateness means the same as for the pacer. The
        // preciseSleep article's loop is given the time left; pacer::sleep_until the deadline.
        std::int64_t deadline = ts.now_ns();
        std::int64_t prev_wake = deadline;
        for (int i = 0; i < frames; ++i) {
            busy_work(work_ns);
            deadline += period;
            if (s == kPrecise) {
                const std::int64_t left = deadline - ts.now_ns();
                if (left > 0) spun += static_cast<double>(seed.sleep(static_cast<double>(left) * 1e-9));
            } else {
                spun += static_cast<double>(pacer::sleep_until(pacer::clock::from_ns(deadline)).spun.count());
            }
            const std::int64_t wake = ts.now_ns();
            out.late_us.push_back(static_cast<double>(std::max<std::int64_t>(0, wake - deadline)) / 1e3);
            out.interr_us.push_back(std::abs(static_cast<double>(wake - prev_wake - period)) / 1e3);
            prev_wake = wake;
        }
    } else {
        fp.reset();
        fp.wait();
        for (int i = 0; i < frames; ++i) {
            busy_work(work_ns);
            const pacer::FrameTiming t = fp.wait();
            const std::int64_t wake = ts.now_ns();
            spun += static_cast<double>(t.spun.count());
            out.late_us.push_back(static_cast<double>(std::max<std::int64_t>(0, wake - pacer::clock::to_ns(t.deadline))) / 1e3);
            out.interr_us.push_back(std::abs(static_cast<double>((t.interval - t.period).count())) / 1e3);
        }
    }
    const pacer::CpuUsage u = cpu.sample();
    out.cpu_pct.push_back(u.thread_pct);
    out.spun_ns += spun;
    out.wall_ns += static_cast<double>(ts.now_ns() - t0);
}

}  // namespace

int compare_main(int argc, char** argv, const char* prog) {
    pacer::set_log_function(nullptr);
    Options o;
    cli::Parser opts(prog, "",
                     "The interleaved pacing comparison: each strategy (absolute OS sleep, spin, the\n"
                     "preciseSleep of \"Making an accurate Sleep() function\", pacer::sleep_until, pacer's\n"
                     "hybrid FramePacer) paces the same loop in short chunks, one after the other, round\n"
                     "after round; prints lateness as the caller sees it and the pacing thread's CPU %.");
    opts.list("--hz", "LIST", "target rates to compare", &o.hz, cli::kNoLow, cli::kNoHigh, check_rate)
        .range = "each " + rate_range();
    opts.list("--load", "LIST", "numbers of background busy threads", &o.load, 0, 64);
    opts.number("--seconds", "S", "length of one chunk of one strategy", &o.seconds, 0.1, 600.0);
    opts.number("--rounds", "N", "chunks per strategy, interleaved", &o.rounds, 1, 1000);
    opts.number("--work-ms", "MS", "simulated work per frame, busy", &o.work_ms, 0.0, 1000.0);
    opts.text("--csv", "FILE", "also write one row per strategy and setting to FILE", &o.csv);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    std::ofstream csv;
    if (!o.csv.empty()) {
        csv.open(o.csv);
        if (!csv) {
            std::fprintf(stderr, "%s: cannot write %s: %s\n", prog, o.csv.c_str(), std::strerror(errno));
            return 2;
        }
        csv << "hz,busy_threads,strategy,frames,late_p50_us,late_p99_us,late_p999_us,late_max_us,"
               "interval_err_p50_us,interval_err_p99_us,spin_share_pct,thread_cpu_pct\n";
    }

    std::printf("%s: %d rounds x %.1f s per strategy, work %.2f ms/frame, %u hardware threads,\n"
                "sleep primitive: %s\n",
                prog, o.rounds, o.seconds, o.work_ms, std::thread::hardware_concurrency(),
                pacer::system_time_source().sleep_primitive());
    for (int load : o.load) {
        std::atomic<bool> stop{false};
        std::vector<std::thread> busy;
        for (int b = 0; b < load; ++b)
            busy.emplace_back([&stop] {
                volatile std::uint64_t x = 0;
                while (!stop.load(std::memory_order_relaxed)) x = x + 1;
            });
        for (double hz : o.hz) {
            Samples s[kStrategies];
            pacer::FramePacer fp[kStrategies] = {
                pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep}),
                pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::spin}),
                pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep}),  // unused
                pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep}),  // unused
                pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::hybrid})};
            bench::PreciseSleep seed;
            for (int r = 0; r < o.rounds; ++r)
                for (int k = 0; k < kStrategies; ++k) {
                    const auto st = static_cast<Strategy>((k + r) % kStrategies);  // rotate the order
                    run_chunk(st, hz, o, fp[st], seed, s[st]);
                }
            std::printf("\n%.0f Hz, %d busy thread%s (CPU: median and quartiles over %d chunks; lateness "
                        "as the caller sees it, over all frames)\n",
                        hz, load, load == 1 ? "" : "s", o.rounds);
            std::printf("| strategy | late p50 us | late p99 us | late p99.9 us | late max us | "
                        "interval err p99 us | spin %% | thread CPU %% | CPU p25-p75 |\n"
                        "|---|---|---|---|---|---|---|---|---|\n");
            double p99[kStrategies], cpu[kStrategies];
            for (int k = 0; k < kStrategies; ++k) {
                const Samples& x = s[k];
                p99[k] = q(x.late_us, 0.99);
                cpu[k] = q(x.cpu_pct, 0.5);
                const double spin = 100.0 * x.spun_ns / x.wall_ns;
                std::printf("| %s | %.2f | %.1f | %.1f | %.0f | %.1f | %.2f | %.2f | %.2f-%.2f |\n", kNames[k],
                            q(x.late_us, 0.5), p99[k], q(x.late_us, 0.999),
                            *std::max_element(x.late_us.begin(), x.late_us.end()), q(x.interr_us, 0.99), spin,
                            cpu[k], q(x.cpu_pct, 0.25), q(x.cpu_pct, 0.75));
                if (csv)
                    csv << hz << ',' << load << ',' << kShort[k] << ',' << x.late_us.size() << ','
                        << q(x.late_us, 0.5) << ',' << p99[k] << ',' << q(x.late_us, 0.999) << ','
                        << *std::max_element(x.late_us.begin(), x.late_us.end()) << ','
                        << q(x.interr_us, 0.5) << ',' << q(x.interr_us, 0.99) << ',' << spin << ','
                        << cpu[k] << '\n';
            }
            std::printf("hybrid vs preciseSleep: CPU %.2fx; hybrid vs spin: CPU %.3fx, p99 lateness %.1f us vs %.1f us "
                        "(target <= 2 x spin + 20 = %.1f us)\n",
                        cpu[kHybrid] / std::max(cpu[kPrecise], 1e-9), cpu[kHybrid] / std::max(cpu[kSpin], 1e-9),
                        p99[kHybrid], p99[kSpin], 2 * p99[kSpin] + 20);
            std::printf("sleep_until vs hybrid: CPU %.2fx, p99 lateness %.1f us vs %.1f us\n",
                        cpu[kSleepUntil] / std::max(cpu[kHybrid], 1e-9), p99[kSleepUntil], p99[kHybrid]);
            std::fflush(stdout);
        }
        stop = true;
        for (auto& t : busy) t.join();
    }
    return 0;
}

}  // namespace pacer::tools
