// The weight (ThreadPriority::high and automatic, pacer/priority.hpp) on the real Linux kernel, as
// the process running it may or may not have it (tests/priority/weight_os_test.sh runs it as
// root, as nobody, as nobody with CAP_SYS_NICE, with RLIMIT_NICE raised, and on one CPU).
//
//   weight_check granted IN_FORCE_PREFIX   high granted (in force: the prefix)
//   weight_check refused REASON_TEXT        high refused, the reason containing the text
//   weight_check one-cpu                    run on one CPU: automatic does not raise, high does
//   weight_check spin-hazard                one CPU, a frame that spin-waits on a worker
//   weight_check idle                       automatic against normal, idle, interleaved
//
// granted / refused, on the calling thread, for high (automatic takes the weight only where a
// real-time class is refused; priority_check.cpp checks it):
//   * probe_priority(): granted or refused, and the nice value back afterwards;
//   * FramePacer, 240 Hz, 60 frames: every frame reads the granted nice value (or 0), with
//     SCHED_RESET_ON_FORK when granted; a child forked in a frame starts at nice 0;
//     end_pacing() puts the thread back, the next wait raises it again, the destructor puts it
//     back; the status says granted or refused with the reason; refused, no raise is retried.
// one-cpu: automatic's refusal names the single CPU and is logged once, at info; high is granted.
// spin-hazard: the pacing thread's frame posts jobs to a worker and spins until each is done, all
//   on one CPU. Phases of 0.5 s, normal and automatic interleaved (4 each), then high (2): the
//   worker's jobs a second beside each. automatic must keep at least half of what the worker does beside
//   normal (it does not raise on one CPU); high's ratio is printed: the hazard automatic avoids.
// idle: FramePacer at 144 Hz, nothing else running, normal and automatic in interleaved blocks:
//   automatic's interval-error median and p99 no worse than normal's (within the noise a loaded
//   2-core machine adds to either), its CPU no higher.
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../log_capture.hpp"
#include "check.hpp"
#include "pacer/pacer.hpp"

namespace {

using priority_test::check;
using priority_test::failures;
using priority_test::nice_now;
using priority_test::reset_on_fork;
using ThreadPriority = pacer::ThreadPriority;

pacer::PacerConfig config(ThreadPriority mode, double hz) {
    pacer::PacerConfig c;
    c.target_hz = hz;
    c.waiter.priority.mode = mode;
    return c;
}

void check_status(const pacer::PriorityStatus& p, bool granted, const char* text, const std::string& w) {
    std::printf("     %s: asked %s, granted %d, refused %d, in force \"%s\", reason \"%s\", raises %llu\n", w.c_str(),
                pacer::to_string(p.asked), p.granted, p.refused, p.in_force, p.reason,
                static_cast<unsigned long long>(p.raises));
    if (granted) {
        check(p.granted && !p.refused && p.raises == 1, w + ": granted once");
        check(std::strncmp(p.in_force, text, std::strlen(text)) == 0, w + ": in force starts with \"" + text + "\"");
    } else {
        check(p.refused && !p.granted && p.raises == 0, w + ": refused, not retried");
        check(std::strstr(p.reason, text) != nullptr, w + ": the reason says \"" + text + "\"");
    }
}

// A child forked now: its nice value (0 expected: SCHED_RESET_ON_FORK), or 99 when it failed.
int child_nice() {
    const pid_t pid = fork();
    if (pid == 0) _exit(nice_now() + 20);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) - 20 : 99;
}

void run_mode(ThreadPriority mode, bool granted, const char* text) {
    const std::string m = pacer::to_string(mode);
    const int own = nice_now();
    pacer::PriorityConfig pc;
    pc.mode = mode;
    const pacer::PriorityGrant g = pacer::probe_priority(pc);
    std::printf("     %s probe: granted %d, in force \"%s\", reason \"%s\"\n", m.c_str(), g.granted, g.in_force, g.reason);
    check(g.granted == granted, m + ": probe_priority() granted as expected");
    check(nice_now() == own, m + ": probe_priority() put the nice value back");
    {
        pacer::FramePacer fp(config(mode, 240));
        const int want = granted ? g.level : own;
        int wrong = 0, child = 0;
        for (int i = 0; i < 60; ++i) {
            (void)fp.wait();
            if (nice_now() != want || (granted && !reset_on_fork())) ++wrong;
            if (i == 30) child = child_nice();
        }
        check(wrong == 0, m + ": every frame ran at nice " + std::to_string(want) + (granted ? ", reset on fork" : "") +
                              " (" + std::to_string(wrong) + " of 60 did not)");
        check(child == 0, m + ": a child forked in a frame starts at nice 0 (read " + std::to_string(child) + ")");
        check_status(fp.status().waiter.priority, granted, text, m);
        fp.end_pacing();
        check(nice_now() == own, m + ": end_pacing() put the thread back");
        (void)fp.wait();
        check(nice_now() == want, m + ": the next wait() raised it again");
    }
    check(nice_now() == own, m + ": the destructor put the thread back");
}

int run_one_cpu() {
    cpu_set_t set;
    CPU_ZERO(&set);
    check(sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1, "runs on one CPU (taskset)");
    {
        pacer_test::LogCapture log;
        pacer::FramePacer fp(config(ThreadPriority::automatic, 240));
        for (int i = 0; i < 30; ++i) (void)fp.wait();
        check_status(fp.status().waiter.priority, false, "one CPU only", "automatic on one CPU");
        check(nice_now() == 0, "automatic on one CPU: the thread stays at nice 0");
        check(log.count("info: thread priority automatic: automatic: not raised") == 1 && log.count("warn") == 0,
              "automatic on one CPU: one info line, no warning:\n" + log.text());
    }
    pacer::FramePacer fp(config(ThreadPriority::high, 240));
    (void)fp.wait();
    check_status(fp.status().waiter.priority, true, "nice -15", "high on one CPU");
    return failures == 0 ? 0 : 1;
}

std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A worker that runs one job at a time (0.5 ms of work, counted by wall time while it has the
// CPU: thread CPU time), posted by the pacing thread, which spins until it is done.
struct Worker {
    std::atomic<int> posted{0}, done{0};
    std::atomic<bool> stop{false};
    std::thread t{[this] {
        while (!stop.load(std::memory_order_relaxed)) {
            if (posted.load(std::memory_order_acquire) == done.load(std::memory_order_relaxed)) {
                std::this_thread::yield();
                continue;
            }
            timespec a{}, b{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
            do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
            while ((b.tv_sec - a.tv_sec) * 1'000'000'000 + (b.tv_nsec - a.tv_nsec) < 500'000);
            done.fetch_add(1, std::memory_order_release);
        }
    }};
    ~Worker() {
        stop = true;
        t.join();
    }
    void run_job() {  // the engine's "wait for the job" by spinning
        const int want = posted.fetch_add(1, std::memory_order_acq_rel) + 1;
        while (done.load(std::memory_order_acquire) < want && !stop.load(std::memory_order_relaxed)) {
        }
    }
};

int run_spin_hazard() {
    Worker worker;
    // One phase of 0.5 s at a mode: the worker's jobs a second.
    const auto phase = [&worker](ThreadPriority mode) {
        pacer::FramePacer fp(config(mode, 60));
        const int before = worker.done.load();
        const std::int64_t t0 = now_ns();
        while (now_ns() - t0 < 500'000'000) {
            for (int j = 0; j < 8; ++j) worker.run_job();  // 4 ms of jobs a frame, waited on by spinning
            (void)fp.wait();
        }
        return (worker.done.load() - before) / (static_cast<double>(now_ns() - t0) / 1e9);
    };
    // normal and automatic interleaved, then high: a phase beside the raised pacer leaves the
    // scheduler's accounting of both threads skewed for a while (the worker starved, the pacer
    // ahead), which would weigh on whichever phase came next.
    double normal = 0, automatic = 0, high = 0;
    for (int round = 0; round < 4; ++round) {
        normal += phase(ThreadPriority::normal) / 4;
        automatic += phase(ThreadPriority::automatic) / 4;
    }
    for (int round = 0; round < 2; ++round) high += phase(ThreadPriority::high) / 2;
    std::printf("     the worker's jobs a second beside the pacer spinning on it, one CPU: normal %.0f, automatic %.0f "
                "(%.2fx), high %.0f (%.2fx)\n",
                normal, automatic, automatic / normal, high, high / normal);
    check(normal > 0 && automatic >= 0.5 * normal,
          "spin hazard: beside automatic the worker keeps at least half its throughput beside normal");
    return failures == 0 ? 0 : 1;
}

struct Idle {
    std::vector<double> err_us;
    double cpu_ns = 0, frames = 0;
};

int run_idle() {
    Idle idle[2];  // normal, automatic
    const double period_ns = 1e9 / 144;
    for (int block = 0; block < 8; ++block) {
        for (int k = 0; k < 2; ++k) {
            pacer::FramePacer fp(config(k ? ThreadPriority::automatic : ThreadPriority::normal, 144));
            (void)fp.wait();
            const pacer::CpuTimes c0 = pacer::system_time_source().cpu_times();
            for (int i = 0; i < 72; ++i) {
                const pacer::FrameTiming t = fp.wait();
                if (i > 0) idle[k].err_us.push_back(std::abs(static_cast<double>(t.interval.count()) - period_ns) / 1e3);
            }
            idle[k].cpu_ns += static_cast<double>((pacer::system_time_source().cpu_times().thread - c0.thread).count());
            idle[k].frames += 72;
        }
    }
    double q[2][2];
    for (int k = 0; k < 2; ++k) {
        std::vector<double>& v = idle[k].err_us;
        std::sort(v.begin(), v.end());
        q[k][0] = v[v.size() / 2];
        q[k][1] = v[static_cast<std::size_t>(0.99 * static_cast<double>(v.size() - 1))];
    }
    const double cpu[2] = {idle[0].cpu_ns / idle[0].frames / 1e3, idle[1].cpu_ns / idle[1].frames / 1e3};
    std::printf("     idle, 144 Hz, interval error: normal p50 %.2f us p99 %.1f us, CPU %.0f us a frame; automatic "
                "p50 %.2f us p99 %.1f us, CPU %.0f us a frame\n",
                q[0][0], q[0][1], cpu[0], q[1][0], q[1][1], cpu[1]);
    // Allowances for the noise of one loaded 2-core machine between interleaved blocks, not for
    // the weight: a median 5 us, a p99 100 us + 50 %, CPU 25 % + 10 us a frame. The p99 of 576
    // intervals is the sixth worst: six runs of this check on an idle 2-vCPU machine gave normal
    // 18-128 us and automatic 5-70 us, each worse than the other in some; with 50 us it failed
    // where normal's happened to read 56 us and automatic's 137 us. A weight that made idle
    // wake-ups late would put milliseconds there.
    check(q[1][0] <= q[0][0] + 5, "idle: automatic's median interval error no worse than normal's");
    check(q[1][1] <= q[0][1] * 1.5 + 100, "idle: automatic's p99 interval error no worse than normal's");
    check(cpu[1] <= cpu[0] * 1.25 + 10, "idle: automatic's CPU no higher than normal's");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string what = argc >= 2 ? argv[1] : "";
    std::printf("     uid %d, nice %d\n", static_cast<int>(getuid()), nice_now());
    if (what == "one-cpu") return run_one_cpu();
    if (what == "spin-hazard") return run_spin_hazard();
    if (what == "idle") return run_idle();
    if (argc < 3 || (what != "granted" && what != "refused")) {
        std::fprintf(stderr, "usage: weight_check granted IN_FORCE_PREFIX | refused REASON_TEXT | one-cpu | "
                             "spin-hazard | idle\n");
        return 2;
    }
    check(pacer::PacerConfig{}.waiter.priority.mode == ThreadPriority::automatic, "automatic is the default");
    // high only: automatic takes a real-time class where the process may (priority_check.cpp,
    // guard_check.cpp), the weight only where that is refused.
    run_mode(ThreadPriority::high, what == "granted", argv[2]);
    std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
    return failures == 0 ? 0 : 1;
}
