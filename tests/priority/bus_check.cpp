// pacer's D-Bus client (pacer/src/platform/linux/bus.hpp, compiled in here) against a real
// RealtimeKit and xdg Realtime portal: run by tests/priority/bus_test.sh, which starts the private
// buses, polkitd, rtkit-daemon and the portal (tests/priority/rtkit_env.sh) and says who runs
// this, on which buses and with which polkit rule. VIA is realtimekit or portal: who must answer.
//
//   bus_check limits VIA             read_limits(): known, from VIA, RealtimeKit's defaults
//                                    (MaxRealtimePriority 20, MinNiceLevel -15, RTTimeUSecMax
//                                    200000; the portal forwards RealtimeKit's)
//   bus_check realtime VIA PRIORITY  on a thread of its own, RLIMIT_RTTIME set first to 200 ms
//                                    soft and hard (RealtimeKit refuses a process whose hard limit
//                                    is above RTTimeUSecMax, or unlimited): make_realtime() granted
//                                    by VIA; the thread reads SCHED_RR PRIORITY with
//                                    SCHED_RESET_ON_FORK, the main thread is untouched; given back
//                                    with sched_setscheduler(SCHED_OTHER | SCHED_RESET_ON_FORK),
//                                    unprivileged. The request waits with looks (bus::Waiting):
//                                    at least two (one as it goes), and one saw the thread
//                                    real-time before the call returned (the service raises it
//                                    before it answers)
//   bus_check high VIA NICE          the same with make_high_priority(): getpriority() reads NICE
//                                    on that thread, the main thread stays at nice 0; given back
//   bus_check concurrent VIA NICE    four threads at once, each make_high_priority() for itself
//                                    and read_limits(): all granted by VIA (each call has its own
//                                    connections: nothing shared but the loaded library)
//   bus_check unreachable TEXT TIMEOUT_MS BOUND_MS
//                                    read_limits(), make_realtime() and make_high_priority() with
//                                    TIMEOUT_MS: not known or granted, unreachable, via none, the
//                                    error containing TEXT, each back within BOUND_MS
//   bus_check silent TIMEOUT_MS BOUND_MS
//                                    RealtimeKit stopped (SIGSTOP): make_realtime() with looks
//                                    and TIMEOUT_MS: not granted, "did not answer", back within
//                                    BOUND_MS, looked at least twice meanwhile; the thread unchanged
//   bus_check denied VIA TEXT        make_realtime() and make_high_priority(): not granted, not
//                                    unreachable, answered by VIA, the error containing TEXT; the
//                                    thread unchanged (SCHED_OTHER, nice 0)
//   bus_check orphaned               the portal running without RealtimeKit (started after it
//                                    left): read_limits() not known, the error saying the portal
//                                    answers zeros and RealtimeKit is not on the system bus;
//                                    make_realtime() and make_high_priority() unreachable by way
//                                    of the portal, "could not reach RealtimeKit", the thread
//                                    unchanged
// Exit 0 when every check passed, 1 otherwise, 2 on bad arguments. Each call's answer is printed.
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "platform/linux/bus.hpp"

namespace {

namespace bus = pacer::platform::bus;
using priority_test::check;
using priority_test::failures;
using priority_test::nice_now;
using priority_test::policy;
using priority_test::reset_on_fork;

constexpr int kTimeoutMs = 2000;  // per round trip: generous, a loaded machine's daemons answer in ms

std::int64_t tid_now() { return static_cast<std::int64_t>(syscall(SYS_gettid)); }
int rt_priority() {
    sched_param p{};
    return sched_getparam(0, &p) == 0 ? p.sched_priority : -1;
}
std::string class_now() {
    const int p = policy();
    const char* name = p == SCHED_OTHER ? "SCHED_OTHER" : p == SCHED_FIFO ? "SCHED_FIFO" : p == SCHED_RR ? "SCHED_RR" : "other";
    return std::string(name) + " " + std::to_string(rt_priority()) + ", nice " + std::to_string(nice_now());
}

bus::Via via_of(const std::string& s) {
    if (s == "portal") return bus::Via::portal;
    if (s == "realtimekit") return bus::Via::realtimekit;
    std::fprintf(stderr, "VIA is realtimekit or portal, not %s\n", s.c_str());
    std::exit(2);
}
std::string who(bus::Via v) { return v == bus::Via::none ? "nobody" : bus::to_string(v); }

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void print(const char* call, const bus::Answer& a, double ms) {
    std::printf("     %s: %.1f ms, granted %d, unreachable %d, via \"%s\", error \"%s\"\n", call, ms, a.granted,
                a.unreachable, bus::to_string(a.via), a.error);
}
void print(const bus::Limits& l, double ms) {
    std::printf("     read_limits(): %.1f ms, known %d, via \"%s\", MaxRealtimePriority %d, MinNiceLevel %d, "
                "RTTimeUSecMax %lld, error \"%s\"\n",
                ms, l.known, bus::to_string(l.via), l.max_realtime_priority, l.min_nice_level, l.rttime_usec_max,
                l.error);
}

int limits(bus::Via via) {
    const auto t0 = std::chrono::steady_clock::now();
    const bus::Limits l = bus::read_limits(kTimeoutMs);
    print(l, ms_since(t0));
    check(l.known, "known");
    check(l.via == via, "read from " + who(via) + " (" + who(l.via) + ")");
    check(l.max_realtime_priority == 20 && l.min_nice_level == -15 && l.rttime_usec_max == 200000,
          "RealtimeKit's defaults: MaxRealtimePriority 20, MinNiceLevel -15, RTTimeUSecMax 200000");
    check(l.error[0] == '\0', "no error text");
    return failures == 0 ? 0 : 1;
}

// What a request's looks saw (bus::Waiting): how many, and the first that read the calling
// thread real-time (0: none).
struct Looks {
    int count = 0, first_realtime = 0;
    static void look(void* ctx) noexcept {
        auto* l = static_cast<Looks*>(ctx);
        ++l->count;
        if (l->first_realtime == 0 && (policy() == SCHED_RR || policy() == SCHED_FIFO)) l->first_realtime = l->count;
    }
    bus::Waiting waiting() { return bus::Waiting{&Looks::look, this, 5}; }
};

// The checks on the granted thread run on it; the main thread is checked after it ends.
int realtime(bus::Via via, int priority) {
    const rlimit rt{200000, 200000};
    check(setrlimit(RLIMIT_RTTIME, &rt) == 0, "RLIMIT_RTTIME set to 200 ms soft and hard");
    const std::string main_before = class_now();
    std::thread t([&] {
        const auto t0 = std::chrono::steady_clock::now();
        Looks looks;
        const bus::Answer a = bus::make_realtime(getpid(), tid_now(), priority, kTimeoutMs, looks.waiting());
        print("make_realtime()", a, ms_since(t0));
        std::printf("     %d looks while the answer was on its way, real-time from look %d\n", looks.count,
                    looks.first_realtime);
        check(looks.count >= 2 && looks.first_realtime >= 2,
              "a look while the answer was on its way saw the thread real-time");
        check(a.granted && !a.unreachable && a.error[0] == '\0', "granted");
        check(a.via == via, "by " + who(via) + " (" + who(a.via) + ")");
        check(policy() == SCHED_RR && rt_priority() == priority && reset_on_fork(),
              "the thread reads SCHED_RR " + std::to_string(priority) + " with SCHED_RESET_ON_FORK (" + class_now() +
                  (reset_on_fork() ? ", reset on fork" : "") + ")");
        sched_param zero{};
        // With the flag: an unprivileged thread may not clear SCHED_RESET_ON_FORK (EPERM).
        const bool back = sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &zero) == 0;
        check(back && policy() == SCHED_OTHER,
              "given back: sched_setscheduler(SCHED_OTHER | SCHED_RESET_ON_FORK) (" + class_now() + ")");
    });
    t.join();
    check(class_now() == main_before, "the main thread is untouched (" + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

int high(bus::Via via, int nice) {
    const std::string main_before = class_now();
    std::thread t([&] {
        const auto t0 = std::chrono::steady_clock::now();
        const bus::Answer a = bus::make_high_priority(getpid(), tid_now(), nice, kTimeoutMs);
        print("make_high_priority()", a, ms_since(t0));
        check(a.granted && !a.unreachable && a.error[0] == '\0', "granted");
        check(a.via == via, "by " + who(via) + " (" + who(a.via) + ")");
        check(nice_now() == nice && policy() == SCHED_OTHER,
              "the thread reads nice " + std::to_string(nice) + " (" + class_now() + ")");
        const bool back = setpriority(PRIO_PROCESS, static_cast<id_t>(tid_now()), 0) == 0;
        check(back && nice_now() == 0, "given back: setpriority(0) (" + class_now() + ")");
    });
    t.join();
    check(class_now() == main_before, "the main thread is untouched (" + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

int concurrent(bus::Via via, int nice) {
    constexpr int kThreads = 4;
    struct Result {
        bus::Answer a;
        bus::Limits l;
        int nice_after = 99;
        double ms = 0;  // make_high_priority()'s
    };
    std::vector<Result> r(kThreads);
    pthread_barrier_t start;
    pthread_barrier_init(&start, nullptr, kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&, i] {
            Result& mine = r[static_cast<std::size_t>(i)];
            pthread_barrier_wait(&start);  // all at once
            const auto t0 = std::chrono::steady_clock::now();
            mine.a = bus::make_high_priority(getpid(), tid_now(), nice, kTimeoutMs);
            mine.ms = ms_since(t0);
            mine.l = bus::read_limits(kTimeoutMs);
            mine.nice_after = nice_now();
            setpriority(PRIO_PROCESS, static_cast<id_t>(tid_now()), 0);
        });
    for (auto& t : threads) t.join();
    pthread_barrier_destroy(&start);
    int granted = 0, known = 0;
    for (const Result& x : r) {
        print("make_high_priority()", x.a, x.ms);
        granted += x.a.granted && x.a.via == via && x.nice_after == nice ? 1 : 0;
        known += x.l.known && x.l.via == via ? 1 : 0;
    }
    check(granted == kThreads, std::to_string(granted) + " of " + std::to_string(kThreads) + " threads granted nice " +
                                   std::to_string(nice) + " by " + who(via) + " at once");
    check(known == kThreads, std::to_string(known) + " of " + std::to_string(kThreads) + " read the limits from " +
                                 who(via) + " at once");
    return failures == 0 ? 0 : 1;
}

int unreachable(const char* text, int timeout_ms, double bound_ms) {
    const std::string t = text;
    const std::string before = class_now();
    auto t0 = std::chrono::steady_clock::now();
    const bus::Limits l = bus::read_limits(timeout_ms);
    double ms = ms_since(t0);
    print(l, ms);
    check(!l.known && l.via == bus::Via::none, "read_limits(): not known");
    check(std::strstr(l.error, text) != nullptr, "read_limits(): the error says \"" + t + "\"");
    check(ms < bound_ms, "read_limits(): back within " + std::to_string(static_cast<int>(bound_ms)) + " ms");
    const struct {
        const char* name;
        bus::Answer (*call)(std::int64_t, std::int64_t, int, int) noexcept;
        int level;
    } calls[] = {{"make_realtime()",
                  [](std::int64_t pid, std::int64_t tid, int level, int timeout) noexcept {
                      return bus::make_realtime(pid, tid, level, timeout);
                  },
                  10},
                 {"make_high_priority()", bus::make_high_priority, -10}};
    for (const auto& c : calls) {
        const std::string name = c.name;
        t0 = std::chrono::steady_clock::now();
        const bus::Answer a = c.call(getpid(), tid_now(), c.level, timeout_ms);
        ms = ms_since(t0);
        print(c.name, a, ms);
        check(!a.granted && a.unreachable && a.via == bus::Via::none, name + ": unreachable, not granted");
        check(std::strstr(a.error, text) != nullptr, name + ": the error says \"" + t + "\"");
        check(ms < bound_ms, name + ": back within " + std::to_string(static_cast<int>(bound_ms)) + " ms");
    }
    check(class_now() == before, "the thread unchanged (" + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

int silent(int timeout_ms, double bound_ms) {
    const rlimit rt{200000, 200000};
    setrlimit(RLIMIT_RTTIME, &rt);
    const std::string before = class_now();
    const auto t0 = std::chrono::steady_clock::now();
    Looks looks;
    const bus::Answer a = bus::make_realtime(getpid(), tid_now(), 10, timeout_ms, looks.waiting());
    const double ms = ms_since(t0);
    print("make_realtime()", a, ms);
    std::printf("     %d looks while the answer was awaited\n", looks.count);
    check(!a.granted, "not granted");
    check(std::strstr(a.error, "did not answer") != nullptr, "the error says \"did not answer\"");
    check(ms < bound_ms, "back within " + std::to_string(static_cast<int>(bound_ms)) + " ms");
    check(looks.count >= 2, "looked at least twice while the answer was awaited");
    check(class_now() == before, "the thread unchanged (" + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

int denied(bus::Via via, const char* text) {
    const std::string t = text;
    const rlimit rt{200000, 200000};
    setrlimit(RLIMIT_RTTIME, &rt);  // so that the refusal is the policy's, not the limit's
    const std::string before = class_now();
    auto t0 = std::chrono::steady_clock::now();
    const bus::Answer r = bus::make_realtime(getpid(), tid_now(), 10, kTimeoutMs);
    print("make_realtime()", r, ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    const bus::Answer h = bus::make_high_priority(getpid(), tid_now(), -10, kTimeoutMs);
    print("make_high_priority()", h, ms_since(t0));
    for (const bus::Answer* a : {&r, &h}) {
        const std::string name = a == &r ? "make_realtime()" : "make_high_priority()";
        check(!a->granted && !a->unreachable, name + ": refused, not unreachable");
        check(a->via == via, name + ": answered by " + who(via) + " (" + who(a->via) + ")");
        check(std::strstr(a->error, text) != nullptr, name + ": the error says \"" + t + "\"");
    }
    check(class_now() == before, "the thread unchanged (" + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

int orphaned() {
    const std::string before = class_now();
    const bus::Limits l = bus::read_limits(kTimeoutMs);
    print(l, 0);
    check(!l.known && l.via == bus::Via::none, "read_limits(): not known (" + who(l.via) + ")");
    check(std::strstr(l.error, "RealtimeKit is not on the system bus") != nullptr &&
              std::strstr(l.error, "the Realtime portal answers limits of 0") != nullptr,
          "read_limits(): the error says \"RealtimeKit is not on the system bus\" and \"the Realtime portal "
          "answers limits of 0\"");
    const rlimit rt{200000, 200000};
    setrlimit(RLIMIT_RTTIME, &rt);
    const bus::Answer r = bus::make_realtime(getpid(), tid_now(), 10, kTimeoutMs);
    print("make_realtime()", r, 0);
    const bus::Answer h = bus::make_high_priority(getpid(), tid_now(), -10, kTimeoutMs);
    print("make_high_priority()", h, 0);
    for (const bus::Answer* a : {&r, &h}) {
        const std::string name = a == &r ? "make_realtime()" : "make_high_priority()";
        check(!a->granted && a->unreachable && a->via == bus::Via::portal,
              name + ": unreachable, by way of the portal (" + who(a->via) + ")");
        check(std::strstr(a->error, "could not reach RealtimeKit") != nullptr,
              name + ": the error says \"could not reach RealtimeKit\"");
    }
    check(class_now() == before, "the thread unchanged (" + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    const std::string mode = argc > 1 ? argv[1] : "";
    std::printf("     pid %d, uid %d, %s\n", static_cast<int>(getpid()), static_cast<int>(getuid()),
                class_now().c_str());
    if (mode == "limits" && argc == 3) return limits(via_of(argv[2]));
    if (mode == "realtime" && argc == 4) return realtime(via_of(argv[2]), std::atoi(argv[3]));
    if (mode == "high" && argc == 4) return high(via_of(argv[2]), std::atoi(argv[3]));
    if (mode == "concurrent" && argc == 4) return concurrent(via_of(argv[2]), std::atoi(argv[3]));
    if (mode == "unreachable" && argc == 5) return unreachable(argv[2], std::atoi(argv[3]), std::atof(argv[4]));
    if (mode == "silent" && argc == 4) return silent(std::atoi(argv[2]), std::atof(argv[3]));
    if (mode == "denied" && argc == 4) return denied(via_of(argv[2]), argv[3]);
    if (mode == "orphaned" && argc == 2) return orphaned();
    std::fprintf(stderr,
                 "usage: bus_check limits VIA | realtime VIA PRIORITY | high VIA NICE | concurrent VIA NICE | "
                 "unreachable TEXT TIMEOUT_MS BOUND_MS | silent TIMEOUT_MS BOUND_MS | denied VIA TEXT | orphaned   "
                 "(VIA: realtimekit or portal)\n");
    return 2;
}
