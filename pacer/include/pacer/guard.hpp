// pacer/guard.hpp - the real-time guard's rules: when a pacing thread that pacer raised to a
// real-time class is put back to its own class, and when it is raised again.
//
//   GuardConfig    the budget: a share of the period a frame may use, the CPU one frame may run
//                  without sleeping, the calm run before a raise again; standing down
//   GuardSample    what the watcher reads of the thread: wall time, its CPU time, its sleeps; the
//                  machine's run queue
//   RealtimeGuard  observe(sample) -> GuardStep: none, put_back, raise_again, stand_down; reason()
//
//   pacer::GuardSample s{};                   // read off the thread: clocks, sleeps, period
//   pacer::RealtimeGuard g(pacer::GuardConfig{}, s);
//   switch (g.observe(s)) {                   // every few ms, from a watchdog thread
//   case pacer::GuardStep::put_back: log(g.reason()); break;  // the thread's own class back
//   case pacer::GuardStep::raise_again: break;                 // the real-time class again
//   case pacer::GuardStep::none: break;
//   }
//
// Why. A real-time thread is never preempted by normal threads, so a frame that computes long
// takes its core from them all, and on Linux the kernel kills a real-time thread that computes
// RLIMIT_RTTIME without blocking (SIGXCPU at the soft limit, SIGKILL at the hard one; RealtimeKit
// demands a hard limit of at most 200 ms): a level load or a shader compile in a frame would end
// the game. pacer raises a pacing thread to a real-time class (ThreadPriority::thread, and
// automatic where it is granted: pacer/priority.hpp) only with this guard watching it, from one
// watchdog thread per process (pacer/src/platform/linux/), so that neither can happen.
//
// The rules, on the thread's own CPU clock (what it computed, whatever else ran), where a frame
// is the stretch between two of its OS sleeps:
//   put back    while raised, when
//                 one frame: it has run one_frame of CPU since its last sleep, and is still
//                   running (a frame that does not come back: the watchdog acts without it);
//                 the limit: the kernel's RLIMIT_RTTIME count has reached rt_limit (half the
//                   soft limit): a thread raised again before it slept in a real-time class
//                   carries the count of its last raise on (RealtimeKit raises it before its
//                   answer arrives: the watchdog watches it from the moment its class reads
//                   real-time, while the answer is on its way);
//                 the share: over the last `window`, its frames used on average more than
//                   `share` of the period in CPU (a loop that computes most of each frame, or
//                   never sleeps: it would hold its core).
//   stand down  (stand_down: automatic) while raised for at least `quiet` (2 s) with no rule
//               broken, when half or more of the run queue's looks over that span found a CPU
//               to spare: the threads runnable besides the watcher leave at least one of the
//               thread's CPUs over besides its own (Linux: /proc/loadavg's nr_running, every
//               look). The thread goes back as at a put-back, with no warning and no longer calm
//               run. Why: where a CPU is free, a normal thread's wake-up is not kept waiting, and
//               a real-time class buys no steadier a tail, and it costs CPU where the frame's
//               present is a copy into another process, as a software Vulkan driver's under X
//               (measured: docs/vulkan.md#the-real-time-class-what-it-costs-and-what-it-buys).
//   raise again while put back, once `calm` has passed with neither rule broken, at a moment the
//               thread sleeps (so that the kernel's RLIMIT_RTTIME count restarts at its wake-up).
//               Each put-back doubles the calm run needed (up to max_calm), so a loop that
//               alternates does not flap; a raised run of max_calm without a put-back starts
//               from `calm` again.
//               With stand_down, only when no look over the last `contended` (0.25 s) found a
//               CPU to spare: beside busy threads or processes it is raised within a quarter
//               second; a load that comes and goes is followed at most once per `quiet`.
//               On Linux a thread that carries a quarter of the soft limit's count is asked
//               for (a new pacer's first ask too) only while it sleeps, and one that carries
//               three quarters is not raised again: its status's guard says so.
// The defaults: one_frame 50 ms, a quarter of RealtimeKit's 200 ms (the platform lowers it to a
// quarter of the process's RLIMIT_RTTIME soft limit where that is lower), far above a frame's
// CPU at any rate a game paces at; the Linux watchdog looks every half of it (25 ms) while the
// thread is raised (every 50 ms while it is not), so a long frame is put back at most 75 ms into
// its CPU, with over 100 ms left before the kernel's soft limit (the watchdog runs one real-time
// priority above the thread it watches, so the thread cannot keep it off a CPU); rt_limit half
// the soft limit; share 0.9: the kernel itself lets real-time threads take 95 % of each CPU
// (sched_rt_runtime_us); window 0.5 s; calm 2 s, max_calm 64 s; quiet 2 s, contended 0.25 s.
// What the guard did is in PriorityStatus (guard, demotions) and in the log (a warning).
//
// Pure logic: no clock, no thread, no allocation; tests/guard_test.cpp drives it with samples.
#pragma once

#include <chrono>
#include <cstdint>

namespace pacer {

struct GuardConfig {
    double share = 0.9;                                  // of the period, per frame, in (0, 1]
    std::chrono::nanoseconds one_frame{50'000'000};      // CPU without a sleep
    std::chrono::nanoseconds window{500'000'000};        // the share's window
    std::chrono::nanoseconds calm{2'000'000'000};        // before the first raise again
    std::chrono::nanoseconds max_calm{64'000'000'000};   // the longest calm run asked for
    // The kernel's count against RLIMIT_RTTIME at which the thread is put back, whatever its
    // frame: half the soft limit (the platform sets it; 0: no limit, no rule).
    std::chrono::nanoseconds rt_limit{0};
    // Standing down (ThreadPriority::automatic sets it; thread keeps its class while no rule is
    // broken): put back once the machine has had a CPU to spare for `quiet`, raised again once
    // it has had none for `contended`.
    bool stand_down = false;
    std::chrono::nanoseconds quiet{2'000'000'000};
    std::chrono::nanoseconds contended{250'000'000};
};

// What the watcher reads of the thread, all on clocks that only go forward.
struct GuardSample {
    std::chrono::nanoseconds wall{0};          // a monotonic clock
    std::chrono::nanoseconds cpu{0};           // the thread's CPU time so far
    std::chrono::nanoseconds cpu_at_sleep{0};  // its CPU time when it last went to sleep
    std::uint64_t sleeps = 0;                  // +1 as it goes to sleep, +1 as it wakes: odd = asleep
    std::chrono::nanoseconds period{0};        // its frame period now (0: unknown; the share rule waits)
    // The CPU the kernel has counted against RLIMIT_RTTIME: from its last wake-up in a real-time
    // class, which a put-back and a raise again without a sleep between do not restart.
    std::chrono::nanoseconds rt_counted{0};
    // The machine's run queue, for standing down: the threads runnable or running besides the
    // watcher (-1: unknown, never a CPU to spare), and the CPUs the thread may run on.
    int runnable = -1;
    int cpus = 0;
};

// stand_down: put back because the machine has a CPU to spare (not a broken rule: no warning, no
// longer calm run); raise_again follows a put-back or a stand-down.
enum class GuardStep : std::uint8_t { none, put_back, raise_again, stand_down };

class RealtimeGuard {
public:
    // Watching starts at `first`, with the thread raised.
    RealtimeGuard(const GuardConfig& config, const GuardSample& first) noexcept;

    GuardStep observe(const GuardSample& s) noexcept;
    // The raise again that observe() asked for could not be made (RealtimeKit said no): the
    // thread stays put back, and the calm run starts again from s.
    void refused(const GuardSample& s) noexcept;

    bool raised() const noexcept { return raised_; }
    bool stood_down() const noexcept { return stood_down_; }  // put back by standing down, not by a rule
    std::uint64_t put_backs() const noexcept { return put_backs_; }
    // The last put-back's or raise's reason, one line, e.g. "put the thread back to its own class:
    // a frame ran 55 ms of CPU without sleeping (its bound: 50 ms)". Static until the next step.
    const char* reason() const noexcept { return reason_; }
    std::chrono::nanoseconds calm_needed() const noexcept { return calm_needed_; }
    const GuardConfig& config() const noexcept { return cfg_; }

private:
    static constexpr int kRing = 128;  // samples kept for the share's window
    static constexpr int kLooks = 256;  // the run queue's looks kept for standing down
    static constexpr double kSpareToStandDown = 0.5;  // of the looks over `quiet`
    bool breaks_a_rule(const GuardSample& s, bool record) noexcept;
    void note_look(const GuardSample& s) noexcept;
    // Over the last `span`: the share of looks that found a CPU to spare, or -1 while the looks
    // kept do not reach that far back.
    double spare_share(std::chrono::nanoseconds now, std::chrono::nanoseconds span) const noexcept;

    GuardConfig cfg_;
    bool raised_ = true;
    std::uint64_t put_backs_ = 0;
    std::chrono::nanoseconds calm_needed_;
    std::chrono::nanoseconds calm_since_{0};    // put back: the last time a rule was broken
    std::chrono::nanoseconds raised_since_{0};  // raised: since when
    GuardSample ring_[kRing];
    int head_ = 0, count_ = 0;
    struct Look {
        std::chrono::nanoseconds wall{0};
        bool spare = false;
    };
    Look looks_[kLooks];
    int look_head_ = 0, look_count_ = 0;
    bool stood_down_ = false;
    char reason_[160] = "";
};

}  // namespace pacer
