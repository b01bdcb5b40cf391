// Internal to pacer: the Windows backend's sleep ladder, and the seam its tests use.
//
// sleep_until() on Windows uses the best of three rungs that works on the calling thread:
//   hrtimer  a waitable timer created with CREATE_WAITABLE_TIMER_HIGH_RESOLUTION (Windows 10
//            1803+): fine-grained wake-ups without changing the global timer resolution;
//   timer    a classic waitable timer, with timeBeginPeriod(wPeriodMin of timeGetDevCaps, 1 ms on
//            every PC) held while the thread paces;
//   sleep    Sleep(whole ms, rounded up), with the same timeBeginPeriod.
// A rung that fails (timer not created, SetWaitableTimer or the wait failing) drops the thread to
// the next one; each kind of failure is logged once per process and never reaches the caller.
// A refused timeBeginPeriod keeps the rung at the OS's default resolution (coarser wake-ups,
// which the hybrid waiter's learned margin absorbs) and is logged once.
//
// The ladder starts at the "preferred" rung: hrtimer, or what the environment variable
// PACER_WIN_SLEEP says ("hrtimer", "timer", "sleep"; read once), or what set_preferred_rung()
// set last. Threads re-choose at their next sleep or begin_pacing() after a change.
//
// The OS-call hooks below also cover the thread priority calls (raise_priority() and
// restore_priority() in platform.hpp), so that a test can refuse them.
//
// None of this is public API: the header lives under src/ and only the Windows backend and
// tests/windows_platform_test.cpp include it.
#pragma once

#include <cstdint>

#include "pacer/names.hpp"

namespace pacer::platform::windows {

enum class Rung : int { hrtimer = 0, timer = 1, sleep = 2 };
inline constexpr EnumName<Rung> kRungNames[] = {
    {Rung::hrtimer, "hrtimer"}, {Rung::timer, "timer"}, {Rung::sleep, "sleep"},
};
inline const char* to_string(Rung rung) noexcept { return name_of(kRungNames, rung); }
// "hrtimer", "timer", "sleep"; false (and *out untouched) for anything else.
inline bool parse_rung(const char* text, Rung* out) noexcept { return parse_name(kRungNames, text, out); }

// The rung every thread starts its ladder from. Takes effect at each thread's next sleep or
// begin_pacing(); a thread that is pacing keeps its timeBeginPeriod request paired.
void set_preferred_rung(Rung rung) noexcept;
// Back to PACER_WIN_SLEEP, or hrtimer when it is not set.
void reset_preferred_rung() noexcept;
Rung preferred_rung() noexcept;

// The calling thread's state; chooses its rung first if it has not done so yet.
struct ThreadState {
    Rung rung = Rung::sleep;    // rung in use
    Rung preferred = Rung::hrtimer;  // rung the ladder started from
    bool period_held = false;   // this thread holds a timeBeginPeriod request
    unsigned period_ms = 0;     // ... of this many ms
    int pacing_depth = 0;       // begin_pacing() nesting
};
ThreadState thread_state() noexcept;

// Process-wide counts since start (never reset), for tests: pairing of the global timer
// resolution requests and the fallbacks taken.
struct Counters {
    std::int64_t period_begins = 0;    // successful timeBeginPeriod calls
    std::int64_t period_ends = 0;      // timeEndPeriod calls releasing them
    std::int64_t period_refusals = 0;  // timeBeginPeriod calls that failed
    std::int64_t timer_fallbacks = 0;  // a timer could not be created or failed; next rung taken
};
Counters counters() noexcept;

// The OS calls that can fail, replaceable so that a test can count them or make them fail.
// A null member means the real call. Install only while no other thread sleeps through pacer.
struct OsHooks {
    // CreateWaitableTimerExW(nullptr, nullptr, flags, TIMER_ALL_ACCESS); null = failed.
    void* (*create_timer)(unsigned long flags) = nullptr;
    // SetWaitableTimer(timer, relative due time in 100 ns units (> 0)); false = failed.
    bool (*set_timer)(void* timer, std::int64_t due_100ns) = nullptr;
    // timeBeginPeriod / timeEndPeriod; 0 (TIMERR_NOERROR) = success.
    unsigned (*time_begin_period)(unsigned ms) = nullptr;
    unsigned (*time_end_period)(unsigned ms) = nullptr;
    // The thread priority calls (pacer/priority.hpp), all on the calling thread.
    // SetThreadPriority(GetCurrentThread(), priority); false = failed, GetLastError() says why.
    bool (*set_thread_priority)(int priority) = nullptr;
    // AvSetMmThreadCharacteristicsW(task, task_index) of avrt.dll; replaces loading avrt.dll too.
    // Null = failed, GetLastError() says why.
    void* (*mmcss_join)(const wchar_t* task, unsigned long* task_index) = nullptr;
    // AvRevertMmThreadCharacteristics(handle); false = failed.
    bool (*mmcss_leave)(void* handle) = nullptr;
};
void set_os_hooks(const OsHooks* hooks) noexcept;  // nullptr: the real OS

// Lets the once-per-process log messages be logged again (a test that checks the message).
void reset_log_once() noexcept;

}  // namespace pacer::platform::windows
