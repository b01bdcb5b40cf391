// Windows backend.
//
// Clock: QueryPerformanceCounter (the clock behind std::chrono::steady_clock).
//
// Sleep, a ladder from best to worst, chosen once per thread and logged once per process:
//   1. a high-resolution waitable timer (CreateWaitableTimerExW with
//      CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, Windows 10 1803+): ~0.5 ms wake-up accuracy
//      without touching the global timer resolution (seed 002);
//   2. timeBeginPeriod(best period from timeGetDevCaps, normally 1 ms) + a classic waitable timer;
//   3. timeBeginPeriod + Sleep(ms), rounded down so the spin covers the rest.
// The timer resolution request of rungs 2-3 is held only between begin_pacing() and end_pacing()
// (reference counted per thread) and always released with the matching timeEndPeriod().
//
// Tests force a rung with the PACER_WIN_SLEEP environment variable ("hrtimer", "timer", "sleep")
// so that every rung runs under Wine in CI.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#include <timeapi.h>

#include <cstdlib>
#include <cstring>

#include "../platform.hpp"
#include "pacer/log.hpp"

#include <spdlog/spdlog.h>

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

namespace pacer::platform {
namespace {

enum class Rung { hrtimer, timer, sleep };

std::int64_t qpc_frequency() noexcept {
    static const std::int64_t f = [] {
        LARGE_INTEGER li{};
        QueryPerformanceFrequency(&li);
        return li.QuadPart > 0 ? static_cast<std::int64_t>(li.QuadPart) : std::int64_t{1};
    }();
    return f;
}

std::int64_t filetime_ns(const FILETIME& ft) noexcept {
    ULARGE_INTEGER u{};
    u.LowPart = ft.dwLowDateTime;
    u.HighPart = ft.dwHighDateTime;
    return static_cast<std::int64_t>(u.QuadPart) * 100;
}

Rung forced_rung(bool* forced) noexcept {
    *forced = false;
    const char* v = std::getenv("PACER_WIN_SLEEP");
    if (!v) return Rung::hrtimer;
    *forced = true;
    if (std::strcmp(v, "timer") == 0) return Rung::timer;
    if (std::strcmp(v, "sleep") == 0) return Rung::sleep;
    return Rung::hrtimer;
}

UINT best_period() noexcept {
    TIMECAPS tc{};
    if (timeGetDevCaps(&tc, sizeof tc) == MMSYSERR_NOERROR && tc.wPeriodMin > 0) return tc.wPeriodMin;
    return 1;
}

void log_once(Rung r) noexcept {
    static volatile LONG logged = 0;
    if (InterlockedExchange(&logged, 1) != 0) return;
    if (auto lg = pacer::logger()) {
        const char* what = r == Rung::hrtimer ? "high-resolution waitable timer"
                         : r == Rung::timer   ? "timeBeginPeriod + waitable timer"
                                              : "timeBeginPeriod + Sleep";
        lg->info("Windows sleep uses {}", what);
    }
}

struct ThreadTimer {
    HANDLE handle = nullptr;
    Rung rung = Rung::sleep;
    bool chosen = false;
    int depth = 0;
    UINT period = 0;  // timeBeginPeriod held, 0 = none

    void choose() noexcept {
        chosen = true;
        bool forced = false;
        Rung want = forced_rung(&forced);
        if (want == Rung::hrtimer) {
            handle = CreateWaitableTimerExW(nullptr, nullptr, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                            TIMER_ALL_ACCESS);
            if (handle) { rung = Rung::hrtimer; log_once(rung); return; }
            want = Rung::timer;
        }
        if (want == Rung::timer) {
            handle = CreateWaitableTimerExW(nullptr, nullptr, 0, TIMER_ALL_ACCESS);
            if (handle) { rung = Rung::timer; log_once(rung); return; }
        }
        rung = Rung::sleep;
        log_once(rung);
    }
    ~ThreadTimer() {
        if (handle) CloseHandle(handle);
        if (period) timeEndPeriod(period);
    }
};

thread_local ThreadTimer t_timer;

}  // namespace

std::int64_t now_ns() noexcept {
    LARGE_INTEGER li{};
    QueryPerformanceCounter(&li);
    const std::int64_t f = qpc_frequency();
    const std::int64_t c = static_cast<std::int64_t>(li.QuadPart);
    return (c / f) * 1'000'000'000 + (c % f) * 1'000'000'000 / f;
}

void sleep_until_ns(std::int64_t deadline) noexcept {
    ThreadTimer& t = t_timer;
    if (!t.chosen) t.choose();
    for (;;) {
        const std::int64_t left = deadline - now_ns();
        if (left <= 0) return;
        if (t.rung != Rung::sleep && t.handle) {
            LARGE_INTEGER due{};
            due.QuadPart = -static_cast<LONGLONG>((left + 99) / 100);  // relative, 100 ns units
            if (SetWaitableTimer(t.handle, &due, 0, nullptr, nullptr, FALSE) &&
                WaitForSingleObject(t.handle, INFINITE) == WAIT_OBJECT_0) {
                continue;  // re-check: never return before the deadline
            }
            // The timer failed: drop to the last rung for this thread, logged once.
            CloseHandle(t.handle);
            t.handle = nullptr;
            t.rung = Rung::sleep;
            if (auto lg = pacer::logger()) lg->warn("waitable timer failed, using Sleep");
        }
        const DWORD ms = static_cast<DWORD>(left / 1'000'000);
        Sleep(ms);  // Sleep(0) yields; the loop re-checks the time
    }
}

void relax() noexcept { YieldProcessor(); }

CpuTimes cpu_times() noexcept {
    CpuTimes c;
    FILETIME create{}, exit{}, kernel{}, user{};
    if (GetProcessTimes(GetCurrentProcess(), &create, &exit, &kernel, &user))
        c.process_ns = filetime_ns(kernel) + filetime_ns(user);
    if (GetThreadTimes(GetCurrentThread(), &create, &exit, &kernel, &user))
        c.thread_ns = filetime_ns(kernel) + filetime_ns(user);
    return c;
}

void begin_pacing() noexcept {
    ThreadTimer& t = t_timer;
    if (t.depth++ > 0) return;
    if (!t.chosen) t.choose();
    if (t.rung != Rung::hrtimer) {
        const UINT p = best_period();
        if (timeBeginPeriod(p) == TIMERR_NOERROR) t.period = p;
        else if (auto lg = pacer::logger()) lg->warn("timeBeginPeriod({}) refused", p);
    }
}

void end_pacing() noexcept {
    ThreadTimer& t = t_timer;
    if (t.depth <= 0 || --t.depth > 0) return;
    if (t.period) {
        timeEndPeriod(t.period);
        t.period = 0;
    }
}

const char* sleep_primitive() noexcept {
    ThreadTimer& t = t_timer;
    if (!t.chosen) t.choose();
    switch (t.rung) {
        case Rung::hrtimer: return "high-resolution waitable timer";
        case Rung::timer: return t.period ? "waitable timer, timeBeginPeriod" : "waitable timer";
        default: return t.period ? "Sleep, timeBeginPeriod" : "Sleep";
    }
}

}  // namespace pacer::platform
