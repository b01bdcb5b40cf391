// Linux: what the helper asks RealtimeKit or the portal for (ask.hpp says what and why).
#include "platform/linux/ask.hpp"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

namespace pacer::platform::watchdog {
namespace {

// RealtimeKit grants a real-time class only to a process whose RLIMIT_RTTIME hard limit is at
// most its RTTimeUSecMax (200 ms by default): lowered to that (soft too, never raised). For the
// whole process, and for good (an unprivileged process cannot raise a hard limit again): what
// SDL and PipeWire do before they ask.
bool limit_rttime(long long max_us, char* why, std::size_t n) noexcept {
    rlimit rl{};
    if (getrlimit(RLIMIT_RTTIME, &rl) != 0) {
        std::snprintf(why, n, "RLIMIT_RTTIME could not be read (%s)", std::strerror(errno));
        return false;
    }
    const rlim_t max = static_cast<rlim_t>(max_us);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= max && rl.rlim_cur != RLIM_INFINITY) return true;
    rlimit next = rl;
    next.rlim_max = rl.rlim_max == RLIM_INFINITY ? max : std::min(rl.rlim_max, max);
    next.rlim_cur = rl.rlim_cur == RLIM_INFINITY ? next.rlim_max : std::min(rl.rlim_cur, next.rlim_max);
    if (setrlimit(RLIMIT_RTTIME, &next) != 0) {
        std::snprintf(why, n, "RLIMIT_RTTIME could not be lowered to %lld us (%s)", max_us, std::strerror(errno));
        return false;
    }
    return true;
}



// Appends "; what" (or what, to an empty text), cut to fit.
void append(char* to, std::size_t n, const char* what) noexcept {
    std::size_t i = std::strlen(to);
    if (i > 0) {
        for (const char c : {';', ' '})
            if (i + 1 < n) to[i++] = c;
    }
    for (; *what != '\0' && i + 1 < n; ++what) to[i++] = *what;
    to[i] = '\0';
}

}  // namespace

bool realtime_now(pid_t tid) noexcept {
    const int p = sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK;
    return p == SCHED_FIFO || p == SCHED_RR;
}

AskResult do_ask(const AskInput& in) noexcept {
    AskResult r;
    bus::Limits limits;
    if (in.want == Want::realtime) {
        int prio = in.level;
        bool go = true;
        if (!in.reraise) {
            limits = bus::read_limits(kAskTimeoutMs);
            if (!limits.known) {
                append(r.error, sizeof r.error, limits.error);
                go = false;
            } else {
                prio = std::clamp(in.config.realtime_priority, 1, std::max(1, limits.max_realtime_priority));
                char why[160] = "";
                if (!limit_rttime(limits.rttime_usec_max, why, sizeof why)) {
                    append(r.error, sizeof r.error, why);
                    go = false;
                }
            }
        }
        if (go && in.watcher_tid > 0) {
            const int level = std::min(prio + 1, std::max(prio, limits.max_realtime_priority));
            const bus::Answer w = bus::make_realtime(in.pid, in.watcher_tid, level, kAskTimeoutMs);
            if (w.granted && realtime_now(in.watcher_tid)) r.watcher_level = level;
        }
        if (go) {
            const bus::Answer a = bus::make_realtime(in.pid, in.tid, prio, kAskTimeoutMs, in.while_asking);
            const bool seen = in.raised_meanwhile != nullptr && *in.raised_meanwhile;
            if (a.granted && (seen || realtime_now(in.tid))) {
                r.realtime = true;
                r.via = a.via;
                r.level = prio;
                return r;
            }
            append(r.error, sizeof r.error, a.granted ? "the service said yes, the thread is not real-time" : a.error);
        }
    }
    const bool weight = in.want == Want::weight || (in.automatic && !in.weight_held && !in.reraise);
    if (!weight) return r;
    if (!limits.known) limits = bus::read_limits(kAskTimeoutMs);
    const int nice = limits.known ? std::max(in.config.nice, limits.min_nice_level) : in.config.nice;
    const bus::Answer a = bus::make_high_priority(in.pid, in.tid, nice, kAskTimeoutMs);
    if (a.granted) {
        r.weight = true;
        r.via = a.via;
        r.level = nice;
        r.error[0] = '\0';
    } else if (in.want == Want::weight) {
        append(r.error, sizeof r.error, a.error);
    }
    return r;
}

}  // namespace pacer::platform::watchdog
