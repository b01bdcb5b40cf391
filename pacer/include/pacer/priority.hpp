// pacer/priority.hpp - the pacing thread's scheduling class: raised for the wait, or for good.
//
//   ThreadPriority        normal, wait, thread (names: kThreadPriorityNames in pacer/modes.hpp)
//   PriorityConfig        when to raise, and on Linux the real-time priority and policy
//   PriorityGrant         what the OS granted for one raise, and what it takes to put it back
//   PriorityStatus        asked, in force, why not (WaiterStatus::priority, FramePacer::status)
//   probe_priority(c)     raises the calling thread as asked and puts it back: what this
//                         machine grants, for a probe or a settings screen
//
//   pacer::PacerConfig c;
//   c.waiter.priority.mode = pacer::ThreadPriority::wait;    // raised only while pacer waits
//   pacer::FramePacer fp(c);
//   fp.wait();
//   const pacer::PriorityStatus p = fp.status().waiter.priority;
//   if (p.refused) log(p.reason);   // e.g. "SCHED_FIFO 5 refused: RLIMIT_RTPRIO is 0 ..."
//
//   if (!pacer::set_sleep_priority({pacer::ThreadPriority::wait}))   // the free sleeps, this thread
//       log("rejected");
//
// Why. A game's main loop sleeps beside runnable threads: its render thread, job workers, audio,
// asset streaming, other processes. When its OS sleep ends, the scheduler may run those first,
// and the wake-up comes a time slice late. A thread in a real-time class preempts normal threads
// the moment its timer fires, so far fewer of its wake-ups come late beside busy threads
// (measured: docs/platforms.md#measured-thread-priority; the pacer's own figures:
// README.md#thread-priority-beside-busy-threads).
//
// The modes:
//   normal  the thread's own class, never changed (default).
//   wait    raised right before the OS sleep of each wait, put back just before the deadline, at
//           the end of the spin: as far ahead of it as the put-back's system call takes (learned),
//           so that the caller's median is not moved. The frame's work always runs at the
//           thread's own class. Nothing is raised for a wait that is spun whole. Why there: Linux
//           reschedules a thread the moment it leaves a real-time class, and while it then spins
//           at its own class the busy threads take the CPU back. Put back at the wake-up, the
//           raise bought no better tail than normal; put back after the deadline, the call moved
//           every frame's median; put back as done here, the median stays where a spin's is and
//           the tail shrinks (measured: docs/platforms.md#measured-thread-priority). Its limit is
//           the put-back itself, a system call that at times takes far longer than at its median
//           (bench/bench_priority_calls.cpp), paid on every frame just before its deadline:
//           beside busy threads it cuts the lateness tail, but on an idle machine it is worse
//           than normal (README.md#thread-priority-beside-busy-threads).
//   thread  raised at the first wait and kept (the host's choice, e.g. a dedicated render or
//           pacing thread), until the setting changes, the time source changes, or the owner
//           ends: FramePacer::end_pacing() and its destructor put the thread back. No call per
//           frame: beside busy threads its interval error stays in microseconds where
//           preciseSleep's reaches milliseconds, at a fraction of preciseSleep's CPU, and idle it
//           is no worse than the normal pacer (README.md#thread-priority-beside-busy-threads).
//           Its spins, and the frame's work, run raised: a frame that computes long beside a busy
//           system takes the CPU from normal threads (the kernel's real-time throttling did not
//           help a busy thread pinned to the same core while a raised waiter spun whole waits:
//           tests/priority/priority_check.cpp, docs/platforms.md#thread-priority). On Linux
//           RLIMIT_RTTIME (RealtimeKit sets one: 200 ms by default) makes the kernel kill a
//           real-time thread that runs that long without blocking.
//
// Per OS (pacer/src/platform/<os>/platform.cpp):
//   Linux    sched_setscheduler(SCHED_FIFO, or SCHED_RR with round_robin, at realtime_priority,
//            | SCHED_RESET_ON_FORK: a child process never inherits the class). Allowed for root,
//            with CAP_SYS_NICE, or up to RLIMIT_RTPRIO (limits.conf `rtprio`, systemd
//            LimitRTPRIO=); a priority above RLIMIT_RTPRIO is granted at RLIMIT_RTPRIO. Where the
//            process may not, the reason and the remedy are reported. A desktop user without
//            either can get SCHED_RR from RealtimeKit over D-Bus, as SDL's
//            SDL_SetThreadPriority(SDL_THREAD_PRIORITY_TIME_CRITICAL) does: call it on the
//            pacing thread before pacing, and ThreadPriority::normal keeps what it granted.
//   Windows  wait: SetThreadPriority(THREAD_PRIORITY_TIME_CRITICAL) for the sleep and the spin,
//            then the old priority back. thread: the thread joins MMCSS's "Games" task (avrt.dll, loaded at run
//            time; AvSetMmThreadCharacteristicsW) and runs at THREAD_PRIORITY_TIME_CRITICAL
//            until put back (AvRevertMmThreadCharacteristics, the old priority). No privilege is
//            needed for either.
//   macOS    the time-constraint policy (THREAD_TIME_CONSTRAINT_POLICY): period = the wait's
//            length, computation = min(period / 2, 2 ms), constraint = period, preemptible; put back with
//            THREAD_STANDARD_POLICY. No privilege is needed. Written to Apple's documented contract
//            and compiled where a macOS toolchain exists; this project's CI has none.
//
// Which to pick. normal stays the default: raising a thread is the host's decision about its
// whole process (the class outranks every normal thread of the machine), and wait, the mode that
// leaves the frame's work alone, costs an idle machine more than it gains (above). Pick thread
// for a thread that paces and whose frames are short next to the period (a render or pacing
// thread of its own): the tail beside busy threads drops from milliseconds to microseconds. Pick
// wait where the frame's work must stay at the thread's own class and the machine is loaded.
//
// Never an error for the game: a refused raise leaves the thread as it was, pacing goes on as
// with normal, the reason is logged once (pacer/log.hpp) and kept in PriorityStatus; the waiter
// does not ask again until the setting or the time source changes (no system call per frame for
// a raise that cannot succeed).
//
// Thread safety: a raise acts on the calling thread, which must be the thread that waits (every
// FramePacer and HybridWaiter member is called from one thread). probe_priority(): any thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace pacer {

enum class ThreadPriority : std::uint8_t {
    normal,     // the thread's own class, never changed
    wait,       // real-time for each OS sleep and its spin, put back just before the deadline
    thread,     // real-time from the first wait, kept until put back
    high,       // a weight within the normal class from the first wait, kept until put back
    automatic,  // the default: high where the OS grants it unasked and it is safe, else normal
};
// Its names (kThreadPriorityNames, to_string, parse_thread_priority) are in pacer/modes.hpp.

// The modes that raise the thread at its first wait and keep it raised until it is put back.
constexpr bool raised_for_good(ThreadPriority m) noexcept {
    return m == ThreadPriority::thread || m == ThreadPriority::high || m == ThreadPriority::automatic;
}

struct PriorityConfig {
    ThreadPriority mode = ThreadPriority::automatic;
    // Linux: the real-time priority, in [1, 99]. Low on purpose: above every normal thread, below
    // the audio and the compositor threads that RealtimeKit and PipeWire raise (10-20 and up) and
    // the kernel's own (50).
    int realtime_priority = 5;
    bool round_robin = false;  // Linux: SCHED_RR (time-sliced among equals) instead of SCHED_FIFO
    // Linux, high and automatic: the nice value, in [-20, -1]. -15 is where the pacer's tail beside
    // busy threads drops from milliseconds to tens of microseconds, and the lowest RealtimeKit
    // grants by default (measured: docs/platforms.md#measured-weight).
    int nice = -15;
};
constexpr bool operator==(const PriorityConfig& a, const PriorityConfig& b) noexcept {
    return a.mode == b.mode && a.realtime_priority == b.realtime_priority && a.round_robin == b.round_robin &&
           a.nice == b.nice;
}
constexpr bool operator!=(const PriorityConfig& a, const PriorityConfig& b) noexcept { return !(a == b); }

// One raise: what was granted, and what putting it back needs. Plain data (no destructor): a
// TimeSource fills it in raise_priority() and reads it back in restore_priority().
struct PriorityGrant {
    bool granted = false;
    int level = 0;                 // Linux: the real-time priority granted (RLIMIT_RTPRIO may lower it),
                                   // or the nice value granted (negative; RLIMIT_NICE may raise it)
    char in_force[64] = "normal";  // what the thread runs at while raised, e.g. "SCHED_FIFO 5"
    char reason[224] = "";         // refused: why and the remedy, one line
    std::int64_t saved[4] = {};    // the OS's old values (policy, priority, handle ...): opaque
};

// What a waiter was asked for and what is in force (WaiterStatus::priority).
struct PriorityStatus {
    ThreadPriority asked = ThreadPriority::normal;
    bool granted = false;    // the last raise was granted (wait: each sleep is raised; thread: now)
    bool refused = false;    // the last raise was refused: reason says why, and no raise is tried
                             // again until the setting or the time source changes
    bool raised_now = false;  // the thread runs raised at this moment (thread mode, granted)
    char in_force[64] = "normal";  // the class the wait's sleep (wait) or the thread (thread) runs at
    char reason[224] = "";         // refused: why and the remedy, one line
    std::uint64_t raises = 0;      // raises granted so far (wait mode: one per OS sleep)
};

// Raises the calling thread as c asks (mode thread or wait alike: once), then puts it back, and
// says what was granted: for `pacer probe`, a settings screen or a launcher's diagnostics.
// Nothing is left changed. The real OS only.
PriorityGrant probe_priority(const PriorityConfig& c = {ThreadPriority::wait}) noexcept;

}  // namespace pacer
