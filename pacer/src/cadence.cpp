#include "pacer/cadence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "text.hpp"

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

std::uint32_t CadenceGovernor::min_divisor(std::int64_t base, std::int64_t min_period) noexcept {
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

bool CadenceGovernor::update(std::int64_t now, std::int64_t cost, std::int64_t base,
                             std::int64_t min_period) noexcept {
    if (base <= 0) return false;
    const std::uint32_t old = status_.divisor;
    const bool first = status_.base.count() == 0;
    // A new refresh or target (by more than 0.5 %: 60 -> 59.94 Hz is one) chooses afresh; the
    // fit's own wobble (60.0004 Hz, then 60.0001 Hz under match_display) is no new base.
    const auto moved = [](std::int64_t a, std::int64_t b) {
        return std::llabs(a - b) * 200 > std::max<std::int64_t>(1, b);
    };
    const bool rebase = first || moved(base, status_.base.count()) || moved(min_period, min_period_);
    status_.base = std::chrono::nanoseconds(base);
    min_period_ = min_period;
    costs_[static_cast<std::size_t>(next_)] = std::max<std::int64_t>(0, cost);
    next_ = (next_ + 1) % kWindow;
    count_ = std::min(count_ + 1, kWindow);

    const std::uint32_t nmin = min_divisor(base, min_period);
    // The slowest divisor whose rate is min_hz or above (0.5 % slack: 60 / 3 serves 20 Hz).
    const double slowest = std::floor(1e9 * 1.005 / (cfg_.min_hz * static_cast<double>(base)));
    const std::uint32_t nmax = std::max(nmin, static_cast<std::uint32_t>(std::clamp(slowest, 1.0, 1e6)));
    const auto budget = [&](std::uint32_t n, double share) {
        return share * static_cast<double>(n) * static_cast<double>(base);
    };

    if (rebase) {
        since_rebase_ = 0;
        has_headroom_ = false;
    }
    ++since_rebase_;
    if (count_ < kMinFrames) {
        set(std::clamp(rebase ? nmin : old, nmin, nmax), rebase && !first ? CadenceReason::rebased : CadenceReason::learning);
        if (status_.divisor != old) {
            ++status_.switches;
            if (!first) {
                last_switch_ = now;
                switched_ = true;
            }
        }
        return status_.divisor != old;
    }
    const std::int64_t q = cost_quantile();
    status_.cost = std::chrono::nanoseconds(q);
    const auto fq = static_cast<double>(q);
    std::uint32_t need = nmax;
    for (std::uint32_t n = nmin; n <= nmax; ++n) {
        if (fq <= budget(n, cfg_.fit)) {
            need = n;
            break;
        }
    }
    const bool over_all = fq > budget(nmax, cfg_.fit);
    const bool dwell_ok = !switched_ || now - last_switch_ >= cfg_.dwell.count();
    auto switch_to = [&](std::uint32_t n, CadenceReason why) {
        set(n, why);
        if (n != old) {
            ++status_.switches;
            last_switch_ = now;
            switched_ = true;
            has_headroom_ = false;
        }
        return n != old;
    };

    if (rebase) return switch_to(need, CadenceReason::rebased);
    const std::uint32_t cur = std::clamp(old, nmin, nmax);
    if (need > cur) {  // slower
        has_headroom_ = false;
        if (dwell_ok) return switch_to(need, over_all ? CadenceReason::slowest : CadenceReason::overrun);
        set(cur, CadenceReason::dwell);
        return cur != old;
    }
    std::uint32_t up = cur;
    for (std::uint32_t n = nmin; n < cur; ++n) {
        if (fq <= budget(n, cfg_.headroom)) {
            up = n;
            break;
        }
    }
    if (up < cur) {  // faster, once the headroom has lasted a dwell
        if (!has_headroom_) {
            has_headroom_ = true;
            headroom_since_ = now;
        }
        if (dwell_ok && now - headroom_since_ >= cfg_.dwell.count()) return switch_to(up, CadenceReason::headroom);
        set(cur, CadenceReason::dwell);
        return cur != old;
    }
    has_headroom_ = false;
    set(cur, over_all ? CadenceReason::slowest : cur == nmin ? CadenceReason::fits : CadenceReason::steady);
    return cur != old;
}

std::int64_t DisplayDelta::quantize(std::int64_t interval, std::int64_t refresh) noexcept {
    if (interval <= 0) return 0;
    if (refresh <= 0) return interval;
    const std::int64_t n = std::max<std::int64_t>(1, (interval + refresh / 2) / refresh);
    return n * refresh;
}

std::int64_t DisplayDelta::next(std::int64_t interval, std::int64_t nominal, std::int64_t bound) noexcept {
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
    return dt;
}

std::int64_t vrr_period(std::int64_t target_period, double vrr_min_hz, double vrr_max_hz, std::int64_t jitter) noexcept {
    jitter = std::max<std::int64_t>(0, jitter);
    std::int64_t p = target_period;
    if (vrr_min_hz > 0) p = std::min<std::int64_t>(p, std::llround(1e9 / vrr_min_hz) - jitter);
    if (vrr_max_hz > 0) p = std::max<std::int64_t>(p, std::llround(1e9 / vrr_max_hz) + jitter);
    return std::max<std::int64_t>(1, p);
}

std::int64_t slew_period(std::int64_t current, std::int64_t want, double max_step) noexcept {
    if (current <= 0) return want;
    const std::int64_t step = std::max<std::int64_t>(1, std::llround(static_cast<double>(current) * max_step));
    if (want > current + step) return current + step;
    if (want < current - step) return current - step;
    return want;
}

}  // namespace pacer
