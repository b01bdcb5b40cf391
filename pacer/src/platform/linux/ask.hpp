// Linux: what pacer's helper thread asks RealtimeKit or the Realtime portal for (bus.hpp), off
// the frame path: a real-time class for a pacing thread (with RLIMIT_RTTIME lowered first to
// what RealtimeKit demands), else, for automatic or where only the weight is wanted, the weight.
//
//   AskInput in;                       // who, with which setting, what is wanted
//   in.pid = getpid(); in.tid = tid; in.config = c; in.want = Want::realtime;
//   const AskResult r = do_ask(in);    // blocks for the D-Bus round trips (kAskTimeoutMs each)
//   if (!r.realtime && !r.weight) log(r.error);
//
// Used by watchdog.cpp alone; no state of its own, thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "pacer/priority.hpp"
#include "platform/linux/bus.hpp"

namespace pacer::platform::watchdog {

// One D-Bus round trip's bound. RealtimeKit asks polkit before it answers: 5-40 ms here, more on
// a desktop whose polkit agent is slow to start; off the frame path, a second costs nothing.
constexpr int kAskTimeoutMs = 1000;

enum class Want : std::uint8_t { realtime, weight };

struct AskInput {
    pid_t pid = 0, tid = 0;
    PriorityConfig config{};
    Want want = Want::realtime;
    bool automatic = false, weight_held = false, reraise = false;
    int level = 0;
    // Called while the real-time request's answer is on its way (the service raises the thread
    // before it answers: the caller guards it from then on, and may put it back before the
    // answer comes); *raised_meanwhile says the caller saw the thread real-time meanwhile (a yes
    // then counts though the class reads its own again).
    bus::Waiting while_asking{};
    const bool* raised_meanwhile = nullptr;
    // The watcher's own thread (0: none), asked for one level above the thread first, once the
    // limits are read and RLIMIT_RTTIME lowered: it must not be kept off a CPU by the thread it
    // watches while the answer for that thread is on its way.
    pid_t watcher_tid = 0;
};

struct AskResult {
    bool realtime = false, weight = false;
    bus::Via via = bus::Via::none;
    int level = 0;  // the real-time priority or the nice value granted
    int watcher_level = 0;  // the real-time priority granted to watcher_tid (0: none)
    char error[240] = "";
};

// The ask: the real-time class where wanted (its priority clamped to what the service allows;
// a raise again asks at the level granted before, without reading the limits again), else the
// weight where wanted or where automatic holds none yet (nice clamped to MinNiceLevel).
AskResult do_ask(const AskInput& in) noexcept;

// Whether the thread runs in a real-time class now.
bool realtime_now(pid_t tid) noexcept;

}  // namespace pacer::platform::watchdog
