// Linux: the helper thread for thread priority (watchdog.hpp says what it does and why).
#include "platform/linux/watchdog.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "pacer/guard.hpp"
#include "platform/linux/ask.hpp"
#include "platform/linux/bus.hpp"
#include "platform/linux/run_queue.hpp"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

namespace pacer::platform::watchdog {
namespace {

// PriorityGrant::saved[3] of a watched grant (platform.cpp's kinds are 0-2); saved[2] the
// record, saved[1] the record's version the grant was last refreshed at.
constexpr std::int64_t kWatched = 3;
// How often the helper looks whether a thread whose ask waits for a sleep sleeps (a frame loop
// sleeps for part of most frames: a few looks find it).
constexpr std::int64_t kHeldBackLookNs = 10'000'000;

pid_t this_tid() noexcept { return static_cast<pid_t>(syscall(SYS_gettid)); }

std::int64_t read_ns(clockid_t id) noexcept {
    timespec ts{};
    if (clock_gettime(id, &ts) != 0) return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

template <std::size_t N>
void text(char (&to)[N], const char* from) noexcept {
    std::snprintf(to, N, "%s", from);
}

// A pacing thread the helper asks for or guards. The pacing thread writes the atomics at the top;
// everything else is under Helper::mu.
struct Watched {
    std::atomic<std::uint64_t> sleeps{0};       // +1 before each OS sleep, +1 after: odd = asleep
    std::atomic<std::int64_t> cpu_at_sleep{0};  // the thread's CPU time at its last sleep
    std::atomic<std::int64_t> period_ns{0};
    std::atomic<std::uint64_t> version{1};      // +1 at each change of `grant`

    pid_t pid = 0, tid = 0;
    clockid_t cpu_clock{};
    PriorityConfig config{};
    Own own{};
    Want want = Want::realtime;
    bool automatic = false;

    bool ask_due = false;      // the helper is to ask (the first time, or to raise again)
    bool reraise = false;      // that ask raises a thread the guard put back
    bool in_flight = false;    // the helper is asking now, without the mutex
    bool held_back = false;    // a real-time ask waits for a sleep (Helper::may_ask_now())
    bool raised_in_ask = false;  // the ask's service raised it before its answer came (guarded since)
    bool spent = false;        // carries too much of RLIMIT_RTTIME's count to be raised again
    std::int64_t ask_cpu = 0;  // the thread's CPU as the ask began, then at each look reading its own class
    bool released = false;     // release() ran, or nothing is held any more: drop it
    bool weight_held = false;  // pacer's weight is on the thread (setpriority, RealtimeKit)
    PriorityGrantor weight_by = PriorityGrantor::none;  // who granted that weight
    bool guarded = false;      // pacer's real-time class is on it, or put back by the guard
    bus::Via via = bus::Via::none;  // who granted the real-time class (none: the process itself)
    int level = 0;                  // the real-time priority granted
    GuardConfig guard_cfg{};  // its bounds (guard_config())
    // The kernel's RLIMIT_RTTIME count, estimated (rt_counted()): the thread's CPU and sleep
    // counter when its class was last made real-time, whether it has woken in that class since,
    // the count it carried into that raise, and the count at its last look while awake.
    std::int64_t raise_cpu = 0;
    std::uint64_t raise_sleeps = 0;
    bool rt_woke = false;
    std::int64_t carry_ns = 0;
    std::int64_t counted_awake = 0;
    bool self_checked = false;  // the helper was raised above it (or tried)
    std::optional<RealtimeGuard> guard;
    PriorityGrant grant{};        // what refresh() hands over
    char refused[224] = "";       // why the process could not raise itself
};

// The CPU the kernel has counted against RLIMIT_RTTIME for the thread, estimated. The kernel
// counts a real-time thread's running time from its last wake-up in a real-time class, and
// resets the count only there (kernel/sched/rt.c: enqueue_task_rt clears rt.timeout on a
// wake-up): a thread put back and raised again without an OS sleep in between carries its count
// on. A frame loop that overran its period and so never slept, put back after 50 ms three
// times, reached RealtimeKit's 200 ms and was killed, before this estimate. So: raised, until
// it has woken in that class, the carry plus its CPU since the raise; after, its CPU since that
// wake-up (its last sleep's start: a sleep takes no CPU), or while it sleeps the count it had
// when last seen awake (the kernel keeps it until the wake-up). Under mu.
std::int64_t rt_counted(Watched& w, std::int64_t cpu, std::uint64_t sleeps, std::int64_t cpu_at_sleep) noexcept {
    if (!w.rt_woke) {  // raised asleep: the wake-up ends that sleep; raised awake: the next one
        const std::uint64_t woken_at = w.raise_sleeps % 2 == 1 ? w.raise_sleeps + 1 : w.raise_sleeps + 2;
        if (sleeps >= woken_at) w.rt_woke = true;
    }
    if (!w.rt_woke) return w.carry_ns + std::max<std::int64_t>(0, cpu - w.raise_cpu);
    if (sleeps % 2 == 0) w.counted_awake = std::max<std::int64_t>(0, cpu - cpu_at_sleep);
    return w.counted_awake;
}

// What the guard sees of the thread.
GuardSample sample_of(Watched& w, std::int64_t cpu) noexcept {
    GuardSample s;
    s.wall = std::chrono::nanoseconds(read_ns(CLOCK_MONOTONIC));
    const std::uint64_t sleeps = w.sleeps.load(std::memory_order_acquire);
    const std::int64_t at_sleep = w.cpu_at_sleep.load(std::memory_order_relaxed);
    s.sleeps = sleeps;
    s.cpu = std::chrono::nanoseconds(cpu);
    s.cpu_at_sleep = std::chrono::nanoseconds(at_sleep);
    s.rt_counted = std::chrono::nanoseconds(rt_counted(w, cpu, sleeps, at_sleep));
    s.period = std::chrono::nanoseconds(w.period_ns.load(std::memory_order_relaxed));
    if (w.guard_cfg.stand_down) {
        const int running = run_queue::runnable_now();
        s.runnable = running > 0 ? running - 1 : -1;  // the helper itself runs as it reads
        s.cpus = run_queue::cpus_of(w.tid);
    }
    return s;
}

// The thread's class was just made real-time (by itself, the helper or a service): its count
// from `from_cpu`, its CPU at the raise or before it. A service raises the thread before its
// answer reaches the helper, 2-16 ms later here and 100 ms and more on a loaded machine, while
// the thread may compute: its count runs from the last look that read its own class while the
// answer was awaited (CPU it ran in its own class after that look is counted too: the estimate
// errs high, never low). Uncounted, those gaps added up to RealtimeKit's 200 ms over five raises
// of a thread that never slept, and the kernel killed it. Under mu.
void note_raised(Watched& w, std::int64_t carry, std::int64_t from_cpu) noexcept {
    w.raise_cpu = from_cpu;
    w.raise_sleeps = w.sleeps.load(std::memory_order_acquire);
    w.rt_woke = false;
    w.carry_ns = carry;
    w.counted_awake = 0;
}

// RLIMIT_RTTIME's soft limit, or where there is none yet RealtimeKit's 200 ms (an ask sets it
// to at most RealtimeKit's own, which is 200 ms unless configured higher), in ns.
std::int64_t rttime_bound_ns() noexcept {
    rlimit rl{};
    if (getrlimit(RLIMIT_RTTIME, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 200'000'000;
    return static_cast<std::int64_t>(rl.rlim_cur) * 1000;
}

// The guard's bounds: one frame 50 ms, or a quarter of RLIMIT_RTTIME's soft limit when lower;
// the kernel's count half that soft limit (none without one). automatic stands down.
GuardConfig guard_config(bool automatic) noexcept {
    GuardConfig c;
    c.stand_down = automatic;
    rlimit rl{};
    if (getrlimit(RLIMIT_RTTIME, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return c;
    const auto soft_ns = static_cast<std::int64_t>(rl.rlim_cur) * 1000;
    c.one_frame = std::chrono::nanoseconds(std::min<std::int64_t>(c.one_frame.count(), soft_ns / 4));
    c.rt_limit = std::chrono::nanoseconds(soft_ns / 2);
    return c;
}

long long rttime_soft_ms() noexcept {
    rlimit rl{};
    if (getrlimit(RLIMIT_RTTIME, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return -1;
    return static_cast<long long>(rl.rlim_cur) / 1000;
}

// The thread's own class back (from any thread of the process): its policy and priority, the
// SCHED_RESET_ON_FORK flag kept where an unprivileged thread may not clear it.
void put_back_class(pid_t tid, const Own& own) noexcept {
    sched_param p{};
    p.sched_priority = own.priority;
    if (sched_setscheduler(tid, own.policy, &p) != 0 && errno == EPERM)
        sched_setscheduler(tid, own.policy | SCHED_RESET_ON_FORK, &p);
}

// ---- What refresh() hands over -------------------------------------------------------------------

void set_realtime_grant(Watched& w) noexcept {
    PriorityGrant& g = w.grant;
    g.granted = true;
    g.pending = false;
    g.lever = PriorityLever::realtime;
    g.level = w.level;
    g.reason[0] = '\0';
    const long long rt = rttime_soft_ms();
    const char* by = w.via == bus::Via::none ? "" : bus::to_string(w.via);
    const int policy = sched_getscheduler(w.tid) & ~SCHED_RESET_ON_FORK;
    const char* name = policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO";
    if (rt >= 0)
        std::snprintf(g.in_force, sizeof g.in_force, "%s %d (%s%sRLIMIT_RTTIME %lld ms)", name, w.level, by,
                      by[0] ? ", " : "", rt);
    else if (by[0])
        std::snprintf(g.in_force, sizeof g.in_force, "%s %d (%s)", name, w.level, by);
    else
        std::snprintf(g.in_force, sizeof g.in_force, "%s %d", name, w.level);
    g.by = w.via == bus::Via::portal        ? PriorityGrantor::portal
         : w.via == bus::Via::realtimekit ? PriorityGrantor::realtimekit
                                          : PriorityGrantor::os;
}

// While put back: the weight pacer holds, if any, else the thread's own class; pending, for
// the guard will raise it again (after a calm run, or where it stood down, at contention).
void set_put_back_grant(Watched& w, bool stood_down = false) noexcept {
    PriorityGrant& g = w.grant;
    g.granted = w.weight_held;
    g.pending = true;
    g.lever = w.weight_held ? PriorityLever::weight : PriorityLever::none;
    g.by = w.weight_held ? w.weight_by : PriorityGrantor::none;
    const char* how = stood_down ? "stood down: a CPU to spare" : "put back by the guard";
    if (w.weight_held) {
        errno = 0;
        const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(w.tid));
        std::snprintf(g.in_force, sizeof g.in_force, "nice %d (%s)", nice, how);
    } else {
        text(g.in_force, "normal");  // the waiter writes "normal" for what it was not granted
    }
    text(g.reason, stood_down ? "the real-time class stood down while the machine has a CPU to spare; it is "
                                "raised again when the machine has none"
                              : "the real-time guard put the thread back; it raises it again after a calm run");
}

// ---- The helper thread ----------------------------------------------------------------------------

class Helper {
public:
    explicit Helper(pid_t pid) : pid_(pid) {}
    std::mutex mu;
    std::condition_variable cv;

    // The process's helper (a new one after fork()). Never destroyed: its thread may outlive
    // static destruction.
    static Helper& get() noexcept {
        static std::mutex made_mu;
        static Helper* made = nullptr;
        std::lock_guard<std::mutex> lock(made_mu);
        if (made == nullptr || made->pid_ != getpid()) made = new Helper(getpid());
        return *made;
    }

    // A new record; a guarded one (raised by the process's own right) is watched from now.
    void add(Watched* w) noexcept {
        std::lock_guard<std::mutex> lock(mu);
        if (w->guarded) {
            note_raised(*w, carry_of(w->tid), read_ns(w->cpu_clock));
            w->guard.emplace(w->guard_cfg, sample_of(*w, read_ns(w->cpu_clock)));
            watch(*w);  // a count carried in over the bound: put back now, not a tick later
        }
        list_.push_back(w);
        start();
        cv.notify_one();
    }

    // The kernel's RLIMIT_RTTIME count a thread carries while it is not real-time (rt_counted()),
    // by thread id: a thread paced again by a new pacer carries it into the new record. Under mu.
    std::int64_t carry_of(pid_t tid) const noexcept {
        for (const auto& c : carries_)
            if (c.first == tid) return c.second;
        return 0;
    }
    void set_carry(pid_t tid, std::int64_t ns) noexcept {
        for (auto& c : carries_)
            if (c.first == tid) {
                c.second = ns;
                return;
            }
        if (carries_.size() >= 64) carries_.erase(carries_.begin());  // a stale entry only makes the guard stricter
        carries_.emplace_back(tid, ns);
    }

private:
    pid_t pid_;
    std::vector<Watched*> list_;
    std::vector<std::pair<pid_t, std::int64_t>> carries_;
    bool started_ = false;
    int self_level_ = 0;       // the helper's real-time priority (0: its own class)
    bool self_asked_ = false;  // RealtimeKit or the portal was asked for it
    unsigned prune_passes_ = 0;

    void start() noexcept {  // under mu
        if (started_) return;
        // The helper takes no signal: the host's handlers run on its own threads.
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        try {
            std::thread t(&Helper::run, this);
            pthread_setname_np(t.native_handle(), "pacer-watchdog");
            t.detach();
            started_ = true;
        } catch (...) {  // no thread: the asks stay pending, the guard cannot watch
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }

    // The helper may run on every CPU (a thread inherits its creator's affinity, and a pacing
    // thread pinned to the core it shares with a busy one would have kept the helper off all
    // others: its guard acted after 950 ms instead of 50). The kernel keeps it within the
    // process's cpuset.
    static void unpin() noexcept {
        cpu_set_t all;
        CPU_ZERO(&all);
        for (int i = 0; i < CPU_SETSIZE; ++i) CPU_SET(i, &all);
        sched_setaffinity(0, sizeof all, &all);
    }

    // A guarded thread runs at `level`: the helper runs one above it, so that it is never kept off
    // a CPU by the thread it watches (on one CPU it would be, at its own class, for as long as the
    // thread computes). The process's own right where it has it, else the service that granted
    // the thread's class, asked once: with the first ask for a thread's real-time class, before
    // that thread (do_ask's watcher_tid: the helper must watch it while the answer is on its way,
    // and on a loaded machine a helper in its own class was kept off the CPUs 60 ms and more),
    // else here. Under mu; the ask releases it.
    void raise_self(int level, bus::Via via, std::unique_lock<std::mutex>& lock) noexcept {
        level = std::min(level + 1, sched_get_priority_max(SCHED_FIFO));
        if (level <= self_level_) return;
        sched_param p{};
        p.sched_priority = level;
        if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) == 0) {
            self_level_ = level;
            return;
        }
        if (via == bus::Via::none || self_asked_) return;
        self_asked_ = true;
        const pid_t self = this_tid();
        lock.unlock();
        const bus::Answer a = bus::make_realtime(getpid(), self, level, kAskTimeoutMs);
        lock.lock();
        if (a.granted && realtime_now(self)) self_level_ = level;
    }

    void run() noexcept {
        unpin();
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            prune();
            if (Watched* w = next_ask()) {
                AskInput in;
                in.pid = w->pid;
                in.tid = w->tid;
                in.config = w->config;
                in.want = w->want;
                in.automatic = w->automatic;
                in.weight_held = w->weight_held;
                in.reraise = w->reraise;
                in.level = w->level;
                AskLook look{this, w};
                in.while_asking.look = &Helper::look_while_asking;
                in.while_asking.ctx = &look;
                in.raised_meanwhile = &w->raised_in_ask;  // this thread's, like the looks
                if (w->want == Want::realtime && !w->reraise && !self_asked_ && self_level_ == 0) {
                    in.watcher_tid = this_tid();  // the helper raised first, through the same service
                    self_asked_ = true;
                }
                w->ask_due = false;
                w->in_flight = true;
                w->raised_in_ask = false;
                w->ask_cpu = read_ns(w->cpu_clock);
                lock.unlock();
                const AskResult r = do_ask(in);
                lock.lock();
                w->in_flight = false;
                if (r.watcher_level > self_level_) self_level_ = r.watcher_level;
                answer(*w, in, r);
                continue;
            }
            if (Watched* w = next_to_outrank()) {
                w->self_checked = true;
                raise_self(w->level, w->via, lock);
                continue;  // the list may have changed while the mutex was free: look again
            }
            std::int64_t tick = 0;
            for (Watched* w : list_) {
                if (w->held_back && w->ask_due && !w->released) {
                    tick = tick == 0 ? kHeldBackLookNs : std::min(tick, kHeldBackLookNs);  // for a sleep
                    continue;
                }
                if (!w->guarded || w->released || w->in_flight || w->ask_due) continue;
                watch(*w);
                // Half the one-frame bound: a frame is seen at most 75 ms into its CPU (50 ms by
                // default), far under RLIMIT_RTTIME's 200; a quarter cost twice the helper's CPU
                // for nothing (0.27 % of a core at 80 looks a second, 34 us each, measured).
                // Not raised: half as often (vkcube's helper: 0.07 % of a core, from 0.29 %).
                const std::int64_t t = w->guard_cfg.one_frame.count() / (w->guard->raised() ? 2 : 1);
                tick = tick == 0 ? t : std::min(tick, t);
            }
            if (tick > 0) cv.wait_for(lock, std::chrono::nanoseconds(tick));
            else cv.wait(lock);
        }
    }

    // A real-time ask's looks while its answer is on its way (bus::Waiting, every 5 ms): the
    // service raises the thread before it answers, and on a loaded machine the answer came 100
    // ms and more later while the thread computed, unwatched (that gap alone reached
    // RealtimeKit's 200 ms and the kernel killed the thread). So from the moment the thread's
    // class reads real-time, the guard watches it as after the answer, counting from the last
    // look that read its own class (one is made as the request goes), and puts it back if a
    // rule is broken before the answer comes.
    struct AskLook {
        Helper* helper;
        Watched* w;
    };
    static void look_while_asking(void* ctx) noexcept {
        auto* a = static_cast<AskLook*>(ctx);
        std::lock_guard<std::mutex> lock(a->helper->mu);
        a->helper->guard_while_asking(*a->w);
    }
    void guard_while_asking(Watched& w) noexcept {  // under mu
        if (w.released) return;
        if (!w.raised_in_ask) {
            if (!realtime_now(w.tid)) {  // a raise after this look counts from here
                w.ask_cpu = std::max(w.ask_cpu, read_ns(w.cpu_clock));
                return;
            }
            w.raised_in_ask = true;
            start_guarding(w);
        }
        if (w.guard->raised()) watch(w);
    }
    // The thread's class was made real-time by the ask that began at w.ask_cpu: its count from
    // there, and a guard (a raise again keeps the guard it has). Under mu.
    void start_guarding(Watched& w) noexcept {
        w.guard_cfg = guard_config(w.automatic);
        note_raised(w, carry_of(w.tid), w.ask_cpu);
        if (!w.guard) w.guard.emplace(w.guard_cfg, sample_of(w, read_ns(w.cpu_clock)));
    }

    Watched* next_to_outrank() noexcept {
        for (Watched* w : list_)
            if (w->guarded && !w->released && !w->self_checked && w->level >= self_level_) return w;
        return nullptr;
    }

    Watched* next_ask() noexcept {
        for (Watched* w : list_)
            if (w->ask_due && !w->in_flight && !w->released && may_ask_now(*w)) return w;
        return nullptr;
    }

    // Whether a real-time ask for w may go now. A thread a service raises while it computes
    // carries on the kernel's RLIMIT_RTTIME count it had when it was put back (rt_counted());
    // one raised while it sleeps starts from nothing at its wake-up. So a thread that carries a
    // quarter of the bound (rttime_bound_ns()) is asked for only while it sleeps, and the CPU it
    // may run after the raise (if it wakes meanwhile) is counted as the answer is awaited; one that
    // carries three quarters is not asked for again (only a sleep in a real-time class would
    // clear it): automatic asks for the weight alone, a raise again is refused. Under mu.
    bool may_ask_now(Watched& w) noexcept {
        if (w.want != Want::realtime) return true;
        const std::int64_t carry = carry_of(w.tid), bound = rttime_bound_ns();
        if (carry < bound / 4) return true;
        const bool asleep = w.sleeps.load(std::memory_order_acquire) % 2 == 1;
        if (carry < bound * 3 / 4) {
            if (asleep) {
                w.held_back = false;
                return true;
            }
            if (!w.held_back) {
                w.held_back = true;
                std::snprintf(w.grant.guard, sizeof w.grant.guard,
                              "held back until the thread sleeps: it carries %.0f ms of the kernel's RLIMIT_RTTIME "
                              "count, which a raise while it computes would add to",
                              static_cast<double>(carry) / 1e6);
                changed(w);
            }
            return false;
        }
        w.held_back = false;
        w.spent = true;
        std::snprintf(w.grant.guard, sizeof w.grant.guard,
                      "not raised again: it carries %.0f ms of the kernel's RLIMIT_RTTIME count (its bound: %.0f "
                      "ms), which only a sleep in a real-time class clears",
                      static_cast<double>(carry) / 1e6, static_cast<double>(bound) / 1e6);
        if (w.automatic && !w.weight_held && !w.reraise) {
            w.want = Want::weight;  // the weight carries no such count
            changed(w);
            return true;
        }
        w.ask_due = false;
        w.reraise = false;
        if (w.guard) w.guard->refused(sample_of(w, read_ns(w.cpu_clock)));
        if (w.guarded) {
            set_put_back_grant(w);
            w.grant.pending = false;  // for good: spent
            text(w.grant.reason, "the real-time guard put the thread back for good (see guard)");
        } else {
            w.grant.pending = false;
            std::snprintf(w.grant.reason, sizeof w.grant.reason, "%.110s; the real-time class was not asked for",
                          w.refused);
        }
        changed(w);
        return false;
    }

    // Drops what nothing holds any more: released, or (looked at once in 40 passes, a second at
    // the guard's pace: a clock read is a system call) a thread that is gone.
    void prune() noexcept {
        const bool look = ++prune_passes_ % 40 == 0;
        list_.erase(std::remove_if(list_.begin(), list_.end(),
                                   [look](Watched* w) {
                                       if (look && !w->released && read_ns(w->cpu_clock) < 0) w->released = true;
                                       if (!w->released || w->in_flight) return false;
                                       delete w;
                                       return true;
                                   }),
                    list_.end());
    }

    static void changed(Watched& w) noexcept { w.version.fetch_add(1, std::memory_order_release); }

    void answer(Watched& w, const AskInput& in, const AskResult& r) noexcept {
        if (w.released) {  // restore_priority() ran meanwhile: undo what the answer did
            if (r.realtime) put_back_class(w.tid, w.own);
            if (r.weight) setpriority(PRIO_PROCESS, static_cast<id_t>(w.tid), w.own.nice);
            return;
        }
        if (r.realtime) {
            w.via = r.via;
            w.level = r.level;
            w.guarded = true;
            if (!w.raised_in_ask) start_guarding(w);
            w.raised_in_ask = false;
            if (w.guard->raised()) {
                set_realtime_grant(w);
                if (in.reraise) text(w.grant.guard, w.guard->reason());
                watch(w);  // granted while it computes, with a count carried in: put back now
            }  // else put back while the answer was on its way: the grant says so
            changed(w);
            return;
        }
        if (w.raised_in_ask) {  // raised, then no yes (it came too late, or an error): not kept
            w.raised_in_ask = false;
            if (realtime_now(w.tid)) put_back_class(w.tid, w.own);
            if (!in.reraise) w.guard.reset();
        }
        if (in.reraise) {  // RealtimeKit said no this time: stays put back, tries after a calm run
            if (w.guard) w.guard->refused(sample_of(w, read_ns(w.cpu_clock)));
            set_put_back_grant(w);
            std::snprintf(w.grant.guard, sizeof w.grant.guard, "raising again refused: %.130s", r.error);
        } else if (r.weight) {
            w.weight_held = true;
            w.weight_by = r.via == bus::Via::portal ? PriorityGrantor::portal : PriorityGrantor::realtimekit;
            PriorityGrant& g = w.grant;
            g.granted = true;
            g.pending = false;
            g.lever = PriorityLever::weight;
            g.by = r.via == bus::Via::portal ? PriorityGrantor::portal : PriorityGrantor::realtimekit;
            g.level = r.level;
            std::snprintf(g.in_force, sizeof g.in_force, "nice %d (%s)", r.level, bus::to_string(r.via));
            g.reason[0] = '\0';
        } else {
            PriorityGrant& g = w.grant;
            g.pending = false;
            if (!w.weight_held) {  // nothing is held: a refusal, and nothing to put back
                g.granted = false;
                g.lever = PriorityLever::none;
                g.by = PriorityGrantor::none;
                text(g.in_force, "normal");
                std::snprintf(g.reason, sizeof g.reason, "%.110s; %.110s", w.refused, r.error);
            } else {
                g.reason[0] = '\0';  // automatic keeps the weight setpriority() granted
            }
        }
        changed(w);
    }

    // One look at a guarded thread: the guard's step, acted on at once.
    void watch(Watched& w) noexcept {
        const std::int64_t cpu = read_ns(w.cpu_clock);
        if (cpu < 0) {  // the thread is gone: prune() drops it
            w.released = true;
            return;
        }
        const GuardSample s = sample_of(w, cpu);
        switch (w.guard->observe(s)) {
        case GuardStep::none: return;
        case GuardStep::put_back:
        case GuardStep::stand_down: {
            // SCHED_OTHER (with the flag it has: an unprivileged thread may not clear it), at the
            // nice value it has: pacer's weight where automatic holds one, else its own.
            sched_param p{};
            const int flag = sched_getscheduler(w.tid) & SCHED_RESET_ON_FORK;
            if (sched_setscheduler(w.tid, SCHED_OTHER | flag, &p) != 0)
                sched_setscheduler(w.tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &p);
            set_carry(w.tid, s.rt_counted.count());
            set_put_back_grant(w, w.guard->stood_down());
            text(w.grant.guard, w.guard->reason());
            w.grant.demotions = w.guard->put_backs();  // a stand-down is none: no warning
            break;
        }
        case GuardStep::raise_again:
            if (w.spent) {  // may_ask_now() said why, once
                w.guard->refused(s);
                return;
            }
            if (w.via != bus::Via::none) {  // RealtimeKit's or the portal's: ask again
                w.ask_due = true;
                w.reraise = true;
                return;
            } else {
                sched_param p{};
                p.sched_priority = w.level;
                const int policy = w.config.round_robin ? SCHED_RR : SCHED_FIFO;
                const std::int64_t before = read_ns(w.cpu_clock);
                if (sched_setscheduler(w.tid, policy | SCHED_RESET_ON_FORK, &p) == 0) {
                    note_raised(w, carry_of(w.tid), before);
                    set_realtime_grant(w);
                    text(w.grant.guard, w.guard->reason());
                } else {
                    w.guard->refused(s);
                    std::snprintf(w.grant.guard, sizeof w.grant.guard, "raising again refused: %s",
                                  std::strerror(errno));
                }
            }
            break;
        }
        changed(w);
    }
};

thread_local Watched* t_watched = nullptr;

Watched* record_of(const PriorityGrant& g) noexcept {
    return g.saved[3] == kWatched ? reinterpret_cast<Watched*>(static_cast<std::intptr_t>(g.saved[2])) : nullptr;
}

// A record for the calling thread.
Watched* make_record(const PriorityConfig& c, std::chrono::nanoseconds period, const Own& own) noexcept {
    Watched* w = new (std::nothrow) Watched;
    if (w == nullptr) return nullptr;
    w->pid = getpid();
    w->tid = this_tid();
    if (pthread_getcpuclockid(pthread_self(), &w->cpu_clock) != 0) w->cpu_clock = CLOCK_THREAD_CPUTIME_ID;
    w->config = c;
    w->own = own;
    w->automatic = c.mode == ThreadPriority::automatic;
    w->want = is_weight(c.mode) && c.mode != ThreadPriority::automatic ? Want::weight : Want::realtime;
    w->period_ns.store(period.count(), std::memory_order_relaxed);
    w->cpu_at_sleep.store(read_ns(CLOCK_THREAD_CPUTIME_ID), std::memory_order_relaxed);
    return w;
}

PriorityGrant handed_over(Watched* w) noexcept {  // under the mutex
    PriorityGrant g = w->grant;
    g.saved[3] = kWatched;
    g.saved[2] = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(w));
    g.saved[1] = static_cast<std::int64_t>(w->version.load(std::memory_order_relaxed));
    return g;
}

}  // namespace

Own own_class() noexcept {
    Own o;
    o.policy = sched_getscheduler(0);
    sched_param p{};
    sched_getparam(0, &p);
    o.priority = p.sched_priority;
    errno = 0;
    o.nice = getpriority(PRIO_PROCESS, static_cast<id_t>(this_tid()));
    return o;
}

bool can_ask() noexcept {
#ifdef PACER_HAVE_DBUS_HEADERS
    return true;
#else
    return false;
#endif
}

bool watched(const PriorityGrant& g) noexcept { return record_of(g) != nullptr; }

PriorityGrant watch_raised(PriorityGrant g, const PriorityConfig& c, std::chrono::nanoseconds period,
                           const Own& own) noexcept {
    Watched* w = make_record(c, period, own);
    if (w == nullptr) return g;  // no memory: raised, unwatched (as before the guard)
    Helper& h = Helper::get();
    w->guarded = true;
    w->level = g.level;
    w->guard_cfg = guard_config(w->automatic);
    w->grant = g;
    w->grant.by = PriorityGrantor::os;
    w->grant.lever = PriorityLever::realtime;
    PriorityGrant out = handed_over(w);
    t_watched = w;
    h.add(w);
    return out;
}

PriorityGrant ask(const PriorityConfig& c, std::chrono::nanoseconds period, const Own& own,
                  const PriorityGrant& in_force, const char* refused) noexcept {
    Watched* w = make_record(c, period, own);
    if (w == nullptr) return in_force;
    Helper& h = Helper::get();
    text(w->refused, refused);
    w->weight_held = in_force.granted;
    w->weight_by = in_force.by;
    w->ask_due = true;
    w->grant = in_force;
    w->grant.pending = true;
    std::snprintf(w->grant.reason, sizeof w->grant.reason, "asking RealtimeKit or the Realtime portal for %s (%s)",
                  w->want == Want::weight ? "the weight" : "a real-time class", refused);
    PriorityGrant out = handed_over(w);
    t_watched = w;
    h.add(w);
    return out;
}

bool refresh(PriorityGrant& g, std::chrono::nanoseconds period) noexcept {
    Watched* w = record_of(g);
    if (w == nullptr) return false;
    if (w->period_ns.load(std::memory_order_relaxed) != period.count())
        w->period_ns.store(period.count(), std::memory_order_relaxed);
    if (w->version.load(std::memory_order_acquire) == static_cast<std::uint64_t>(g.saved[1])) return false;
    std::lock_guard<std::mutex> lock(Helper::get().mu);
    g = handed_over(w);
    if (!g.granted && !g.pending) {  // refused in the end: nothing is held, nothing to watch
        if (t_watched == w) t_watched = nullptr;
        w->released = true;
        g.saved[3] = 0;
    }
    return true;
}

void release(const PriorityGrant& g) noexcept {
    Watched* w = record_of(g);
    if (w == nullptr) return;
    Helper& h = Helper::get();
    std::lock_guard<std::mutex> lock(h.mu);
    if (t_watched == w) t_watched = nullptr;
    if (!w->released) {
        if (w->guard && w->guard->raised()) {  // the count it carries out of this record
            const std::int64_t cpu = read_ns(w->cpu_clock);
            h.set_carry(w->tid, rt_counted(*w, cpu, w->sleeps.load(std::memory_order_acquire),
                                           w->cpu_at_sleep.load(std::memory_order_relaxed)));
        }
        put_back_class(w->tid, w->own);
        if (w->weight_held) setpriority(PRIO_PROCESS, static_cast<id_t>(w->tid), w->own.nice);
        w->released = true;  // an answer still to come is undone when it comes
    }
    h.cv.notify_one();
}

void sleep_begins() noexcept {
    Watched* w = t_watched;
    if (w == nullptr) return;
    w->cpu_at_sleep.store(read_ns(CLOCK_THREAD_CPUTIME_ID), std::memory_order_relaxed);
    w->sleeps.fetch_add(1, std::memory_order_release);
}

void sleep_ends() noexcept {
    if (Watched* w = t_watched) w->sleeps.fetch_add(1, std::memory_order_release);
}

PriorityGrant probe_ask(const PriorityConfig& c, const PriorityGrant& in_force, const char* refused) noexcept {
    PriorityGrant g = in_force;
    const Own own = own_class();
    AskInput in;
    in.pid = getpid();
    in.tid = this_tid();
    in.config = c;
    in.automatic = c.mode == ThreadPriority::automatic;
    in.want = is_weight(c.mode) && !in.automatic ? Want::weight : Want::realtime;
    in.weight_held = in_force.granted;
    const AskResult r = do_ask(in);
    if (r.realtime) {
        Watched w;
        w.tid = in.tid;
        w.via = r.via;
        w.level = r.level;
        w.grant = g;
        set_realtime_grant(w);
        g = w.grant;
        put_back_class(in.tid, own);
    } else if (r.weight) {
        g.granted = true;
        g.lever = PriorityLever::weight;
        g.by = r.via == bus::Via::portal ? PriorityGrantor::portal : PriorityGrantor::realtimekit;
        g.level = r.level;
        std::snprintf(g.in_force, sizeof g.in_force, "nice %d (%s)", r.level, bus::to_string(r.via));
        setpriority(PRIO_PROCESS, static_cast<id_t>(in.tid), own.nice);
    } else if (!in_force.granted) {
        std::snprintf(g.reason, sizeof g.reason, "%.110s; %.110s", refused, r.error);
    }
    g.pending = false;
    return g;
}

}  // namespace pacer::platform::watchdog
