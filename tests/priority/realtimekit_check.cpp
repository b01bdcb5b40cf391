// pacer::sdl2::request_realtime() against a real RealtimeKit: run by
// tests/priority/realtimekit_test.sh, which starts the buses, polkitd and rtkit-daemon and says
// who runs this and with which polkit rule.
//
//   realtimekit_check granted IN_FORCE   granted, in force exactly IN_FORCE; then what pacer does
//                                        with the thread, and the class given back
//   realtimekit_check refused TEXT       refused, the reason containing TEXT, the thread unchanged
//   realtimekit_check high-granted IN_FORCE
//                                        pacer::sdl2::request_high(): granted at nice -15, in force
//                                        exactly IN_FORCE; then what pacer does with it, a child,
//                                        and the nice value given back
//   realtimekit_check high-refused TEXT  request_high() refused, the reason containing TEXT, the
//                                        thread still at nice 0
//   realtimekit_check high-reset FILE    request_high() granted by RealtimeKit and kept by a
//                                        FramePacer (high); writes "granted" to FILE and
//                                        waits (10 s at most) for the script to ask rtkit
//                                        ResetKnown and write "reset"; then the thread reads
//                                        nice 0, the pacer's status still the kept grant, and a
//                                        second request_high() is granted again
//   realtimekit_check budget FILE        granted, then spins without a system call: RLIMIT_RTTIME
//                                        must end it (SIGXCPU at the soft limit, reported on
//                                        stdout, then SIGKILL at the hard one); exit 1 if it
//                                        survives 2 s of CPU. A normal thread writes the
//                                        spinner's CPU time into FILE every millisecond: its
//                                        last value is when SIGKILL came.
//
// granted checks, on the thread that asked (the main thread, after SDL_Init(0)):
//   * the grant: granted, level, in_force; sched_getscheduler reads SCHED_RR with
//     SCHED_RESET_ON_FORK; RLIMIT_RTTIME is what SDL set (100 ms soft, 200 ms hard) when the
//     process had none lower; the SDL hints are back as they were (the game's own policy hint
//     "current", set before, which alone would keep SDL from asking for a real-time class);
//   * FramePacer with ThreadPriority::normal, 240 Hz, 60 frames: every frame reads the class
//     RealtimeKit gave, and so does the thread afterwards (pacer never lowers it);
//   * ThreadPriority::thread: where the process may not raise itself (nobody, RLIMIT_RTPRIO 0)
//     RealtimeKit's class is kept ("SCHED_RR (the thread's own, kept)", RealtimeKit not asked
//     again); where it may, granted, and end_pacing() puts RealtimeKit's class back;
//   * SDL_SetThreadPriority(SDL_THREAD_PRIORITY_NORMAL) does not give the class back (SDL 2 then
//     only changes the nice level); sched_setscheduler(SCHED_OTHER | SCHED_RESET_ON_FORK) does,
//     unprivileged.
//
// high-granted checks, on the main thread after SDL_Init(0), at nice 0 before:
//   * SDL alone, first: a thread of its own (started at nice 0) raised by
//     SDL_LinuxSetThreadPriority(tid, -15) reads nice -15, with SCHED_RESET_ON_FORK where
//     RealtimeKit granted it (rtkit sets the flag) and without where SDL's setpriority() did
//     (why request_high sets it); the script counts this grant too;
//   * the grant: granted, level -15, in_force; getpriority reads nice -15, the thread is
//     SCHED_OTHER with SCHED_RESET_ON_FORK (RealtimeKit's, or request_high's own after SDL's
//     setpriority());
//   * a second request_high(): kept, "nice -15 (the thread's own, kept)", nothing asked (the
//     script counts RealtimeKit's grants);
//   * FramePacer with ThreadPriority::high, 240 Hz, 10 frames: "nice -15 (the thread's own,
//     kept)", and the thread reads nice -15 after end_pacing() (the default, automatic, would
//     ask RealtimeKit for a real-time class on top: tests/priority/guard_check.cpp);
//   * a child forked now starts at nice 0;
//   * given back: setpriority(PRIO_PROCESS, tid, saved[1]) reads nice 0, unprivileged;
//   * on a thread of its own that set SCHED_RESET_ON_FORK first (the flag then cannot tell who
//     granted it): request_high() granted, the same IN_FORCE, nice -15; the script counts this
//     grant too.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "check.hpp"
#include "pacer/pacer.hpp"
#include "pacer/sdl2.hpp"

namespace {

using priority_test::check;
using priority_test::failures;
using priority_test::nice_now;
using priority_test::policy;
using priority_test::reset_on_fork;
int rt_priority() {
    sched_param p{};
    return sched_getparam(0, &p) == 0 ? p.sched_priority : -1;
}
const char* policy_name(int p) {
    return p == SCHED_OTHER ? "SCHED_OTHER" : p == SCHED_FIFO ? "SCHED_FIFO" : p == SCHED_RR ? "SCHED_RR" : "other";
}
std::string class_now() { return std::string(policy_name(policy())) + " " + std::to_string(rt_priority()); }

double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

pacer::PriorityGrant request(rlimit* rttime_before) {
    getrlimit(RLIMIT_RTTIME, rttime_before);
    const pacer::clock::time_point t0 = pacer::clock::now();
    const pacer::PriorityGrant g = pacer::sdl2::request_realtime();
    const double ms = std::chrono::duration<double, std::milli>(pacer::clock::now() - t0).count();
    std::printf("     request_realtime(): %.1f ms, granted %d, level %d, in force \"%s\", reason \"%s\"\n", ms,
                g.granted, g.level, g.in_force, g.reason);
    return g;
}

int granted(const char* in_force) {
    const std::string rk = in_force;
    // The game's own policy hint: alone it would keep SDL from asking for a real-time class.
    SDL_SetHint(SDL_HINT_THREAD_PRIORITY_POLICY, "current");
    rlimit before{};
    const pacer::PriorityGrant g = request(&before);
    check(g.granted, "granted");
    check(rk == g.in_force, "in force \"" + rk + "\"");
    check(policy() == SCHED_RR && rt_priority() == g.level,
          "the thread runs at SCHED_RR " + std::to_string(g.level) + " (reads " + class_now() + ")");
    check(reset_on_fork(), "with SCHED_RESET_ON_FORK");
    rlimit after{};
    getrlimit(RLIMIT_RTTIME, &after);
    std::printf("     RLIMIT_RTTIME before %lld/%lld us, after %lld/%lld us (soft/hard; -1 unlimited)\n",
                static_cast<long long>(before.rlim_cur), static_cast<long long>(before.rlim_max),
                static_cast<long long>(after.rlim_cur), static_cast<long long>(after.rlim_max));
    if (before.rlim_max == RLIM_INFINITY || before.rlim_max >= 200000)
        check(after.rlim_cur == 100000 && after.rlim_max == 200000, "SDL set RLIMIT_RTTIME 100 ms soft, 200 ms hard");
    const char* policy_hint = SDL_GetHint(SDL_HINT_THREAD_PRIORITY_POLICY);
    check(SDL_GetHint(SDL_HINT_THREAD_FORCE_REALTIME_TIME_CRITICAL) == nullptr && policy_hint != nullptr &&
              std::strcmp(policy_hint, "current") == 0,
          "the SDL hints are back: force-realtime unset, the game's policy \"current\"");
    if (!g.granted) return 1;
    const int level = g.level;
    const auto is_rk = [level] { return policy() == SCHED_RR && rt_priority() == level; };

    {  // normal: pacer leaves the class alone
        pacer::PacerConfig c;
        c.target_hz = 240;
        c.waiter.priority.mode = pacer::ThreadPriority::normal;
        pacer::FramePacer fp(c);
        int kept = 0;
        for (int i = 0; i < 60; ++i) {
            fp.wait();
            kept += is_rk() ? 1 : 0;
        }
        const pacer::PriorityStatus p = fp.status().waiter.priority;
        check(kept == 60, "ThreadPriority::normal: " + std::to_string(kept) + " of 60 frames read RealtimeKit's class");
        check(p.raises == 0 && !p.refused, "ThreadPriority::normal: nothing raised or refused");
    }
    check(is_rk(), "after the pacer with normal: still RealtimeKit's class (" + class_now() + ")");
    {  // automatic, the default: a thread RealtimeKit made real-time is kept as it is
        pacer::PacerConfig c;
        c.target_hz = 240;
        pacer::FramePacer fp(c);
        for (int i = 0; i < 10; ++i) fp.wait();
        const pacer::PriorityStatus p = fp.status().waiter.priority;
        check(p.granted && std::strstr(p.in_force, "SCHED_RR (the thread's own, kept)") != nullptr && is_rk(),
              std::string("ThreadPriority::automatic keeps RealtimeKit's class: \"") + p.in_force + "\"");
        fp.end_pacing();
        check(is_rk(), "after automatic's end_pacing(): still RealtimeKit's class (" + class_now() + ")");
    }

    const bool may_raise_itself = pacer::probe_priority().granted;
    check(is_rk(), "after probe_priority(): still RealtimeKit's class (" + class_now() + ")");
    {  // thread: the kernel, directly
        pacer::PacerConfig c;
        c.target_hz = 240;
        c.waiter.priority.mode = pacer::ThreadPriority::thread;
        pacer::FramePacer fp(c);
        for (int i = 0; i < 10; ++i) fp.wait();
        const pacer::PriorityStatus p = fp.status().waiter.priority;
        std::printf("     thread: granted %d, refused %d, in force \"%s\", reason \"%s\" (now %s)\n", p.granted,
                    p.refused, p.in_force, p.reason, class_now().c_str());
        if (may_raise_itself) {
            check(p.granted && policy() == SCHED_FIFO, "ThreadPriority::thread: granted, SCHED_FIFO");
        } else {
            check(p.granted && std::strcmp(p.in_force, "SCHED_RR (the thread's own, kept)") == 0,
                  "ThreadPriority::thread: RealtimeKit's class kept, nothing asked");
            check(is_rk(), "ThreadPriority::thread: the thread keeps RealtimeKit's class");
        }
        fp.end_pacing();
        check(is_rk(), "after end_pacing(): RealtimeKit's class (" + class_now() + ")");
    }

    SDL_SetThreadPriority(SDL_THREAD_PRIORITY_NORMAL);
    check(is_rk(), "SDL_SetThreadPriority(NORMAL) leaves the class alone (" + class_now() + ")");
    sched_param zero{};
    const bool back = sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &zero) == 0 && policy() == SCHED_OTHER;
    check(back, "given back: sched_setscheduler(SCHED_OTHER | SCHED_RESET_ON_FORK) (now " + class_now() + ")");
    return failures == 0 ? 0 : 1;
}

int refused(const char* text) {
    const std::string t = text;
    rlimit before{};
    const pacer::PriorityGrant g = request(&before);
    check(!g.granted, "refused");
    check(std::strstr(g.reason, text) != nullptr, "the reason says \"" + t + "\"");
    check(std::strcmp(g.in_force, "normal") == 0, "in force \"normal\"");
    check(policy() == SCHED_OTHER, "the thread is still SCHED_OTHER (" + class_now() + ")");
    check(SDL_GetHint(SDL_HINT_THREAD_FORCE_REALTIME_TIME_CRITICAL) == nullptr &&
              SDL_GetHint(SDL_HINT_THREAD_PRIORITY_POLICY) == nullptr,
          "the SDL hints are unset again");
    return failures == 0 ? 0 : 1;
}

pacer::PriorityGrant ask_high() {
    const pacer::clock::time_point t0 = pacer::clock::now();
    const pacer::PriorityGrant g = pacer::sdl2::request_high();
    const double ms = std::chrono::duration<double, std::milli>(pacer::clock::now() - t0).count();
    std::printf("     request_high(): %.1f ms, granted %d, level %d, in force \"%s\", reason \"%s\"\n", ms, g.granted,
                g.level, g.in_force, g.reason);
    return g;
}

// The nice value a child forked now starts at (it reads it and exits with it + 20).
int child_nice() {
    const pid_t pid = fork();
    if (pid == 0) _exit(getpriority(PRIO_PROCESS, 0) + 20);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 99;
    return WEXITSTATUS(status) - 20;
}

int high_granted(const char* in_force) {
    const std::string want = in_force;
    check(nice_now() == 0 && policy() == SCHED_OTHER, "before: SCHED_OTHER at nice " + std::to_string(nice_now()));
    {  // SDL alone, on a thread of its own: who sets SCHED_RESET_ON_FORK?
        int sdl_rc = 0, sdl_nice = 0;
        bool sdl_flag = false;
        std::thread([&] {
            sdl_rc = SDL_LinuxSetThreadPriority(static_cast<Sint64>(syscall(SYS_gettid)), -15);
            sdl_nice = nice_now();
            sdl_flag = reset_on_fork();
            SDL_TLSCleanup();  // SDL's per-thread state (its error buffer), or LeakSanitizer reports it
        }).join();
        const bool by_rtkit = want.find("RealtimeKit") != std::string::npos;
        check(sdl_rc == 0 && sdl_nice == -15 && sdl_flag == by_rtkit,
              std::string("SDL_LinuxSetThreadPriority alone: nice ") + std::to_string(sdl_nice) +
                  (sdl_flag ? ", with" : ", without") + " SCHED_RESET_ON_FORK (" +
                  (by_rtkit ? "RealtimeKit sets it" : "SDL's setpriority() does not") + ")");
    }
    const pacer::PriorityGrant g = ask_high();
    check(g.granted && g.level == -15, "granted at nice -15");
    check(want == g.in_force, "in force \"" + want + "\"");
    check(nice_now() == -15, "the thread reads nice -15 (reads " + std::to_string(nice_now()) + ")");
    check(policy() == SCHED_OTHER && reset_on_fork(), "SCHED_OTHER with SCHED_RESET_ON_FORK");
    if (!g.granted) return 1;

    const pacer::PriorityGrant again = ask_high();
    check(again.granted && std::strcmp(again.in_force, "nice -15 (the thread's own, kept)") == 0,
          "a second request_high(): kept, nothing asked");
    {  // high: the thread's own nice value is kept
        pacer::PacerConfig c;
        c.target_hz = 240;
        c.waiter.priority.mode = pacer::ThreadPriority::high;
        pacer::FramePacer fp(c);
        for (int i = 0; i < 10; ++i) fp.wait();
        const pacer::PriorityStatus p = fp.status().waiter.priority;
        std::printf("     high: granted %d, refused %d, in force \"%s\", reason \"%s\"\n", p.granted, p.refused,
                    p.in_force, p.reason);
        check(p.granted && std::strcmp(p.in_force, "nice -15 (the thread's own, kept)") == 0 && nice_now() == -15,
              "ThreadPriority::high keeps it: \"" + std::string(p.in_force) + "\"");
        fp.end_pacing();
        check(nice_now() == -15, "after end_pacing(): nice " + std::to_string(nice_now()));
    }
    const int child = child_nice();
    check(child == 0, "a forked child starts at nice " + std::to_string(child));
    const bool back = setpriority(PRIO_PROCESS, static_cast<id_t>(g.saved[0]), static_cast<int>(g.saved[1])) == 0;
    check(back && nice_now() == 0, "given back: setpriority(PRIO_PROCESS, tid, " + std::to_string(g.saved[1]) +
                                       ") reads nice " + std::to_string(nice_now()));
    std::thread([&] {  // the flag set before: who granted it is told by what the process may
        sched_param zero{};
        const bool flag = sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &zero) == 0;
        const pacer::PriorityGrant f = ask_high();
        check(flag && f.granted && want == f.in_force && nice_now() == -15,
              "a thread with SCHED_RESET_ON_FORK before: \"" + std::string(f.in_force) + "\", nice " +
                  std::to_string(nice_now()));
        SDL_TLSCleanup();  // SDL's per-thread state (its error buffer), or LeakSanitizer reports it
    }).join();
    return failures == 0 ? 0 : 1;
}

// FILE's first line, "" when it has none.
std::string first_line(const char* file) {
    char line[64] = "";
    if (std::FILE* f = std::fopen(file, "r")) {
        if (std::fgets(line, sizeof line, f) == nullptr) line[0] = 0;
        std::fclose(f);
    }
    return std::string(line, std::strcspn(line, "\n"));
}

int high_reset(const char* file) {
    const pacer::PriorityGrant g = ask_high();
    check(g.granted && std::strcmp(g.in_force, "nice -15 (RealtimeKit)") == 0 && nice_now() == -15,
          "granted by RealtimeKit at nice " + std::to_string(nice_now()));
    if (!g.granted) return 1;
    pacer::PacerConfig c;
    c.target_hz = 240;
    c.waiter.priority.mode = pacer::ThreadPriority::high;
    pacer::FramePacer fp(c);
    for (int i = 0; i < 10; ++i) fp.wait();
    const std::string kept = "nice -15 (the thread's own, kept)";
    check(fp.status().waiter.priority.in_force == kept,
          std::string("high before: \"") + fp.status().waiter.priority.in_force + "\"");
    {
        std::FILE* f = std::fopen(file, "w");
        check(f != nullptr && std::fputs("granted\n", f) >= 0 && std::fclose(f) == 0, "told the script");
    }
    bool reset = false;  // the script asks RealtimeKit ResetKnown, then writes "reset"
    for (int i = 0; i < 1000 && !reset; ++i) {
        timespec ms{0, 10000000};
        nanosleep(&ms, nullptr);
        reset = first_line(file) == "reset";
    }
    check(reset, "the script asked RealtimeKit ResetKnown");
    check(nice_now() == 0 && policy() == SCHED_OTHER,
          "RealtimeKit took it back: nice " + std::to_string(nice_now()) + " (" + class_now() + ")");
    for (int i = 0; i < 10; ++i) fp.wait();
    const pacer::PriorityStatus p = fp.status().waiter.priority;
    check(p.in_force == kept && nice_now() == 0,
          std::string("pacer does not watch for it: \"") + p.in_force + "\", the thread at nice " +
              std::to_string(nice_now()));
    fp.end_pacing();
    const pacer::PriorityGrant again = ask_high();
    check(again.granted && std::strcmp(again.in_force, "nice -15 (RealtimeKit)") == 0 && nice_now() == -15,
          "request_high() again: \"" + std::string(again.in_force) + "\", nice " + std::to_string(nice_now()));
    return failures == 0 ? 0 : 1;
}

int high_refused(const char* text) {
    const std::string t = text;
    const pacer::PriorityGrant g = ask_high();
    check(!g.granted, "refused");
    check(std::strstr(g.reason, text) != nullptr, "the reason says \"" + t + "\"");
    check(std::strcmp(g.in_force, "normal") == 0, "in force \"normal\"");
    check(nice_now() == 0 && policy() == SCHED_OTHER,
          "the thread is still SCHED_OTHER at nice 0 (" + class_now() + ", nice " + std::to_string(nice_now()) + ")");
    return failures == 0 ? 0 : 1;
}

// Written from the SIGXCPU handler with write(2) only.
volatile sig_atomic_t xcpu_ms = -1;
double spin_start_ms = 0;

void on_xcpu(int) {
    const long ms = static_cast<long>(thread_cpu_ms() - spin_start_ms);  // clock_gettime: async-signal-safe
    xcpu_ms = static_cast<sig_atomic_t>(ms);
    char line[64] = "     SIGXCPU after ";
    char digits[24];
    int n = 0;
    long v = ms < 0 ? 0 : ms;
    do {
        digits[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v > 0 && n < 20);
    std::size_t len = std::strlen(line);
    while (n > 0) line[len++] = digits[--n];
    std::memcpy(line + len, " ms of CPU\n", 12);
    len += 11;
    if (write(1, line, len) < 0) _exit(3);
}

// The spinner's CPU time since it began to spin, in FILE, every millisecond: from a normal
// thread on another core, so the last value written is when the kernel's SIGKILL came (+- 1 ms).
std::atomic<long long> spin_start_us{-1};

long long cpu_us(clockid_t c) {
    timespec t{};
    clock_gettime(c, &t);
    return static_cast<long long>(t.tv_sec) * 1000000 + t.tv_nsec / 1000;
}

void record_spin(int fd, clockid_t spinner) {
    for (;;) {
        const long long start = spin_start_us.load();
        if (start >= 0) {
            char line[32];
            const int n = std::snprintf(line, sizeof line, "%lld\n", (cpu_us(spinner) - start) / 1000);
            if (pwrite(fd, line, static_cast<std::size_t>(n), 0) != n) return;
        }
        timespec ms{0, 1000000};
        nanosleep(&ms, nullptr);
    }
}

int budget(const char* file) {
    const int fd = open(file, O_WRONLY | O_TRUNC);
    clockid_t spinner{};
    if (fd < 0 || pthread_getcpuclockid(pthread_self(), &spinner) != 0) {
        std::printf("FAIL cannot write %s\n", file);
        return 1;
    }
    std::thread(record_spin, fd, spinner).detach();  // before the grant: it stays SCHED_OTHER
    rlimit before{};
    const pacer::PriorityGrant g = request(&before);
    check(g.granted, "granted");
    if (!g.granted) return 1;
    rlimit rt{};
    getrlimit(RLIMIT_RTTIME, &rt);
    std::printf("     spinning at %s, RLIMIT_RTTIME %lld/%lld us: the kernel must end this\n", class_now().c_str(),
                static_cast<long long>(rt.rlim_cur), static_cast<long long>(rt.rlim_max));
    struct sigaction sa {};
    sa.sa_handler = on_xcpu;
    sigaction(SIGXCPU, &sa, nullptr);
    // The kernel counts RLIMIT_RTTIME from the thread's last wake-up (a blocking call starts it
    // again): one short sleep here starts its count and ours together. Without it the work after
    // the grant's reply (D-Bus, the checks above: 6-11 ms under ASan) counted for the kernel and
    // not here, and SIGXCPU came "after 93 ms" of a 100 ms limit.
    timespec nap{0, 1000000};
    nanosleep(&nap, nullptr);
    spin_start_ms = thread_cpu_ms();
    spin_start_us.store(cpu_us(spinner));
    volatile unsigned long sink = 0;
    while (thread_cpu_ms() - spin_start_ms < 2000) {  // clock_gettime is the vDSO: no system call
        for (int i = 0; i < 1000; ++i) sink = sink + static_cast<unsigned long>(i);
    }
    std::printf("FAIL still alive after 2 s of CPU at %s (SIGXCPU %d ms)\n", class_now().c_str(),
                static_cast<int>(xcpu_ms));
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);  // the budget run ends by SIGKILL: nothing may wait in a buffer
    const std::string mode = argc > 1 ? argv[1] : "";
    if (SDL_Init(0) != 0) {
        std::printf("FAIL SDL_Init(0): %s\n", SDL_GetError());
        return 1;
    }
    std::printf("     pid %d, uid %d, %s, SDL %d.%d.%d\n", static_cast<int>(getpid()), static_cast<int>(getuid()),
                class_now().c_str(), SDL_MAJOR_VERSION, SDL_MINOR_VERSION, SDL_PATCHLEVEL);
    int rc = 2;
    if (mode == "granted" && argc == 3)
        rc = granted(argv[2]);
    else if (mode == "refused" && argc == 3)
        rc = refused(argv[2]);
    else if (mode == "budget" && argc == 3)
        rc = budget(argv[2]);
    else if (mode == "high-granted" && argc == 3)
        rc = high_granted(argv[2]);
    else if (mode == "high-refused" && argc == 3)
        rc = high_refused(argv[2]);
    else if (mode == "high-reset" && argc == 3)
        rc = high_reset(argv[2]);
    else
        std::fprintf(stderr,
                     "usage: realtimekit_check granted IN_FORCE | refused TEXT | budget FILE | high-granted IN_FORCE | "
                     "high-refused TEXT | high-reset FILE\n");
    SDL_Quit();
    return rc;
}
