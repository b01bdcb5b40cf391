// pacer/time_source.hpp - the seam between pacing logic and the operating system.
//
//   TimeSource            the seam: now, sleep_until, relax, cpu_times, begin/end_pacing,
//                         raise/refresh/restore_priority
//   CpuTimes              process and thread CPU time, std::chrono::nanoseconds (-1 ns: unknown)
//   system_time_source()  the real OS; process-wide, any thread
//   PacingScope           RAII begin_pacing / end_pacing on the calling thread
//
// Everything in pacer that reads a clock, sleeps, spins or asks for CPU time does it through a
// TimeSource. The default, system_time_source(), is the real OS (see pacer/src/platform/<os>/).
// Tests and the `simulate` tools pass a pacer::SimulatedOs (pacer/sim.hpp) instead, so the very
// same waiter and pacer code runs in virtual time, exactly and fast.
//
// Units: pacer's one time type (pacer/clock.hpp). Instants are pacer::clock::time_point, lengths
// std::chrono::nanoseconds; both hold int64 nanoseconds, so a read costs what an integer does.
// An implementation that counts in raw nanoseconds converts with clock::from_ns / clock::to_ns.
// now() of the system source is the OS monotonic clock (CLOCK_MONOTONIC on Linux,
// QueryPerformanceCounter on Windows, mach_absolute_time on macOS), the clock of
// pacer::clock::now(); on Linux and Windows that is the clock behind std::chrono::steady_clock.
//
// Thread safety: the system source is stateless and may be shared by all threads. begin_pacing()
// and end_pacing() act on the calling thread. A SimulatedOs is single-threaded.
#pragma once

#include <chrono>
#include <cstddef>

#include "pacer/clock.hpp"
#include "pacer/priority.hpp"

namespace pacer {

// CPU time consumed so far, user + system; -1 ns (a negative count) where the OS cannot tell.
struct CpuTimes {
    std::chrono::nanoseconds process{-1};  // all threads of this process
    std::chrono::nanoseconds thread{-1};   // the calling thread only
};

class TimeSource {
public:
    virtual ~TimeSource() = default;

    // Monotonic time since an arbitrary epoch (the source's own; int64 nanoseconds).
    virtual clock::time_point now() noexcept = 0;

    // OS sleep until now() >= deadline, or a little later: the OS decides how late.
    // Returns at once for a deadline in the past. Never returns early for the system source
    // (an interrupted sleep is resumed).
    virtual void sleep_until(clock::time_point deadline) noexcept = 0;

    // One iteration of a spin-wait: a CPU pause hint (x86 PAUSE, ARM YIELD). Costs tens of ns.
    virtual void relax() noexcept = 0;

    virtual CpuTimes cpu_times() noexcept = 0;

    // Called around a stretch of pacing on the calling thread; nestable (reference counted).
    // Linux: lowers the thread's timer slack to 1 ns (PR_SET_TIMERSLACK) and restores it at the
    // outermost end_pacing(). Windows: holds timeBeginPeriod when the thread's sleep rung needs
    // it (not with a high-resolution waitable timer); see docs/platforms.md.
    virtual void begin_pacing() noexcept {}
    virtual void end_pacing() noexcept {}

    // Which OS wait primitive sleep_until() uses, e.g. "clock_nanosleep(CLOCK_MONOTONIC,
    // TIMER_ABSTIME)"; for display and logs. Static storage, never null.
    virtual const char* sleep_primitive() const noexcept = 0;

    // Raises the calling thread's scheduling class as c asks (pacer/priority.hpp; the waiter
    // decides when, and c.mode says for how long: Windows joins MMCSS for ThreadPriority::thread
    // alone), for a wait of about `period`. Refused: granted false,
    // the thread unchanged, reason filled in. The default refuses: a source of its own sets no
    // priorities unless it says how.
    virtual PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept {
        (void)c;
        (void)period;
        PriorityGrant g;
        const char why[] = "this time source does not set thread priorities";
        for (std::size_t i = 0; i < sizeof why; ++i) g.reason[i] = why[i];
        return g;
    }
    // What a grant that comes later or is watched has become: called by the waiter at each wait
    // while it holds a grant (granted or pending), on the raised thread. Returns true when the
    // grant changed since the last call (an answer came from RealtimeKit or the portal, the
    // real-time guard put the thread back or raised it again), and grant then says what is in
    // force; false, and grant unchanged, otherwise. `period` is the frame period now. Must be
    // cheap: no system call unless something changed. The default: nothing ever changes.
    virtual bool refresh_priority(PriorityGrant& grant, std::chrono::nanoseconds period) noexcept {
        (void)grant;
        (void)period;
        return false;
    }
    // Puts back what raise_priority() changed, on the same thread: a granted raise, and a
    // pending one (an answer that comes after is undone).
    virtual void restore_priority(const PriorityGrant& grant) noexcept { (void)grant; }
};

// The real operating system. A process-wide object; never null.
TimeSource& system_time_source() noexcept;

// RAII for TimeSource::begin_pacing()/end_pacing() on the calling thread. Use it around a loop of
// pacer::sleep_until() calls to pay the timer-slack system calls once instead of per call.
class PacingScope {
public:
    explicit PacingScope(TimeSource& ts = system_time_source()) noexcept : ts_(ts) {
        ts_.begin_pacing();
    }
    ~PacingScope() { ts_.end_pacing(); }
    PacingScope(const PacingScope&) = delete;
    PacingScope& operator=(const PacingScope&) = delete;

private:
    TimeSource& ts_;
};

}  // namespace pacer
