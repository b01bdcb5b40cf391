// The interleaved comparison's output: each setting's table and the ratios under it, the
// summaries, the goal of the default beside each kind of busy load, and the run's header
// (compare.cpp runs the strategies; compare_internal.hpp is what the two share).
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "compare_internal.hpp"
#include "priority_text.hpp"
#include "tools.hpp"

namespace pacer::tools::compare_detail {

// What a pacer's status says it runs at, in the words of `pacer probe` and `pacer run`
// (priority_text.hpp), and the real-time guard's put-backs: "SCHED_FIFO 5 granted (realtime, by
// the OS)", "the thread's own class (normal)", "... ; 2 put back by the guard".
std::string ran_at_text(const pacer::PriorityStatus& p) {
    if (p.refused) return "the thread's own class (refused: the header says why)";
    std::string t = priority_text(p);
    if (p.demotions > 0) t += "; " + std::to_string(p.demotions) + " put back by the guard";
    return t;
}

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
                "interval_error p99 us | off_%.0fus_share %% | spin %% | thread CPU %% | CPU p25-p75 |\n"
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
        row.ran_at[k] = x.ran_at;
        const double spin = 100.0 * x.spun_ns / x.wall_ns;
        const double late_max = *std::max_element(x.late_us.begin(), x.late_us.end());
        std::printf("| %s | %.2f | %.2f-%.2f | %.1f | %.1f | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f-%.2f |\n",
                    row_name(k, o).c_str(), row.p50[k], q(x.chunk_late_p50_us, 0.25), q(x.chunk_late_p50_us, 0.75),
                    row.p99[k], q(x.late_us, 0.999), late_max, row.interr_p99[k], row.hitch[k], spin, row.cpu[k],
                    q(x.cpu_pct, 0.25), q(x.cpu_pct, 0.75));
        if (csv.is_open())
            csv << row.hz << ',' << (row.load ? name_of(kContentionNames, row.kind) : "none") << ',' << row.load
                << ',' << row.steal_pct << ',' << row_key(k, o) << ',' << x.late_us.size() << ',' << row.p50[k] << ','
                << row.p99[k] << ',' << q(x.late_us, 0.999) << ',' << late_max << ',' << q(x.interr_us, 0.5) << ','
                << row.interr_p99[k] << ',' << spin << ',' << row.cpu[k] << ',' << row.hitch[k] << ','
                << row.cpu[k] / std::max(q(s[kPrecise].cpu_pct, 0.5), 1e-9) << '\n';
    }
}

// The thread priority modes against preciseSleep, one line under each table.
void print_priority_line(const Options& o, const SummaryRow& row) {
    std::string names, interr, off, cpu;
    char buf[48];
    for (const int k : priority_rows(o)) {
        names += (names.empty() ? "" : " / ") + row_key(k, o);
        std::snprintf(buf, sizeof buf, "%s%.1f", interr.empty() ? "" : " / ", row.interr_p99[k]);
        interr += buf;
        std::snprintf(buf, sizeof buf, "%s%.2f", off.empty() ? "" : " / ", row.hitch[k]);
        off += buf;
        std::snprintf(buf, sizeof buf, "%s%.2f", cpu.empty() ? "" : " / ", row.cpu_vs_precise(k));
        cpu += buf;
    }
    std::printf("thread priority, %s: interval_error p99 us %s; off_%.0fus_share %% %s; CPU / preciseSleep's "
                "%s\n",
                names.c_str(), interr.c_str(), kHitchUs, off.c_str(), cpu.c_str());
}
// The rows the normal hybrid's ratios and targets compare (--strategies may leave some out).
bool runs_the_normal_hybrids_yardsticks(const Options& o) {
    for (const int k : {kNormal, kNormal2, kSpin, kSleepUntil})
        if (!runs(k, o)) return false;
    return true;
}

// The ratios under the table: the normal hybrid against preciseSleep and spin, sleep_until and the
// control against it (paired per round: the two chunks of a round ran seconds apart).
void print_ratios(const Options& o, const AllSamples& s, SummaryRow& row) {
    if (!runs_the_normal_hybrids_yardsticks(o)) {  // --strategies left some out
        print_priority_line(o, row);
        return;
    }
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
                "%.2f, sleep_until %.2f, hybrid %.2f (target: within %.1f us of spin); interval_error p99 us: hybrid "
                "%.1f, preciseSleep %.1f (target: hybrid <= preciseSleep)\n",
                p99[kSleepUntil], 2 * p99[kSpin] + 20, row.p50[kSpin], row.p50[kSleepUntil], row.p50[kNormal],
                kMedianTargetUs, row.interr_p99[kNormal], row.interr_p99[kPrecise]);
    std::printf("control, hybrid 2nd vs hybrid: CPU %.2fx (per round: median %.2fx, p25-p75 %.2f-%.2fx); interval_error "
                "p99 %.1f us vs %.1f us, off_%.0fus_share %.2f %% vs %.2f %% (preciseSleep %.2f %%)\n",
                cpu[kNormal2] / std::max(cpu[kNormal], 1e-9), row.control_ratio[1], row.control_ratio[0],
                row.control_ratio[2], row.interr_p99[kNormal2], row.interr_p99[kNormal], kHitchUs, row.hitch[kNormal2],
                row.hitch[kNormal], row.hitch[kPrecise]);
    print_priority_line(o, row);
    if (runs(kTail, o))
        std::printf("min_margin %.0f us vs preciseSleep: CPU %.2fx, interval_error p99 %.1f us vs %.1f us, "
                    "off_%.0fus_share %.2f %% vs %.2f %%\n",
                    o.tail_margin_us, row.cpu_vs_precise(kTail), row.interr_p99[kTail], row.interr_p99[kPrecise],
                    kHitchUs, row.hitch[kTail], row.hitch[kPrecise]);
}

// The thread priority modes against preciseSleep, a row per rate, load and strategy: the tables of
// docs/priority.md.
void print_priority_summary(const Options& o, const std::vector<SummaryRow>& summary) {
    std::printf("\nThread priority: the hybrid FramePacer at each priority mode beside preciseSleep; busy: what ran "
                "beside it\n(threads: in the process; processes: in its session; sessions: each in a session of "
                "its own); ran at: the pacer's priority at the end of its last chunk (its status).\n"
                "| Hz | busy | strategy | interval_error p99 us | off_%.0fus_share %% | CPU / preciseSleep's | "
                "steal %% | ran at |\n|---|---|---|---|---|---|---|---|\n",
                kHitchUs);
    for (const SummaryRow& r : summary)
        for (const int k : priority_rows(o))
            std::printf("| %.0f | %s | %s | %.1f | %.2f | %.2f | %.1f | %s |\n", r.hz,
                        contention_label(r.kind, r.load).c_str(), row_key(k, o).c_str(), r.interr_p99[k], r.hitch[k],
                        r.cpu_vs_precise(k), r.steal_pct, r.ran_at[k].c_str());
}

// One setting of row k against the goal; appends the reasons it misses to `why`.
bool meets_goal(const SummaryRow& r, int k, std::string& why) {
    const std::size_t before = why.size();
    if (r.interr_p99[k] > kGoalInterrUs) why += " p99 over 100 us;";
    if (r.hitch[k] > kGoalHitchPct) why += " too many intervals off;";
    if (r.cpu_vs_precise(k) > kGoalCpuRatio) why += " CPU over the ratio;";
    return why.size() == before;
}

// "automatic at SCHED_FIFO 5 (realtime, by os): interval_error p99 13.8 us (preciseSleep 3983.4 us),
// off_100us_share 0.46 %, CPU 0.06x preciseSleep's: met"; ok: whether row k met the goal in this setting.
std::string goal_figures(const Options& o, const SummaryRow& r, int k, bool& ok) {
    std::string why;
    ok = meets_goal(r, k, why);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  ": interval_error p99 %.1f us (preciseSleep %.1f us), off_100us_share %.2f %%, CPU %.2fx "
                  "preciseSleep's: %s%s", r.interr_p99[k], r.interr_p99[kPrecise], r.hitch[k], r.cpu_vs_precise(k),
                  ok ? "met" : "missed:", why.c_str());
    return row_key(k, o) + " at " + r.ran_at[k] + buf;
}

// The default beside one kind of busy load: its verdict line and each setting's figures under it,
// the rows of --raised-spin-shares beside them (not judged). -1: the run measured no such setting,
// else whether every setting met the goal.
int judge_kind(const Options& o, const std::vector<SummaryRow>& summary, Contention kind) {
    std::string lines;
    int pass = -1;
    for (const SummaryRow& r : summary) {
        if (r.load == 0 || r.kind != kind) continue;
        bool ok = false;
        lines += "  " + cli::format_number(r.hz) + " Hz, " + contention_label(r.kind, r.load) + ", " +
                 goal_figures(o, r, kAutomatic, ok) + "\n";
        pass = (pass != 0 && ok) ? 1 : 0;
        for (const int k : priority_rows(o))
            if (kRows[k].only == Only::share) lines += "    not judged, " + goal_figures(o, r, k, ok) + "\n";
    }
    if (pass >= 0) std::printf("goal beside %s: %s\n%s", name_of(kContentionNames, kind), pass ? "PASS" : "FAIL",
                               lines.c_str());
    return pass;
}

// The goal of the default (automatic) beside each kind of busy load the run measured, a verdict
// line each, and the run's: PASS when every kind measured passed.
void print_goal(const Options& o, const std::vector<SummaryRow>& summary) {
    std::printf("\nGoal of the default (automatic) beside each kind of busy load: interval_error p99 <= %.0f us, "
                "off_%.0fus_share <= %.1f %%, CPU <= %.2fx preciseSleep's\n",
                kGoalInterrUs, kHitchUs, kGoalHitchPct, kGoalCpuRatio);
    if (!runs(kAutomatic, o)) {
        std::printf("goal overall: NOT MEASURED (automatic left out by --strategies)\n");
        return;
    }
    std::string verdicts, unmeasured;
    bool pass = true;
    for (const auto& c : kContentionNames) {
        const int v = judge_kind(o, summary, c.value);
        std::string& to = v < 0 ? unmeasured : verdicts;
        to += (to.empty() ? "" : ", ") + std::string(c.name) + (v < 0 ? "" : v ? " PASS" : " FAIL");
        pass = pass && v != 0;
    }
    std::printf("goal overall: %s (%s%s%s)\n", verdicts.empty() ? "NOT MEASURED" : pass ? "PASS" : "FAIL",
                verdicts.empty() ? "no --load above 0" : verdicts.c_str(), unmeasured.empty() ? "" : "; not measured: ",
                unmeasured.c_str());
}

void print_summary(const Options& o, const std::vector<SummaryRow>& summary) {
    if (!runs_the_normal_hybrids_yardsticks(o)) return;  // --strategies left them out
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

// What each mode gets here, asked once and put back, in `pacer probe`'s words: what is in force,
// the lever and who granted it ("thread priority automatic: SCHED_FIFO 5 granted (realtime, by
// the OS)"), or why not.
// The rows at a mode may run at another grant: RealtimeKit's answer comes frames after the ask
// (the priority summary says what each ran at).
void print_grants(const Options& o) {
    for (const TP mode : {TP::high, TP::automatic, TP::wait, TP::thread}) {
        pacer::PriorityConfig c;
        c.mode = mode;
        c.nice = o.nice;
        std::printf("thread priority %s: %s\n", to_string(mode), grant_text(pacer::probe_priority(c)).c_str());
    }
}

// The run's header: the machine, the grants, the settings and how long the run will take.
void print_header(const Options& o, const char* prog) {
    std::printf("%s: %d rounds x %.1f s per strategy, work %.2f ms/frame, %u hardware threads,\n"
                "sleep primitive: %s\n",
                prog, o.rounds, o.seconds, o.work_ms, std::thread::hardware_concurrency(),
                pacer::system_time_source().sleep_primitive());
    print_grants(o);
    std::string kinds;
    for (const Contention k : o.contention) kinds += (kinds.empty() ? "" : ", ") + std::string(describe(k));
    const std::string note = autogroup_note();
    std::printf("contention: %s%s%s\n", kinds.c_str(), note.empty() ? "" : "; ", note.c_str());
    std::printf("this run: %s\n", estimate_text(o).c_str());
    std::fflush(stdout);
}

}  // namespace pacer::tools::compare_detail
