// Linux: the process's one helper thread for thread priority, and the grants it holds.
//
// Two jobs that must stay off the frame path, done by one thread per process (started at the
// first need, idle on a condition variable when it has none):
//   * asking RealtimeKit or the Realtime portal (bus.hpp) to raise a pacing thread, which takes
//     D-Bus round trips of milliseconds to a second: the pacing thread goes on at what it has,
//     and picks the answer up at a later wait (refresh());
//   * the real-time guard (pacer/guard.hpp): every half of the one-frame bound (25 ms by
//     default) while a thread pacer raised to a real-time class is watched, it reads that
//     thread's CPU clock and its sleep counter, puts it back to its own class when a rule is
//     broken (sched_setscheduler on its thread id, from here: the frame that broke it may never
//     come back to a wait) and raises it again after the calm run, itself where the process may
//     (the OS granted it) or by asking RealtimeKit or the portal again.
// The pacing thread's part is cheap: two atomic increments and one thread-CPU clock read around
// each OS sleep (sleep_begins/sleep_ends), an atomic load at each wait (refresh), the mutex only
// when something changed.
//
// Not after fork(): the child has no helper thread; a record made in the parent is dropped by
// pid. pacer's classes are SCHED_RESET_ON_FORK, so a child starts at the default class anyway.
#pragma once

#include <chrono>

#include "pacer/priority.hpp"

namespace pacer::platform::watchdog {

// A thread's own class: what putting it back restores.
struct Own {
    int policy = 0;  // with SCHED_RESET_ON_FORK as it was
    int priority = 0;
    int nice = 0;
};
Own own_class() noexcept;  // the calling thread's

// The calling thread, raised to a real-time class by the process's own right (g granted by the
// OS): the guard watches it from now. Returns g with the watch in it.
PriorityGrant watch_raised(PriorityGrant g, const PriorityConfig& c, std::chrono::nanoseconds period,
                           const Own& own) noexcept;
// The calling thread may not raise itself as c asks: the helper thread asks RealtimeKit or the
// portal for it (the real-time class for thread and automatic, automatic's weight after a
// refusal; the weight for high). in_force: what the thread has meanwhile (automatic: the weight
// setpriority() granted, or nothing); refused: why the process could not raise itself.
// Returns a pending grant (granted as in_force says until the answer comes).
PriorityGrant ask(const PriorityConfig& c, std::chrono::nanoseconds period, const Own& own,
                  const PriorityGrant& in_force, const char* refused) noexcept;
// Whether D-Bus asks are possible in this build (the headers were found at build time).
bool can_ask() noexcept;
// A grant that is watched (made by watch_raised or ask): refresh and release take it.
bool watched(const PriorityGrant& g) noexcept;
// What the grant has become since the last call (true: changed); on the watched thread.
bool refresh(PriorityGrant& g, std::chrono::nanoseconds period) noexcept;
// Puts the watched thread back to its own class and forgets it; an answer still to come is
// undone when it comes. On the watched thread.
void release(const PriorityGrant& g) noexcept;

// Around the calling thread's OS sleep: nothing unless it is watched.
void sleep_begins() noexcept;
void sleep_ends() noexcept;

// probe_priority()'s answer for what ask() would do, on the calling thread and at once: asks,
// waits for the answer, and puts the thread back. Sets RLIMIT_RTTIME as a real-time ask needs.
PriorityGrant probe_ask(const PriorityConfig& c, const PriorityGrant& in_force, const char* refused) noexcept;

}  // namespace pacer::platform::watchdog
