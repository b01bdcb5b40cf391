#include "pacer/grid.hpp"

#include <algorithm>
#include <cmath>

namespace pacer {

void DeadlineGrid::set_rate(double hz) noexcept {
    // 1e9 / hz in whole ns plus a 32-bit binary fraction: exact to 2^-33 ns per frame.
    const long double p = 1e9L / static_cast<long double>(hz);
    const long double whole = std::floor(p);
    long double frac = std::round((p - whole) * 4294967296.0L);
    period_whole_ = static_cast<std::int64_t>(whole);
    if (frac >= 4294967296.0L) {
        ++period_whole_;
        frac = 0;
    }
    period_frac_ = static_cast<std::uint64_t>(frac);
    period_rounded_ = std::chrono::nanoseconds(std::llround(1e9 / hz));
    if (started_) restart_at(last_deadline());  // the new period starts at the last deadline
}

std::uint64_t DeadlineGrid::start(clock::time_point now) noexcept {
    if (started_) index_base_ += k_ + 1;
    started_ = true;
    anchor_ = last_deadline_ = clock::to_ns(now);
    k_ = 0;
    return index_base_;
}

void DeadlineGrid::stop() noexcept {
    if (started_) index_base_ += k_ + 1;
    started_ = false;
    k_ = 0;
}

void DeadlineGrid::restart_at(clock::time_point anchor) noexcept {
    index_base_ += k_;
    anchor_ = clock::to_ns(anchor);
    k_ = 0;
}

clock::time_point DeadlineGrid::deadline_of(std::uint64_t k) const noexcept {
    // k * frac / 2^32 without overflow for any k: split k into 32-bit halves. The high half's
    // product is whole nanoseconds; only the low half's carries a fraction.
    const std::uint64_t hi = k >> 32, lo = k & 0xffffffffu;
    const std::uint64_t frac_ns = hi * period_frac_ + ((lo * period_frac_) >> 32);
    return clock::from_ns(anchor_ + static_cast<std::int64_t>(k) * period_whole_ + static_cast<std::int64_t>(frac_ns));
}

GridSlot DeadlineGrid::after(clock::time_point deadline) const noexcept {
    GridSlot s;
    s.k = k_ + 1;
    s.index = index_base_ + s.k;
    s.deadline = deadline;
    return s;
}

GridSlot DeadlineGrid::next_slot(clock::time_point now_tp, LatePolicy policy, int max_catch_up) const noexcept {
    GridSlot s = after(deadline_of(k_ + 1));
    const std::int64_t now = clock::to_ns(now_tp);
    const std::int64_t due = clock::to_ns(s.deadline);
    if (now < due) return s;
    if (policy == LatePolicy::resync) {  // this frame starts a new grid, at now
        s.restart = true;
        s.k = 0;
        s.deadline = now_tp;
        return s;
    }
    // Slots whose time has come, this frame's included.
    const std::int64_t p = period_whole_ > 0 ? period_whole_ : 1;
    std::uint64_t behind = static_cast<std::uint64_t>((now - due) / p) + 1;
    while (behind > 1 && clock::to_ns(deadline_of(s.k + behind - 1)) > now) --behind;  // period rounding
    const auto m = static_cast<std::uint64_t>(std::max(max_catch_up, 0));
    const std::uint64_t skip = policy == LatePolicy::skip ? behind : behind > m ? behind - m : 0;
    s.k += skip;
    s.index += skip;
    s.skipped = static_cast<std::uint32_t>(std::min<std::uint64_t>(skip, 0xffffffffu));
    s.deadline = deadline_of(s.k);
    return s;
}

void DeadlineGrid::take(const GridSlot& slot) noexcept {
    if (slot.restart) {
        index_base_ = slot.index;
        anchor_ = clock::to_ns(slot.deadline);
        k_ = 0;
    } else {
        k_ = slot.k;
    }
    last_deadline_ = clock::to_ns(slot.deadline);
}

}  // namespace pacer
