// The real-time guard (pacer/guard.hpp) on the real Linux kernel: run by
// tests/priority/guard_os_test.sh (root: the process's own right) and by
// tests/priority/realtimekit_test.sh (nobody: RealtimeKit's grant), which set RLIMIT_RTTIME.
//
//   guard_check long-frame MODE IN_FORCE   a FramePacer (priority MODE: thread or automatic) at
//                                          60 Hz, raised (in force starting with IN_FORCE); then
//                                          a frame that computes 500 ms of CPU without a system
//                                          call; then light frames
//   guard_check cpu-bound MODE             a busy thread pinned to each CPU, and the pacer, whose
//                                          frames compute 120 % of the period
//
// long-frame checks: raised before the long frame (the class, the status); no SIGXCPU during it
// (a handler counts them: the kernel sends it at RLIMIT_RTTIME's soft limit) and none after, and
// the process lives on (SIGKILL at the hard limit would end it: the script checks the exit
// status); at the long frame's end the thread reads SCHED_OTHER: put back while it computed,
// from the watchdog; the next wait's status says so (demotions 1, the guard's reason names the
// frame); light frames after it raise it again within 5 s (the class, the status: granted, the
// guard's "raised again"), automatic's beside a busy thread on each CPU (it is raised again only
// where no CPU is spare).
// cpu-bound checks: 5 pairs of phases of 1.5 s: the pacer at normal, then at MODE; the median of
// the pairs' ratios of the busy threads' share of the CPUs beside the raised pacer to their share
// beside the normal one is at least 90 % (the guard puts the pacer back after 50 ms of each phase
// and keeps it back: a pacer whose frames overrun never sleeps), and the raised pacer's status
// says it was put back. Unguarded, the raised pacer would take a whole CPU from them: on 2 CPUs
// their share drops from about 2/3 to 1/2 of each.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "pacer/pacer.hpp"

namespace {

using priority_test::check;
using priority_test::failures;
using priority_test::policy;

volatile sig_atomic_t g_xcpu = 0;
void on_xcpu(int) { g_xcpu = g_xcpu + 1; }

std::int64_t cpu_ns(clockid_t id = CLOCK_THREAD_CPUTIME_ID) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Computes until the thread has used `ns` more CPU, without a system call but the clock reads
// (vDSO-less for a CPU clock, but not blocking: RLIMIT_RTTIME keeps counting).
void compute(std::int64_t ns) {
    const std::int64_t until = cpu_ns() + ns;
    volatile std::uint64_t x = 0;
    while (cpu_ns() < until)
        for (int i = 0; i < 2000; ++i) x = x + static_cast<std::uint64_t>(i);
}

bool raised_class() { return policy() == SCHED_FIFO || policy() == SCHED_RR; }

pacer::ThreadPriority mode_of(const char* name) {
    pacer::ThreadPriority m = pacer::ThreadPriority::thread;
    if (!pacer::parse_thread_priority(name, &m)) {
        std::fprintf(stderr, "guard_check: unknown priority mode %s\n", name);
        std::exit(2);
    }
    return m;
}

void print_status(const pacer::PriorityStatus& p, const char* when) {
    std::printf("     %s: granted %d, pending %d, lever %s by %s, in force \"%s\", demotions %llu, guard \"%s\", "
                "reason \"%s\"\n",
                when, p.granted, p.pending, pacer::to_string(p.lever), pacer::to_string(p.by), p.in_force,
                static_cast<unsigned long long>(p.demotions), p.guard, p.reason);
}

// Waits (pacing at 60 Hz) until the status is granted, up to 3 s: RealtimeKit answers later.
bool until_granted(pacer::FramePacer& fp) {
    for (int i = 0; i < 180; ++i) {
        (void)fp.wait();
        const pacer::PriorityStatus p = fp.status().waiter.priority;
        if (p.granted && !p.pending && p.lever == pacer::PriorityLever::realtime && raised_class()) return true;
    }
    return false;
}

void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// A busy thread pinned to each CPU the process may use, at the normal class, until stop().
class BusyOnEveryCpu {
public:
    BusyOnEveryCpu() {
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        sched_getaffinity(0, sizeof allowed, &allowed);
        std::vector<int> cpus;
        for (int i = 0; i < CPU_SETSIZE; ++i)
            if (CPU_ISSET(i, &allowed)) cpus.push_back(i);
        clocks_.resize(cpus.size());
        for (std::size_t k = 0; k < cpus.size(); ++k)
            threads_.emplace_back([this, k, cpu = cpus[k]] {
                pin(cpu);
                pthread_getcpuclockid(pthread_self(), &clocks_[k]);
                ++ready_;
                while (!stop_.load(std::memory_order_relaxed)) {
                }
            });
        while (ready_ < static_cast<int>(cpus.size())) std::this_thread::yield();
    }
    ~BusyOnEveryCpu() { stop(); }
    void stop() {
        stop_ = true;
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
    }
    std::size_t count() const { return threads_.size(); }
    std::int64_t cpu() const {  // their CPU time so far, summed
        std::int64_t sum = 0;
        for (clockid_t c : clocks_) sum += cpu_ns(c);
        return sum;
    }

private:
    std::atomic<bool> stop_{false};
    std::atomic<int> ready_{0};
    std::vector<clockid_t> clocks_;
    std::vector<std::thread> threads_;
};

int long_frame(pacer::ThreadPriority mode, const char* in_force) {
    struct sigaction sa{};
    sa.sa_handler = on_xcpu;
    sigaction(SIGXCPU, &sa, nullptr);
    rlimit rt{};
    getrlimit(RLIMIT_RTTIME, &rt);
    std::printf("     RLIMIT_RTTIME soft %lld, hard %lld us\n", static_cast<long long>(rt.rlim_cur),
                static_cast<long long>(rt.rlim_max));

    pacer::PacerConfig c;
    c.target_hz = 60;
    c.waiter.priority.mode = mode;
    pacer::FramePacer fp(c);
    const bool granted = until_granted(fp);
    pacer::PriorityStatus p = fp.status().waiter.priority;
    print_status(p, "before");
    check(granted, "raised before the long frame");
    check(std::strncmp(p.in_force, in_force, std::strlen(in_force)) == 0,
          std::string("in force starts with \"") + in_force + "\"");
    for (int i = 0; i < 30; ++i) {  // the guard has seen light frames
        compute(2'000'000);
        (void)fp.wait();
    }

    const std::int64_t t0 = cpu_ns();
    compute(500'000'000);  // a level load, in one frame
    const double took_ms = static_cast<double>(cpu_ns() - t0) / 1e6;
    const bool put_back = policy() == SCHED_OTHER;
    std::printf("     the long frame: %.0f ms of CPU, ends at %s, SIGXCPU %d\n", took_ms,
                put_back ? "SCHED_OTHER" : "a real-time class", static_cast<int>(g_xcpu));
    check(put_back, "the long frame was put back to SCHED_OTHER while it computed");
    check(g_xcpu == 0, "no SIGXCPU during the long frame");
    (void)fp.wait();
    p = fp.status().waiter.priority;
    print_status(p, "after it");
    check(p.demotions == 1 && !p.granted && p.pending, "the status says put back (demotions 1, pending)");
    check(std::strstr(p.guard, "without sleeping") != nullptr, "the guard's reason names the long frame");

    // automatic is raised again only on a machine with no CPU to spare (it stands down on one
    // with a CPU to spare, pacer/guard.hpp): busy threads make it so.
    std::optional<BusyOnEveryCpu> busy;
    if (mode == pacer::ThreadPriority::automatic) busy.emplace();
    bool again = false;
    for (int i = 0; i < 300 && !again; ++i) {  // 5 s of light frames
        compute(2'000'000);
        (void)fp.wait();
        p = fp.status().waiter.priority;
        again = p.granted && raised_class();
    }
    print_status(p, "later");
    check(again, "light frames raised it again within 5 s");
    check(std::strstr(p.guard, "raised the thread again") != nullptr, "the guard says it raised it again");
    busy.reset();
    for (int i = 0; i < 60; ++i) {
        compute(2'000'000);
        (void)fp.wait();
    }
    check(g_xcpu == 0, "no SIGXCPU at all");
    fp.end_pacing();
    check(policy() == SCHED_OTHER, "end_pacing() put the thread back");
    std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
    return failures == 0 ? 0 : 1;
}

int cpu_bound(pacer::ThreadPriority mode) {
    struct sigaction sa{};
    sa.sa_handler = on_xcpu;
    sigaction(SIGXCPU, &sa, nullptr);
    // A busy thread pinned to each CPU the process may use; the pacer free to run on any of them
    // (automatic raises nothing on a thread that may run on one CPU only).
    BusyOnEveryCpu busy;
    const auto busy_cpu = [&] { return busy.cpu(); };
    pacer::PacerConfig c;
    c.target_hz = 60;
    const std::int64_t work = 20'000'000;  // 120 % of the period
    // Pairs of phases, the normal pacer then the raised one, 1.5 s each: the busy threads' share
    // in each, and the pair's ratio. The median of the pairs' ratios, so that a spell of another
    // process on the host in one phase does not decide.
    constexpr int kPairs = 5;
    double share[kPairs][2] = {};
    double ratio[kPairs] = {};
    pacer::PriorityStatus raised_status;
    for (int phase = 0; phase < 2 * kPairs; ++phase) {
        const int raise = phase % 2;
        c.waiter.priority.mode = raise ? mode : pacer::ThreadPriority::normal;
        pacer::FramePacer fp(c);
        const std::int64_t busy0 = busy_cpu();
        const auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500)) {
            (void)fp.wait();
            compute(work);
        }
        const double wall = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        share[phase / 2][raise] = static_cast<double>(busy_cpu() - busy0) / wall;
        (void)fp.wait();
        if (raise) {
            raised_status = fp.status().waiter.priority;
            char when[48];
            std::snprintf(when, sizeof when, "raised phase %d of %d, at its end", phase / 2 + 1, kPairs);
            print_status(raised_status, when);  // line-buffered: what was seen before a SIGKILL
        }
    }
    busy.stop();
    std::printf("     %zu busy threads, one a CPU: their share of the CPUs beside the pacer at normal and at %s, "
                "by pairs of phases:",
                busy.count(), pacer::to_string(mode));
    for (int i = 0; i < kPairs; ++i) {
        ratio[i] = share[i][0] > 0 ? share[i][1] / share[i][0] : 0;
        std::printf(" %.3f/%.3f", share[i][0], share[i][1]);
    }
    std::sort(ratio, ratio + kPairs);
    std::printf(" (median ratio %.2f)\n", ratio[kPairs / 2]);
    // The first raised phase's pacer is put back; the later ones' thread carries the kernel's
    // RLIMIT_RTTIME count on where RLIMIT_RTTIME is set (it never sleeps): they are held back.
    check(raised_status.lever != pacer::PriorityLever::realtime &&
              (raised_status.demotions >= 1 || std::strstr(raised_status.guard, "held back") != nullptr),
          "the raised pacer was put back or held back, and stays back");
    check(ratio[kPairs / 2] >= 0.9, "the busy threads keep at least 90 % of their share beside the normal pacer");
    // The pacer never slept: every raise carried the kernel's RLIMIT_RTTIME count on.
    check(g_xcpu == 0, "no SIGXCPU (SIGKILL would have ended the process)");
    std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line out before a kill could lose it
    if (argc >= 4 && std::strcmp(argv[1], "long-frame") == 0) return long_frame(mode_of(argv[2]), argv[3]);
    if (argc >= 3 && std::strcmp(argv[1], "cpu-bound") == 0) return cpu_bound(mode_of(argv[2]));
    std::fprintf(stderr, "usage: guard_check long-frame MODE IN_FORCE | cpu-bound MODE\n");
    return 2;
}
