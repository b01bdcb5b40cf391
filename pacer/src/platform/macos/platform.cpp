// macOS backend. Written against Apple's documented API but not compiled or run by this
// project's CI (no macOS machine): README says so.
//
// Clock: mach_absolute_time scaled by mach_timebase_info (1/1 on Intel, 125/3 on Apple silicon).
// Sleep: mach_wait_until, an absolute deadline in mach ticks, restarted after an interruption.
// Thread priority (pacer/priority.hpp): the time-constraint policy, for the wait (wait mode) or
// for good (thread mode), then the thread's own policy and QoS class back.
#include <mach/mach.h>
#include <mach/mach_error.h>
#include <mach/mach_init.h>
#include <mach/mach_time.h>
#include <mach/thread_policy.h>
#include <pthread.h>
#include <pthread/qos.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "platform/platform.hpp"
#include "platform/relax.hpp"

namespace pacer::platform {
namespace {

struct Timebase {
    std::uint64_t numer = 1, denom = 1;
    Timebase() noexcept {
        mach_timebase_info_data_t tb{};
        if (mach_timebase_info(&tb) == KERN_SUCCESS && tb.denom != 0) {
            numer = tb.numer;
            denom = tb.denom;
        }
    }
};
const Timebase& timebase() noexcept {
    static const Timebase tb;
    return tb;
}

// ticks * numer / denom without overflow for ~584 years of uptime.
std::int64_t ticks_to_ns(std::uint64_t t) noexcept {
    const Timebase& tb = timebase();
    return static_cast<std::int64_t>((t / tb.denom) * tb.numer + (t % tb.denom) * tb.numer / tb.denom);
}
std::uint64_t ns_to_ticks(std::int64_t ns) noexcept {
    const Timebase& tb = timebase();
    const std::uint64_t n = static_cast<std::uint64_t>(ns);
    return (n / tb.numer) * tb.denom + (n % tb.numer) * tb.denom / tb.numer;
}

std::int64_t read(clockid_t id) noexcept {
    timespec ts{};
    if (clock_gettime(id, &ts) != 0) return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The policy fields are 32-bit tick counts.
std::uint32_t ticks32(std::int64_t ns) noexcept {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(ns_to_ticks(ns), UINT32_MAX));
}

// The calling thread's port. mach_thread_self() adds a user reference to the thread's send right
// each time; it is given back here, or a raise and a restore per frame would pile up references
// until the kernel refuses more (KERN_UREFS_OVERFLOW at 65534).
struct ThreadPort {
    thread_act_t port = mach_thread_self();
    ThreadPort() = default;
    ThreadPort(const ThreadPort&) = delete;
    ThreadPort& operator=(const ThreadPort&) = delete;
    ~ThreadPort() { mach_port_deallocate(mach_task_self(), port); }
};

// PriorityGrant::saved[0]: the policy the thread had before the raise, and so how to put it back.
constexpr std::int64_t kWasStandard = 1;        // saved[1] its QoS class, saved[2] its relative priority
constexpr std::int64_t kWasTimeConstraint = 2;  // saved[1] period | computation << 32,
                                                // saved[2] constraint, saved[3] preemptible
constexpr std::int64_t kWasQos = 3;             // a weight: saved[1] the old QoS class, saved[2] relative
constexpr std::int64_t kUnchanged = 4;          // nothing to put back

// The weight (high, automatic): the QoS class QOS_CLASS_USER_INTERACTIVE, the one an app's main
// thread runs at, for a pacing thread of its own (and a main thread another library lowered).
// No privilege is needed; the class stays timesharing, so no budget can be overrun.
PriorityGrant raise_weight() noexcept {
    PriorityGrant g;
    qos_class_t qos = QOS_CLASS_UNSPECIFIED;
    int relative = 0;
    if (pthread_get_qos_class_np(pthread_self(), &qos, &relative) == 0 && qos == QOS_CLASS_USER_INTERACTIVE) {
        g.granted = true;
        std::snprintf(g.in_force, sizeof g.in_force, "QOS_CLASS_USER_INTERACTIVE (the thread's own, kept)");
        g.saved[0] = kUnchanged;
        return g;
    }
    const int err = pthread_set_qos_class_self_np(QOS_CLASS_USER_INTERACTIVE, 0);
    if (err != 0) {
        std::snprintf(g.reason, sizeof g.reason, "QOS_CLASS_USER_INTERACTIVE refused: %s", std::strerror(err));
        return g;
    }
    g.granted = true;
    std::snprintf(g.in_force, sizeof g.in_force, "QOS_CLASS_USER_INTERACTIVE");
    g.saved[0] = kWasQos;
    g.saved[1] = static_cast<std::int64_t>(qos);
    g.saved[2] = relative;
    return g;
}

}  // namespace

clock::time_point now() noexcept { return clock::from_ns(ticks_to_ns(mach_absolute_time())); }

void sleep_until(clock::time_point deadline_tp) noexcept {
    const std::int64_t deadline = clock::to_ns(deadline_tp);
    if (deadline <= 0) return;
    const std::uint64_t target = ns_to_ticks(deadline);
    while (mach_wait_until(target) == KERN_ABORTED) {
    }
}

void relax() noexcept { PACER_RELAX(); }

CpuTimes cpu_times() noexcept {
    return {std::chrono::nanoseconds(read(CLOCK_PROCESS_CPUTIME_ID)),
            std::chrono::nanoseconds(read(CLOCK_THREAD_CPUTIME_ID))};
}

void begin_pacing() noexcept {}
void end_pacing() noexcept {}

const char* sleep_primitive() noexcept { return "mach_wait_until"; }

// THREAD_TIME_CONSTRAINT_POLICY, in mach ticks: period = the wait's length, computation =
// min(period / 2, 2 ms), constraint = period, preemptible. The kernel accepts a computation of
// 50 us to 50 ms only (min_rt_quantum and max_rt_quantum in xnu's sched_prim.c; anything else is
// KERN_INVALID_ARGUMENT), hence the period's floor of 200 us; its ceiling of 1 s keeps the
// 32-bit fields in range on any timebase. Recent kernels raise a computation below constraint / 2
// to constraint / 2 themselves (the comment on THREAD_TIME_CONSTRAINT_POLICY in
// <mach/thread_policy.h>). No privilege is needed: any thread may ask for its own.
//
// Setting a policy makes the kernel drop the thread's QoS class (thread_policy_set in xnu's
// thread_policy.c): an app's main thread runs at QOS_CLASS_USER_INTERACTIVE, and
// THREAD_STANDARD_POLICY alone would leave it at the default class after the first wait (lower
// priority, and on Apple silicon a candidate for the efficiency cores). So the QoS class is read
// here and put back by restore_priority(), and a thread that already had a time-constraint
// policy (set by the host, or an audio library) gets that one back instead of the standard one.
static PriorityGrant raise_os(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept {
    if (is_weight(c.mode)) return raise_weight();
    PriorityGrant g;
    const std::int64_t period_ns = std::clamp<std::int64_t>(period.count(), 200'000, 1'000'000'000);
    const std::int64_t computation_ns = std::min<std::int64_t>(period_ns / 2, 2'000'000);
    thread_time_constraint_policy_data_t policy{};
    policy.period = ticks32(period_ns);
    policy.computation = ticks32(computation_ns);
    policy.constraint = policy.period;
    policy.preemptible = 1;

    ThreadPort self;
    thread_time_constraint_policy_data_t old{};
    mach_msg_type_number_t count = THREAD_TIME_CONSTRAINT_POLICY_COUNT;
    boolean_t get_default = FALSE;  // FALSE in: the thread's own values; TRUE out: it has none
    const bool was_time_constraint =
        thread_policy_get(self.port, THREAD_TIME_CONSTRAINT_POLICY, reinterpret_cast<thread_policy_t>(&old),
                          &count, &get_default) == KERN_SUCCESS &&
        !get_default;
    qos_class_t qos = QOS_CLASS_UNSPECIFIED;
    int relative = 0;
    if (!was_time_constraint && pthread_get_qos_class_np(pthread_self(), &qos, &relative) != 0) {
        qos = QOS_CLASS_UNSPECIFIED;
        relative = 0;
    }

    const kern_return_t kr = thread_policy_set(self.port, THREAD_TIME_CONSTRAINT_POLICY,
                                               reinterpret_cast<thread_policy_t>(&policy),
                                               THREAD_TIME_CONSTRAINT_POLICY_COUNT);
    if (kr != KERN_SUCCESS) {  // the kernel puts the QoS class back itself when the set fails
        std::snprintf(g.reason, sizeof g.reason, "time-constraint policy (period %lld us) refused: %s (%d)",
                      static_cast<long long>(period_ns / 1000), mach_error_string(kr), static_cast<int>(kr));
        return g;
    }
    g.granted = true;
    std::snprintf(g.in_force, sizeof g.in_force, "time-constraint (period %lld us)",
                  static_cast<long long>(period_ns / 1000));
    if (was_time_constraint) {
        g.saved[0] = kWasTimeConstraint;
        g.saved[1] = static_cast<std::int64_t>(static_cast<std::uint64_t>(old.period) |
                                               static_cast<std::uint64_t>(old.computation) << 32);
        g.saved[2] = old.constraint;
        g.saved[3] = old.preemptible;
    } else {
        g.saved[0] = kWasStandard;
        g.saved[1] = static_cast<std::int64_t>(qos);
        g.saved[2] = relative;
    }
    return g;
}

// Failures here have no one to go to (the waiter goes on either way) and no better fallback.
// THREAD_STANDARD_POLICY carries no data: its count is 0, and the kernel reads it as the
// extended policy with timeshare = TRUE.
void restore_priority(const PriorityGrant& g) noexcept {
    if (!g.granted || g.saved[0] == kUnchanged) return;
    if (g.saved[0] == kWasQos) {
        const auto qos = static_cast<qos_class_t>(g.saved[1]);
        pthread_set_qos_class_self_np(qos != QOS_CLASS_UNSPECIFIED ? qos : QOS_CLASS_DEFAULT,
                                      static_cast<int>(g.saved[2]));
        return;
    }
    ThreadPort self;
    if (g.saved[0] == kWasTimeConstraint) {
        thread_time_constraint_policy_data_t old{};
        const auto times = static_cast<std::uint64_t>(g.saved[1]);
        old.period = static_cast<std::uint32_t>(times);
        old.computation = static_cast<std::uint32_t>(times >> 32);
        old.constraint = static_cast<std::uint32_t>(g.saved[2]);
        old.preemptible = static_cast<boolean_t>(g.saved[3]);
        thread_policy_set(self.port, THREAD_TIME_CONSTRAINT_POLICY, reinterpret_cast<thread_policy_t>(&old),
                          THREAD_TIME_CONSTRAINT_POLICY_COUNT);
        return;
    }
    thread_standard_policy_data_t standard{};
    thread_policy_set(self.port, THREAD_STANDARD_POLICY, reinterpret_cast<thread_policy_t>(&standard),
                      THREAD_STANDARD_POLICY_COUNT);
    const auto qos = static_cast<qos_class_t>(g.saved[1]);
    if (qos != QOS_CLASS_UNSPECIFIED) pthread_set_qos_class_self_np(qos, static_cast<int>(g.saved[2]));
}

// What was granted, and by whom: no privilege is needed here, so the OS, or the host where the
// thread had it already.
PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept {
    PriorityGrant g = raise_os(c, period);
    if (g.granted) {
        g.lever = is_weight(c.mode) ? PriorityLever::weight : PriorityLever::realtime;
        g.by = g.saved[0] == kUnchanged ? PriorityGrantor::host : PriorityGrantor::os;
    }
    return g;
}

bool refresh_priority(PriorityGrant&, std::chrono::nanoseconds) noexcept { return false; }

PriorityGrant probe_priority(const PriorityConfig& c) noexcept {
    PriorityGrant g = raise_priority(c, std::chrono::milliseconds(16));
    if (g.granted) restore_priority(g);
    return g;
}

}  // namespace pacer::platform
