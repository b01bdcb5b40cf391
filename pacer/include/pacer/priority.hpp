// pacer/priority.hpp - the pacing thread's scheduling weight or class: raised for the wait, or for good.
//
//   ThreadPriority        automatic (default), high, wait, thread, normal (names: pacer/modes.hpp)
//   PriorityConfig        when to raise; on Linux the nice value and the real-time priority
//   PriorityGrant         what the OS granted for one raise, and what it takes to put it back
//   PriorityStatus        asked, in force, why not (WaiterStatus::priority, FramePacer::status)
//   probe_priority(c)     raises the calling thread as asked and puts it back: what this
//                         machine grants, for a probe or a settings screen
//
//   pacer::FramePacer fp;   // automatic: nothing to write
//   fp.wait();              // the modes raised for good ask at the first wait() (wait: at the
//                           // first OS sleep, which the first wait(), returning at once, has not)
//   const pacer::PriorityStatus p = fp.status().waiter.priority;
//   if (p.refused) log(p.reason);   // e.g. "nice -15 refused: RLIMIT_NICE 0 allows nothing below 0 ..."
//   else log(p.in_force);           // e.g. "nice -15"
//
//   pacer::PacerConfig c;
//   c.waiter.priority.mode = pacer::ThreadPriority::thread;   // real-time, for good
//
// Why. A game's main loop sleeps beside runnable threads: its render thread, job workers, audio,
// asset streaming, other processes. When its OS sleep ends, the scheduler may run those first,
// and the wake-up comes a time slice late: milliseconds, where a frame has 7 to 17. Contention
// comes in three kinds: (1) the engine's own threads, (2) other processes of its session or
// group, (3) other groups (Linux shares the CPU between autogroups and cgroups first, then within
// each). There are three levers: a weight within the normal class, which wins against kind 1; a
// real-time class around each wait; a real-time class for the thread, which win against all three
// (measured, each kind by each mode: README.md#thread-priority-beside-busy-threads).
//
// The modes:
//   automatic  the default. The weight (high) where the OS grants it without asking anyone and it
//           is safe, else the thread's own class, silently: a refusal is one info line, kept in
//           PriorityStatus, never retried (no system call per frame), and pacing is exactly
//           normal's. Never a real-time class: the kernel may kill a real-time thread that
//           computes too long without blocking (RLIMIT_RTTIME; a level load does). What it takes:
//             Linux    the weight when the process may lower its nice value itself (root,
//                      CAP_SYS_NICE, or RLIMIT_NICE), at PriorityConfig::nice or the lowest the
//                      limit allows; not on a thread that may run on one CPU only (below); a
//                      thread already real-time or at a lower nice value (RealtimeKit through
//                      SDL, the host) is kept as it is.
//             Windows  THREAD_PRIORITY_HIGHEST (no privilege is needed); not in a process that
//                      may run on one CPU only.
//             macOS    QOS_CLASS_USER_INTERACTIVE (no privilege is needed).
//           Why not on one CPU: an engine that waits for its jobs by spinning (many do) would
//           keep the worker it waits for off the only CPU: beside high, such a worker kept a
//           fraction of the throughput it has beside normal (tests/priority/weight_check.cpp
//           spin-hazard, run by the test suite; measured: docs/platforms.md#measured-weight).
//   high    the weight, asked for: raised at the first wait and kept, like thread, and put back
//           at end_pacing(), the destructor, a new setting or a new time source. Its refusal is a
//           warning. Also on one CPU (the caller decided). What it covers: the engine's own
//           threads and its session's processes; not other groups' processes.
//   wait    a real-time class raised right before the OS sleep of each wait and put back just
//           before the deadline, at the end of the spin: as far ahead of it as the put-back's
//           system call takes (learned), so that the caller's median is not moved. The frame's
//           work always runs at the thread's own class. Nothing is raised for a wait that is spun
//           whole. Why there: Linux reschedules a thread the moment it leaves a real-time class,
//           and while it then spins at its own class the busy threads take the CPU back. Put
//           back at the wake-up, the raise bought no better tail than normal; put back after the
//           deadline, the call moved every frame's median; put back as done here, the median
//           stays where a spin's is and the tail shrinks (measured:
//           docs/platforms.md#measured-thread-priority). Its limit is the put-back itself, a
//           system call that at times takes far longer than at its median
//           (bench/bench_priority_calls.cpp), paid on every frame just before its deadline:
//           beside busy threads it cuts the lateness tail, but on an idle machine it is worse
//           than normal (README.md#thread-priority-beside-busy-threads).
//   thread  a real-time class raised at the first wait and kept (the host's choice, e.g. a
//           dedicated render or pacing thread), until the setting changes, the time source
//           changes, or the owner ends: FramePacer::end_pacing() and its destructor put the
//           thread back. No call per frame: beside busy threads of any kind its interval error
//           stays in microseconds where preciseSleep's reaches milliseconds, at a fraction of
//           preciseSleep's CPU (README.md#thread-priority-beside-busy-threads). Its spins, and
//           the frame's work, run raised: a frame that computes long beside a busy system takes
//           the CPU from normal threads. On Linux RLIMIT_RTTIME (RealtimeKit sets one: 200 ms by
//           default) makes the kernel kill a real-time thread that runs that long without blocking.
//   normal  the thread's own class, never changed.
//
// Per OS (pacer/src/platform/<os>/platform.cpp):
//   Linux    the weight: setpriority() on the thread's id (it acts on that thread alone) at
//            PriorityConfig::nice, within SCHED_OTHER, with SCHED_RESET_ON_FORK: a child process
//            starts at nice 0. Allowed for root, with CAP_SYS_NICE, or down to 20 - RLIMIT_NICE
//            (limits.conf `nice`, systemd LimitNICE=); a nice value below what the limit allows
//            is granted at the limit. A desktop user without either gets it from RealtimeKit
//            (MakeThreadHighPriority, down to its min-nice-level, -15 by default) through SDL:
//            pacer::sdl2::request_high() on the pacing thread before pacing; automatic then keeps
//            what RealtimeKit granted.
//            The real-time class: sched_setscheduler(SCHED_FIFO, or SCHED_RR with round_robin,
//            at realtime_priority, | SCHED_RESET_ON_FORK). Allowed for root, with CAP_SYS_NICE,
//            or up to RLIMIT_RTPRIO (limits.conf `rtprio`, systemd LimitRTPRIO=); a priority
//            above RLIMIT_RTPRIO is granted at RLIMIT_RTPRIO. A desktop user without either can
//            get SCHED_RR from RealtimeKit through pacer::sdl2::request_realtime(), and
//            ThreadPriority::normal or automatic keeps what it granted.
//            Where the process may not, the reason and the remedy are reported.
//   Windows  the weight: SetThreadPriority(THREAD_PRIORITY_HIGHEST), two steps above the
//            process's normal threads. One would do against them (Windows runs the highest ready
//            priority first), but a normal thread woken from a wait is boosted a step or two for
//            a while; HIGHEST stays above that and below TIME_CRITICAL (audio, MMCSS).
//            wait: SetThreadPriority(THREAD_PRIORITY_TIME_CRITICAL) for the sleep and the spin,
//            then the old priority back. thread: the thread joins MMCSS's "Games" task (avrt.dll,
//            loaded at run time; AvSetMmThreadCharacteristicsW) and runs at
//            THREAD_PRIORITY_TIME_CRITICAL until put back (AvRevertMmThreadCharacteristics, the
//            old priority). No privilege is needed for any of them.
//   macOS    the weight: the QoS class QOS_CLASS_USER_INTERACTIVE (an app's main thread has it
//            already: then nothing changes). The real-time class: the time-constraint policy
//            (THREAD_TIME_CONSTRAINT_POLICY): period = the wait's length, computation =
//            min(period / 2, 2 ms), constraint = period, preemptible; put back with
//            THREAD_STANDARD_POLICY. No privilege is needed. Written to Apple's documented
//            contract and compiled where a macOS toolchain exists; this project's CI has none.
//
// Which to pick. Keep automatic: it covers the engine's own threads, where a game's worst
// contention usually is, at no real-time risk, and where it is not granted it costs nothing.
// Pick thread for a thread that paces and whose frames are short next to the period (a render
// or pacing thread of its own), when other processes compete too: the tail drops from
// milliseconds to microseconds whatever competes. Pick wait where the frame's work must stay at
// the thread's own class and the machine is loaded by others. Pick high to have the weight on
// one CPU, or to be warned when it is refused; normal to leave the thread alone.
//
// Never an error for the game: a refused raise leaves the thread as it was, pacing goes on as
// with normal, the reason is logged once (pacer/log.hpp: a warning, an info line for automatic)
// and kept in PriorityStatus; the waiter does not ask again until the setting or the time source
// changes (no system call per frame for a raise that cannot succeed).
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

// Raises the calling thread as c asks (thread or wait alike: the real-time class, once; high or
// automatic: the weight, automatic's rules applied), then puts it back, and says what was
// granted: for `pacer probe`, a settings screen or a launcher's diagnostics.
// Nothing is left changed. The real OS only.
PriorityGrant probe_priority(const PriorityConfig& c = {ThreadPriority::wait}) noexcept;

}  // namespace pacer
