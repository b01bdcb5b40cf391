#include "pacer/lead.hpp"

#include <algorithm>

namespace pacer {

std::chrono::nanoseconds LeadController::lead(std::chrono::nanoseconds period, double max_late_share) const noexcept {
    const std::int64_t p = period.count();
    if (work_.count() < kMinLearned) return period;  // nothing learned yet: start as frame_start would
    const double q = static_cast<double>(work_.quantile(1.0 - max_late_share).count());
    return std::chrono::nanoseconds(std::clamp(static_cast<std::int64_t>(q + offset_), std::int64_t{0}, 4 * p));
}

void LeadController::prime(std::chrono::nanoseconds period) noexcept {
    if (work_.count() < kMinLearned) offset_ = static_cast<double>(period.count()) / 32.0;
}

void LeadController::learn(std::chrono::nanoseconds work, std::chrono::nanoseconds lead_used, bool shown_late,
                           std::chrono::nanoseconds period, double max_late_share) noexcept {
    work_.add(work);
    if (since_late_ <= kBurstFrames) ++since_late_;  // capped: counts up to "not in a burst"
    const double p = static_cast<double>(period.count());
    const double step = p / 64.0, b = max_late_share;
    const double overrun = static_cast<double>((work - lead_used).count());
    const bool was_late = late_;
    late_ = shown_late;
    if (shown_late)
        offset_ += step + (was_late && overrun > 0 ? 0.5 * overrun : 0.0);
    else
        offset_ -= step * b / (1.0 - b);
    const double q = static_cast<double>(work_.quantile(1.0 - b).count());
    offset_ = std::clamp(offset_, -0.5 * q, p);
}

void LeadController::late_feedback(std::chrono::nanoseconds period, double max_late_share) noexcept {
    const double p = static_cast<double>(period.count());
    const double step = p / 64.0, b = max_late_share;
    burst_ = since_late_ <= kBurstFrames ? std::min(2.0 * burst_, kMaxBurst) : 1.0;
    since_late_ = 0;
    // The frame was learned as on time (it fell by step b / (1 - b)): undo that, take the late step.
    offset_ += burst_ * step + step * b / (1.0 - b);
    const double q = static_cast<double>(work_.quantile(1.0 - b).count());
    offset_ = std::clamp(offset_, -0.5 * q, p);
}

std::chrono::nanoseconds LeadController::offset() const noexcept {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(offset_));
}

}  // namespace pacer
