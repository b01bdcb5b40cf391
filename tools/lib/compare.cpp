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
// (pacer/priority.hpp) with the goal of the default (automatic) beside each kind of busy load.
//
// The strategies are the rows of kRows; the busy loads (--contention) are in compare_load.cpp.
//
//   pacer compare [--hz 60,144] [--load 0,1] [--contention threads,processes,sessions] [--nice -15]
//                 [--nice-sweep] [--raised-spin-shares 0.1,0.5,1] [--strategies normal,automatic]
//                 [--seconds 2] [--rounds 3] [--work-ms 0] [--tail-margin US] [--csv FILE]
//
// This file runs the strategies; compare_print.cpp prints the tables, the summaries and the goal;
// compare_internal.hpp is what the two share.
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
#include "compare_internal.hpp"
#include "pacer/pacer.hpp"
#include "precise_sleep.hpp"
#include "tools.hpp"

namespace pacer::tools {
namespace compare_detail {

// Whether row k runs with these options: its option given, and named by --strategies where that
// is given (preciseSleep always runs: the yardstick of the CPU ratios).
bool runs(int k, const Options& o) {
    if (!o.strategies.empty() && k != kPrecise && kRows[k].only != Only::share &&
        std::find(o.strategies.begin(), o.strategies.end(), kRows[k].key) == o.strategies.end())
        return false;
    switch (kRows[k].only) {
    case Only::always: return true;
    case Only::tail: return o.tail_margin_us > 0;
    case Only::sweep: return o.nice_sweep;
    case Only::share: return kRows[k].slot < static_cast<int>(o.shares.size());
    }
    return false;
}

// The rows of the thread priority summary, preciseSleep last; those of --nice-sweep and
// --raised-spin-shares when asked for.
std::vector<int> priority_rows(const Options& o) {
    std::vector<int> rows;
    for (int k = 0; k < kStrategies; ++k)
        if (kRows[k].priority_summary && k != kPrecise && runs(k, o)) rows.push_back(k);
    rows.push_back(kPrecise);
    return rows;
}

// The CSV's and the summaries' name: the key, and for a value of --raised-spin-shares the share in
// % ("auto_share10" for 0.1).
std::string row_key(int k, const Options& o) {
    if (kRows[k].only != Only::share) return kRows[k].key;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%g", kRows[k].key, 100 * o.shares[static_cast<std::size_t>(kRows[k].slot)]);
    return buf;
}

// The name in the setting's table: "..., raised_spin_share 0.1 (--raised-spin-shares)" for a share.
std::string row_name(int k, const Options& o) {
    if (kRows[k].only != Only::share) return kRows[k].name;
    return std::string(kRows[k].name) + " " + cli::format_number(o.shares[static_cast<std::size_t>(kRows[k].slot)]) +
           " (--raised-spin-shares)";
}

// One value of --raised-spin-shares: the library's rule (WaiterConfig's validate()).
Status check_share(double share) {
    pacer::WaiterConfig c;
    c.raised_spin_share = share;
    return validate(c);
}

// --raised-spin-shares as a whole (each value is checked as it is read): at most kMaxShares, and
// no two of them named alike.
Status check_shares(const Options& o) {
    const std::size_t n = o.shares.size();
    if (n > kMaxShares)
        return Status::error("--raised-spin-shares: " + std::to_string(n) + " values: at most " +
                             std::to_string(kMaxShares));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (const std::string key = row_key(kShare + static_cast<int>(i), o);
                key == row_key(kShare + static_cast<int>(j), o))
                return Status::error("--raised-spin-shares: " + cli::format_number(o.shares[i]) + " and " +
                                     cli::format_number(o.shares[j]) + " both make the row " + key);
    return {};
}

// --strategies: a list of kRows' keys (not auto_shareNN: --raised-spin-shares makes those).
Status parse_strategies(std::string_view list, std::vector<std::string>* out) {
    out->clear();
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string name(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        const bool known = std::any_of(std::begin(kRows), std::end(kRows), [&](const StrategyRow& r) {
            return r.only != Only::share && name == r.key;
        });
        if (!known)
            return Status::error("--strategies: no strategy " + (name.empty() ? "\"\"" : name) + " (see the list below)");
        out->push_back(name);
    }
    if (out->empty()) return Status::error("--strategies: an empty list");
    return {};
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
    for (const StrategyRow& r : kRows) {
        if (r.only == Only::share && r.slot > 0) continue;  // one line for the rows of --raised-spin-shares
        const std::string key = std::string(r.key) + (r.only == Only::share ? "NN" : "");
        e += "  " + key + std::string(18 - key.size(), ' ') + r.name +
             (r.only == Only::share ? " NN/100 (--raised-spin-shares, a row per value)\n" : "\n");
    }
    e += "The priority modes (pacer/priority.hpp): normal, high and automatic (a nice value, --nice, on\n"
         "Linux), wait and thread (a real-time class). The summary of thread priority shows:\n ";
    for (const int k : priority_rows(Options{})) e += " " + std::string(kRows[k].key);
    e += " (with --nice-sweep: high_nice10 and high_nice20 too;\n  with --raised-spin-shares: auto_shareNN too).\n"
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
    opts.list("--raised-spin-shares", "LIST",
              "also priority automatic at each WaiterConfig::raised_spin_share (a raised wait's spin\n"
              "bound, a share of the period; default " +
                  cli::format_number(pacer::WaiterConfig{}.raised_spin_share) +
                  "), interleaved with the rest: rows auto_shareNN (NN %)",
              &o->shares, cli::kNoLow, cli::kNoHigh, check_share)
        .range = "each in (0, 1], at most " + std::to_string(kMaxShares);
    opts.number("--seconds", "S", "length of one chunk of one strategy", &o->seconds, 0.1, 600.0);
    opts.number("--rounds", "N", "chunks per strategy, interleaved", &o->rounds, 1, 1000);
    opts.number("--work-ms", "MS", "simulated work per frame, busy", &o->work_ms, 0.0, 1000.0);
    opts.number("--tail-margin", "US",
                "also a hybrid pacer spinning at least US before each deadline (min_margin; 0: none)",
                &o->tail_margin_us, 0.0, 4000.0);
    opts.custom("--strategies", "LIST",
                "only these strategies (their names below; precise always runs: the CPU ratios' yardstick)",
                [o](std::string_view v) { return parse_strategies(v, &o->strategies); })
        .default_text = "all";
    opts.text("--csv", "FILE", "also write one row per strategy and setting to FILE", &o->csv);
    opts.epilogue = compare_epilogue();
    return opts;
}



pacer::PacerConfig row_config(int k, double hz, const Options& o) {
    const StrategyRow& r = kRows[k];
    pacer::PacerConfig c{.target_hz = hz, .mode = r.loop == Loop::pacer ? r.mode : pacer::WaitMode::sleep};
    c.waiter.priority.mode = r.loop == Loop::pacer ? r.priority : TP::normal;
    c.waiter.priority.nice = r.nice != 0 ? r.nice : o.nice;
    if (r.only == Only::tail) c.waiter.min_margin = std::chrono::nanoseconds(std::llround(o.tail_margin_us * 1e3));
    if (r.only == Only::share && runs(k, o)) c.waiter.raised_spin_share = o.shares[static_cast<std::size_t>(r.slot)];
    return c;
}

// One rate at one load: every strategy's chunks, round after round, in a shuffled order. A pacer
// raised for good (high, automatic, thread) paces on a thread of its own that stays raised between
// its chunks, as a game's pacing thread does: put back after each chunk instead, it was asked
// again at every chunk, and RealtimeKit's answer came frames into each (and its limit of 25 asks
// per 20 s per user then refused some).
void run_setting(double hz, const Options& o, AllSamples& s) {
    std::vector<std::unique_ptr<pacer::FramePacer>> fp;
    std::vector<std::unique_ptr<Worker>> worker(kStrategies);
    for (int k = 0; k < kStrategies; ++k) {
        fp.push_back(std::make_unique<pacer::FramePacer>(row_config(k, hz, o)));
        const bool raised = kRows[k].loop == Loop::pacer && pacer::raised_for_good(kRows[k].priority);
        if ((kRows[k].loop != Loop::sleep_until && !raised) || !runs(k, o)) continue;
        worker[static_cast<std::size_t>(k)] = std::make_unique<Worker>();
        if (raised) continue;
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
            const auto chunk = [&] {
                run_chunk(k, hz, o, *fp[i], seed, s[k]);
                // What it ran at, at the end of the chunk (a grant from RealtimeKit comes frames
                // after the ask), read on its pacing thread.
                if (kRows[k].loop == Loop::pacer) s[k].ran_at = ran_at_text(fp[i]->status().waiter.priority);
            };
            if (worker[i]) worker[i]->run(chunk);
            else chunk();
        }
    }
    for (int k = 0; k < kStrategies; ++k)  // the raised pacers' threads back to their own class
        if (const auto i = static_cast<std::size_t>(k); worker[i] && kRows[k].loop == Loop::pacer)
            worker[i]->run([&] { fp[i]->end_pacing(); });
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
                SummaryRow row{hz, load, kind, {}, {}, {}, {}, {}, {}, {}, -1, {}};
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

}  // namespace compare_detail

using namespace compare_detail;

int compare_main(int argc, char** argv, const char* prog) {
    pacer::set_log_function(nullptr);
    Options o;
    cli::Parser opts = compare_parser(&o, prog);
    cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.status) parsed.status = check_shares(o);
    if (parsed.help && argc > 1 && parsed.status)  // the options before --help were taken: how long they take
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
    print_header(o, prog);
    std::vector<SummaryRow> summary;
    if (const int rc = run_all(o, prog, csv, summary); rc != 0) return rc;
    print_summary(o, summary);
    print_priority_summary(o, summary);
    print_goal(o, summary);
    return 0;
}

}  // namespace pacer::tools
