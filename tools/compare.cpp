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
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "compare.hpp"
#include "pacer/pacer.hpp"
#include "seed000.hpp"

namespace pacer::tools {
namespace {

const char* g_prog = "pacer compare";

struct Options {
    std::vector<double> hz{60.0, 144.0};
    std::vector<int> load{0, 1};
    double seconds = 2.0;
    int rounds = 3;
    double work_ms = 0.0;
    std::string csv;
};

enum Strategy { kSleep, kSpin, kSeed000, kHybrid, kStrategies };
const char* kNames[kStrategies] = {"sleep (absolute OS sleep)", "spin", "seed000 preciseSleep",
                                   "pacer hybrid"};
const char* kShort[kStrategies] = {"sleep", "spin", "seed000", "hybrid"};

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
               bench::Seed000Sleep& seed, Samples& out) {
    pacer::TimeSource& ts = pacer::system_time_source();
    const auto work_ns = static_cast<std::int64_t>(o.work_ms * 1e6);
    const auto frames = static_cast<int>(o.seconds * hz);
    const std::int64_t period = static_cast<std::int64_t>(std::llround(1e9 / hz));
    pacer::CpuMeter cpu;
    const std::int64_t t0 = ts.now_ns();
    double spun = 0;
    if (s == kSeed000) {
        // Seed 000's loop, given absolute deadlines so that lateness means the same thing.
        std::int64_t deadline = ts.now_ns();
        std::int64_t prev_wake = deadline;
        for (int i = 0; i < frames; ++i) {
            busy_work(work_ns);
            deadline += period;
            const std::int64_t left = deadline - ts.now_ns();
            if (left > 0) spun += static_cast<double>(seed.sleep(static_cast<double>(left) * 1e-9));
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
            spun += static_cast<double>(t.spun.count());
            out.late_us.push_back(static_cast<double>(t.lateness.count()) / 1e3);
            out.interr_us.push_back(std::abs(static_cast<double>((t.interval - t.period).count())) / 1e3);
        }
    }
    const pacer::CpuUsage u = cpu.sample();
    out.cpu_pct.push_back(u.thread_pct);
    out.spun_ns += spun;
    out.wall_ns += static_cast<double>(ts.now_ns() - t0);
}

bool parse_list(const char* text, std::vector<double>& out) {
    out.clear();
    std::string s(text);
    std::size_t pos = 0;
    while (pos <= s.size()) {
        const std::size_t comma = std::min(s.find(',', pos), s.size());
        double v = 0;
        const char* b = s.data() + pos;
        const char* e = s.data() + comma;
        auto r = std::from_chars(b, e, v);
        if (r.ec != std::errc() || r.ptr != e) return false;
        out.push_back(v);
        pos = comma + 1;
    }
    return !out.empty();
}

int usage(const char* why) {
    if (why) std::fprintf(stderr, "%s: %s\n", g_prog, why);
    std::fprintf(why ? stderr : stdout,
                 "usage: %s [--hz 60,144] [--load 0,1] [--seconds 2] [--rounds 3]\n"
                 "         [--work-ms 0] [--csv FILE]\n"
                 "The interleaved pacing comparison: each strategy (absolute OS sleep, spin, seed 000's\n"
                 "preciseSleep, pacer's hybrid) paces the same loop in short chunks, one after the other,\n"
                 "round after round; prints lateness percentiles and the pacing thread's CPU %%.\n"
                 "  --hz       target rates to compare (each in (0, 10000])\n"
                 "  --load     numbers of background busy threads (each in [0, 64])\n"
                 "  --seconds  length of one chunk of one strategy (0.1 .. 600)\n"
                 "  --rounds   chunks per strategy, interleaved (1 .. 1000)\n"
                 "  --work-ms  simulated work per frame, busy (0 .. 1000)\n"
                 "  --csv      also write one row per strategy and setting to FILE\n",
                 g_prog);
    return why ? 2 : 0;
}

}  // namespace

int compare_main(int argc, char** argv, const char* prog) {
    g_prog = prog;
    pacer::set_log_function(nullptr);
    Options o;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return usage(nullptr);
        if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
        const char* v = argv[++i];
        std::vector<double> list;
        if (a == "--hz") {
            if (!parse_list(v, list)) return usage("--hz: expected numbers separated by commas");
            for (double h : list) {
                pacer::PacerConfig c;
                c.target_hz = h;
                if (pacer::Status st = pacer::validate(c); !st) return usage(st.message().c_str());
            }
            o.hz = list;
        } else if (a == "--load") {
            if (!parse_list(v, list)) return usage("--load: expected whole numbers separated by commas");
            o.load.clear();
            for (double l : list) {
                if (l < 0 || l > 64 || l != std::floor(l)) return usage("--load: each in [0, 64], whole");
                o.load.push_back(static_cast<int>(l));
            }
        } else if (a == "--seconds" || a == "--rounds" || a == "--work-ms") {
            if (!parse_list(v, list) || list.size() != 1) return usage((a + ": expected one number").c_str());
            const double x = list[0];
            if (a == "--seconds") {
                if (!(x >= 0.1 && x <= 600)) return usage("--seconds: must be in [0.1, 600]");
                o.seconds = x;
            } else if (a == "--rounds") {
                if (!(x >= 1 && x <= 1000) || x != std::floor(x)) return usage("--rounds: whole, in [1, 1000]");
                o.rounds = static_cast<int>(x);
            } else {
                if (!(x >= 0 && x <= 1000)) return usage("--work-ms: must be in [0, 1000]");
                o.work_ms = x;
            }
        } else if (a == "--csv") {
            o.csv = v;
        } else {
            return usage(("unknown option " + a).c_str());
        }
    }
    std::ofstream csv;
    if (!o.csv.empty()) {
        csv.open(o.csv);
        if (!csv) {
            std::fprintf(stderr, "%s: cannot write %s: %s\n", g_prog, o.csv.c_str(), std::strerror(errno));
            return 2;
        }
        csv << "hz,busy_threads,strategy,frames,late_p50_us,late_p99_us,late_p999_us,late_max_us,"
               "interval_err_p50_us,interval_err_p99_us,spin_share_pct,thread_cpu_pct\n";
    }

    std::printf("%s: %d rounds x %.1f s per strategy, work %.2f ms/frame, %u hardware threads,\n"
                "sleep primitive: %s\n",
                g_prog, o.rounds, o.seconds, o.work_ms, std::thread::hardware_concurrency(),
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
                pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::hybrid})};
            bench::Seed000Sleep seed;
            for (int r = 0; r < o.rounds; ++r)
                for (int k = 0; k < kStrategies; ++k) {
                    const auto st = static_cast<Strategy>((k + r) % kStrategies);  // rotate the order
                    run_chunk(st, hz, o, fp[st], seed, s[st]);
                }
            std::printf("\n%.0f Hz, %d busy thread%s (median CPU over %d chunks; lateness over all frames)\n",
                        hz, load, load == 1 ? "" : "s", o.rounds);
            std::printf("| strategy | late p50 us | late p99 us | late p99.9 us | late max us | "
                        "interval err p99 us | spin %% | thread CPU %% |\n|---|---|---|---|---|---|---|---|\n");
            double p99[kStrategies], cpu[kStrategies];
            for (int k = 0; k < kStrategies; ++k) {
                const Samples& x = s[k];
                p99[k] = q(x.late_us, 0.99);
                cpu[k] = q(x.cpu_pct, 0.5);
                const double spin = 100.0 * x.spun_ns / x.wall_ns;
                std::printf("| %s | %.1f | %.1f | %.1f | %.0f | %.1f | %.2f | %.2f |\n", kNames[k],
                            q(x.late_us, 0.5), p99[k], q(x.late_us, 0.999),
                            *std::max_element(x.late_us.begin(), x.late_us.end()), q(x.interr_us, 0.99), spin,
                            cpu[k]);
                if (csv)
                    csv << hz << ',' << load << ',' << kShort[k] << ',' << x.late_us.size() << ','
                        << q(x.late_us, 0.5) << ',' << p99[k] << ',' << q(x.late_us, 0.999) << ','
                        << *std::max_element(x.late_us.begin(), x.late_us.end()) << ','
                        << q(x.interr_us, 0.5) << ',' << q(x.interr_us, 0.99) << ',' << spin << ','
                        << cpu[k] << '\n';
            }
            std::printf("hybrid vs seed000: CPU %.2fx; hybrid vs spin: CPU %.3fx, p99 lateness %.1f us vs %.1f us "
                        "(target <= 2 x spin + 20 = %.1f us)\n",
                        cpu[kHybrid] / std::max(cpu[kSeed000], 1e-9), cpu[kHybrid] / std::max(cpu[kSpin], 1e-9),
                        p99[kHybrid], p99[kSpin], 2 * p99[kSpin] + 20);
            std::fflush(stdout);
        }
        stop = true;
        for (auto& t : busy) t.join();
    }
    return 0;
}

}  // namespace pacer::tools
