// Windows backend.
//
// Implemented: QueryPerformanceCounter clock (the clock, and the epoch, behind
// std::chrono::steady_clock in libstdc++/winpthreads and in MSVC's STL); absolute sleeps through a
// three-rung ladder (sleep_ladder.hpp: high-resolution waitable timer -> timeBeginPeriod +
// waitable timer -> timeBeginPeriod + Sleep); YieldProcessor spin; GetProcessTimes /
// GetThreadTimes CPU time (updated per scheduler tick by Windows, so short intervals read coarse).
//
// Sleeping is relative on Windows (an absolute due time of SetWaitableTimer is on the adjustable
// wall clock), so sleep_until() loops: compute what is left on the QPC clock, wait that long,
// re-check. A timer that fires early, or a Sleep that returns a tick short, therefore never makes
// the call return before its deadline.
//
// Global side effect: timeBeginPeriod raises the timer resolution of the whole system (Windows
// 10 2004+: of this process). It is requested only while a thread paces on a rung that needs it
// (begin_pacing() .. end_pacing(), reference counted per thread) and always released with the
// matching timeEndPeriod, also when the ladder changes rung mid-pacing or the thread exits.
// The hrtimer rung never requests it.
//
// Thread priority (pacer/priority.hpp): SetThreadPriority(THREAD_PRIORITY_TIME_CRITICAL) on the
// calling thread, and in thread mode MMCSS's "Games" task as well (avrt.dll, loaded at run time).
// Neither needs a privilege; restore_priority() puts back the priority read just before.
//
// Built with mingw-w64 and tested under Wine in CI (tests/windows_platform_test.cpp,
// docs/platforms.md); it is expected to behave the same with MSVC.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <mmsystem.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "platform/platform.hpp"
#include "base/log_internal.hpp"
#include "platform/windows/sleep_ladder.hpp"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

namespace pacer::platform {
namespace windows {
namespace {

// ---------------------------------------------------------------------------------------------
// OS calls behind the test hooks

std::atomic<const OsHooks*> g_hooks{nullptr};

HANDLE create_timer(DWORD flags) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    if (h && h->create_timer) return static_cast<HANDLE>(h->create_timer(flags));
    return CreateWaitableTimerExW(nullptr, nullptr, flags, TIMER_ALL_ACCESS);
}

bool set_timer(HANDLE timer, std::int64_t due_100ns) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    if (h && h->set_timer) return h->set_timer(timer, due_100ns);
    LARGE_INTEGER due{};
    due.QuadPart = -static_cast<LONGLONG>(due_100ns);  // negative: relative to now
    return SetWaitableTimer(timer, &due, 0, nullptr, nullptr, FALSE) != 0;
}

MMRESULT time_begin_period(UINT ms) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    if (h && h->time_begin_period) return h->time_begin_period(ms);
    return timeBeginPeriod(ms);
}

MMRESULT time_end_period(UINT ms) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    if (h && h->time_end_period) return h->time_end_period(ms);
    return timeEndPeriod(ms);
}

// avrt.dll, loaded on first use and kept for the process's life. At run time, not linked: a
// system without it (a trimmed-down Windows image, a Wine prefix without it) then loses MMCSS
// only, not the start of the game. From System32 only, so that a DLL of that name in the game's folder
// is never the one loaded; LOAD_LIBRARY_SEARCH_SYSTEM32 is refused as an invalid parameter only by
// Windows 7 without KB2533623, which gets the plain search.
using AvSetMmThreadCharacteristicsWFn = HANDLE(WINAPI*)(LPCWSTR task, LPDWORD task_index);
using AvRevertMmThreadCharacteristicsFn = BOOL(WINAPI*)(HANDLE handle);

struct Avrt {
    AvSetMmThreadCharacteristicsWFn join = nullptr;
    AvRevertMmThreadCharacteristicsFn leave = nullptr;
    DWORD error = 0;           // why not, when join is null
    const char* what = "";     // ... in words: which step failed
};

// GetProcAddress returns a FARPROC; going through void(*)() keeps -Wcast-function-type quiet
// about a cast that is the documented way to use it.
template <class Fn>
Fn proc(HMODULE dll, const char* name) noexcept {
    return reinterpret_cast<Fn>(reinterpret_cast<void (*)()>(GetProcAddress(dll, name)));
}

const Avrt& avrt() noexcept {
    static const Avrt a = [] {
        Avrt r;
        HMODULE dll = LoadLibraryExW(L"avrt.dll", nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
        if (!dll && GetLastError() == ERROR_INVALID_PARAMETER) dll = LoadLibraryW(L"avrt.dll");
        if (!dll) {
            r.error = GetLastError();
            r.what = "avrt.dll not loaded";
            return r;
        }
        r.join = proc<AvSetMmThreadCharacteristicsWFn>(dll, "AvSetMmThreadCharacteristicsW");
        r.leave = proc<AvRevertMmThreadCharacteristicsFn>(dll, "AvRevertMmThreadCharacteristics");
        if (!r.join || !r.leave) {
            r.error = GetLastError();
            r.what = "avrt.dll lacks AvSetMmThreadCharacteristicsW or AvRevertMmThreadCharacteristics";
            r.join = nullptr;
            r.leave = nullptr;
        }
        return r;
    }();
    return a;
}

bool set_thread_priority(int priority) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    if (h && h->set_thread_priority) return h->set_thread_priority(priority);
    return SetThreadPriority(GetCurrentThread(), priority) != 0;
}

// Null with *what set when the thread could not join; GetLastError() then has the code.
HANDLE mmcss_join(const wchar_t* task, DWORD* task_index, const char** what) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    *what = "AvSetMmThreadCharacteristicsW failed";
    if (h && h->mmcss_join) return static_cast<HANDLE>(h->mmcss_join(task, task_index));
    const Avrt& a = avrt();
    if (!a.join) {
        *what = a.what;
        SetLastError(a.error);
        return nullptr;
    }
    return a.join(task, task_index);
}

bool mmcss_leave(HANDLE handle) noexcept {
    const OsHooks* h = g_hooks.load(std::memory_order_acquire);
    if (h && h->mmcss_leave) return h->mmcss_leave(handle);
    const Avrt& a = avrt();
    return a.leave && a.leave(handle) != 0;
}

// The finest period the machine offers; 1 ms on every PC since the 2000s. Asking for exactly
// what timeGetDevCaps reports never fails for a range reason.
UINT best_period() noexcept {
    static const UINT p = [] {
        TIMECAPS tc{};
        if (timeGetDevCaps(&tc, sizeof tc) == MMSYSERR_NOERROR && tc.wPeriodMin > 0)
            return tc.wPeriodMin;
        return UINT{1};
    }();
    return p;
}

// ---------------------------------------------------------------------------------------------
// Logging: each event at most once per process, never per frame.

enum class Event : int { chose_hrtimer, chose_timer, chose_sleep, no_hrtimer, no_timer,
                         timer_failed, period_refused, bad_env, no_mmcss, mmcss_revert_failed,
                         priority_restore_failed, count };
std::atomic<bool> g_logged[static_cast<int>(Event::count)];

bool first_time(Event e) noexcept {
    return !g_logged[static_cast<int>(e)].exchange(true, std::memory_order_relaxed);
}

#define PACER_LOG_ONCE(event, level, ...)                                 \
    do {                                                                   \
        if (first_time(event)) ::pacer::detail::log(level, __VA_ARGS__);   \
    } while (0)

// ---------------------------------------------------------------------------------------------
// Preferred rung (process-wide) and per-thread state

constexpr int kUnset = -1;
std::atomic<int> g_preferred{kUnset};
std::atomic<unsigned> g_generation{1};  // bumped when the preference changes

std::atomic<std::int64_t> g_period_begins{0}, g_period_ends{0}, g_period_refusals{0},
    g_timer_fallbacks{0};

Rung env_rung() noexcept {
    const char* v = std::getenv("PACER_WIN_SLEEP");
    Rung r = Rung::hrtimer;
    if (v && *v && !parse_rung(v, &r)) {
        PACER_LOG_ONCE(Event::bad_env, LogLevel::warn,
                 "PACER_WIN_SLEEP=%s not understood (hrtimer, timer, sleep); using hrtimer", v);
    }
    return r;
}

Rung preferred() noexcept {
    int p = g_preferred.load(std::memory_order_acquire);
    if (p == kUnset) {
        int expected = kUnset;
        g_preferred.compare_exchange_strong(expected, static_cast<int>(env_rung()));
        p = g_preferred.load(std::memory_order_acquire);
    }
    return static_cast<Rung>(p);
}

struct ThreadTimer {
    HANDLE handle = nullptr;      // waitable timer of the hrtimer and timer rungs
    Rung rung = Rung::sleep;
    Rung from = Rung::hrtimer;    // preferred rung at the last choice
    unsigned generation = 0;      // g_generation at the last choice; 0 = never chose
    int depth = 0;                // begin_pacing() nesting
    UINT period = 0;              // timeBeginPeriod held; 0 = none
    bool refused = false;         // the last timeBeginPeriod was refused

    ThreadTimer() = default;
    ThreadTimer(const ThreadTimer&) = delete;
    ThreadTimer& operator=(const ThreadTimer&) = delete;
    ~ThreadTimer() {
        close_timer();
        release_period();
    }

    void close_timer() noexcept {
        if (handle) CloseHandle(handle);
        handle = nullptr;
    }

    void release_period() noexcept {
        if (!period) return;
        time_end_period(period);
        g_period_ends.fetch_add(1, std::memory_order_relaxed);
        period = 0;
    }

    // Hold timeBeginPeriod exactly while pacing on a rung that needs it.
    void sync_period() noexcept {
        const bool need = depth > 0 && rung != Rung::hrtimer;
        if (!need) {
            release_period();
            refused = false;
            return;
        }
        if (period) return;
        const UINT p = best_period();
        if (time_begin_period(p) == TIMERR_NOERROR) {
            period = p;
            refused = false;
            g_period_begins.fetch_add(1, std::memory_order_relaxed);
        } else {
            refused = true;
            g_period_refusals.fetch_add(1, std::memory_order_relaxed);
            PACER_LOG_ONCE(Event::period_refused, LogLevel::warn,
                     "timeBeginPeriod(%u) refused: sleeping at the default timer resolution", static_cast<unsigned>(p));
        }
    }

    void choose() noexcept {
        close_timer();
        from = preferred();
        generation = g_generation.load(std::memory_order_acquire);
        Rung want = from;
        if (want == Rung::hrtimer) {
            handle = create_timer(CREATE_WAITABLE_TIMER_HIGH_RESOLUTION);
            if (handle) {
                rung = Rung::hrtimer;
            } else {
                const DWORD err = GetLastError();
                g_timer_fallbacks.fetch_add(1, std::memory_order_relaxed);
                PACER_LOG_ONCE(Event::no_hrtimer, LogLevel::info,
                         "no high-resolution waitable timer (error %lu; needs Windows 10 1803+): "
                         "falling back to timeBeginPeriod + waitable timer", static_cast<unsigned long>(err));
                want = Rung::timer;
            }
        }
        if (want == Rung::timer) {
            handle = create_timer(0);
            if (handle) {
                rung = Rung::timer;
            } else {
                const DWORD err = GetLastError();
                g_timer_fallbacks.fetch_add(1, std::memory_order_relaxed);
                PACER_LOG_ONCE(Event::no_timer, LogLevel::warn,
                         "CreateWaitableTimerExW failed (error %lu): falling back to "
                         "timeBeginPeriod + Sleep", static_cast<unsigned long>(err));
                want = Rung::sleep;
            }
        }
        if (want == Rung::sleep) rung = Rung::sleep;
        const Event chose = rung == Rung::hrtimer ? Event::chose_hrtimer
                          : rung == Rung::timer   ? Event::chose_timer
                                                  : Event::chose_sleep;
        PACER_LOG_ONCE(chose, LogLevel::debug, "Windows sleep: %s", to_string(rung));
        sync_period();
    }

    void ensure_chosen() noexcept {
        if (generation != g_generation.load(std::memory_order_acquire)) choose();
    }

    // A timer that stopped working mid-run: Sleep from now on (for this thread, until the
    // preference changes), with the resolution request that rung needs.
    void timer_failed() noexcept {
        const DWORD err = GetLastError();
        close_timer();
        rung = Rung::sleep;
        g_timer_fallbacks.fetch_add(1, std::memory_order_relaxed);
        PACER_LOG_ONCE(Event::timer_failed, LogLevel::warn,
                 "waitable timer failed (error %lu): falling back to timeBeginPeriod + Sleep", static_cast<unsigned long>(err));
        sync_period();
    }
};

// Per-thread state lives on the heap, found through a fiber-local-storage slot whose callback
// frees it (closing the timer, releasing the resolution request) when the thread exits.
// Not a thread_local object with a destructor: with mingw-w64's emulated TLS such destructors
// can run after the storage was freed (GCC PR 80816, mingw-w64 bug 527); this test suite hit
// exactly that heap corruption under Wine. The FLS callback is the OS's own mechanism.
void WINAPI free_thread_timer(void* p) noexcept { delete static_cast<ThreadTimer*>(p); }

DWORD fls_slot() noexcept {
    static const DWORD slot = FlsAlloc(free_thread_timer);
    return slot;
}

// Used only if FLS is exhausted or memory is out: trivially destructible, so safe in any TLS;
// the state then lives until the process exits (which releases a timer resolution request).
thread_local ThreadTimer* t_leaked = nullptr;

// The calling thread's state; null only when no memory could be had (sleep then uses plain
// Sleep and never holds a resolution request).
ThreadTimer* thread_timer() noexcept {
    if (t_leaked) return t_leaked;
    const DWORD slot = fls_slot();
    if (slot != FLS_OUT_OF_INDEXES) {
        if (auto* t = static_cast<ThreadTimer*>(FlsGetValue(slot))) return t;
    }
    auto* t = new (std::nothrow) ThreadTimer;
    if (!t) return nullptr;
    if (slot != FLS_OUT_OF_INDEXES && FlsSetValue(slot, t)) return t;
    t_leaked = t;
    return t;
}

std::int64_t qpc_frequency() noexcept {
    static const std::int64_t f = [] {
        LARGE_INTEGER li{};
        QueryPerformanceFrequency(&li);  // cannot fail since Windows XP
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

// The system's text for an error code, "Access is denied (error 5)", or "error 5" when it has
// none (FormatMessage fails, e.g. for a code it does not know). One line: its CR LF and final
// period are cut.
void describe_error(DWORD err, char* out, std::size_t size) noexcept {
    char text[160];
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, err,
                             MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT), text, sizeof text, nullptr);
    while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '.'))
        --n;
    if (n > 0)
        std::snprintf(out, size, "%.*s (error %lu)", static_cast<int>(n), text, static_cast<unsigned long>(err));
    else
        std::snprintf(out, size, "error %lu", static_cast<unsigned long>(err));
}

constexpr char kTimeCritical[] = "THREAD_PRIORITY_TIME_CRITICAL";
constexpr char kHighest[] = "THREAD_PRIORITY_HIGHEST";
constexpr std::int64_t kWeight = 1;    // saved[2]: a weight, saved[0] the old priority
constexpr std::int64_t kUnchanged = 2;  // saved[2]: nothing to put back

int allowed_cpus() noexcept {
    DWORD_PTR process = 0, system = 0;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &process, &system)) return 0;
    int n = 0;
    for (; process; process &= process - 1) ++n;
    return n;
}

// The weight (high, automatic): THREAD_PRIORITY_HIGHEST, two steps above the normal threads
// within the process's class. Windows runs the highest ready priority first, so one step would
// do against the engine's normal threads, but a normal thread woken from a wait is boosted a step
// or two for a while; HIGHEST stays above them and below TIME_CRITICAL (audio, MMCSS).
PriorityGrant raise_weight(const PriorityConfig& c, int old) noexcept {
    PriorityGrant g;
    char err[192];
    if (old >= THREAD_PRIORITY_HIGHEST) {  // raised by the host already
        g.granted = true;
        std::snprintf(g.in_force, sizeof g.in_force, "thread priority %d (the thread's own, kept)", old);
        g.saved[2] = kUnchanged;
        return g;
    }
    if (c.mode == ThreadPriority::automatic && allowed_cpus() < 2) {
        std::snprintf(g.reason, sizeof g.reason, "%s", kAutomaticOneCpu);
        return g;
    }
    if (!set_thread_priority(THREAD_PRIORITY_HIGHEST)) {
        describe_error(GetLastError(), err, sizeof err);
        std::snprintf(g.reason, sizeof g.reason, "%s refused: %s", kHighest, err);
        return g;
    }
    g.granted = true;
    g.saved[0] = old;
    g.saved[2] = kWeight;
    std::snprintf(g.in_force, sizeof g.in_force, "%s", kHighest);
    return g;
}

}  // namespace

void set_preferred_rung(Rung rung) noexcept {
    g_preferred.store(static_cast<int>(rung), std::memory_order_release);
    g_generation.fetch_add(1, std::memory_order_acq_rel);
}

void reset_preferred_rung() noexcept {
    g_preferred.store(static_cast<int>(env_rung()), std::memory_order_release);
    g_generation.fetch_add(1, std::memory_order_acq_rel);
}

Rung preferred_rung() noexcept { return preferred(); }

ThreadState thread_state() noexcept {
    ThreadState s;
    ThreadTimer* tp = thread_timer();
    if (!tp) return s;
    ThreadTimer& t = *tp;
    t.ensure_chosen();
    s.rung = t.rung;
    s.preferred = t.from;
    s.period_held = t.period != 0;
    s.period_ms = t.period;
    s.pacing_depth = t.depth;
    return s;
}

Counters counters() noexcept {
    Counters c;
    c.period_begins = g_period_begins.load(std::memory_order_relaxed);
    c.period_ends = g_period_ends.load(std::memory_order_relaxed);
    c.period_refusals = g_period_refusals.load(std::memory_order_relaxed);
    c.timer_fallbacks = g_timer_fallbacks.load(std::memory_order_relaxed);
    return c;
}

void set_os_hooks(const OsHooks* hooks) noexcept {
    g_hooks.store(hooks, std::memory_order_release);
}

void reset_log_once() noexcept {
    for (auto& f : g_logged) f.store(false, std::memory_order_relaxed);
}

}  // namespace windows

using windows::Rung;

clock::time_point now() noexcept {
    LARGE_INTEGER li{};
    QueryPerformanceCounter(&li);
    const std::int64_t f = windows::qpc_frequency();
    const std::int64_t c = static_cast<std::int64_t>(li.QuadPart);
    // Split so that c * 1e9 cannot overflow: (c % f) * 1e9 < f * 1e9, fine for f < 9.2 GHz.
    return clock::from_ns((c / f) * 1'000'000'000 + (c % f) * 1'000'000'000 / f);
}

void sleep_until(clock::time_point deadline_tp) noexcept {
    const std::int64_t deadline = clock::to_ns(deadline_tp);
    windows::ThreadTimer* t = windows::thread_timer();
    if (t) t->ensure_chosen();
    for (;;) {
        const std::int64_t left = deadline - clock::to_ns(now());
        if (left <= 0) return;
        if (t && t->handle) {
            if (windows::set_timer(t->handle, (left + 99) / 100) &&
                WaitForSingleObject(t->handle, INFINITE) == WAIT_OBJECT_0) {
                continue;  // re-check on the QPC clock: never return before the deadline
            }
            t->timer_failed();
        }
        // Sleep rung. Whole milliseconds rounded up: Sleep(0) for a sub-millisecond rest would
        // be a busy loop of yields inside the "OS sleep"; spinning is the hybrid waiter's job, and
        // its learned margin covers the extra fraction of a millisecond.
        const std::int64_t ms = (left + 999'999) / 1'000'000;
        Sleep(static_cast<DWORD>(ms < 0x7fff'ffff ? ms : 0x7fff'ffff));
    }
}

void relax() noexcept { YieldProcessor(); }

CpuTimes cpu_times() noexcept {
    CpuTimes c;
    FILETIME create{}, exit{}, kernel{}, user{};
    if (GetProcessTimes(GetCurrentProcess(), &create, &exit, &kernel, &user))
        c.process = std::chrono::nanoseconds(windows::filetime_ns(kernel) + windows::filetime_ns(user));
    if (GetThreadTimes(GetCurrentThread(), &create, &exit, &kernel, &user))
        c.thread = std::chrono::nanoseconds(windows::filetime_ns(kernel) + windows::filetime_ns(user));
    return c;
}

void begin_pacing() noexcept {
    windows::ThreadTimer* t = windows::thread_timer();
    if (!t || t->depth++ > 0) return;
    t->ensure_chosen();
    t->sync_period();
}

void end_pacing() noexcept {
    windows::ThreadTimer* t = windows::thread_timer();
    if (!t || t->depth <= 0 || --t->depth > 0) return;
    t->sync_period();
}

// Saved: [0] the thread's own priority, [1] the MMCSS handle (0: none taken).
//
// Both modes: THREAD_PRIORITY_TIME_CRITICAL, base priority 15 in any priority class but
// REALTIME_PRIORITY_CLASS, the top of the dynamic range: the thread is run ahead of every thread
// of a lower priority (on a desktop, nearly all of them) when its timer fires, and no privilege
// is needed. It is set first, so that a refusal leaves nothing to undo.
// Thread mode also joins MMCSS's "Games" task, the way games and audio engines ask for it: the
// Multimedia Class Scheduler then schedules the thread in that task's category (High by default),
// less the share of the CPU it keeps for other threads (SystemResponsiveness, 20 % by default).
// Not for a wait mode raise, which is put back at every wake-up: an MMCSS registration is meant
// to be held for the length of a task, not taken and dropped around each sleep. c.mode is what
// tells the two apart (a waiter raises once in thread mode, per sleep in wait mode).
static PriorityGrant raise_os(const PriorityConfig& c, std::chrono::nanoseconds) noexcept {
    PriorityGrant g;
    char err[192];
    HANDLE self = GetCurrentThread();  // a pseudo handle: nothing to close
    const int old = GetThreadPriority(self);
    if (old == THREAD_PRIORITY_ERROR_RETURN) {
        windows::describe_error(GetLastError(), err, sizeof err);
        std::snprintf(g.reason, sizeof g.reason, "%s refused: the thread's own priority could not be read (%s)",
                      windows::kTimeCritical, err);
        return g;
    }
    if (is_weight(c.mode)) return windows::raise_weight(c, old);
    if (!windows::set_thread_priority(THREAD_PRIORITY_TIME_CRITICAL)) {
        windows::describe_error(GetLastError(), err, sizeof err);
        std::snprintf(g.reason, sizeof g.reason, "%s refused: %s", windows::kTimeCritical, err);
        return g;
    }
    g.granted = true;
    g.saved[0] = old;
    std::snprintf(g.in_force, sizeof g.in_force, "%s", windows::kTimeCritical);
    if (c.mode != ThreadPriority::thread) return g;

    DWORD task_index = 0;  // 0: MMCSS picks the task's slot
    const char* what = "";
    HANDLE mm = windows::mmcss_join(L"Games", &task_index, &what);
    if (mm) {
        g.saved[1] = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(mm));
        std::snprintf(g.in_force, sizeof g.in_force, "MMCSS Games, %s", windows::kTimeCritical);
        return g;
    }
    // Still granted: the priority alone is most of what the raise buys. The in_force text has no
    // room for the reason (47 characters), so the log says it, once per process.
    windows::describe_error(GetLastError(), err, sizeof err);
    std::snprintf(g.in_force, sizeof g.in_force, "%s (no MMCSS)", windows::kTimeCritical);
    PACER_LOG_ONCE(windows::Event::no_mmcss, LogLevel::info,
                   "MMCSS unavailable (%s: %s): the pacing thread runs at %s without the \"Games\" task", what,
                   err, windows::kTimeCritical);
    return g;
}

// MMCSS first, then the old priority: the reverse order of the raise. A failure cannot be
// handed to anyone (the waiter goes on either way): logged once.
void restore_priority(const PriorityGrant& g) noexcept {
    if (!g.granted || g.saved[2] == windows::kUnchanged) return;
    char err[192];
    if (g.saved[1] != 0) {
        HANDLE mm = reinterpret_cast<HANDLE>(static_cast<std::intptr_t>(g.saved[1]));
        if (!windows::mmcss_leave(mm)) {
            windows::describe_error(GetLastError(), err, sizeof err);
            PACER_LOG_ONCE(windows::Event::mmcss_revert_failed, LogLevel::warn,
                           "AvRevertMmThreadCharacteristics failed (%s): the thread stays in MMCSS's \"Games\" task", err);
        }
    }
    const int old = static_cast<int>(g.saved[0]);
    if (!windows::set_thread_priority(old)) {
        windows::describe_error(GetLastError(), err, sizeof err);
        PACER_LOG_ONCE(windows::Event::priority_restore_failed, LogLevel::warn,
                       "SetThreadPriority(%d) failed putting the thread back (%s): it stays at %s", old, err,
                       g.saved[2] == windows::kWeight ? windows::kHighest : windows::kTimeCritical);
    }
}

const char* sleep_primitive() noexcept {
    windows::ThreadTimer* tp = windows::thread_timer();
    if (!tp) return "Sleep";
    windows::ThreadTimer& t = *tp;
    t.ensure_chosen();
    switch (t.rung) {
        case Rung::hrtimer:
            return "high-resolution waitable timer (CREATE_WAITABLE_TIMER_HIGH_RESOLUTION)";
        case Rung::timer:
            return t.period    ? "waitable timer, timeBeginPeriod"
                   : t.refused ? "waitable timer (timeBeginPeriod refused: default resolution)"
                               : "waitable timer";
        case Rung::sleep:
            return t.period    ? "Sleep, timeBeginPeriod"
                   : t.refused ? "Sleep (timeBeginPeriod refused: default resolution)"
                               : "Sleep";
    }
    return "Sleep";
}

// What was granted, and by whom: no privilege is needed here, so the OS, or the host where the
// thread had it already.
PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept {
    PriorityGrant g = raise_os(c, period);
    if (g.granted) {
        g.lever = is_weight(c.mode) ? PriorityLever::weight : PriorityLever::realtime;
        g.by = g.saved[2] == windows::kUnchanged ? PriorityGrantor::host : PriorityGrantor::os;
    }
    return g;
}

bool refresh_priority(PriorityGrant&, std::chrono::nanoseconds) noexcept { return false; }

PriorityGrant probe_priority(const PriorityConfig& c) noexcept {
    PriorityGrant g = raise_priority(c, std::chrono::milliseconds(16));
    if (g.granted) restore_priority(g);
    return g;
}

}  // namespace pacer::platform
