// Linux: a thread raised by whoever grants it to an unprivileged desktop user, over D-Bus.
//
// A desktop login has RLIMIT_RTPRIO 0 and RLIMIT_NICE 0: the process may raise none of its
// threads itself. Two services raise them for it on request: RealtimeKit (rtkit-daemon, on the
// system bus, org.freedesktop.RealtimeKit1, allowed by polkit) and the xdg Realtime portal
// (org.freedesktop.portal.Realtime on the session bus: xdg-desktop-portal, which maps a sandboxed
// process's ids and forwards to RealtimeKit). Both take MakeThreadRealtimeWithPID(t process,
// t thread, u priority) and MakeThreadHighPriorityWithPID(t process, t thread, i priority) and
// expose MaxRealtimePriority (i), MinNiceLevel (i), RTTimeUSecMax (x). As SDL
// (SDL_threadprio.c) does, the portal is asked first whenever it answers a property query, else
// RealtimeKit.
//
//   const bus::Limits l = bus::read_limits(500);      // who answers, and what it allows
//   rlimit rt{200000, 200000};                         // RealtimeKit refuses a process whose
//   setrlimit(RLIMIT_RTTIME, &rt);                     // RLIMIT_RTTIME hard limit is above
//                                                      // RTTimeUSecMax: the caller sets it first
//   const bus::Answer a = bus::make_realtime(getpid(), gettid(), 10, 500);
//   if (!a.granted) log(a.error);                      // one line: what was tried, why it failed
//
// No link dependency: libdbus-1.so.3 is loaded at the first call (dlopen) and its functions
// found with dlsym; <dbus/dbus.h> is used at compile time only, for types and constants. Built
// without those headers (PACER_HAVE_DBUS_HEADERS unset), every call answers unreachable, "built
// without D-Bus headers". Each call opens private connections of its own and closes them before
// it returns: the host's own libdbus use (SDL's) is never touched, and a bus that goes away
// cannot end the process (dbus_bus_get's shared connection would: exit on disconnect).
//
// Cost: a connection to each bus asked (its authentication and its Hello, each bounded by
// timeout_ms), then one round trip per property or request, each bounded by timeout_ms: about 2
// ms in all when the services answer. Meant for a helper thread, never a frame. No output: the
// caller logs. Thread-safe.
#pragma once

#include <cstdint>

namespace pacer::platform::bus {

enum class Via : std::uint8_t { none, portal, realtimekit };
const char* to_string(Via v) noexcept;  // "", "the Realtime portal", "RealtimeKit"

struct Answer {
    bool granted = false;     // the service said yes (the thread's class was changed by it)
    bool unreachable = false; // no libdbus, no bus, or no service answered: nothing was asked
                              // (also when the portal answers that RealtimeKit is not there: via
                              // is then the portal)
    Via via = Via::none;      // who answered (the grantor when granted)
    char error[240] = "";     // not granted: one line, what was tried and why it failed, with the
                              // D-Bus error name and message when there is one
};

struct Limits {
    bool known = false;              // all three read from one service
    Via via = Via::none;             // which one (where the portal answers zeros, having found
                                     // no RealtimeKit when it started, RealtimeKit is asked)
    int max_realtime_priority = 0;   // the highest SCHED_RR priority it grants (RealtimeKit: 20)
    int min_nice_level = 0;          // the lowest nice value it grants (RealtimeKit: -15)
    long long rttime_usec_max = 0;   // us: the RLIMIT_RTTIME hard limit it requires at most
    char error[240] = "";            // not known: why, as Answer::error
};

// Called as a request goes and about every `every_ms` while its answer is on its way, on the
// calling thread: RealtimeKit changes the thread's class before it answers, and the answer may
// come late (a loaded machine: 100 ms and more), so the caller watches the thread meanwhile.
struct Waiting {
    void (*look)(void* ctx) = nullptr;
    void* ctx = nullptr;
    int every_ms = 5;
};

// Each call blocks for at most about timeout_ms per D-Bus round trip (it is called from a helper
// thread, never from a frame; below 1 counts as 1). Portal first where it answers, else
// RealtimeKit. Thread-safe: any thread, concurrently with the host's own use of libdbus (SDL's,
// for example).
Limits read_limits(int timeout_ms) noexcept;
Answer make_realtime(std::int64_t pid, std::int64_t tid, int priority, int timeout_ms,
                     const Waiting& waiting = Waiting{}) noexcept;
Answer make_high_priority(std::int64_t pid, std::int64_t tid, int nice, int timeout_ms) noexcept;

}  // namespace pacer::platform::bus
