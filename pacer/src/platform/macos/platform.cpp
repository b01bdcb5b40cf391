// macOS backend. Written against Apple's documented API but not compiled or run by this
// project's CI (no macOS machine): README says so.
//
// Clock: mach_absolute_time scaled by mach_timebase_info (1/1 on Intel, 125/3 on Apple silicon).
// Sleep: mach_wait_until, an absolute deadline in mach ticks, restarted after an interruption.
#include <mach/mach.h>
#include <mach/mach_time.h>
#include <time.h>

#include "../platform.hpp"
#include "../relax.hpp"

namespace pacer::platform {
namespace {

struct Timebase {
    std::uint64_t numer = 1, denom = 1;
    Timebase() noexcept {
        mach_timebase_info_data_t tb{};
        if (mach_timebase_info(&tb) == KERN_SUCCESS && tb.denom != 0) {
            numer = tb.numer;
            denom = tb.denom;
        }
    }
};
const Timebase& timebase() noexcept {
    static const Timebase tb;
    return tb;
}

// ticks * numer / denom without overflow for ~584 years of uptime.
std::int64_t ticks_to_ns(std::uint64_t t) noexcept {
    const Timebase& tb = timebase();
    return static_cast<std::int64_t>((t / tb.denom) * tb.numer + (t % tb.denom) * tb.numer / tb.denom);
}
std::uint64_t ns_to_ticks(std::int64_t ns) noexcept {
    const Timebase& tb = timebase();
    const std::uint64_t n = static_cast<std::uint64_t>(ns);
    return (n / tb.numer) * tb.denom + (n % tb.numer) * tb.denom / tb.numer;
}

std::int64_t read(clockid_t id) noexcept {
    timespec ts{};
    if (clock_gettime(id, &ts) != 0) return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

clock::time_point now() noexcept { return clock::from_ns(ticks_to_ns(mach_absolute_time())); }

void sleep_until(clock::time_point deadline_tp) noexcept {
    const std::int64_t deadline = clock::to_ns(deadline_tp);
    if (deadline <= 0) return;
    const std::uint64_t target = ns_to_ticks(deadline);
    while (mach_wait_until(target) == KERN_ABORTED) {
    }
}

void relax() noexcept { PACER_RELAX(); }

CpuTimes cpu_times() noexcept {
    return {std::chrono::nanoseconds(read(CLOCK_PROCESS_CPUTIME_ID)),
            std::chrono::nanoseconds(read(CLOCK_THREAD_CPUTIME_ID))};
}

void begin_pacing() noexcept {}
void end_pacing() noexcept {}

const char* sleep_primitive() noexcept { return "mach_wait_until"; }

}  // namespace pacer::platform
