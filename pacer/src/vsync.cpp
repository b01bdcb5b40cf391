#include "pacer/vsync.hpp"

#include <bit>
#include <cmath>

namespace pacer {

const char* to_string(PacingSource source) noexcept {
    switch (source) {
        case PacingSource::sleep: return "sleep";
        case PacingSource::spin: return "spin";
        case PacingSource::hybrid: return "hybrid";
        case PacingSource::vsync: return "vsync";
    }
    return "?";
}

namespace {
bool refresh_known(double hz) noexcept {
    return std::isfinite(hz) && hz >= kMinRefreshHz && hz <= kMaxRefreshHz;
}
}  // namespace

int compatible_swap_interval(double refresh_hz, double target_hz) noexcept {
    if (!refresh_known(refresh_hz) || !std::isfinite(target_hz) || target_hz <= 0) return 0;
    const double n = std::round(refresh_hz / target_hz);
    if (n < 1 || n > 8) return 0;  // drivers accept small intervals only
    // 0.5 %: a 59.94 Hz display serves a 60 Hz target (0.1 % off), 144 Hz / 2 = 72 does not.
    if (std::fabs(refresh_hz / n - target_hz) > 0.005 * target_hz) return 0;
    return static_cast<int>(n);
}

void VsyncDetector::reset() noexcept { *this = VsyncDetector(); }

bool VsyncDetector::add(std::int64_t begin_ns, std::int64_t end_ns, int swap_interval,
                        double refresh_hz, bool ok) noexcept {
    last_block_ns_ = end_ns - begin_ns;
    const std::int64_t prev = last_end_;
    last_end_ = end_ns;
    bool locked = false;
    bool missed = false;
    if (ok && prev >= 0 && swap_interval >= 1 && refresh_known(refresh_hz) && end_ns > prev) {
        const double t = 1e9 / refresh_hz;
        const double interval = static_cast<double>(end_ns - prev);
        const double k = std::round(interval / t);
        const double tol = std::max(250'000.0, 0.03 * t);
        locked = k >= swap_interval && std::fabs(interval - k * t) <= tol;
        missed = locked && k > swap_interval;
    }
    if (prev < 0 && ok) return false;  // the first present has no interval: no evidence either way
    if (locked) {
        ++good_;
        bad_ = 0;
        if (good_ >= kTrustAfter) verified_ = true;
    } else {
        ++bad_;
        good_ = 0;
        if (bad_ >= kDropAfter) verified_ = false;
    }
    locked_bits_ = (locked_bits_ << 1) | (locked ? 1u : 0u);
    missed_bits_ = (missed_bits_ << 1) | (missed ? 1u : 0u);
    return locked;
}

int VsyncDetector::locked_in_window() const noexcept { return std::popcount(locked_bits_); }

double VsyncDetector::missed_share() const noexcept {
    const int n = std::popcount(locked_bits_);
    return n > 0 ? static_cast<double>(std::popcount(missed_bits_)) / n : 0.0;
}

}  // namespace pacer
