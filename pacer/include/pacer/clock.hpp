// pacer/clock.hpp - the one clock of pacer's public API.
//
//   clock                 a std::chrono Clock: rep int64, period nano, steady
//     now()               the real OS's monotonic clock; any thread
//     from_steady, to_steady   std::chrono::steady_clock <-> pacer::clock (real OS clock only)
//     from_ns, to_ns      int64 nanoseconds <-> time_point, for the OS seam and the C API
//   to_ms, from_ms        duration <-> double milliseconds, for people and capture files
//
// Every time point pacer hands out or takes (FrameTiming::deadline and wake, PresentInfo,
// HybridWaiter::wait_until, WaitResult::end) is a pacer::clock::time_point: int64 nanoseconds on
// the clock of the TimeSource that paced it. pacer::clock meets the standard's Clock requirements,
// so durations and time points work with <chrono> as usual:
//
//   pacer::FrameTiming t = fp.wait();
//   auto since = pacer::clock::now() - t.wake;          // std::chrono::nanoseconds
//
// clock::now() reads the real OS's monotonic clock, the one system_time_source() uses
// (CLOCK_MONOTONIC on Linux, QueryPerformanceCounter on Windows, mach_absolute_time on macOS).
// A pacer built on an injected TimeSource (a SimulatedOs in tests) reports virtual time points on
// the same type; read that clock with FramePacer::now() or the TimeSource itself.
//
// Hosts that time their presents with std::chrono::steady_clock convert with from_steady(); it is
// exact where steady_clock is the same OS clock (Linux with libstdc++ or libc++) and otherwise
// goes through "time from now" on both clocks, which is off by the few tens of nanoseconds
// between two clock reads. Simpler still: time presents with pacer::clock::now() (or
// FramePacer::now()) in the first place.
#pragma once

#include <chrono>
#include <cstdint>

namespace pacer {

struct clock {
    using rep = std::int64_t;
    using period = std::nano;
    using duration = std::chrono::nanoseconds;
    using time_point = std::chrono::time_point<clock, duration>;
    static constexpr bool is_steady = true;

    // The real OS's monotonic clock.
    static time_point now() noexcept;

    // steady_clock <-> pacer::clock, for the real OS clock (see above).
    static time_point from_steady(std::chrono::steady_clock::time_point t) noexcept;
    static std::chrono::steady_clock::time_point to_steady(time_point t) noexcept;

    // For TimeSource implementations and the OS seam, which count in int64 nanoseconds.
    static constexpr time_point from_ns(std::int64_t ns) noexcept { return time_point(duration(ns)); }
    static constexpr std::int64_t to_ns(time_point t) noexcept { return t.time_since_epoch().count(); }
};

// The named conversions to and from the milliseconds people read (a UI, a log, a capture file's
// Ms columns); with FixedStep::step_seconds and FrameStats::series_ms, the only doubles of time in
// pacer's C++ API. to_ms is exact to double precision; from_ms rounds to the nearest nanosecond,
// gives 0 for NaN and saturates beyond +-100 years. Both are pure: any thread, no allocation.
constexpr double to_ms(std::chrono::nanoseconds d) noexcept { return static_cast<double>(d.count()) / 1e6; }
constexpr std::chrono::nanoseconds from_ms(double ms) noexcept {
    const double ns = ms * 1e6;
    if (!(ns == ns)) return std::chrono::nanoseconds(0);
    constexpr double kLimit = 3.2e18;  // ~100 years, inside int64
    if (ns >= kLimit) return std::chrono::nanoseconds(static_cast<std::int64_t>(kLimit));
    if (ns <= -kLimit) return std::chrono::nanoseconds(-static_cast<std::int64_t>(kLimit));
    return std::chrono::nanoseconds(static_cast<std::int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5));
}

}  // namespace pacer
