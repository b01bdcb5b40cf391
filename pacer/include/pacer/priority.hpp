// pacer/priority.hpp - the pacing thread's scheduling weight or class: raised for the wait, or for good.
//
//   ThreadPriority        automatic (default), high, wait, thread, normal (names: pacer/modes.hpp)
//   PriorityConfig        when to raise; on Linux the nice value and the real-time priority
//   PriorityLever         what is in force: none, weight, realtime
//   PriorityGrantor       who granted it: os, realtimekit, portal, host
//   PriorityGrant         what one raise got, and what it takes to put it back
//   PriorityStatus        asked, in force, by whom, why not, what the guard did
//                         (WaiterStatus::priority, FramePacer::status)
//   probe_priority(c)     raises the calling thread as asked and puts it back: what this
//                         machine grants, for a probe or a settings screen
//
//   pacer::FramePacer fp;   // automatic: nothing to write
//   fp.wait();              // the modes raised for good ask at the first wait() (wait: at the
//                           // first OS sleep, which the first wait(), returning at once, has not)
//   const pacer::PriorityStatus p = fp.status().waiter.priority;
//   if (p.refused) log(p.reason);   // e.g. "SCHED_FIFO 5 and nice -15 refused: RLIMIT_RTPRIO is 0, ..."
//   else log(p.in_force);           // e.g. "SCHED_RR 5 (RealtimeKit, RLIMIT_RTTIME 200 ms)"
//
//   pacer::PacerConfig c;
//   c.waiter.priority.mode = pacer::ThreadPriority::high;   // the weight only, never real-time
//
// Why. A game's main loop sleeps beside runnable threads: its render thread, job workers, audio,
// asset streaming, other processes. When its OS sleep ends, the scheduler may run those first,
// and the wake-up comes a time slice late: milliseconds, where a frame has 7 to 17. Contention
// comes in three kinds: (1) the engine's own threads, (2) other processes of its session or
// group, (3) other groups (Linux shares the CPU between autogroups and cgroups first, then within
// each). There are three levers: a weight within the normal class, which wins against kind 1 and
// mostly 2; a real-time class around each wait; a real-time class for the thread, which wins
// against all three (measured, each kind by each mode: docs/priority.md).
//
// The modes:
//   automatic  the default: the strongest lever that is safe, from whoever grants it here.
//             Linux    in this order: a real-time class the process may take itself (root,
//                      CAP_SYS_NICE or RLIMIT_RTPRIO: SCHED_FIFO at realtime_priority); else one
//                      asked of the Realtime portal (xdg-desktop-portal, where it answers: Flatpak)
//                      or RealtimeKit (rtkit-daemon, on nearly every desktop: PipeWire and
//                      PulseAudio use it; its polkit rule lets an active session's user ask),
//                      SCHED_RR at realtime_priority; else the weight, setpriority() then the same
//                      services; else the thread's own class. The real-time class is watched by
//                      the real-time guard (below), and stands down while the machine has a CPU
//                      to spare: put back after 2 s of spare CPUs, raised again within a quarter
//                      second of none (pacer/guard.hpp has the rule). The services are asked over D-Bus by pacer's
//                      helper thread, never in a frame: the thread paces at what it has (the
//                      weight where setpriority() grants it) and takes the answer at a later
//                      wait (PriorityStatus::pending meanwhile; a second at most). A process
//                      without a bus or a daemon gets one info line, and paces as normal.
//                      libdbus-1 is loaded at run time, never linked. Kept as they are: a thread
//                      already real-time (the host, RealtimeKit through SDL). Nothing is raised
//                      on a thread that may run on one CPU only (below).
//             Windows  THREAD_PRIORITY_HIGHEST (no privilege is needed); not in a process that
//                      may run on one CPU only.
//             macOS    QOS_CLASS_USER_INTERACTIVE (no privilege is needed).
//           Windows' priorities and macOS's QoS classes rank threads across the whole machine,
//           not within a group, so the weight there covers all three kinds of contention.
//           A refusal is one info line, kept in PriorityStatus, never retried (no system call
//           per frame), and pacing is then exactly normal's.
//           Why not on one CPU: an engine that waits for its jobs by spinning (many do) would
//           keep the worker it waits for off the only CPU: beside high, such a worker kept a
//           fraction of the throughput it has beside normal (tests/priority/weight_check.cpp
//           spin-hazard, run by the test suite; measured: docs/platforms.md#measured-weight).
//   high    the weight alone, asked for: raised at the first wait and kept, and put back at
//           end_pacing(), the destructor, a new setting or a new time source. Linux: the
//           process's own right, else RealtimeKit or the portal; its refusal is a warning. Also
//           on one CPU (the caller decided). What it covers: the engine's own threads and its
//           session's processes; not other groups' processes.
//   wait    a real-time class raised right before the OS sleep of each wait and put back just
//           before the deadline, at the end of the spin: as far ahead of it as the put-back's
//           system call takes (learned), so that the caller's median is not moved. The frame's
//           work always runs at the thread's own class. Nothing is raised for a wait that is spun
//           whole. The process's own right only: a D-Bus round trip per frame cannot be. Why
//           there: Linux reschedules a thread the moment it leaves a real-time class, and while
//           it then spins at its own class the busy threads take the CPU back. Put back at the
//           wake-up, the raise bought no better tail than normal; put back after the deadline,
//           the call moved every frame's median; put back as done here, the median stays where a
//           spin's is and the tail shrinks (measured: docs/platforms.md#measured-thread-priority).
//           Its limit is the put-back itself, a system call that at times takes far longer than
//           at its median (bench/bench_priority_calls.cpp), paid on every frame just before its
//           deadline: beside busy threads it cuts the lateness tail, but on an idle machine it is
//           worse than normal.
//   thread  a real-time class raised at the first wait and kept (the host's choice, e.g. a
//           dedicated render or pacing thread), until the setting changes, the time source
//           changes, or the owner ends: FramePacer::end_pacing() and its destructor put the
//           thread back. Linux: the process's own right, else RealtimeKit or the portal, as
//           automatic; watched by the guard. Also on one CPU.
//   normal  the thread's own class, never changed.
//
// The real-time guard (Linux; pacer/guard.hpp has its rules). A real-time thread is preempted by
// no normal thread, and the kernel kills one that computes RLIMIT_RTTIME without blocking
// (RealtimeKit demands at most 200 ms): a level load in a frame would end the game, and a frame
// loop that computes through its periods would hold a core. So every real-time class pacer makes
// for good is watched, from one helper thread per process (it runs one real-time priority above
// what it watches, on any CPU): a frame that has run 50 ms of CPU without sleeping (a quarter of
// RLIMIT_RTTIME's soft limit where that is lower), or frames over 90 % of the period in CPU, and
// the thread is put back to its own class at once (or to the weight automatic held under it);
// after a calm run (2 s, doubling with each put-back) it is raised again. The kernel's RLIMIT_RTTIME
// count is followed across put-backs: it restarts only at a wake-up in a real-time class. What
// it did is in PriorityStatus (guard, demotions, pending) and the log (a warning). Tested: a
// 500 ms frame, and frames of 120 % of the period, as root and through RealtimeKit
// (tests/priority/guard_check.cpp).
//
// A raised thread's spin is bounded too (WaiterConfig::raised_spin_share, pacer/waiter.hpp): the
// busy threads it keeps from the core cannot preempt it, so a bad spell must not teach it a
// margin as long as the period.
//
// Per OS (pacer/src/platform/<os>/platform.cpp):
//   Linux    the weight: setpriority() on the thread's id (it acts on that thread alone) at
//            PriorityConfig::nice, within SCHED_OTHER, with SCHED_RESET_ON_FORK: a child process
//            starts at nice 0. Allowed for root, with CAP_SYS_NICE, or down to 20 - RLIMIT_NICE
//            (limits.conf `nice`, systemd LimitNICE=); a nice value below what the limit allows
//            is granted at the limit. Else RealtimeKit's MakeThreadHighPriorityWithPID, down to
//            its MinNiceLevel (-15 by default).
//            The real-time class: sched_setscheduler(SCHED_FIFO, or SCHED_RR with round_robin,
//            at realtime_priority, | SCHED_RESET_ON_FORK). Allowed for root, with CAP_SYS_NICE,
//            or up to RLIMIT_RTPRIO (limits.conf `rtprio`, systemd LimitRTPRIO=); a priority
//            above RLIMIT_RTPRIO is granted at RLIMIT_RTPRIO. Else (thread, automatic)
//            MakeThreadRealtimeWithPID of the portal or RealtimeKit, at most its
//            MaxRealtimePriority (20 by default), after RLIMIT_RTTIME is lowered, for the whole
//            process and for good, to at most its RTTimeUSecMax (200 ms by default): RealtimeKit
//            refuses a process without that limit. It grants SCHED_RR | SCHED_RESET_ON_FORK.
//            Where nothing is granted, the reason and the remedy are reported. The SDL2 adapter
//            (pacer/sdl2.hpp) asks RealtimeKit through SDL instead, for a host that wants SDL's
//            own policy; automatic keeps what it granted.
//   Windows  the weight: SetThreadPriority(THREAD_PRIORITY_HIGHEST), two steps above the
//            process's normal threads. One would do against them (Windows runs the highest ready
//            priority first), but a normal thread woken from a wait is boosted a step or two for
//            a while; HIGHEST stays above that and below TIME_CRITICAL (audio, MMCSS).
//            wait: SetThreadPriority(THREAD_PRIORITY_TIME_CRITICAL) for the sleep and the spin,
//            then the old priority back. thread: the thread joins MMCSS's "Games" task (avrt.dll,
//            loaded at run time; AvSetMmThreadCharacteristicsW) and runs at
//            THREAD_PRIORITY_TIME_CRITICAL until put back (AvRevertMmThreadCharacteristics, the
//            old priority). No privilege is needed for any of them. MMCSS itself keeps 20 % of
//            each CPU for other threads (SystemResponsiveness); there is no guard.
//   macOS    the weight: the QoS class QOS_CLASS_USER_INTERACTIVE (an app's main thread has it
//            already: then nothing changes). The real-time class: the time-constraint policy
//            (THREAD_TIME_CONSTRAINT_POLICY): period = the wait's length, computation =
//            min(period / 2, 2 ms), constraint = period, preemptible; put back with
//            THREAD_STANDARD_POLICY. No privilege is needed. Written to Apple's documented
//            contract and compiled where a macOS toolchain exists; this project's CI has none.
//
// Which to pick. Keep automatic: beside busy threads, processes or other programs it holds the
// interval error to microseconds where the process or the desktop grants a real-time class, and
// never at the game's expense (the guard); where only the weight is granted it covers the
// engine's own threads; where nothing is, it costs nothing. Pick high for the weight without a
// real-time class, or on one CPU; thread to be warned when the real-time class is refused, on one
// CPU, or to keep the class while CPUs are spare; wait where the frame's work must stay at the thread's own class; normal to leave the
// thread alone.
//
// Never an error for the game: a refused raise leaves the thread as it was, pacing goes on as
// with normal, the reason is logged once (pacer/log.hpp: a warning, an info line for automatic)
// and kept in PriorityStatus; the waiter does not ask again until the setting or the time source
// changes (no system call per frame for a raise that cannot succeed).
//
// Thread safety: a raise acts on the calling thread, which must be the thread that waits (every
// FramePacer and HybridWaiter member is called from one thread). probe_priority(): any thread;
// it may block for a D-Bus round trip (a second at most), so not in a frame.
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

// The modes that ask for a weight within the normal class, not a real-time class.
constexpr bool is_weight(ThreadPriority m) noexcept {
    return m == ThreadPriority::high || m == ThreadPriority::automatic;
}

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

// The lever in force (PriorityStatus::lever).
enum class PriorityLever : std::uint8_t {
    none,      // the thread's own class
    weight,    // within the normal class: a nice value (Linux), THREAD_PRIORITY_HIGHEST (Windows),
               // QOS_CLASS_USER_INTERACTIVE (macOS)
    realtime,  // a real-time class: SCHED_FIFO or SCHED_RR (Linux), MMCSS or TIME_CRITICAL
               // (Windows), the time-constraint policy (macOS)
};
// Who granted it (PriorityStatus::by).
enum class PriorityGrantor : std::uint8_t {
    none,         // nothing is granted
    os,           // the process's own right, no one asked: root, CAP_SYS_NICE, RLIMIT_RTPRIO or
                  // RLIMIT_NICE on Linux; Windows and macOS need no privilege
    realtimekit,  // RealtimeKit (rtkit-daemon, D-Bus system bus), asked by pacer
    portal,       // the Realtime portal (xdg-desktop-portal, D-Bus session bus: Flatpak), asked by pacer
    host,         // the thread had it before pacer asked (the host, or RealtimeKit through SDL): kept
};
// Their names (kPriorityLeverNames, kPriorityGrantorNames, to_string) are in pacer/modes.hpp.

// One raise: what was granted, and what putting it back needs. Plain data (no destructor): a
// TimeSource fills it in raise_priority(), may update it in refresh_priority() and reads it back
// in restore_priority().
struct PriorityGrant {
    bool granted = false;          // the thread runs raised now, as in_force says
    bool pending = false;          // more may come: an answer from RealtimeKit or the portal, or
                                   // the guard's raise again (the grant must be put back either way)
    PriorityLever lever = PriorityLever::none;
    PriorityGrantor by = PriorityGrantor::none;
    int level = 0;                 // Linux: the real-time priority granted (RLIMIT_RTPRIO may lower it),
                                   // or the nice value granted (negative; RLIMIT_NICE may raise it)
    char in_force[64] = "normal";  // what the thread runs at while raised, e.g. "SCHED_FIFO 5"
    char reason[224] = "";         // refused: why and the remedy, one line; pending: what is asked
    char guard[160] = "";          // the real-time guard's last step, e.g. why it put the thread back
    std::uint64_t demotions = 0;   // times the guard put the thread back, so far
    std::int64_t saved[4] = {};    // the OS's old values (policy, priority, handle ...): opaque
};

// What a waiter was asked for and what is in force (WaiterStatus::priority).
struct PriorityStatus {
    ThreadPriority asked = ThreadPriority::normal;
    bool granted = false;    // the last raise was granted (wait: each sleep is raised; the others: now)
    bool refused = false;    // the last raise was refused: reason says why, and no raise is tried
                             // again until the setting or the time source changes
    bool raised_now = false;  // the thread runs raised at this moment (thread, high, automatic)
    bool pending = false;     // an answer is awaited (RealtimeKit, the portal) or the guard will
                              // raise the thread again: what is in force may still change
    PriorityLever lever = PriorityLever::none;    // what is in force now
    PriorityGrantor by = PriorityGrantor::none;   // and who granted it
    char in_force[64] = "normal";  // what the wait's sleep (wait) or the thread (the others) runs at,
                                   // e.g. "nice -15", "SCHED_FIFO 5"; "normal" when refused
    char reason[224] = "";         // refused: why and the remedy, one line; pending: what is asked
    char guard[160] = "";          // the real-time guard's last step ("" while it never acted)
    std::uint64_t demotions = 0;   // times the guard put the thread back to its own class
    std::uint64_t raises = 0;      // raises granted so far (wait mode: one per OS sleep)
};

// Raises the calling thread as c asks, each mode's rules applied (wait: the process's own right;
// thread and automatic: that, else RealtimeKit or the portal, asked at once and waited for; high:
// the weight), then puts it back, and says what was granted, the lever and by whom: for
// `pacer probe`, a settings screen or a launcher's diagnostics. Nothing is left changed but
// RLIMIT_RTTIME, lowered for good where RealtimeKit was asked for a real-time class (as pacing
// would). The real OS only; may block for D-Bus round trips (a second at most each).
PriorityGrant probe_priority(const PriorityConfig& c = {ThreadPriority::wait}) noexcept;

}  // namespace pacer
