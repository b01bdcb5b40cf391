// The interleaved pacing comparison: `pacer compare` and bench/pacer_compare (moved here from
// bench/pacer_compare.cpp so that both run the same code).
//
// For each rate, each kind of contention and each number of busy threads or processes, every
// strategy paces the same loop in short chunks, one strategy after the other, round after round,
// so that the machine's slow drifts hit all of them alike. The order is shuffled every round (a
// fixed seed): in a fixed cycle each strategy would always follow the same one, and a strategy
// that spun a whole chunk leaves the next one with a scheduler that owes it nothing (later
// wake-ups), which skewed the ratios.
// Reported per strategy: deadline lateness percentiles (wake - deadline) over all frames and the
// median with quartiles of the per-chunk medians, interval error (|interval - period|: its p99 and
// the share of intervals off by more than 100 us), share of wall time spent spinning, and the
// pacing thread's CPU % (median and quartiles over chunks).
// Ratios against the other strategies are printed under each table, and summaries with one row
// per setting at the end: the targets of the normal hybrid, and the thread priority modes
// (pacer/priority.hpp) with the goal of the default (automatic) beside busy threads.
//
// The strategies are the rows of kRows; the busy loads (--contention) are in compare_load.cpp.
//
//   pacer compare [--hz 60,144] [--load 0,1] [--contention threads,processes,sessions] [--nice -15]
//                 [--nice-sweep]
//                 [--seconds 2] [--rounds 3] [--work-ms 0] [--tail-margin US] [--csv FILE]
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "compare.hpp"
#include "compare_load.hpp"
#include "pacer/pacer.hpp"
#include "precise_sleep.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace {

struct Options {
    std::vector<double> hz{60.0, 144.0};
    std::vector<int> load{0, 1};
    std::vector<Contention> contention{Contention::threads};
    double seconds = 2.0;
    int rounds = 3;
    double work_ms = 0.0;
    double tail_margin_us = 0.0;  // > 0: also a hybrid pacer with this WaiterConfig::min_margin
    int nice = -15;               // PriorityConfig::nice of high and automatic
    bool nice_sweep = false;      // also high at nice -10 and -20 (the rows marked sweep)
    std::string csv;
};

// How a strategy's chunk loops: a FramePacer's wait(), preciseSleep or pacer::sleep_until on
// absolute deadlines.
enum class Loop : std::uint8_t { pacer, precise, sleep_until };

using TP = pacer::ThreadPriority;

// One strategy: a row of every setting's table. Adding one is adding a row here.
struct StrategyRow {
    const char* key;   // the CSV's and the summaries' name
    const char* name;  // the setting's table
    Loop loop;
    pacer::WaitMode mode;  // Loop::pacer
    TP priority;           // Loop::pacer and Loop::sleep_until (set_sleep_priority on its thread)
    bool tail = false;     // min_margin = --tail-margin; runs only with it
    bool priority_summary = false;  // a row of the thread priority summary (the README's table)
    int nice = 0;                   // PriorityConfig::nice; 0: --nice
    bool sweep = false;             // runs only with --nice-sweep
};

// The pacers that mean "normal" say so: the library's default priority is automatic.
// normal2 is a second FramePacer identical to normal: two learners that differ only in the random
// history they saw. Their CPU ratio is the run's noise floor for the ratios between strategies, and
// their interval-error p99s show how far that tail moves between two identical pacers.
// tail (only with --tail-margin) spins at least that long before every deadline
// (WaiterConfig::min_margin): what covering the OS's rare late wake-ups costs.
// high_nice10 and high_nice20 (only with --nice-sweep) are high at those nice values beside high at
// --nice, in the same interleaved run: the table PriorityConfig::nice's default was chosen from.
// The raised ones (pacer/priority.hpp): where the OS refuses, they pace as the normal ones and the
// header says why. pacer::sleep_until runs on a thread of its own per strategy and setting: it
// keeps its learned state per thread, and learns from that setting alone, as each setting's
// FramePacer does (on the main thread it carried what it learned in the settings before, and then
// spun up to 2.6x a fresh FramePacer under load).
constexpr StrategyRow kRows[] = {
    {"sleep", "sleep (absolute OS sleep)", Loop::pacer, pacer::WaitMode::sleep, TP::normal},
    {"spin", "spin", Loop::pacer, pacer::WaitMode::spin, TP::normal},
    {"precise", "preciseSleep (Blatnik 2020)", Loop::precise, pacer::WaitMode::sleep, TP::normal, false, true},
    {"sleep_until", "pacer::sleep_until", Loop::sleep_until, pacer::WaitMode::hybrid, TP::normal},
    {"normal", "pacer hybrid, priority normal", Loop::pacer, pacer::WaitMode::hybrid, TP::normal, false, true},
    {"normal2", "pacer hybrid, 2nd (control)", Loop::pacer, pacer::WaitMode::hybrid, TP::normal},
    {"tail", "pacer hybrid, min_margin (--tail-margin)", Loop::pacer, pacer::WaitMode::hybrid, TP::normal, true},
    {"high", "pacer hybrid, priority high (--nice)", Loop::pacer, pacer::WaitMode::hybrid, TP::high, false, true},
    {"automatic", "pacer hybrid, priority automatic (the default)", Loop::pacer, pacer::WaitMode::hybrid,
     TP::automatic, false, true},
    {"wait", "pacer hybrid, priority wait", Loop::pacer, pacer::WaitMode::hybrid, TP::wait, false, true},
    {"thread", "pacer hybrid, priority thread", Loop::pacer, pacer::WaitMode::hybrid, TP::thread, false, true},
    {"high_nice10", "pacer hybrid, priority high at nice -10 (--nice-sweep)", Loop::pacer, pacer::WaitMode::hybrid,
     TP::high, false, true, -10, true},
    {"high_nice20", "pacer hybrid, priority high at nice -20 (--nice-sweep)", Loop::pacer, pacer::WaitMode::hybrid,
     TP::high, false, true, -20, true},
    {"sleep_until_wait", "pacer::sleep_until, priority wait", Loop::sleep_until, pacer::WaitMode::hybrid,
     TP::wait},
};
constexpr int kStrategies = static_cast<int>(std::size(kRows));

// The row of a key; a key not in kRows does not compile.
consteval int row_of(std::string_view key) {
    for (int k = 0; k < kStrategies; ++k)
        if (key == kRows[k].key) return k;
    throw "compare.cpp: no such strategy in kRows";
}
constexpr int kSpin = row_of("spin"), kPrecise = row_of("precise"), kSleepUntil = row_of("sleep_until"),
              kNormal = row_of("normal"), kNormal2 = row_of("normal2"), kTail = row_of("tail"),
              kAutomatic = row_of("automatic");

bool runs(int k, bool tail, bool sweep) { return (!kRows[k].tail || tail) && (!kRows[k].sweep || sweep); }

// The rows of the thread priority summary, preciseSleep last; the sweep's with --nice-sweep.
std::vector<int> priority_rows(bool sweep) {
    std::vector<int> rows;
    for (int k = 0; k < kStrategies; ++k)
        if (kRows[k].priority_summary && k != kPrecise && runs(k, false, sweep)) rows.push_back(k);
    rows.push_back(kPrecise);
    return rows;
}

// An interval this far off the period is a visible hitch; the share of them is the tail's mass,
// which moves less between runs than the p99 when it lies near 1 %.
constexpr double kHitchUs = 100.0;
// The median target: the lateness as the caller sees it of the hybrid pacer and of sleep_until
// within this of a pure spin's (README.md#measured-results).
constexpr double kMedianTargetUs = 0.3;
// The goal of the default (automatic) beside busy threads in the process: interval error p99 at
// most this and at most preciseSleep's, intervals off > kHitchUs on at most kGoalHitchPct %, CPU at
// most kGoalCpuRatio x preciseSleep's.
constexpr double kGoalInterrUs = 100.0, kGoalHitchPct = 0.5, kGoalCpuRatio = 0.35;

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

// The frames of one chunk on absolute deadlines, so that lateness means the same as for the pacer:
// the preciseSleep article's loop is given the time left; pacer::sleep_until the deadline.
double deadline_frames(Loop loop, int frames, std::int64_t period, std::int64_t work_ns,
                       bench::PreciseSleep& seed, Samples& out) {
    pacer::TimeSource& ts = pacer::system_time_source();
    double spun = 0;
    std::int64_t deadline = pacer::clock::to_ns(ts.now());
    std::int64_t prev_wake = deadline;
    for (int i = 0; i < frames; ++i) {
        busy_work(work_ns);
        deadline += period;
        if (loop == Loop::precise) {
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
    return spun;
}

// The frames of one chunk paced by fp.
double pacer_frames(pacer::FramePacer& fp, int frames, std::int64_t work_ns, Samples& out) {
    pacer::TimeSource& ts = pacer::system_time_source();
    double spun = 0;
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
    return spun;
}

// One chunk of one strategy: paces for `seconds`, appends what it saw. Lateness is what the caller
// sees: its own clock read right after the wait returned.
void run_chunk(int k, double hz, const Options& o, pacer::FramePacer& fp, bench::PreciseSleep& seed,
               Samples& out) {
    pacer::TimeSource& ts = pacer::system_time_source();
    const auto work_ns = static_cast<std::int64_t>(o.work_ms * 1e6);
    const auto frames = static_cast<int>(o.seconds * hz);
    const std::int64_t period = static_cast<std::int64_t>(std::llround(1e9 / hz));
    pacer::CpuMeter cpu;
    const std::int64_t t0 = pacer::clock::to_ns(ts.now());
    const double spun = kRows[k].loop == Loop::pacer ? pacer_frames(fp, frames, work_ns, out)
                                                     : deadline_frames(kRows[k].loop, frames, period, work_ns, seed, out);
    const pacer::CpuUsage u = cpu.sample();
    out.cpu_pct.push_back(u.thread_pct);
    out.chunk_late_p50_us.push_back(
        q(std::vector<double>(out.late_us.end() - frames, out.late_us.end()), 0.5));
    out.spun_ns += spun;
    out.wall_ns += static_cast<double>(pacer::clock::to_ns(ts.now()) - t0);
}

// A thread that runs the jobs it is given, one at a time, while its owner waits: the thread of a
// sleep_until strategy in one setting.
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

bool runs(int k, const Options& o) { return runs(k, o.tail_margin_us > 0, o.nice_sweep); }

int strategies_run(const Options& o) {
    int n = 0;
    for (int k = 0; k < kStrategies; ++k) n += runs(k, o) ? 1 : 0;
    return n;
}

// Settings: each rate at each load, a load above 0 once per contention kind (0 is the same for all).
int settings_run(const Options& o) {
    int per_rate = 0;
    for (int load : o.load) per_rate += load == 0 ? 1 : static_cast<int>(o.contention.size());
    return per_rate * static_cast<int>(o.hz.size());
}

double run_seconds(const Options& o) {
    return settings_run(o) * strategies_run(o) * o.rounds * o.seconds;
}

// "264 s (4.4 min)"
std::string duration_text(double s) {
    char buf[64];
    if (s < 90) std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 5400) std::snprintf(buf, sizeof buf, "%.0f s (%.1f min)", s, s / 60);
    else std::snprintf(buf, sizeof buf, "%.0f s (%.1f h)", s, s / 3600);
    return buf;
}

// "8 settings x 11 strategies x 5 rounds x 2 s = about 880 s (14.7 min)"
std::string estimate_text(const Options& o) {
    return std::to_string(settings_run(o)) + " settings x " + std::to_string(strategies_run(o)) + " strategies x " +
           std::to_string(o.rounds) + " rounds x " + cli::format_number(o.seconds) + " s = about " +
           duration_text(run_seconds(o));
}

// The usage's closing lines: the strategies from kRows, the contention kinds, the duration.
std::string compare_epilogue() {
    std::string e = "Strategies (a row of each setting's table; the CSV's and the summaries' name first):\n";
    for (const StrategyRow& r : kRows) e += "  " + std::string(r.key) + std::string(18 - std::strlen(r.key), ' ') + r.name + "\n";
    e += "The priority modes (pacer/priority.hpp): normal, high and automatic (a nice value, --nice, on\n"
         "Linux), wait and thread (a real-time class). The summary of thread priority shows:\n ";
    for (const int k : priority_rows(false)) e += " " + std::string(kRows[k].key);
    e += " (with --nice-sweep: high_nice10 and high_nice20 too).\n"
         "Contention kinds (--contention; each runs every --load above 0; --load 0 runs once, idle):\n";
    for (const auto& c : kContentionNames)
        e += "  " + std::string(c.name) + std::string(11 - std::strlen(c.name), ' ') + describe(c.value) + "\n";
    e += "  (processes and sessions fork() spinning children, killed at the end of each setting; Linux\n"
         "  and Unix only. Linux shares the CPU between groups first, then within each: with autogroups\n"
         "  on, in the root CPU cgroup, each session is a group, and a nice value does not win against\n"
         "  another session's processes, a real-time class does. The header says which holds here.)\n";
    e += "Duration: settings (rates x (1 for --load 0 + kinds x loads above 0)) x strategies x rounds x\n"
         "--seconds, printed at the start. The defaults:\n  " + estimate_text(Options{}) + ".\n"
         "Options before --help (pacer compare --load 0,2 --help) add how long they take.\n";
    return e;
}

cli::Parser compare_parser(Options* o, const char* prog) {
    cli::Parser opts(prog, "",
                     "The interleaved pacing comparison: each strategy (absolute OS sleep, spin, the\n"
                     "preciseSleep of \"Making an accurate Sleep() function\", pacer::sleep_until, pacer's\n"
                     "hybrid FramePacer at each thread priority, and a second normal one as a control) paces\n"
                     "the same loop in short chunks, in a shuffled order, round after round, beside busy\n"
                     "threads or processes; prints lateness as the caller sees it, interval error and the\n"
                     "pacing thread's CPU %, with the spread over chunks, and the steal time per setting.");
    opts.list("--hz", "LIST", "target rates to compare", &o->hz, cli::kNoLow, cli::kNoHigh, check_rate)
        .range = "each " + rate_range();
    opts.list("--load", "LIST", "numbers of busy threads or processes (of each --contention kind)", &o->load, 0, 64);
    opts.custom("--contention", "LIST", "kinds of busy load: threads, processes, sessions (below)",
                [o](std::string_view v) { return parse_contention_list(v, &o->contention); })
        .default_text = "threads";
    opts.number("--nice", "N", "the nice value of priority high and automatic (Linux; PriorityConfig::nice)",
                &o->nice, -20, -1);
    opts.flag("--nice-sweep", "also priority high at nice -10 and -20, interleaved with the rest", &o->nice_sweep);
    opts.number("--seconds", "S", "length of one chunk of one strategy", &o->seconds, 0.1, 600.0);
    opts.number("--rounds", "N", "chunks per strategy, interleaved", &o->rounds, 1, 1000);
    opts.number("--work-ms", "MS", "simulated work per frame, busy", &o->work_ms, 0.0, 1000.0);
    opts.number("--tail-margin", "US",
                "also a hybrid pacer spinning at least US before each deadline (min_margin; 0: none)",
                &o->tail_margin_us, 0.0, 4000.0);
    opts.text("--csv", "FILE", "also write one row per strategy and setting to FILE", &o->csv);
    opts.epilogue = compare_epilogue();
    return opts;
}

using AllSamples = Samples[kStrategies];

pacer::PacerConfig row_config(int k, double hz, const Options& o) {
    const StrategyRow& r = kRows[k];
    pacer::PacerConfig c{.target_hz = hz, .mode = r.loop == Loop::pacer ? r.mode : pacer::WaitMode::sleep};
    c.waiter.priority.mode = r.loop == Loop::pacer ? r.priority : TP::normal;
    c.waiter.priority.nice = r.nice != 0 ? r.nice : o.nice;
    if (r.tail) c.waiter.min_margin = std::chrono::nanoseconds(std::llround(o.tail_margin_us * 1e3));
    return c;
}

// One rate at one load: every strategy's chunks, round after round, in a shuffled order.
void run_setting(double hz, const Options& o, AllSamples& s) {
    std::vector<std::unique_ptr<pacer::FramePacer>> fp;
    std::vector<std::unique_ptr<Worker>> worker(kStrategies);
    for (int k = 0; k < kStrategies; ++k) {
        fp.push_back(std::make_unique<pacer::FramePacer>(row_config(k, hz, o)));
        if (kRows[k].loop != Loop::sleep_until) continue;
        worker[static_cast<std::size_t>(k)] = std::make_unique<Worker>();
        pacer::PriorityConfig p;
        p.mode = kRows[k].priority;
        p.nice = o.nice;
        worker[static_cast<std::size_t>(k)]->run([p] { (void)pacer::set_sleep_priority(p); });
    }
    bench::PreciseSleep seed;
    std::mt19937 order_rng(12345);
    int order[kStrategies];
    for (int k = 0; k < kStrategies; ++k) order[k] = k;
    for (int r = 0; r < o.rounds; ++r) {
        std::shuffle(order, order + kStrategies, order_rng);
        for (const int k : order) {
            if (!runs(k, o)) continue;
            const auto i = static_cast<std::size_t>(k);
            const auto chunk = [&] { run_chunk(k, hz, o, *fp[i], seed, s[k]); };
            if (worker[i]) worker[i]->run(chunk);
            else chunk();
            // The main thread back to its own class before the next strategy.
            if (kRows[k].loop == Loop::pacer && pacer::raised_for_good(kRows[k].priority)) fp[i]->end_pacing();
        }
    }
}

struct SummaryRow {
    double hz;
    int load;
    Contention kind;
    double cpu[kStrategies], p50[kStrategies], p99[kStrategies];
    double su_ratio[3], control_ratio[3];  // per-round CPU ratios to normal: p25, p50, p75
    double interr_p99[kStrategies], hitch[kStrategies];
    double steal_pct = -1;
    double cpu_vs_precise(int k) const { return cpu[k] / std::max(cpu[kPrecise], 1e-9); }
};

// "steal 0.0 %", or "steal unknown".
std::string steal_text(double pct) {
    char buf[48] = "steal unknown";
    if (pct >= 0) std::snprintf(buf, sizeof buf, "steal %.1f %%", pct);
    return buf;
}

// "2 busy threads in the process (--contention threads)", "no busy load".
std::string load_text(Contention kind, int load) {
    if (load == 0) return "no busy load";
    static constexpr const char* kWhere[] = {"in the process", "in the same session",
                                             "each in a session of its own"};
    const char* noun = kind == Contention::threads ? (load == 1 ? "thread" : "threads")
                                                   : (load == 1 ? "process" : "processes");
    return std::to_string(load) + " busy " + noun + " " + kWhere[static_cast<std::size_t>(kind)] +
           " (--contention " + name_of(kContentionNames, kind) + ")";
}

void write_csv_header(std::ofstream& csv) {
    csv << "hz,contention,busy,steal_pct,strategy,frames,late_p50_us,late_p99_us,late_p999_us,late_max_us,"
           "interval_err_p50_us,interval_err_p99_us,spin_share_pct,thread_cpu_pct,interval_err_over_100us_pct,"
           "cpu_vs_precise\n";
}

// One setting's table, a row per strategy (and its CSV rows); fills the row's per-strategy figures.
void print_table(const Options& o, const AllSamples& s, SummaryRow& row, std::ofstream& csv) {
    std::printf("\n%.0f Hz, %s, %s (CPU: median and quartiles over %d chunks; lateness as the caller sees it, "
                "over all frames)\n",
                row.hz, load_text(row.kind, row.load).c_str(), steal_text(row.steal_pct).c_str(), o.rounds);
    std::printf("| strategy | late p50 us | chunk p50 p25-p75 us | late p99 us | late p99.9 us | late max us | "
                "interval err p99 us | intervals off > %.0f us %% | spin %% | thread CPU %% | CPU p25-p75 |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n",
                kHitchUs);
    for (int k = 0; k < kStrategies; ++k) {
        const Samples& x = s[k];
        if (!runs(k, o)) continue;
        row.p99[k] = q(x.late_us, 0.99);
        row.cpu[k] = q(x.cpu_pct, 0.5);
        row.p50[k] = q(x.late_us, 0.5);
        row.interr_p99[k] = q(x.interr_us, 0.99);
        row.hitch[k] = hitch_pct(x.interr_us);
        const double spin = 100.0 * x.spun_ns / x.wall_ns;
        const double late_max = *std::max_element(x.late_us.begin(), x.late_us.end());
        std::printf("| %s | %.2f | %.2f-%.2f | %.1f | %.1f | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f-%.2f |\n",
                    kRows[k].name, row.p50[k], q(x.chunk_late_p50_us, 0.25), q(x.chunk_late_p50_us, 0.75),
                    row.p99[k], q(x.late_us, 0.999), late_max, row.interr_p99[k], row.hitch[k], spin, row.cpu[k],
                    q(x.cpu_pct, 0.25), q(x.cpu_pct, 0.75));
        if (csv.is_open())
            csv << row.hz << ',' << (row.load ? name_of(kContentionNames, row.kind) : "none") << ',' << row.load
                << ',' << row.steal_pct << ',' << kRows[k].key << ',' << x.late_us.size() << ',' << row.p50[k] << ','
                << row.p99[k] << ',' << q(x.late_us, 0.999) << ',' << late_max << ',' << q(x.interr_us, 0.5) << ','
                << row.interr_p99[k] << ',' << spin << ',' << row.cpu[k] << ',' << row.hitch[k] << ','
                << row.cpu[k] / std::max(q(s[kPrecise].cpu_pct, 0.5), 1e-9) << '\n';
    }
}

// The thread priority modes against preciseSleep, one line under each table.
void print_priority_line(const Options& o, const SummaryRow& row) {
    std::string names, interr, off, cpu;
    char buf[48];
    for (const int k : priority_rows(o.nice_sweep)) {
        names += (names.empty() ? "" : " / ") + std::string(kRows[k].key);
        std::snprintf(buf, sizeof buf, "%s%.1f", interr.empty() ? "" : " / ", row.interr_p99[k]);
        interr += buf;
        std::snprintf(buf, sizeof buf, "%s%.2f", off.empty() ? "" : " / ", row.hitch[k]);
        off += buf;
        std::snprintf(buf, sizeof buf, "%s%.2f", cpu.empty() ? "" : " / ", row.cpu_vs_precise(k));
        cpu += buf;
    }
    std::printf("thread priority, %s: interval err p99 us %s; intervals off > %.0f us %% %s; CPU / preciseSleep's "
                "%s\n",
                names.c_str(), interr.c_str(), kHitchUs, off.c_str(), cpu.c_str());
}
// The ratios under the table: the normal hybrid against preciseSleep and spin, sleep_until and the
// control against it (paired per round: the two chunks of a round ran seconds apart).
void print_ratios(const Options& o, const AllSamples& s, SummaryRow& row) {
    const double* cpu = row.cpu;
    const double* p99 = row.p99;
    std::printf("hybrid vs preciseSleep: CPU %.2fx; hybrid vs spin: CPU %.3fx, p99 lateness %.1f us vs %.1f us "
                "(target <= 2 x spin + 20 = %.1f us)\n",
                row.cpu_vs_precise(kNormal), cpu[kNormal] / std::max(cpu[kSpin], 1e-9), p99[kNormal], p99[kSpin],
                2 * p99[kSpin] + 20);
    std::vector<double> su_ratio, control_ratio;
    for (int r = 0; r < o.rounds; ++r) {
        const auto k = static_cast<std::size_t>(r);
        const double h = std::max(s[kNormal].cpu_pct[k], 1e-9);
        su_ratio.push_back(s[kSleepUntil].cpu_pct[k] / h);
        control_ratio.push_back(s[kNormal2].cpu_pct[k] / h);
    }
    quartiles(su_ratio, row.su_ratio);
    quartiles(control_ratio, row.control_ratio);
    std::printf("sleep_until vs hybrid: CPU %.2fx (per round: median %.2fx, p25-p75 %.2f-%.2fx), p99 lateness "
                "%.1f us vs %.1f us\n",
                cpu[kSleepUntil] / std::max(cpu[kNormal], 1e-9), row.su_ratio[1], row.su_ratio[0], row.su_ratio[2],
                p99[kSleepUntil], p99[kNormal]);
    std::printf("sleep_until vs spin: p99 lateness %.1f us (target <= 2 x spin + 20 = %.1f us); late p50 us: spin "
                "%.2f, sleep_until %.2f, hybrid %.2f (target: within %.1f us of spin); interval err p99 us: hybrid "
                "%.1f, preciseSleep %.1f (target: hybrid <= preciseSleep)\n",
                p99[kSleepUntil], 2 * p99[kSpin] + 20, row.p50[kSpin], row.p50[kSleepUntil], row.p50[kNormal],
                kMedianTargetUs, row.interr_p99[kNormal], row.interr_p99[kPrecise]);
    std::printf("control, hybrid 2nd vs hybrid: CPU %.2fx (per round: median %.2fx, p25-p75 %.2f-%.2fx); interval "
                "err p99 %.1f us vs %.1f us, intervals off > %.0f us %.2f %% vs %.2f %% (preciseSleep %.2f %%)\n",
                cpu[kNormal2] / std::max(cpu[kNormal], 1e-9), row.control_ratio[1], row.control_ratio[0],
                row.control_ratio[2], row.interr_p99[kNormal2], row.interr_p99[kNormal], kHitchUs, row.hitch[kNormal2],
                row.hitch[kNormal], row.hitch[kPrecise]);
    print_priority_line(o, row);
    if (runs(kTail, o))
        std::printf("min_margin %.0f us vs preciseSleep: CPU %.2fx, interval err p99 %.1f us vs %.1f us, intervals "
                    "off > %.0f us %.2f %% vs %.2f %%\n",
                    o.tail_margin_us, row.cpu_vs_precise(kTail), row.interr_p99[kTail], row.interr_p99[kPrecise],
                    kHitchUs, row.hitch[kTail], row.hitch[kPrecise]);
}

// The thread priority modes against preciseSleep, a row per rate, load and strategy: the README's
// table (README.md#thread-priority-beside-busy-threads).
void print_priority_summary(const Options& o, const std::vector<SummaryRow>& summary) {
    std::printf("\nThread priority: the hybrid FramePacer at each priority mode beside preciseSleep; busy: what ran "
                "beside it\n(threads: in the process; processes: in its session; sessions: each in a session of "
                "its own).\n| Hz | busy | strategy | interval err p99 us | intervals off > %.0f us %% | "
                "CPU / preciseSleep's | steal %% |\n|---|---|---|---|---|---|---|\n",
                kHitchUs);
    for (const SummaryRow& r : summary)
        for (const int k : priority_rows(o.nice_sweep))
            std::printf("| %.0f | %s | %s | %.1f | %.2f | %.2f | %.1f |\n", r.hz, contention_label(r.kind, r.load).c_str(),
                        kRows[k].key, r.interr_p99[k], r.hitch[k], r.cpu_vs_precise(k), r.steal_pct);
}

// One setting against the goal of the default; appends the reasons it misses to `why`.
bool meets_goal(const SummaryRow& r, std::string& why) {
    const int a = kAutomatic;
    const std::size_t before = why.size();
    if (r.interr_p99[a] > kGoalInterrUs) why += " p99 over 100 us;";
    if (r.interr_p99[a] > r.interr_p99[kPrecise]) why += " p99 over preciseSleep's;";
    if (r.hitch[a] > kGoalHitchPct) why += " too many intervals off;";
    if (r.cpu_vs_precise(a) > kGoalCpuRatio) why += " CPU over the ratio;";
    return why.size() == before;
}

// The goal of the default (automatic) beside busy threads in the process: PASS or FAIL, and each
// setting's figures. in_force: what automatic ran at.
void print_goal(const std::vector<SummaryRow>& summary, const std::string& in_force) {
    std::string lines;
    bool any = false, pass = true;
    char buf[320];
    for (const SummaryRow& r : summary) {
        if (r.load == 0 || r.kind != Contention::threads) continue;
        std::string why;
        const bool ok = meets_goal(r, why);
        any = true;
        pass = pass && ok;
        std::snprintf(buf, sizeof buf, "  %.0f Hz, %s: interval err p99 %.1f us (preciseSleep %.1f), off %.2f %%, "
                      "CPU %.2fx preciseSleep's: %s%s\n", r.hz, contention_label(r.kind, r.load).c_str(),
                      r.interr_p99[kAutomatic], r.interr_p99[kPrecise], r.hitch[kAutomatic],
                      r.cpu_vs_precise(kAutomatic), ok ? "met" : "missed:", why.c_str());
        lines += buf;
    }
    std::printf("\nGoal of the default (automatic, here %s) beside busy threads in the process: interval err p99 "
                "<= %.0f us and <= preciseSleep's, intervals off > %.0f us <= %.1f %%, CPU <= %.2fx preciseSleep's: "
                "%s\n%s",
                in_force.c_str(), kGoalInterrUs, kHitchUs, kGoalHitchPct, kGoalCpuRatio,
                !any ? "NOT MEASURED (no --load above 0 with --contention threads)" : pass ? "PASS" : "FAIL",
                lines.c_str());
}

void print_summary(const std::vector<SummaryRow>& summary) {
    std::printf("\nSummary. Targets: hybrid CPU <= 1/3 of preciseSleep's; hybrid p99 <= 2 x spin p99 + 20 us;\n"
                "sleep_until CPU <= 1.2 x hybrid; median lateness as the caller sees it (hybrid, sleep_until)\n"
                "within %.1f us of spin's. Hybrid: the FramePacer at priority normal.\n"
                "CPU ratios per round: median (p25-p75); the control is a second, identical hybrid pacer.\n"
                "| Hz | busy | hybrid/precise CPU | hybrid p99 us | 2 x spin p99 + 20 us | "
                "sleep_until/hybrid CPU | control/hybrid CPU | late p50 us: hybrid | sleep_until | precise | spin |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n",
                kMedianTargetUs);
    for (const SummaryRow& r : summary)
        std::printf("| %.0f | %s | %.2f | %.1f | %.1f | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f | %.2f | %.2f | %.2f |\n",
                    r.hz, contention_label(r.kind, r.load).c_str(), r.cpu_vs_precise(kNormal), r.p99[kNormal],
                    2 * r.p99[kSpin] + 20, r.su_ratio[1], r.su_ratio[0], r.su_ratio[2], r.control_ratio[1],
                    r.control_ratio[0], r.control_ratio[2], r.p50[kNormal], r.p50[kSleepUntil], r.p50[kPrecise],
                    r.p50[kSpin]);
}

// What the OS grants each lever here, asked once and put back; returns what automatic runs at.
std::string print_grants(const Options& o) {
    const struct {
        TP mode;
        const char* serves;
    } levers[] = {{TP::high, "high"}, {TP::automatic, "automatic"}, {TP::wait, "wait and thread"}};
    std::string automatic = "normal";
    for (const auto& l : levers) {
        pacer::PriorityConfig c;
        c.mode = l.mode;
        c.nice = o.nice;
        const pacer::PriorityGrant g = pacer::probe_priority(c);
        if (g.granted) std::printf("thread priority %s: %s granted\n", l.serves, g.in_force);
        else std::printf("thread priority %s: refused, paces as normal: %s\n", l.serves, g.reason);
        if (l.mode == TP::automatic && g.granted) automatic = g.in_force;
    }
    return automatic;
}

// The run's header: the machine, the grants, the settings and how long the run will take.
std::string print_header(const Options& o, const char* prog) {
    std::printf("%s: %d rounds x %.1f s per strategy, work %.2f ms/frame, %u hardware threads,\n"
                "sleep primitive: %s\n",
                prog, o.rounds, o.seconds, o.work_ms, std::thread::hardware_concurrency(),
                pacer::system_time_source().sleep_primitive());
    const std::string automatic = print_grants(o);
    std::string kinds;
    for (const Contention k : o.contention) kinds += (kinds.empty() ? "" : ", ") + std::string(describe(k));
    const std::string note = autogroup_note();
    std::printf("contention: %s%s%s\n", kinds.c_str(), note.empty() ? "" : "; ", note.c_str());
    std::printf("this run: %s\n", estimate_text(o).c_str());
    std::fflush(stdout);
    return automatic;
}

// Every setting: each load of each kind (load 0 once), each rate. 1 when a load cannot be started.
int run_all(const Options& o, const char* prog, std::ofstream& csv, std::vector<SummaryRow>& summary) {
    for (int load : o.load) {
        for (const Contention kind : o.contention) {
            const ContentionLoad busy(kind, load);
            if (!busy.status()) {
                std::fprintf(stderr, "%s: --contention %s: %s\n", prog, name_of(kContentionNames, kind),
                             busy.status().message().c_str());
                return 1;
            }
            for (double hz : o.hz) {
                Samples s[kStrategies];
                const Steal before = Steal::read();
                run_setting(hz, o, s);
                SummaryRow row{hz, load, kind, {}, {}, {}, {}, {}, {}, {}};
                row.steal_pct = Steal::pct(before, Steal::read());
                print_table(o, s, row, csv);
                print_ratios(o, s, row);
                summary.push_back(row);
                std::fflush(stdout);
            }
            if (load == 0) break;  // no load: the same for every kind
        }
    }
    return 0;
}

}  // namespace

int compare_main(int argc, char** argv, const char* prog) {
    pacer::set_log_function(nullptr);
    Options o;
    cli::Parser opts = compare_parser(&o, prog);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.help && argc > 1)  // the options before --help were taken: how long they take
        opts.epilogue += "With the options before --help:\n  " + estimate_text(o) + ".\n";
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    std::ofstream csv;
    if (!o.csv.empty()) {
        csv.open(o.csv);
        if (!csv) {
            std::fprintf(stderr, "%s: cannot write %s: %s\n", prog, o.csv.c_str(), std::strerror(errno));
            return 2;
        }
        write_csv_header(csv);
    }
    const std::string automatic = print_header(o, prog);
    std::vector<SummaryRow> summary;
    if (const int rc = run_all(o, prog, csv, summary); rc != 0) return rc;
    print_summary(summary);
    print_priority_summary(o, summary);
    print_goal(summary, automatic);
    return 0;
}

}  // namespace pacer::tools
