// tools/lib/compare_internal.hpp - what the interleaved comparison's two halves share:
// compare.cpp (the options, the strategies' runs) and compare_print.cpp (each setting's table, the
// summaries, the goal of the default, the header). tools/lib/compare.hpp is the door.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "compare_load.hpp"
#include "pacer/pacer.hpp"

namespace pacer::tools::compare_detail {

struct Options {
    std::vector<double> hz{60.0, 144.0};
    std::vector<int> load{0, 1};
    std::vector<Contention> contention{Contention::threads};
    double seconds = 2.0;
    int rounds = 3;
    double work_ms = 0.0;
    double tail_margin_us = 0.0;  // > 0: also a hybrid pacer with this WaiterConfig::min_margin
    int nice = -15;               // PriorityConfig::nice of high and automatic
    bool nice_sweep = false;      // also high at nice -10 and -20 (the rows of Only::sweep)
    std::vector<double> shares;   // also automatic at each WaiterConfig::raised_spin_share (Only::share)
    std::vector<std::string> strategies;  // --strategies: only these rows (and precise); empty: all
    std::string csv;
};

// How a strategy's chunk loops: a FramePacer's wait(), preciseSleep or pacer::sleep_until on
// absolute deadlines.
enum class Loop : std::uint8_t { pacer, precise, sleep_until };

using TP = pacer::ThreadPriority;

// The option a row runs with: always, --tail-margin (min_margin = its value), --nice-sweep, or the
// slot-th value of --raised-spin-shares (WaiterConfig::raised_spin_share = that value).
enum class Only : std::uint8_t { always, tail, sweep, share };
inline constexpr int kMaxShares = 4;  // --raised-spin-shares: the Only::share rows

// One strategy: a row of every setting's table. Adding one is adding a row here.
struct StrategyRow {
    const char* key;   // the CSV's and the summaries' name (Only::share: + the share in %)
    const char* name;  // the setting's table
    Loop loop;
    pacer::WaitMode mode;  // Loop::pacer
    TP priority;           // Loop::pacer and Loop::sleep_until (set_sleep_priority on its thread)
    Only only = Only::always;
    bool priority_summary = false;  // a row of the thread priority summary (docs/priority.md's table)
    int nice = 0;                   // PriorityConfig::nice; 0: --nice
    int slot = 0;                   // Only::share: the index of its value in --raised-spin-shares
};

// The row of the slot-th value of --raised-spin-shares (kRows has kMaxShares of them).
constexpr StrategyRow share_row(int slot) {
    return {"auto_share", "pacer hybrid, priority automatic, raised_spin_share", Loop::pacer, pacer::WaitMode::hybrid,
            TP::automatic, Only::share, true, 0, slot};
}

// The pacers that mean "normal" say so: the library's default priority is automatic.
// normal2 is a second FramePacer identical to normal: two learners that differ only in the random
// history they saw. Their CPU ratio is the run's noise floor for the ratios between strategies, and
// their interval-error p99s show how far that tail moves between two identical pacers.
// tail (only with --tail-margin) spins at least that long before every deadline
// (WaiterConfig::min_margin): what covering the OS's rare late wake-ups costs.
// high_nice10 and high_nice20 (only with --nice-sweep) are high at those nice values beside high at
// --nice, in the same interleaved run: the table PriorityConfig::nice's default was chosen from.
// auto_shareNN (only with --raised-spin-shares, one per value) are automatic with the spin of a
// raised wait bounded to NN % of the period (WaiterConfig::raised_spin_share), beside the default's.
// The raised ones (pacer/priority.hpp): where the OS refuses, they pace as the normal ones and the
// header says why. pacer::sleep_until runs on a thread of its own per strategy and setting: it
// keeps its learned state per thread, and learns from that setting alone, as each setting's
// FramePacer does (on the main thread it carried what it learned in the settings before, and then
// spun up to 2.6x a fresh FramePacer under load).
inline constexpr StrategyRow kRows[] = {
    {"sleep", "sleep (absolute OS sleep)", Loop::pacer, pacer::WaitMode::sleep, TP::normal},
    {"spin", "spin", Loop::pacer, pacer::WaitMode::spin, TP::normal},
    {"precise", "preciseSleep (Blatnik 2020)", Loop::precise, pacer::WaitMode::sleep, TP::normal, Only::always, true},
    {"sleep_until", "pacer::sleep_until", Loop::sleep_until, pacer::WaitMode::hybrid, TP::normal},
    {"normal", "pacer hybrid, priority normal", Loop::pacer, pacer::WaitMode::hybrid, TP::normal, Only::always, true},
    {"normal2", "pacer hybrid, 2nd (control)", Loop::pacer, pacer::WaitMode::hybrid, TP::normal},
    {"tail", "pacer hybrid, min_margin (--tail-margin)", Loop::pacer, pacer::WaitMode::hybrid, TP::normal, Only::tail},
    {"high", "pacer hybrid, priority high (--nice)", Loop::pacer, pacer::WaitMode::hybrid, TP::high, Only::always, true},
    {"automatic", "pacer hybrid, priority automatic (the default)", Loop::pacer, pacer::WaitMode::hybrid,
     TP::automatic, Only::always, true},
    {"wait", "pacer hybrid, priority wait", Loop::pacer, pacer::WaitMode::hybrid, TP::wait, Only::always, true},
    {"thread", "pacer hybrid, priority thread", Loop::pacer, pacer::WaitMode::hybrid, TP::thread, Only::always, true},
    {"high_nice10", "pacer hybrid, priority high at nice -10 (--nice-sweep)", Loop::pacer, pacer::WaitMode::hybrid,
     TP::high, Only::sweep, true, -10},
    {"high_nice20", "pacer hybrid, priority high at nice -20 (--nice-sweep)", Loop::pacer, pacer::WaitMode::hybrid,
     TP::high, Only::sweep, true, -20},
    share_row(0), share_row(1), share_row(2), share_row(3),
    {"sleep_until_wait", "pacer::sleep_until, priority wait", Loop::sleep_until, pacer::WaitMode::hybrid,
     TP::wait},
};
inline constexpr int kStrategies = static_cast<int>(std::size(kRows));

// The row of a key; a key not in kRows does not compile.
consteval int row_of(std::string_view key) {
    for (int k = 0; k < kStrategies; ++k)
        if (key == kRows[k].key) return k;
    throw "compare.cpp: no such strategy in kRows";
}
inline constexpr int kSpin = row_of("spin"), kPrecise = row_of("precise"), kSleepUntil = row_of("sleep_until"),
              kNormal = row_of("normal"), kNormal2 = row_of("normal2"), kTail = row_of("tail"),
              kAutomatic = row_of("automatic"), kShare = row_of("auto_share");
// The rows of Only::share follow each other, slot 0 first: kShare + i takes the i-th value.
consteval bool share_rows_in_order() {
    for (int i = 0; i < kMaxShares; ++i)
        if (kShare + i >= kStrategies || kRows[kShare + i].only != Only::share || kRows[kShare + i].slot != i)
            return false;
    return true;
}
static_assert(share_rows_in_order(), "compare.cpp: kRows needs kMaxShares rows of Only::share, slot 0 first");

bool runs(int k, const Options& o);         // whether row k runs with these options
std::vector<int> priority_rows(const Options& o);  // the priority summary's rows, preciseSleep last
std::string row_key(int k, const Options& o);   // the CSV's and the summaries' name
std::string row_name(int k, const Options& o);  // the name in a setting's table
std::string estimate_text(const Options& o);    // "8 settings x 11 strategies x ... = about 880 s"

// An interval this far off the period is a visible hitch; the share of them is the tail's mass,
// which moves less between runs than the p99 when it lies near 1 %.
inline constexpr double kHitchUs = 100.0;
// The median target: the lateness as the caller sees it of the hybrid pacer and of sleep_until
// within this of a pure spin's
// (docs/results.md#the-wait-against-a-spin-and-precisesleep).
inline constexpr double kMedianTargetUs = 0.3;
// The goal of the default (automatic), as the project states it, judged beside each kind of busy
// load (--contention) apart: interval error p99 at most this, intervals off > kHitchUs on at most
// kGoalHitchPct %, CPU at most kGoalCpuRatio x preciseSleep's. It no longer asks for a p99 at most
// preciseSleep's too, as it once did: the stated goal has no such condition.
inline constexpr double kGoalInterrUs = 100.0, kGoalHitchPct = 0.5, kGoalCpuRatio = 0.35;

struct Samples {
    std::vector<double> late_us, interr_us, cpu_pct;
    std::vector<double> chunk_late_p50_us;  // one per chunk
    double spun_ns = 0, wall_ns = 0;
    // The pacer's priority at the end of its last chunk (ran_at_text); the others' own class.
    std::string ran_at = "the thread's own class, never changed";
};

std::string ran_at_text(const pacer::PriorityStatus& p);  // what a pacer's status says it runs at
double q(std::vector<double> v, double p);                 // the p-quantile of v
double hitch_pct(const std::vector<double>& interr_us);    // intervals off by more than kHitchUs, %
void quartiles(const std::vector<double>& v, double out[3]);

using AllSamples = Samples[kStrategies];

struct SummaryRow {
    double hz;
    int load;
    Contention kind;
    double cpu[kStrategies], p50[kStrategies], p99[kStrategies];
    double su_ratio[3], control_ratio[3];  // per-round CPU ratios to normal: p25, p50, p75
    double interr_p99[kStrategies], hitch[kStrategies];
    double steal_pct = -1;
    std::string ran_at[kStrategies];  // Samples::ran_at
    double cpu_vs_precise(int k) const { return cpu[k] / std::max(cpu[kPrecise], 1e-9); }
};

// compare_print.cpp
void write_csv_header(std::ofstream& csv);
void print_table(const Options& o, const AllSamples& s, SummaryRow& row, std::ofstream& csv);
void print_ratios(const Options& o, const AllSamples& s, SummaryRow& row);
void print_summary(const Options& o, const std::vector<SummaryRow>& summary);
void print_priority_summary(const Options& o, const std::vector<SummaryRow>& summary);
void print_goal(const Options& o, const std::vector<SummaryRow>& summary);
void print_header(const Options& o, const char* prog);

}  // namespace pacer::tools::compare_detail
