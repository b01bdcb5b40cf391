// The interleaved pacing comparison: `pacer compare` and bench/pacer_compare (moved here from
// bench/pacer_compare.cpp so that both run the same code).
//
// For each rate and each number of busy threads, every strategy paces the same loop in short
// chunks, one strategy after the other, round after round, so that the machine's slow drifts hit
// all of them alike. The order is shuffled every round (a fixed seed): in a fixed cycle each
// strategy would always follow the same one, and a strategy that spun a whole chunk leaves the
// next one with a scheduler that owes it nothing (later wake-ups), which skewed the ratios.
// Reported per strategy: deadline lateness percentiles (wake - deadline) over all frames and the
// median with quartiles of the per-chunk medians, interval error (|interval - period|: its p99 and
// the share of intervals off by more than 100 us), share of wall time spent spinning, and the
// pacing thread's CPU % (median and quartiles over chunks).
// Ratios against the other strategies are printed under each table, and a summary with one row per
// rate and load at the end.
//
// The raised pacers (thread priority, pacer/priority.hpp) run beside the others, and the hypervisor's
// steal time is printed with each setting.
//
//   pacer compare [--hz 60,144] [--load 0,1] [--seconds 2] [--rounds 3] [--work-ms 0] [--tail-margin US]
//                 [--csv FILE]
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
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
    double tail_margin_us = 0.0;  // > 0: also a hybrid pacer with this WaiterConfig::min_margin
    std::string csv;
};

// hybrid2 is a second FramePacer identical to hybrid: two learners that differ only in the random
// history they saw. Their CPU ratio is the run's noise floor for the ratios between strategies, and
// their interval-error p99s show how far that tail moves between two identical pacers.
// tail (only with --tail-margin) is a hybrid FramePacer that spins at least that long before every
// deadline (WaiterConfig::min_margin): what covering the OS's rare late wake-ups costs.
// The raised ones (pacer/priority.hpp): a hybrid FramePacer raised for each OS sleep (priority
// wait) and one raised for good (priority thread, its spins and the loop's work too), and
// pacer::sleep_until with set_sleep_priority(wait). Where the OS refuses, they pace as the normal
// ones and the header says why.
enum Strategy {
    kSleep, kSpin, kPrecise, kSleepUntil, kHybrid, kHybrid2, kTail, kRaised, kRaisedThread, kSleepUntilRaised,
    kStrategies
};
const char* kNames[kStrategies] = {"sleep (absolute OS sleep)", "spin", "preciseSleep (Blatnik 2020)",
                                   "pacer::sleep_until", "pacer hybrid", "pacer hybrid, 2nd (control)",
                                   "pacer hybrid, min_margin (--tail-margin)", "pacer hybrid, priority wait",
                                   "pacer hybrid, priority thread", "pacer::sleep_until, priority wait"};
const char* kShort[kStrategies] = {"sleep",  "spin",          "precise",     "sleep_until",       "hybrid",
                                   "hybrid2", "tail", "hybrid_wait", "hybrid_thread", "sleep_until_wait"};

// An interval this far off the period is a visible hitch; the share of them is the tail's mass,
// which moves less between runs than the p99 when it lies near 1 %.
constexpr double kHitchUs = 100.0;

struct Samples {
    std::vector<double> late_us, interr_us, cpu_pct;
    std::vector<double> chunk_late_p50_us;  // one per chunk
    double spun_ns = 0, wall_ns = 0;
};

double q(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return pacer::percentile_sorted(v, p);
}

// The share of intervals off the period by more than kHitchUs, in %.
double hitch_pct(const std::vector<double>& interr_us) {
    const auto n = std::count_if(interr_us.begin(), interr_us.end(), [](double e) { return e > kHitchUs; });
    return 100.0 * static_cast<double>(n) / static_cast<double>(std::max<std::size_t>(1, interr_us.size()));
}

// p25, p50, p75 of v into out[0..2].
void quartiles(const std::vector<double>& v, double out[3]) {
    out[0] = q(v, 0.25), out[1] = q(v, 0.5), out[2] = q(v, 0.75);
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
    const std::int64_t t0 = pacer::clock::to_ns(ts.now());
    double spun = 0;
    // Lateness is what the caller sees: its own clock read right after the wait returned.
    if (s == kPrecise || s == kSleepUntil || s == kSleepUntilRaised) {
        // A loop of absolute deadlines, so that lateness means the same as for the pacer. The
        // preciseSleep article's loop is given the time left; pacer::sleep_until the deadline.
        std::int64_t deadline = pacer::clock::to_ns(ts.now());
        std::int64_t prev_wake = deadline;
        for (int i = 0; i < frames; ++i) {
            busy_work(work_ns);
            deadline += period;
            if (s == kPrecise) {
                const std::int64_t left = deadline - pacer::clock::to_ns(ts.now());
                if (left > 0) spun += static_cast<double>(seed.sleep(static_cast<double>(left) * 1e-9));
            } else {
                spun += static_cast<double>(pacer::sleep_until(pacer::clock::from_ns(deadline)).spun.count());
            }
            const std::int64_t wake = pacer::clock::to_ns(ts.now());
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
            const std::int64_t wake = pacer::clock::to_ns(ts.now());
            spun += static_cast<double>(t.spun.count());
            out.late_us.push_back(static_cast<double>(std::max<std::int64_t>(0, wake - pacer::clock::to_ns(t.deadline))) / 1e3);
            out.interr_us.push_back(std::abs(static_cast<double>((t.interval - t.period).count())) / 1e3);
        }
    }
    const pacer::CpuUsage u = cpu.sample();
    out.cpu_pct.push_back(u.thread_pct);
    out.chunk_late_p50_us.push_back(
        q(std::vector<double>(out.late_us.end() - frames, out.late_us.end()), 0.5));
    out.spun_ns += spun;
    out.wall_ns += static_cast<double>(pacer::clock::to_ns(ts.now()) - t0);
}

// A thread that runs the jobs it is given, one at a time, while its owner waits. pacer::sleep_until
// keeps its learned state per thread; its chunks run on one of these per rate and load, so that it
// learns from that setting alone, as each setting's FramePacer does (on the main thread it carried
// what it learned in the settings before, and then spun up to 2.6x a fresh FramePacer under load).
class Worker {
public:
    Worker() : thread_([this] { loop(); }) {}
    ~Worker() {
        {
            std::lock_guard<std::mutex> lock(m_);
            quit_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void run(std::function<void()> job) {
        std::unique_lock<std::mutex> lock(m_);
        job_ = std::move(job);
        cv_.notify_all();
        cv_.wait(lock, [this] { return !job_; });
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            cv_.wait(lock, [this] { return quit_ || job_; });
            if (quit_) return;
            job_();
            job_ = nullptr;
            cv_.notify_all();
        }
    }
    std::mutex m_;
    std::condition_variable cv_;
    std::function<void()> job_;
    bool quit_ = false;
    std::thread thread_;
};

cli::Parser compare_parser(Options* o, const char* prog) {
    cli::Parser opts(prog, "",
                     "The interleaved pacing comparison: each strategy (absolute OS sleep, spin, the\n"
                     "preciseSleep of \"Making an accurate Sleep() function\", pacer::sleep_until, pacer's\n"
                     "hybrid FramePacer, and a second identical one as a control) paces the same loop in\n"
                     "short chunks, in a shuffled order, round after round; prints lateness as the caller\n"
                     "sees it, interval error and the pacing thread's CPU %, with the spread over chunks.");
    opts.list("--hz", "LIST", "target rates to compare", &o->hz, cli::kNoLow, cli::kNoHigh, check_rate)
        .range = "each " + rate_range();
    opts.list("--load", "LIST", "numbers of background busy threads", &o->load, 0, 64);
    opts.number("--seconds", "S", "length of one chunk of one strategy", &o->seconds, 0.1, 600.0);
    opts.number("--rounds", "N", "chunks per strategy, interleaved", &o->rounds, 1, 1000);
    opts.number("--work-ms", "MS", "simulated work per frame, busy", &o->work_ms, 0.0, 1000.0);
    opts.number("--tail-margin", "US",
                "also a hybrid pacer spinning at least US before each deadline (min_margin; 0: none)",
                &o->tail_margin_us, 0.0, 4000.0);
    opts.text("--csv", "FILE", "also write one row per strategy and setting to FILE", &o->csv);
    return opts;
}

using AllSamples = Samples[kStrategies];

pacer::PacerConfig tail_config(double hz, const Options& o) {
    pacer::PacerConfig c{.target_hz = hz, .mode = pacer::WaitMode::hybrid};
    c.waiter.min_margin = std::chrono::nanoseconds(std::llround(o.tail_margin_us * 1e3));
    return c;
}

pacer::PacerConfig raised_config(double hz, pacer::ThreadPriority p) {
    pacer::PacerConfig c{.target_hz = hz, .mode = pacer::WaitMode::hybrid};
    c.waiter.priority.mode = p;
    return c;
}

bool runs(Strategy k, const Options& o) { return k != kTail || o.tail_margin_us > 0; }

// The hypervisor's steal time over a setting, from /proc/stat (Linux): a real-time class inside
// the guest cannot win back a vCPU the host took. -1 where unknown.
struct Steal {
    double total = 0, steal = 0;
    static Steal read() {
        Steal s;
        std::ifstream f("/proc/stat");
        std::string cpu;
        double v[8] = {};
        if (!(f >> cpu) || cpu != "cpu") return {-1, 0};
        for (double& x : v) f >> x;
        for (double x : v) s.total += x;
        s.steal = v[7];
        return s;
    }
    static double pct(const Steal& a, const Steal& b) {
        if (a.total < 0 || b.total <= a.total) return -1;
        return 100.0 * (b.steal - a.steal) / (b.total - a.total);
    }
};

// One rate at one load: every strategy's chunks, round after round, in a shuffled order.
void run_setting(double hz, const Options& o, AllSamples& s) {
    pacer::FramePacer fp[kStrategies] = {
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep}),
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::spin}),
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep}),  // unused
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep}),  // unused
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::hybrid}),
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::hybrid}),
        pacer::FramePacer(tail_config(hz, o)),
        pacer::FramePacer(raised_config(hz, pacer::ThreadPriority::wait)),
        pacer::FramePacer(raised_config(hz, pacer::ThreadPriority::thread)),
        pacer::FramePacer({.target_hz = hz, .mode = pacer::WaitMode::sleep})};  // unused
    bench::PreciseSleep seed;
    Worker sleep_until_thread, raised_sleep_until_thread;
    raised_sleep_until_thread.run([] { (void)pacer::set_sleep_priority({pacer::ThreadPriority::wait}); });
    std::mt19937 order_rng(12345);
    Strategy order[kStrategies];
    for (int k = 0; k < kStrategies; ++k) order[k] = static_cast<Strategy>(k);
    for (int r = 0; r < o.rounds; ++r) {
        std::shuffle(order, order + kStrategies, order_rng);
        for (const Strategy st : order) {
            if (!runs(st, o)) continue;
            if (st == kSleepUntil)
                sleep_until_thread.run([&] { run_chunk(st, hz, o, fp[st], seed, s[st]); });
            else if (st == kSleepUntilRaised)
                raised_sleep_until_thread.run([&] { run_chunk(st, hz, o, fp[st], seed, s[st]); });
            else
                run_chunk(st, hz, o, fp[st], seed, s[st]);
            if (st == kRaisedThread) fp[st].end_pacing();  // the main thread back to its own class
        }
    }
}

struct SummaryRow {
    double hz;
    int load;
    double cpu[kStrategies], p50[kStrategies], p99[kStrategies];
    double su_ratio[3], control_ratio[3];  // per-round CPU ratios to hybrid: p25, p50, p75
    double interr_p99[kStrategies], hitch[kStrategies];
    double steal_pct = -1;
};

// One setting's table, a row per strategy (and its CSV row); fills the row's per-strategy figures.
void print_table(const Options& o, const AllSamples& s, SummaryRow& row, std::ofstream& csv) {
    char steal[48] = "steal unknown";
    if (row.steal_pct >= 0) std::snprintf(steal, sizeof steal, "steal %.1f %%", row.steal_pct);
    std::printf("\n%.0f Hz, %d busy thread%s, %s (CPU: median and quartiles over %d chunks; lateness "
                "as the caller sees it, over all frames)\n",
                row.hz, row.load, row.load == 1 ? "" : "s", steal, o.rounds);
    std::printf("| strategy | late p50 us | chunk p50 p25-p75 us | late p99 us | late p99.9 us | late max us | "
                "interval err p99 us | intervals off > %.0f us %% | spin %% | thread CPU %% | CPU p25-p75 |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n",
                kHitchUs);
    for (int k = 0; k < kStrategies; ++k) {
        const Samples& x = s[k];
        if (!runs(static_cast<Strategy>(k), o)) continue;
        row.p99[k] = q(x.late_us, 0.99);
        row.cpu[k] = q(x.cpu_pct, 0.5);
        row.p50[k] = q(x.late_us, 0.5);
        row.interr_p99[k] = q(x.interr_us, 0.99);
        row.hitch[k] = hitch_pct(x.interr_us);
        const double spin = 100.0 * x.spun_ns / x.wall_ns;
        const double late_max = *std::max_element(x.late_us.begin(), x.late_us.end());
        std::printf("| %s | %.2f | %.2f-%.2f | %.1f | %.1f | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f-%.2f |\n",
                    kNames[k], row.p50[k], q(x.chunk_late_p50_us, 0.25), q(x.chunk_late_p50_us, 0.75), row.p99[k],
                    q(x.late_us, 0.999), late_max, q(x.interr_us, 0.99), hitch_pct(x.interr_us), spin, row.cpu[k],
                    q(x.cpu_pct, 0.25), q(x.cpu_pct, 0.75));
        if (csv.is_open())
            csv << row.hz << ',' << row.load << ',' << kShort[k] << ',' << x.late_us.size() << ',' << row.p50[k]
                << ',' << row.p99[k] << ',' << q(x.late_us, 0.999) << ',' << late_max << ',' << q(x.interr_us, 0.5)
                << ',' << q(x.interr_us, 0.99) << ',' << spin << ',' << row.cpu[k] << ',' << hitch_pct(x.interr_us)
                << '\n';
    }
}

// The ratios under the table: hybrid against preciseSleep and spin, sleep_until and the control
// against hybrid (paired per round: the two chunks of a round ran seconds apart).
void print_ratios(const Options& o, const AllSamples& s, SummaryRow& row) {
    const double* cpu = row.cpu;
    const double* p99 = row.p99;
    std::printf("hybrid vs preciseSleep: CPU %.2fx; hybrid vs spin: CPU %.3fx, p99 lateness %.1f us vs %.1f us "
                "(target <= 2 x spin + 20 = %.1f us)\n",
                cpu[kHybrid] / std::max(cpu[kPrecise], 1e-9), cpu[kHybrid] / std::max(cpu[kSpin], 1e-9),
                p99[kHybrid], p99[kSpin], 2 * p99[kSpin] + 20);
    std::vector<double> su_ratio, control_ratio;
    for (int r = 0; r < o.rounds; ++r) {
        const auto k = static_cast<std::size_t>(r);
        const double h = std::max(s[kHybrid].cpu_pct[k], 1e-9);
        su_ratio.push_back(s[kSleepUntil].cpu_pct[k] / h);
        control_ratio.push_back(s[kHybrid2].cpu_pct[k] / h);
    }
    quartiles(su_ratio, row.su_ratio);
    quartiles(control_ratio, row.control_ratio);
    std::printf("sleep_until vs hybrid: CPU %.2fx (per round: median %.2fx, p25-p75 %.2f-%.2fx), p99 lateness "
                "%.1f us vs %.1f us\n",
                cpu[kSleepUntil] / std::max(cpu[kHybrid], 1e-9), row.su_ratio[1], row.su_ratio[0], row.su_ratio[2],
                p99[kSleepUntil], p99[kHybrid]);
    const auto interr_p99 = [&](Strategy k) { return q(s[k].interr_us, 0.99); };
    std::printf("sleep_until vs spin: p99 lateness %.1f us (target <= 2 x spin + 20 = %.1f us); late p50 us: spin "
                "%.2f, sleep_until %.2f, hybrid %.2f (target: within 0.3 us of spin); interval err p99 us: hybrid "
                "%.1f, preciseSleep %.1f (target: hybrid <= preciseSleep)\n",
                p99[kSleepUntil], 2 * p99[kSpin] + 20, row.p50[kSpin], row.p50[kSleepUntil], row.p50[kHybrid],
                interr_p99(kHybrid), interr_p99(kPrecise));
    std::printf("control, hybrid 2nd vs hybrid: CPU %.2fx (per round: median %.2fx, p25-p75 %.2f-%.2fx); interval "
                "err p99 %.1f us vs %.1f us, intervals off > %.0f us %.2f %% vs %.2f %% (preciseSleep %.2f %%)\n",
                cpu[kHybrid2] / std::max(cpu[kHybrid], 1e-9), row.control_ratio[1], row.control_ratio[0],
                row.control_ratio[2], interr_p99(kHybrid2), interr_p99(kHybrid), kHitchUs,
                hitch_pct(s[kHybrid2].interr_us), hitch_pct(s[kHybrid].interr_us), hitch_pct(s[kPrecise].interr_us));
    std::printf("raised (priority wait) vs preciseSleep: CPU %.2fx (goal <= 0.35x), interval err p99 %.1f us vs "
                "%.1f us, intervals off > %.0f us %.2f %% vs %.2f %% (goal: at or below); vs hybrid: late p50 %.2f "
                "us vs %.2f us, p99 %.1f us vs %.1f us; priority thread: interval err p99 %.1f us, off %.2f %%, "
                "CPU %.2fx precise\n",
                cpu[kRaised] / std::max(cpu[kPrecise], 1e-9), interr_p99(kRaised), interr_p99(kPrecise), kHitchUs,
                hitch_pct(s[kRaised].interr_us), hitch_pct(s[kPrecise].interr_us), row.p50[kRaised], row.p50[kHybrid],
                p99[kRaised], p99[kHybrid], interr_p99(kRaisedThread), hitch_pct(s[kRaisedThread].interr_us),
                cpu[kRaisedThread] / std::max(cpu[kPrecise], 1e-9));
    if (runs(kTail, o))
        std::printf("min_margin %.0f us vs preciseSleep: CPU %.2fx, interval err p99 %.1f us vs %.1f us, intervals "
                    "off > %.0f us %.2f %% vs %.2f %%\n",
                    o.tail_margin_us, cpu[kTail] / std::max(cpu[kPrecise], 1e-9), interr_p99(kTail),
                    interr_p99(kPrecise), kHitchUs, hitch_pct(s[kTail].interr_us), hitch_pct(s[kPrecise].interr_us));
}

// The raised pacers against preciseSleep and spin: the README's table of thread priority.
void print_priority_summary(const std::vector<SummaryRow>& summary) {
    std::printf("\nThread priority. Goal beside busy threads: the raised hybrid's (priority wait) interval error\n"
                "p99 and share of intervals off by more than %.0f us at or below preciseSleep's, at <= 0.35x its\n"
                "CPU; idle no worse than the normal hybrid. Lateness as the caller sees it.\n"
                "| Hz | busy | steal %% | strategy | late p50 us | late p99 us | interval err p99 us | off > %.0f us %% "
                "| CPU %% | CPU / precise |\n|---|---|---|---|---|---|---|---|---|---|\n",
                kHitchUs, kHitchUs);
    const Strategy shown[] = {kHybrid, kRaised, kRaisedThread, kSleepUntil, kSleepUntilRaised, kPrecise, kSpin};
    for (const SummaryRow& r : summary)
        for (const Strategy k : shown)
            std::printf("| %.0f | %d | %.1f | %s | %.2f | %.1f | %.1f | %.2f | %.2f | %.2f |\n", r.hz, r.load,
                        r.steal_pct, kShort[k], r.p50[k], r.p99[k], r.interr_p99[k], r.hitch[k], r.cpu[k],
                        r.cpu[k] / std::max(r.cpu[kPrecise], 1e-9));
}

void print_summary(const std::vector<SummaryRow>& summary) {
    std::printf("\nSummary. Targets: hybrid CPU <= 1/3 of preciseSleep's; hybrid p99 <= 2 x spin p99 + 20 us;\n"
                "sleep_until CPU <= 1.2 x hybrid; median lateness as the caller sees it <= 0.5 us.\n"
                "CPU ratios per round: median (p25-p75); the control is a second, identical hybrid pacer.\n"
                "| Hz | busy threads | hybrid/precise CPU | hybrid p99 us | 2 x spin p99 + 20 us | "
                "sleep_until/hybrid CPU | control/hybrid CPU | late p50 us: hybrid | sleep_until | precise | spin |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const SummaryRow& r : summary)
        std::printf("| %.0f | %d | %.2f | %.1f | %.1f | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f | %.2f | %.2f | %.2f |\n",
                    r.hz, r.load, r.cpu[kHybrid] / std::max(r.cpu[kPrecise], 1e-9), r.p99[kHybrid],
                    2 * r.p99[kSpin] + 20, r.su_ratio[1], r.su_ratio[0], r.su_ratio[2], r.control_ratio[1],
                    r.control_ratio[0], r.control_ratio[2], r.p50[kHybrid], r.p50[kSleepUntil], r.p50[kPrecise],
                    r.p50[kSpin]);
}

}  // namespace

int compare_main(int argc, char** argv, const char* prog) {
    pacer::set_log_function(nullptr);
    Options o;
    const cli::Parser opts = compare_parser(&o, prog);
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
               "interval_err_p50_us,interval_err_p99_us,spin_share_pct,thread_cpu_pct,interval_err_over_100us_pct\n";
    }
    const pacer::PriorityGrant grant = pacer::probe_priority();
    std::printf("%s: %d rounds x %.1f s per strategy, work %.2f ms/frame, %u hardware threads,\n"
                "sleep primitive: %s\nthread priority: %s\n",
                prog, o.rounds, o.seconds, o.work_ms, std::thread::hardware_concurrency(),
                pacer::system_time_source().sleep_primitive(),
                grant.granted ? grant.in_force : (std::string("refused, the raised strategies pace as the normal ones: ") +
                                                  grant.reason).c_str());
    std::vector<SummaryRow> summary;
    for (int load : o.load) {
        const BusyLoad busy(load);
        for (double hz : o.hz) {
            Samples s[kStrategies];
            const Steal before = Steal::read();
            run_setting(hz, o, s);
            SummaryRow row{hz, load, {}, {}, {}, {}, {}, {}, {}};
            row.steal_pct = Steal::pct(before, Steal::read());
            print_table(o, s, row, csv);
            print_ratios(o, s, row);
            summary.push_back(row);
            std::fflush(stdout);
        }
    }
    print_summary(summary);
    print_priority_summary(summary);
    return 0;
}

}  // namespace pacer::tools
