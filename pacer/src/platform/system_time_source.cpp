// The real OS as a TimeSource: a thin forwarder to the platform seam.
#include "pacer/clock.hpp"
#include "platform/platform.hpp"

namespace pacer {
namespace {

class SystemTimeSource final : public TimeSource {
public:
    clock::time_point now() noexcept override { return platform::now(); }
    void sleep_until(clock::time_point deadline) noexcept override { platform::sleep_until(deadline); }
    void relax() noexcept override { platform::relax(); }
    CpuTimes cpu_times() noexcept override { return platform::cpu_times(); }
    void begin_pacing() noexcept override { platform::begin_pacing(); }
    void end_pacing() noexcept override { platform::end_pacing(); }
    const char* sleep_primitive() const noexcept override { return platform::sleep_primitive(); }
    PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept override {
        return platform::raise_priority(c, period);
    }
    bool refresh_priority(PriorityGrant& grant, std::chrono::nanoseconds period) noexcept override {
        return platform::refresh_priority(grant, period);
    }
    void restore_priority(const PriorityGrant& grant) noexcept override { platform::restore_priority(grant); }
};

}  // namespace

TimeSource& system_time_source() noexcept {
    static SystemTimeSource source;
    return source;
}

PriorityGrant probe_priority(const PriorityConfig& c) noexcept { return platform::probe_priority(c); }

}  // namespace pacer

// ---------------------------------------------------------------------------------------------
// pacer::clock

namespace pacer {

clock::time_point clock::now() noexcept { return platform::now(); }

// libstdc++ and libc++ implement steady_clock with CLOCK_MONOTONIC on Linux, the clock of the
// Linux backend: the conversion is exact there. Elsewhere (Windows: QueryPerformanceCounter
// behind either, scaled differently by each runtime; macOS) go through "time from now".
#if defined(__linux__)
clock::time_point clock::from_steady(std::chrono::steady_clock::time_point t) noexcept {
    return time_point(std::chrono::duration_cast<duration>(t.time_since_epoch()));
}
std::chrono::steady_clock::time_point clock::to_steady(time_point t) noexcept {
    return std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(t.time_since_epoch()));
}
#else
clock::time_point clock::from_steady(std::chrono::steady_clock::time_point t) noexcept {
    const auto ahead = std::chrono::duration_cast<duration>(t - std::chrono::steady_clock::now());
    return now() + ahead;
}
std::chrono::steady_clock::time_point clock::to_steady(time_point t) noexcept {
    const auto ahead = t - now();
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(ahead);
}
#endif

}  // namespace pacer
