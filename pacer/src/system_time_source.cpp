// The real OS as a TimeSource: a thin forwarder to the platform seam.
#include "platform/platform.hpp"

namespace pacer {
namespace {

class SystemTimeSource final : public TimeSource {
public:
    std::int64_t now_ns() noexcept override { return platform::now_ns(); }
    void sleep_until_ns(std::int64_t deadline_ns) noexcept override {
        platform::sleep_until_ns(deadline_ns);
    }
    void relax() noexcept override { platform::relax(); }
    CpuTimes cpu_times() noexcept override { return platform::cpu_times(); }
    void begin_pacing() noexcept override { platform::begin_pacing(); }
    void end_pacing() noexcept override { platform::end_pacing(); }
    const char* sleep_primitive() const noexcept override { return platform::sleep_primitive(); }
};

}  // namespace

TimeSource& system_time_source() noexcept {
    static SystemTimeSource source;
    return source;
}

}  // namespace pacer
