#include "pacer/cadence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/text.hpp"

namespace pacer {

Status validate(const CadenceConfig& c) {
    using detail::num;
    if (!std::isfinite(c.min_hz) || c.min_hz < 1.0 || c.min_hz > 1000.0)
        return Status::error("governor.min_hz = " + num(c.min_hz) + ": must be in [1, 1000]");
    if (c.dwell.count() < 0 || c.dwell.count() > 60'000'000'000)
        return Status::error("governor.dwell = " + num(static_cast<std::int64_t>(c.dwell.count())) +
                             " ns: must be in [0, 60 s]");
    if (!std::isfinite(c.quantile) || c.quantile < 0.5 || c.quantile > 1.0)
        return Status::error("governor.quantile = " + num(c.quantile) + ": must be in [0.5, 1]");
    if (!std::isfinite(c.fit) || c.fit <= 0.0 || c.fit > 1.0)
        return Status::error("governor.fit = " + num(c.fit) + ": must be in (0, 1]");
    if (!std::isfinite(c.headroom) || c.headroom <= 0.0 || c.headroom >= c.fit)
        return Status::error("governor.headroom = " + num(c.headroom) + ": must be in (0, fit = " + num(c.fit) + ")");
    return {};
}

CadenceGovernor::CadenceGovernor(const CadenceConfig& config) : cfg_(config) {
    if (Status s = validate(config); !s) throw ConfigError(s.message());
}

Status CadenceGovernor::set_config(const CadenceConfig& config) {
    if (Status s = validate(config); !s) return s;
    cfg_ = config;
    return {};
}

void CadenceGovernor::reset() noexcept {
    const CadenceConfig c = cfg_;
    *this = CadenceGovernor();
    cfg_ = c;
}

std::uint32_t CadenceGovernor::min_divisor(std::chrono::nanoseconds base_d, std::chrono::nanoseconds min_d) noexcept {
    const std::int64_t base = base_d.count(), min_period = min_d.count();
    if (base <= 0 || min_period <= base) return 1;
    // n x base >= min_period x (1 - 0.5 %): 59.94 Hz serves a 60 Hz target at n = 1.
    const double n = std::ceil(static_cast<double>(min_period) * 0.995 / static_cast<double>(base));
    return static_cast<std::uint32_t>(std::clamp(n, 1.0, 1e6));
}

std::int64_t CadenceGovernor::cost_quantile() const noexcept {
    std::array<std::int64_t, kWindow> v;
    std::copy(costs_.begin(), costs_.begin() + count_, v.begin());
    const auto k = static_cast<std::ptrdiff_t>(std::floor(cfg_.quantile * (count_ - 1) + 0.5));
    std::nth_element(v.begin(), v.begin() + k, v.begin() + count_);
    return v[static_cast<std::size_t>(k)];
}

void CadenceGovernor::set(std::uint32_t divisor, CadenceReason why) noexcept {
    status_.divisor = divisor;
    status_.code = why;
    status_.reason = describe(why);
    const double period = static_cast<double>(divisor) * static_cast<double>(status_.base.count());
    status_.hz = period > 0 ? 1e9 / period : 0;
}

// Records the frame's cost and base; true when the base moved: a new refresh or target (by more
// than 0.5 %: 60 -> 59.94 Hz is one) chooses afresh; the fit's own wobble (60.0004 Hz, then
// 60.0001 Hz under match_display) is no new base.
bool CadenceGovernor::record(std::int64_t cost, std::int64_t base, std::int64_t min_period) noexcept {
    const auto moved = [](std::int64_t a, std::int64_t b) {
        return std::llabs(a - b) * 200 > std::max<std::int64_t>(1, b);
    };
    const bool rebase =
        status_.base.count() == 0 || moved(base, status_.base.count()) || moved(min_period, min_period_);
    status_.base = std::chrono::nanoseconds(base);
    min_period_ = min_period;
    costs_[static_cast<std::size_t>(next_)] = std::max<std::int64_t>(0, cost);
    next_ = (next_ + 1) % kWindow;
    count_ = std::min(count_ + 1, kWindow);
    if (rebase) {
        since_rebase_ = 0;
        has_headroom_ = false;
    }
    ++since_rebase_;
    return rebase;
}

// The divisors allowed: the fastest at or below the target, the slowest at min_hz or above (0.5 %
// slack: 60 / 3 serves 20 Hz).
CadenceGovernor::Range CadenceGovernor::range(std::int64_t base, std::int64_t min_period) const noexcept {
    Range r;
    r.fastest = min_divisor(std::chrono::nanoseconds(base), std::chrono::nanoseconds(min_period));
    const double slowest = std::floor(1e9 * 1.005 / (cfg_.min_hz * static_cast<double>(base)));
    r.slowest = std::max(r.fastest, static_cast<std::uint32_t>(std::clamp(slowest, 1.0, 1e6)));
    return r;
}

// The smallest divisor in [from, to] whose budget (share x divisor x base) holds the cost
// quantile q; 0 when none does.
std::uint32_t CadenceGovernor::smallest_fitting(double q, double share, std::int64_t base, std::uint32_t from,
                                                std::uint32_t to) const noexcept {
    for (std::uint32_t n = from; n <= to; ++n)
        if (q <= share * static_cast<double>(n) * static_cast<double>(base)) return n;
    return 0;
}

bool CadenceGovernor::switch_to(std::int64_t now, std::uint32_t old, std::uint32_t n, CadenceReason why) noexcept {
    set(n, why);
    if (n == old) return false;
    ++status_.switches;
    last_switch_ = now;
    switched_ = true;
    has_headroom_ = false;
    return true;
}

// Before kMinFrames costs: the fastest divisor at a new base, else the one in force.
bool CadenceGovernor::learning(std::int64_t now, std::uint32_t old, bool first, bool rebase, Range r) noexcept {
    set(std::clamp(rebase ? r.fastest : old, r.fastest, r.slowest),
        rebase && !first ? CadenceReason::rebased : CadenceReason::learning);
    if (status_.divisor == old) return false;
    ++status_.switches;
    if (!first) {
        last_switch_ = now;
        switched_ = true;
    }
    return true;
}

bool CadenceGovernor::update(clock::time_point now_tp, std::chrono::nanoseconds cost,
                             std::chrono::nanoseconds base_d, std::chrono::nanoseconds min_d) noexcept {
    const std::int64_t now = clock::to_ns(now_tp), base = base_d.count();
    if (base <= 0) return false;
    const std::uint32_t old = status_.divisor;
    const bool first = status_.base.count() == 0;
    const bool rebase = record(cost.count(), base, min_d.count());
    const Range r = range(base, min_d.count());
    if (count_ < kMinFrames) return learning(now, old, first, rebase, r);
    const std::int64_t q = cost_quantile();
    status_.cost = std::chrono::nanoseconds(q);
    const auto fq = static_cast<double>(q);
    const std::uint32_t fits = smallest_fitting(fq, cfg_.fit, base, r.fastest, r.slowest);
    const std::uint32_t need = fits != 0 ? fits : r.slowest;
    const bool over_all = fits == 0;
    const bool dwell_ok = !switched_ || now - last_switch_ >= cfg_.dwell.count();
    if (rebase) return switch_to(now, old, need, CadenceReason::rebased);
    const std::uint32_t cur = std::clamp(old, r.fastest, r.slowest);
    if (need > cur) {  // slower
        has_headroom_ = false;
        if (dwell_ok) return switch_to(now, old, need, over_all ? CadenceReason::slowest : CadenceReason::overrun);
        set(cur, CadenceReason::dwell);
        return cur != old;
    }
    const std::uint32_t up = cur > r.fastest ? smallest_fitting(fq, cfg_.headroom, base, r.fastest, cur - 1) : 0;
    if (up != 0) {  // faster, once the headroom has lasted a dwell
        if (!has_headroom_) {
            has_headroom_ = true;
            headroom_since_ = now;
        }
        if (dwell_ok && now - headroom_since_ >= cfg_.dwell.count())
            return switch_to(now, old, up, CadenceReason::headroom);
        set(cur, CadenceReason::dwell);
        return cur != old;
    }
    has_headroom_ = false;
    set(cur, over_all ? CadenceReason::slowest : cur == r.fastest ? CadenceReason::fits : CadenceReason::steady);
    return cur != old;
}

std::chrono::nanoseconds DisplayDelta::quantize(std::chrono::nanoseconds interval_d,
                                                std::chrono::nanoseconds refresh_d) noexcept {
    const std::int64_t interval = interval_d.count(), refresh = refresh_d.count();
    if (interval <= 0) return std::chrono::nanoseconds(0);
    if (refresh <= 0) return interval_d;
    const std::int64_t n = std::max<std::int64_t>(1, (interval + refresh / 2) / refresh);
    return std::chrono::nanoseconds(n * refresh);
}

std::chrono::nanoseconds DisplayDelta::next(std::chrono::nanoseconds interval_d, std::chrono::nanoseconds nominal_d,
                                            std::chrono::nanoseconds bound_d) noexcept {
    const std::int64_t interval = interval_d.count(), nominal = nominal_d.count();
    std::int64_t bound = bound_d.count();
    debt_ += std::max<std::int64_t>(0, interval);
    bound = std::max<std::int64_t>(0, bound);
    std::int64_t dt = std::max<std::int64_t>(0, nominal);
    // Hand back a quarter of what lies beyond the dead band: a steady run keeps exact deltas.
    const std::int64_t e = debt_ - dt, band = bound / 4;
    if (e > band) dt += (e - band) / 4;
    if (e < -band) dt += (e + band) / 4;
    dt = std::clamp(dt, debt_ - bound, debt_ + bound);
    dt = std::max<std::int64_t>(0, dt);
    debt_ -= dt;
    return std::chrono::nanoseconds(dt);
}

std::chrono::nanoseconds vrr_period(std::chrono::nanoseconds target_period, double vrr_min_hz, double vrr_max_hz,
                                    std::chrono::nanoseconds jitter_d) noexcept {
    const std::int64_t jitter = std::max<std::int64_t>(0, jitter_d.count());
    std::int64_t p = target_period.count();
    if (vrr_min_hz > 0) p = std::min<std::int64_t>(p, std::llround(1e9 / vrr_min_hz) - jitter);
    if (vrr_max_hz > 0) p = std::max<std::int64_t>(p, std::llround(1e9 / vrr_max_hz) + jitter);
    return std::chrono::nanoseconds(std::max<std::int64_t>(1, p));
}

std::chrono::nanoseconds slew_period(std::chrono::nanoseconds current_d, std::chrono::nanoseconds want_d,
                                     double max_step) noexcept {
    const std::int64_t current = current_d.count(), want = want_d.count();
    if (current <= 0) return want_d;
    const std::int64_t step = std::max<std::int64_t>(1, std::llround(static_cast<double>(current) * max_step));
    if (want > current + step) return std::chrono::nanoseconds(current + step);
    if (want < current - step) return std::chrono::nanoseconds(current - step);
    return want_d;
}

}  // namespace pacer
