// Linux backend.
//
// Sleep: clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME). Absolute, so an EINTR restart resumes
// toward the same deadline instead of sleeping the full duration again (what a relative nanosleep
// loop gets wrong), and no drift accumulates between computing and requesting the wake-up.
//
// Timer slack: Linux lets a sleep end up to the thread's timer slack late so wake-ups can be
// batched; the default is 50 us (prctl(2)). While pacing we set it to 1 ns and put the old value
// back afterwards, so the hybrid margin pays for the scheduler's real latency only.
// On a 2-core virtual machine busy with compiles that moved the median oversleep
// of a 1 ms absolute sleep from 113-120 us to 79-83 us: two interleaved runs of 20 x 50 sleeps
// per setting, medians of 1000 sleeps each.
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "platform/linux/watchdog.hpp"
#include "platform/platform.hpp"
#include "platform/relax.hpp"

namespace pacer::platform {
namespace {

std::int64_t read(clockid_t id) noexcept {
    timespec ts{};
    if (clock_gettime(id, &ts) != 0) return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

thread_local int t_pacing_depth = 0;
thread_local long t_saved_slack = -1;

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

// CAP_SYS_NICE (bit 23) in the effective set, from /proc/self/status: read only on a refusal.
bool has_cap_sys_nice() noexcept {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return false;
    char line[256];
    unsigned long long caps = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "CapEff: %llx", &caps) == 1) break;
    std::fclose(f);
    return (caps >> 23) & 1ULL;
}

// The rlimit's soft value, RLIM_INFINITY as -1.
long long soft_limit(int resource) noexcept {
    rlimit rl{};
    if (getrlimit(resource, &rl) != 0) return 0;
    return rl.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long long>(rl.rlim_cur);
}

}  // namespace

clock::time_point now() noexcept { return clock::from_ns(read(CLOCK_MONOTONIC)); }

void sleep_until(clock::time_point deadline_tp) noexcept {
    const std::int64_t deadline = clock::to_ns(deadline_tp);
    if (deadline <= 0) return;
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(deadline / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(deadline % 1'000'000'000);
    watchdog::sleep_begins();  // the real-time guard's frame boundary (nothing unless watched)
    // clock_nanosleep returns the error number instead of setting errno.
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
    watchdog::sleep_ends();
}

void relax() noexcept { PACER_RELAX(); }

CpuTimes cpu_times() noexcept {
    return {std::chrono::nanoseconds(read(CLOCK_PROCESS_CPUTIME_ID)),
            std::chrono::nanoseconds(read(CLOCK_THREAD_CPUTIME_ID))};
}

void begin_pacing() noexcept {
    if (t_pacing_depth++ > 0) return;
    int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    t_saved_slack = old;
    if (old > 1) prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void end_pacing() noexcept {
    if (t_pacing_depth <= 0 || --t_pacing_depth > 0) return;
    if (t_saved_slack > 1) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(t_saved_slack), 0, 0, 0);
    t_saved_slack = -1;
}

const char* sleep_primitive() noexcept {
    return t_pacing_depth > 0 ? "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), timer slack 1 ns"
                              : "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)";
}

namespace {

// What restore_priority() puts back (PriorityGrant::saved[3]).
enum Kind : std::int64_t { kRealtime = 0, kWeight = 1, kUnchanged = 2 };

// SCHED_FIFO (or SCHED_RR) at the asked priority, or at RLIMIT_RTPRIO when that is lower and not
// 0, with SCHED_RESET_ON_FORK. sched_setscheduler(0, ...) acts on the calling thread on Linux.
PriorityGrant raise_realtime(const PriorityConfig& c) noexcept {
    PriorityGrant g;
    const int policy = c.round_robin ? SCHED_RR : SCHED_FIFO;
    const char* name = c.round_robin ? "SCHED_RR" : "SCHED_FIFO";
    const int old_policy = sched_getscheduler(0);  // with SCHED_RESET_ON_FORK when it is set
    sched_param old{};
    if (old_policy < 0 || sched_getparam(0, &old) != 0) {
        std::snprintf(g.reason, sizeof g.reason, "%s refused: the thread's own class could not be read (%s)", name,
                      std::strerror(errno));
        return g;
    }
    int prio = std::clamp(c.realtime_priority, sched_get_priority_min(policy), sched_get_priority_max(policy));
    sched_param p{};
    p.sched_priority = prio;
    int err = sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &p) == 0 ? 0 : errno;
    const long long rtprio = err == 0 ? 0 : soft_limit(RLIMIT_RTPRIO);
    if (err == EPERM && rtprio > 0 && rtprio < prio) {  // the most RLIMIT_RTPRIO allows
        prio = p.sched_priority = static_cast<int>(rtprio);
        err = sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &p) == 0 ? 0 : errno;
    }
    if (err != 0) {
        if (err != EPERM)
            std::snprintf(g.reason, sizeof g.reason, "%s %d refused: %s", name, prio, std::strerror(err));
        else if (has_cap_sys_nice())
            std::snprintf(g.reason, sizeof g.reason,
                          "%s %d refused although the process has CAP_SYS_NICE: its cgroup has no real-time "
                          "runtime (cpu.rt_runtime_us 0, as in many containers); give it some or run outside it",
                          name, prio);
        else if (rtprio == 0)
            std::snprintf(g.reason, sizeof g.reason,
                          "%s %d refused: RLIMIT_RTPRIO is 0 for this process; raise rtprio in limits.conf or "
                          "LimitRTPRIO=, or grant CAP_SYS_NICE",
                          name, prio);
        else
            std::snprintf(g.reason, sizeof g.reason,
                          "%s %d refused: not allowed by RLIMIT_RTPRIO %lld; raise rtprio in limits.conf or "
                          "LimitRTPRIO=, or grant CAP_SYS_NICE",
                          name, prio, rtprio);
        return g;
    }
    g.granted = true;
    g.lever = PriorityLever::realtime;
    g.by = PriorityGrantor::os;
    g.level = prio;
    const long long rttime = soft_limit(RLIMIT_RTTIME);
    if (rttime >= 0)
        std::snprintf(g.in_force, sizeof g.in_force, "%s %d (RLIMIT_RTTIME %lld ms)", name, prio, rttime / 1000);
    else
        std::snprintf(g.in_force, sizeof g.in_force, "%s %d", name, prio);
    g.saved[0] = old_policy;
    g.saved[1] = old.sched_priority;
    g.saved[3] = kRealtime;
    return g;
}

int allowed_cpus() noexcept {
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

// Why a lower nice value was refused, and the remedy.
void weight_refusal(PriorityGrant& g, int nice, int err, int old_nice) noexcept {
    const long long limit = soft_limit(RLIMIT_NICE);
    if (err != EACCES && err != EPERM)
        std::snprintf(g.reason, sizeof g.reason, "nice %d refused: %s", nice, std::strerror(err));
    else if (has_cap_sys_nice())
        std::snprintf(g.reason, sizeof g.reason, "nice %d refused although the process has CAP_SYS_NICE: %s", nice,
                      std::strerror(err));
    else
        std::snprintf(g.reason, sizeof g.reason,
                      "nice %d refused: RLIMIT_NICE %lld allows nothing below %d (the thread's own); set nice in "
                      "limits.conf or LimitNICE=, grant CAP_SYS_NICE, or ask RealtimeKit (pacer::sdl2::request_high)",
                      nice, limit, std::min(old_nice, static_cast<int>(20 - limit)));
}

// The weight: a lower nice value for the calling thread (setpriority() on its thread id acts on
// that thread alone on Linux), within SCHED_OTHER, with SCHED_RESET_ON_FORK so that a child
// starts at nice 0. The lowest RLIMIT_NICE allows when the asked one is not.
// What the host gave the thread before pacer asked, kept as it is.
PriorityGrant kept(PriorityLever lever, const char* what, int value = 0) noexcept {
    PriorityGrant g;
    g.granted = true;
    g.lever = lever;
    g.by = PriorityGrantor::host;
    if (lever == PriorityLever::weight)
        std::snprintf(g.in_force, sizeof g.in_force, "nice %d (the thread's own, kept)", value);
    else
        std::snprintf(g.in_force, sizeof g.in_force, "%s (the thread's own, kept)", what);
    g.saved[3] = kUnchanged;
    return g;
}

PriorityGrant raise_weight(const PriorityConfig& c) noexcept {
    PriorityGrant g;
    const int policy = sched_getscheduler(0);  // with SCHED_RESET_ON_FORK when it is set
    const int base = policy & ~SCHED_RESET_ON_FORK;
    if (base == SCHED_FIFO || base == SCHED_RR)  // raised by the host already (RealtimeKit, ...)
        return kept(PriorityLever::realtime, base == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR");
    if (policy < 0 || (base != SCHED_OTHER && base != SCHED_BATCH)) {
        std::snprintf(g.reason, sizeof g.reason, "nice %d refused: the thread's class is %s, the host's choice",
                      c.nice, policy < 0 ? "unreadable" : "SCHED_IDLE or a deadline class");
        return g;
    }
    if (c.mode == ThreadPriority::automatic && allowed_cpus() < 2) {
        std::snprintf(g.reason, sizeof g.reason, "%s", kAutomaticOneCpu);
        return g;
    }
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int old_nice = getpriority(PRIO_PROCESS, tid);
    if (old_nice <= c.nice) return kept(PriorityLever::weight, "", old_nice);  // the host, or RealtimeKit through SDL
    int nice = c.nice;
    int err = setpriority(PRIO_PROCESS, tid, nice) == 0 ? 0 : errno;
    const long long limit = soft_limit(RLIMIT_NICE);
    const int floor = limit < 0 ? -20 : static_cast<int>(20 - std::min(limit, 40LL));  // the lowest allowed
    if ((err == EACCES || err == EPERM) && floor > nice && floor < old_nice) {
        nice = floor;
        err = setpriority(PRIO_PROCESS, tid, nice) == 0 ? 0 : errno;
    }
    if (err != 0) {
        weight_refusal(g, c.nice, err, old_nice);
        return g;
    }
    sched_param p{};  // SCHED_OTHER and SCHED_BATCH have priority 0
    if ((policy & SCHED_RESET_ON_FORK) == 0 && sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &p) != 0) {
        err = errno;
        setpriority(PRIO_PROCESS, tid, old_nice);
        std::snprintf(g.reason, sizeof g.reason, "nice %d refused: SCHED_RESET_ON_FORK could not be set (%s)", nice,
                      std::strerror(err));
        return g;
    }
    g.granted = true;
    g.lever = PriorityLever::weight;
    g.by = PriorityGrantor::os;
    g.level = nice;
    std::snprintf(g.in_force, sizeof g.in_force, nice == c.nice ? "nice %d" : "nice %d (RLIMIT_NICE)", nice);
    g.saved[0] = policy;
    g.saved[1] = old_nice;
    g.saved[2] = tid;
    g.saved[3] = kWeight;
    return g;
}

// Why the process may not raise itself, short: the reason an ask of RealtimeKit or the portal
// then carries, with what that answered after it.
void why_not_self(char* out, std::size_t n, const PriorityConfig& c, const PriorityGrant& realtime,
                  const PriorityGrant* weight) noexcept {
    const long long rtprio = soft_limit(RLIMIT_RTPRIO), nice = soft_limit(RLIMIT_NICE);
    const char* policy = c.round_robin ? "SCHED_RR" : "SCHED_FIFO";
    if (weight != nullptr && !weight->granted)
        std::snprintf(out, n, "%s %d and nice %d refused: RLIMIT_RTPRIO is %lld, RLIMIT_NICE is %lld", policy,
                      c.realtime_priority, c.nice, rtprio, nice);
    else if (weight == nullptr && std::strstr(realtime.reason, "RLIMIT_RTPRIO") == nullptr)
        std::snprintf(out, n, "%.120s", realtime.reason);
    else
        std::snprintf(out, n, "%s %d refused: RLIMIT_RTPRIO is %lld", policy, c.realtime_priority, rtprio);
}

PriorityGrant refuse(const char* why) noexcept {
    PriorityGrant g;
    std::snprintf(g.reason, sizeof g.reason, "%s", why);
    return g;
}

// For pacing (asks go to the helper thread, the raise is kept and watched) or for a probe (asked
// at once on this thread, all put back by probe_priority()).
enum class Use { pace, probe };

// What an ask's answer gives a probe: already put back.
PriorityGrant probed(PriorityGrant asked) noexcept {
    asked.saved[3] = kUnchanged;
    return asked;
}

// A real-time class for good (thread, automatic): the process's own right, watched by the guard;
// else asked of RealtimeKit or the portal (automatic meanwhile holds the weight where
// setpriority() grants it). Not asked where the process has CAP_SYS_NICE and was refused all the
// same (a cgroup without real-time runtime: RealtimeKit would be refused too).
PriorityGrant raise_for_good(const PriorityConfig& c, std::chrono::nanoseconds period, Use use) noexcept {
    const watchdog::Own own = watchdog::own_class();
    const PriorityGrant rt = raise_realtime(c);
    if (rt.granted) return use == Use::pace ? watchdog::watch_raised(rt, c, period, own) : rt;
    const int base = own.policy & ~SCHED_RESET_ON_FORK;
    // Real-time already (the host, RealtimeKit through SDL): kept, not asked again (what
    // RealtimeKit would grant could not be undone back to the host's class by this process).
    if (base == SCHED_FIFO || base == SCHED_RR) return raise_weight(c);
    const bool automatic = c.mode == ThreadPriority::automatic;
    PriorityGrant weight;
    if (automatic) weight = raise_weight(c);
    if (!watchdog::can_ask() || has_cap_sys_nice()) return automatic ? weight : rt;
    char why[224];
    why_not_self(why, sizeof why, c, rt, automatic ? &weight : nullptr);
    if (use == Use::pace) return watchdog::ask(c, period, own, weight, why);
    const PriorityGrant asked = watchdog::probe_ask(c, weight, why);
    if (weight.granted && asked.lever == PriorityLever::realtime) restore_priority(weight);
    return asked.lever == PriorityLever::realtime || !weight.granted ? probed(asked) : weight;
}

// The weight asked for (high): the process's own right, else RealtimeKit or the portal.
PriorityGrant raise_high(const PriorityConfig& c, std::chrono::nanoseconds period, Use use) noexcept {
    const watchdog::Own own = watchdog::own_class();
    const PriorityGrant w = raise_weight(c);
    if (w.granted || !watchdog::can_ask() || std::strstr(w.reason, "RLIMIT_NICE") == nullptr) return w;
    if (use == Use::pace) return watchdog::ask(c, period, own, PriorityGrant{}, w.reason);
    return probed(watchdog::probe_ask(c, PriorityGrant{}, w.reason));
}

// automatic: the strongest safe grant (pacer/priority.hpp): a host's real-time class kept; none
// on one CPU; the real-time class, guarded; else the weight.
PriorityGrant raise_automatic(const PriorityConfig& c, std::chrono::nanoseconds period, Use use) noexcept {
    const int base = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
    if (base == SCHED_FIFO || base == SCHED_RR) return raise_weight(c);  // the host's class, kept
    if (allowed_cpus() < 2) return refuse(kAutomaticOneCpu);
    return raise_for_good(c, period, use);
}

}  // namespace

// wait: the real-time class around each sleep, the process's own right only (a system call per
// frame; no D-Bus round trip can be). thread and automatic: for good, guarded. high: the weight.
PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept {
    switch (c.mode) {
    case ThreadPriority::wait: return raise_realtime(c);
    case ThreadPriority::thread: return raise_for_good(c, period, Use::pace);
    case ThreadPriority::high: return raise_high(c, period, Use::pace);
    case ThreadPriority::automatic: return raise_automatic(c, period, Use::pace);
    case ThreadPriority::normal: break;
    }
    return refuse("normal: the thread's own class, never changed");
}

bool refresh_priority(PriorityGrant& grant, std::chrono::nanoseconds period) noexcept {
    return watchdog::refresh(grant, period);
}

// The old policy back, with its own SCHED_RESET_ON_FORK flag. Only a privileged thread may clear
// the flag (sched(7)); an unprivileged one keeps it (children then start at the default class,
// which is what they would have had anyway unless the thread had been raised by someone else).
void restore_priority(const PriorityGrant& g) noexcept {
    if (watchdog::watched(g)) {
        watchdog::release(g);
        return;
    }
    if (!g.granted || g.saved[3] == kUnchanged) return;
    sched_param p{};
    if (g.saved[3] == kWeight) {  // a higher nice value is always allowed; the flag as it was
        setpriority(PRIO_PROCESS, static_cast<id_t>(g.saved[2]), static_cast<int>(g.saved[1]));
        const int policy = static_cast<int>(g.saved[0]);
        if ((policy & SCHED_RESET_ON_FORK) == 0) sched_setscheduler(0, policy, &p);  // privileged only
        return;
    }
    p.sched_priority = static_cast<int>(g.saved[1]);
    const int policy = static_cast<int>(g.saved[0]);
    if (sched_setscheduler(0, policy, &p) != 0 && errno == EPERM)
        sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &p);
}

// What raise_priority() would give, asked at once and put back: D-Bus asks are made here, on the
// calling thread, and waited for (a probe is not a frame).
PriorityGrant probe_priority(const PriorityConfig& c) noexcept {
    constexpr std::chrono::milliseconds kPeriod{16};
    PriorityGrant g;
    switch (c.mode) {
    case ThreadPriority::wait: g = raise_realtime(c); break;
    case ThreadPriority::thread: g = raise_for_good(c, kPeriod, Use::probe); break;
    case ThreadPriority::high: g = raise_high(c, kPeriod, Use::probe); break;
    case ThreadPriority::automatic: g = raise_automatic(c, kPeriod, Use::probe); break;
    case ThreadPriority::normal: return refuse("normal: the thread's own class, never changed");
    }
    if (g.granted) restore_priority(g);
    return g;
}

}  // namespace pacer::platform
