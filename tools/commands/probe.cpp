// `pacer probe`: how long this machine's wait primitives really take (after "Quantifying The Accuracy Of Sleep", 2003, and "How long do short sleeps
// actually take?"). For each
// primitive, each requested time and each number of busy background threads, N timed calls:
// mean, stddev, min, p50, p99, max of the real duration, and the calling thread's CPU %.
// Total time is bounded by --budget: cells that would not fit are skipped and listed as such.
// First it says what thread priority this machine grants a pacing thread (pacer/priority.hpp).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#if defined(__linux__) || defined(__APPLE__)
#include <sched.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sys/timerfd.h>
#endif

#include "cli_options.hpp"
#include "pacer/pacer.hpp"
#include "commands.hpp"
#include "priority_text.hpp"

namespace pacer::tools {
namespace {

using Wait = void (*)(std::int64_t ns);

struct Primitive {
    const char* name;
    Wait wait;
};

TimeSource& sys() { return system_time_source(); }

void w_sleep_for(std::int64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }
void w_spin(std::int64_t ns) {
    const std::int64_t end = pacer::clock::to_ns(sys().now()) + ns;
    while (pacer::clock::to_ns(sys().now()) < end) sys().relax();
}
void w_hybrid(std::int64_t ns) { (void)pacer::sleep_for(std::chrono::nanoseconds(ns)); }
#if defined(__linux__) || defined(__APPLE__)
void w_nanosleep(std::int64_t ns) {
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
void w_yield(std::int64_t) { sched_yield(); }
void w_select(std::int64_t ns) {
    timeval tv{static_cast<time_t>(ns / 1'000'000'000), static_cast<suseconds_t>((ns % 1'000'000'000) / 1000)};
    (void)select(0, nullptr, nullptr, nullptr, &tv);
}
#endif
#if defined(__linux__)
void w_clock_nanosleep_abs(std::int64_t ns) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    std::int64_t d = static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec + ns;
    timespec ts{static_cast<time_t>(d / 1'000'000'000), static_cast<long>(d % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}
int g_tfd = -1;
void w_timerfd(std::int64_t ns) {
    if (g_tfd < 0) return;
    itimerspec its{};
    // A zero it_value disarms the timer; 1 ns is the shortest armed timer.
    const std::int64_t v = std::max<std::int64_t>(ns, 1);
    its.it_value = {static_cast<time_t>(v / 1'000'000'000), static_cast<long>(v % 1'000'000'000)};
    if (timerfd_settime(g_tfd, 0, &its, nullptr) != 0) return;
    std::uint64_t expirations = 0;
    while (read(g_tfd, &expirations, sizeof expirations) < 0 && errno == EINTR) {
    }
}
#endif

const Primitive kPrimitives[] = {
    {"sleep_for", w_sleep_for},
#if defined(__linux__) || defined(__APPLE__)
    {"nanosleep", w_nanosleep},
#endif
#if defined(__linux__)
    {"clock_nanosleep_abs", w_clock_nanosleep_abs},
    {"timerfd", w_timerfd},
#endif
#if defined(__linux__) || defined(__APPLE__)
    {"sched_yield", w_yield},
    {"select", w_select},
#endif
    {"spin", w_spin},
    {"hybrid", w_hybrid},
};

// --primitives: "all" or a comma list of kPrimitives' names.
Status parse_primitives(std::string_view v, std::vector<const Primitive*>* out) {
    std::vector<const Primitive*> prims;
    if (v == "all") {
        for (const Primitive& p : kPrimitives) prims.push_back(&p);
    } else {
        for (std::size_t pos = 0; pos <= v.size();) {
            const std::size_t c = std::min(v.find(',', pos), v.size());
            const std::string_view name = v.substr(pos, c - pos);
            const Primitive* found = nullptr;
            for (const Primitive& p : kPrimitives)
                if (name == p.name) found = &p;
            if (!found) return Status::error("unknown primitive " + cli::quoted(name));
            prims.push_back(found);
            pos = c + 1;
        }
    }
    *out = std::move(prims);
    return {};
}

struct ProbeOptions {
    std::vector<const Primitive*> prims;
    std::vector<double> times;  // empty: 0, then decades up to max_ms
    std::vector<int> loads{0};
    double max_ms = 100, budget = 60;
    long long iterations = 20;
    std::string csv_path;
};

cli::Parser probe_parser(ProbeOptions* o) {
    (void)parse_primitives("all", &o->prims);
    cli::Parser opts("pacer probe", "",
                     "Times this machine's waits: for each primitive, requested time and number of busy\n"
                     "threads, N calls; prints mean, stddev, min, p50, p99, max of the real time (us) and the\n"
                     "calling thread's CPU % (nan when the cell took under 1 ms: too short to account).");
    std::string names;
    for (const Primitive& prim : kPrimitives) names += std::string(" ") + prim.name;
    opts.custom("--primitives", "all|NAME,...", "comma list of:" + names,
                [o](std::string_view v) { return parse_primitives(v, &o->prims); })
        .default_text = "all";
    opts.list("--times-ns", "LIST", "requested times in ns", &o->times, 0.0, 1e9).default_text =
        "0, then 1 ns, 10 ns, ... up to --max-ms";
    opts.number("--max-ms", "MS",
                "largest requested time of the default grid (1000 reaches 1 s,\n"
                "raise --budget to let those cells run)",
                &o->max_ms, 1e-6, 1000.0);
    opts.number("--iterations", "N", "calls per cell", &o->iterations, 1LL, 100000LL);
    opts.list("--load", "LIST", "numbers of busy background threads", &o->loads, 0, 64);
    opts.number("--budget", "S",
                "bound on the total run time in s; cells whose expected time does\n"
                "not fit are skipped and marked",
                &o->budget, 0.1, 86400.0);
    opts.text("--csv", "FILE", "also write one row per cell to FILE", &o->csv_path);
    return opts;
}

// "0 ns", "10 us", "1 ms".
std::string time_label(std::int64_t req) {
    char label[32];
    if (req >= 1'000'000) std::snprintf(label, sizeof label, "%g ms", static_cast<double>(req) / 1e6);
    else if (req >= 1000) std::snprintf(label, sizeof label, "%g us", static_cast<double>(req) / 1e3);
    else std::snprintf(label, sizeof label, "%lld ns", static_cast<long long>(req));
    return label;
}

struct CellStats {
    double mean = 0, sd = 0, min = 0, p50 = 0, p99 = 0, max = 0;  // us
    double cpu = 0;                                                // %, NaN: too short to account
};

// `iterations` timed calls of one primitive for req ns.
CellStats measure(const Primitive& p, std::int64_t req, long long iterations) {
    std::vector<double> us(static_cast<std::size_t>(iterations));
    const CpuTimes c0 = sys().cpu_times();
    const std::int64_t w0 = pacer::clock::to_ns(sys().now());
    for (auto& x : us) {
        const std::int64_t s = pacer::clock::to_ns(sys().now());
        p.wait(req);
        x = static_cast<double>(pacer::clock::to_ns(sys().now()) - s) / 1e3;
    }
    const std::int64_t wall = pacer::clock::to_ns(sys().now()) - w0;
    const CpuTimes c1 = sys().cpu_times();
    CellStats c;
    // Thread CPU time is only meaningful over a stretch well above its accounting
    // granularity: below 1 ms of wall time per cell the CPU % is not shown (NaN).
    c.cpu = c0.thread.count() >= 0 && wall >= 1'000'000
                ? std::min(100.0, 100.0 * static_cast<double>(c1.thread.count() - c0.thread.count()) / static_cast<double>(wall))
                : std::nan("");
    double sum = 0, ss = 0;
    for (double x : us) sum += x;
    c.mean = sum / static_cast<double>(us.size());
    for (double x : us) ss += (x - c.mean) * (x - c.mean);
    c.sd = std::sqrt(ss / static_cast<double>(us.size()));
    std::sort(us.begin(), us.end());
    c.min = us.front();
    c.p50 = percentile_sorted(us, 0.5);
    c.p99 = percentile_sorted(us, 0.99);
    c.max = us.back();
    return c;
}

// What this machine grants a pacing thread (WaiterConfig::priority, pacer/priority.hpp), each
// mode asked once and put back: the weight, what automatic would take here, the real-time class
// around each wait (the process's own right only) and for good (RealtimeKit or the portal too).
// Each line says what was granted, the lever and by whom, or why not (priority_text.hpp).
void print_priority_grants() {
    const struct {
        pacer::ThreadPriority mode;
        const char* serves;
    } levers[] = {{pacer::ThreadPriority::high, "priority high"},
                  {pacer::ThreadPriority::automatic, "priority automatic, the default"},
                  {pacer::ThreadPriority::wait, "priority wait"},
                  {pacer::ThreadPriority::thread, "priority thread"}};
    for (const auto& l : levers) {
        pacer::PriorityConfig c;
        c.mode = l.mode;
        std::printf("thread priority (%s): %s\n", l.serves, grant_text(pacer::probe_priority(c)).c_str());
    }
}

// The whole run: every load x primitive x time, within the budget, to stdout and the CSV.
class ProbeRun {
public:
    ProbeRun(const ProbeOptions& o, std::FILE* csv)
        : o_(o),
          csv_(csv),
          cells_(o.prims.size() * o.times.size() * o.loads.size()),
          t_start_(pacer::clock::to_ns(sys().now())),
          deadline_(t_start_ + static_cast<std::int64_t>(o.budget * 1e9)) {}

    void run() {
        std::printf("pacer probe: %lld calls per cell, %u hardware threads, budget %.1f s\n", o_.iterations,
                    std::thread::hardware_concurrency(), o_.budget);
        print_priority_grants();
        PacingScope scope;  // the hybrid waits and the absolute sleeps get the lowered timer slack
        for (int load : o_.loads) {
            const BusyLoad busy(load);
            std::printf("\n%d busy thread%s, every row at the thread's own class (priority normal)\n"
                        "| primitive | requested | mean us | stddev us | min us | p50 us | "
                        "p99 us | max us | CPU %% |\n|---|---|---|---|---|---|---|---|---|\n",
                        load, load == 1 ? "" : "s");
            for (const Primitive* p : o_.prims)
                for (double t : o_.times) cell(*p, load, static_cast<std::int64_t>(t));
        }
        if (tty_) std::fprintf(stderr, "\r%*s\r", 50, "");
        std::printf("\n%zu of %zu cells measured in %.1f s%s\n", cells_ - skipped_, cells_,
                    static_cast<double>(pacer::clock::to_ns(sys().now()) - t_start_) / 1e9,
                    skipped_ ? " (raise --budget or lower --max-ms / --iterations for the rest)" : "");
    }

private:
    void cell(const Primitive& p, int load, std::int64_t req) {
        ++done_;
        // Expected cost: the request plus ~1 ms of OS slack per call, to stay in budget.
        const double expect = static_cast<double>(o_.iterations) * (static_cast<double>(req) + 1e6);
        const std::string label = time_label(req);
        if (static_cast<double>(pacer::clock::to_ns(sys().now())) + expect > static_cast<double>(deadline_)) {
            ++skipped_;
            std::printf("| %s | %s | skipped: over the --budget |||||||\n", p.name, label.c_str());
            return;
        }
        const CellStats c = measure(p, req, o_.iterations);
        std::printf("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |\n", p.name, label.c_str(), c.mean,
                    c.sd, c.min, c.p50, c.p99, c.max, c.cpu);
        if (csv_)
            std::fprintf(csv_, "%s,%d,%lld,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f\n", p.name, load,
                         static_cast<long long>(req), o_.iterations, c.mean, c.sd, c.min, c.p50, c.p99, c.max, c.cpu);
        if (tty_) {
            const int width = 30;
            const int fill = static_cast<int>(width * done_ / cells_);
            std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu", fill, "##############################", width - fill, "",
                         done_, cells_);
        }
        std::fflush(stdout);
    }

    const ProbeOptions& o_;
    std::FILE* const csv_;
#if defined(__linux__) || defined(__APPLE__)
    const bool tty_ = isatty(fileno(stderr)) != 0;  // progress bar only on a terminal
#else
    const bool tty_ = false;
#endif
    const std::size_t cells_;
    std::size_t done_ = 0, skipped_ = 0;
    const std::int64_t t_start_, deadline_;
};

}  // namespace

int probe_main(int argc, char** argv) {
    pacer::set_log_function(nullptr);
    ProbeOptions o;
    const cli::Parser opts = probe_parser(&o);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (o.times.empty()) {
        o.times = {0};  // then decades: 1 ns, 10 ns, ... up to --max-ms
        for (double t = 1; t <= o.max_ms * 1e6 + 0.5; t *= 10) o.times.push_back(t);
    }
    std::FILE* csv = nullptr;
    if (!o.csv_path.empty()) {
        csv = std::fopen(o.csv_path.c_str(), "w");
        if (!csv) {
            std::fprintf(stderr, "pacer probe: cannot write %s: %s\n", o.csv_path.c_str(), std::strerror(errno));
            return 1;
        }
        std::fprintf(csv, "primitive,busy_threads,requested_ns,iterations,mean_us,stddev_us,min_us,p50_us,p99_us,"
                          "max_us,cpu_pct\n");
    }
#if defined(__linux__)
    g_tfd = timerfd_create(CLOCK_MONOTONIC, 0);
#endif
    ProbeRun(o, csv).run();
#if defined(__linux__)
    if (g_tfd >= 0) close(g_tfd);
#endif
    if (csv && std::fclose(csv) != 0) {
        std::fprintf(stderr, "pacer probe: cannot write %s\n", o.csv_path.c_str());
        return 1;
    }
    return 0;
}

}  // namespace pacer::tools
