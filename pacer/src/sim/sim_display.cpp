#include "pacer/sim_display.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/sim_rng.hpp"
#include "base/text.hpp"

namespace pacer {

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr double kMaxPpm = 1000.0;
constexpr std::int64_t kMaxNoiseNs = 10'000'000;

bool refresh_ok(double hz) noexcept { return std::isfinite(hz) && hz >= kMinRefreshHz && hz <= kMaxRefreshHz; }

// Appended piece by piece: GCC 12 at -O2 takes `"[" + std::string` (an insert at offset 0) for an
// overlapping memcpy and warns with -Wrestrict.
std::string refresh_range() {
    std::string s(1, '[');
    s.append(detail::num(kMinRefreshHz)).append(", ").append(detail::num(kMaxRefreshHz)).push_back(']');
    return s;
}

// One period of hz on a clock running ppm fast, in CPU ns.
long double skewed_period(double hz, double ppm) noexcept {
    return 1e9L / static_cast<long double>(hz) * 1e6L / (1e6L + static_cast<long double>(ppm));
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

}  // namespace

Status validate(const DisplayConfig& c) {
    using detail::num;
    if (!refresh_ok(c.refresh_hz))
        return Status::error("refresh_hz = " + num(c.refresh_hz) + ": must be a finite number in " + refresh_range());
    if (!std::isfinite(c.clock_ppm) || std::fabs(c.clock_ppm) > kMaxPpm)
        return Status::error("clock_ppm = " + num(c.clock_ppm) + ": must be a finite number in [-1000, 1000]");
    const auto period = static_cast<std::int64_t>(std::floor(skewed_period(c.refresh_hz, c.clock_ppm)));
    if (c.phase.count() < 0 || c.phase.count() >= period)
        return Status::error("phase = " + num(c.phase.count()) + ": must be in [0, " + num(period) +
                             ") ns (one refresh period)");
    if (c.queue_depth < 1 || c.queue_depth > 3)
        return Status::error("queue_depth = " + num(c.queue_depth) + ": must be in [1, 3]");
    if (c.vrr_min_hz != 0.0) {
        if (!std::isfinite(c.vrr_min_hz) || c.vrr_min_hz < 1.0 || c.vrr_min_hz >= c.refresh_hz)
            return Status::error("vrr_min_hz = " + num(c.vrr_min_hz) + ": must be 0 (fixed refresh) or in [1, " +
                                 num(c.refresh_hz) + ") (below refresh_hz, the VRR range's top)");
        if (c.lfc && c.refresh_hz < 2.0 * c.vrr_min_hz)
            return Status::error("lfc with a VRR range of " + num(c.vrr_min_hz) + "-" + num(c.refresh_hz) +
                                 " Hz: low-framerate compensation needs refresh_hz >= 2 x vrr_min_hz");
        if (!c.refresh_changes.empty())
            return Status::error("refresh_changes: not supported on a VRR display (vrr_min_hz > 0)");
    } else if (c.lfc) {
        return Status::error("lfc = true: needs a VRR display (vrr_min_hz > 0)");
    }
    if (c.compositor_delay.count() < 0 || c.compositor_delay.count() > kSecond)
        return Status::error("compositor_delay = " + num(c.compositor_delay.count()) + ": must be in [0, 1e9] ns");
    if (c.present_cpu.count() < 0 || c.present_cpu.count() > kSecond)
        return Status::error("present_cpu = " + num(c.present_cpu.count()) + ": must be in [0, 1e9] ns");
    if (c.report_noise.count() < 0 || c.report_noise.count() > kMaxNoiseNs)
        return Status::error("report_noise = " + num(c.report_noise.count()) + ": must be in [0, 1e7] ns");
    if (!(c.drop_probability >= 0.0 && c.drop_probability <= 1.0))
        return Status::error("drop_probability = " + num(c.drop_probability) + ": must be in [0, 1]");
    if (!(c.duplicate_probability >= 0.0 && c.duplicate_probability <= 1.0))
        return Status::error("duplicate_probability = " + num(c.duplicate_probability) + ": must be in [0, 1]");
    std::int64_t prev = 0;
    for (std::size_t i = 0; i < c.refresh_changes.size(); ++i) {
        const RefreshChange& r = c.refresh_changes[i];
        const std::string name = "refresh_changes[" + std::to_string(i) + "]";
        if (r.at.count() <= prev)
            return Status::error(name + ".at = " + num(r.at.count()) + ": must be after " + num(prev) +
                                 " ns (positive, increasing)");
        if (!refresh_ok(r.hz))
            return Status::error(name + ".hz = " + num(r.hz) + ": must be a finite number in " + refresh_range());
        prev = r.at.count();
    }
    return {};
}

namespace {
const DisplayConfig& checked(const DisplayConfig& c) {
    if (Status s = validate(c); !s) throw ConfigError(s.message());
    return c;
}
}  // namespace

SimulatedDisplay::Segment SimulatedDisplay::make_segment(std::int64_t base, double hz, double ppm) noexcept {
    // Whole ns plus a 32-bit binary fraction, as FramePacer's grid: exact to 2^-33 ns a period.
    const long double p = skewed_period(hz, ppm);
    const long double whole = std::floor(p);
    long double frac = std::round((p - whole) * 4294967296.0L);
    Segment s;
    s.base = base;
    s.whole = static_cast<std::int64_t>(whole);
    if (frac >= 4294967296.0L) {
        ++s.whole;
        frac = 0;
    }
    s.frac = static_cast<std::uint64_t>(frac);
    s.hz = hz;
    return s;
}

std::int64_t SimulatedDisplay::vblank_of(const Segment& s, std::int64_t n) noexcept {
    const auto k = static_cast<std::uint64_t>(n);
    const std::uint64_t hi = k >> 32, lo = k & 0xffffffffu;
    const std::uint64_t frac_ns = hi * s.frac + ((lo * s.frac) >> 32);
    return s.base + n * s.whole + static_cast<std::int64_t>(frac_ns);
}

std::int64_t SimulatedDisplay::first_vblank_after(const Segment& s, std::int64_t t) noexcept {
    if (t < s.base) return s.base;
    std::int64_t n = (t - s.base) / s.whole;  // the whole-ns period under-counts: step forward
    while (n > 0 && vblank_of(s, n) > t) --n;
    while (vblank_of(s, n) <= t) ++n;
    return vblank_of(s, n);
}

SimulatedDisplay::SimulatedDisplay(SimulatedOs& os, const DisplayConfig& config)
    : os_(os), cfg_(checked(config)), start_(clock::to_ns(os.now())) {
    std::uint64_t seed = cfg_.seed;
    detail::seed_rng(rng_, seed);
    segments_.push_back(make_segment(start_ + cfg_.phase.count(), cfg_.refresh_hz, cfg_.clock_ppm));
    for (const RefreshChange& r : cfg_.refresh_changes) {
        // The new mode starts at the first vblank at or after the change.
        const std::int64_t base = first_vblank_after(segments_.back(), start_ + r.at.count() - 1);
        segments_.push_back(make_segment(base, r.hz, cfg_.clock_ppm));
    }
    if (cfg_.vrr_min_hz > 0) {
        min_period_ = std::llround(skewed_period(cfg_.refresh_hz, cfg_.clock_ppm));
        max_period_ = std::llround(skewed_period(cfg_.vrr_min_hz, cfg_.clock_ppm));
        last_frame_ = start_ + cfg_.phase.count();  // the panel scans out a blank frame
        repeat_spacing_ = max_period_;
    }
}

std::size_t SimulatedDisplay::segment_at(std::int64_t t) const noexcept {
    std::size_t i = 0;
    while (i + 1 < segments_.size() && segments_[i + 1].base <= t) ++i;
    return i;
}

std::int64_t SimulatedDisplay::fixed_vblank_after(std::int64_t t) const noexcept {
    const std::size_t i = segment_at(t);
    const std::int64_t v = first_vblank_after(segments_[i], t);
    // The next mode's first vblank is a vblank of the old timing too: never skip past it.
    if (i + 1 < segments_.size() && v > segments_[i + 1].base) return segments_[i + 1].base;
    return v;
}

clock::time_point SimulatedDisplay::vblank_after(clock::time_point t_tp) const noexcept {
    const std::int64_t t = clock::to_ns(t_tp);
    if (cfg_.vrr_min_hz > 0) return clock::from_ns(vrr_earliest(t, nullptr));
    return clock::from_ns(fixed_vblank_after(t));
}

std::chrono::nanoseconds SimulatedDisplay::refresh_period_at(clock::time_point t) const noexcept {
    if (cfg_.vrr_min_hz > 0) return std::chrono::nanoseconds(min_period_);
    const Segment& s = segments_[segment_at(clock::to_ns(t))];
    return std::chrono::nanoseconds(s.whole + (s.frac >= (std::uint64_t{1} << 31) ? 1 : 0));
}

double SimulatedDisplay::refresh_hz_at(clock::time_point t) const noexcept {
    if (cfg_.vrr_min_hz > 0) return cfg_.refresh_hz;
    return segments_[segment_at(clock::to_ns(t))].hz;
}

// The earliest scanout of a frame ready at t: after the last frame's scanout and any repeat of
// it that starts before t (a repeat at exactly t gives way), one min period after either.
std::int64_t SimulatedDisplay::vrr_earliest(std::int64_t t, std::int64_t* repeats) const noexcept {
    std::int64_t last = last_frame_;
    std::int64_t n = 0;
    if (t > last_frame_) {
        n = (t - last_frame_ - 1) / repeat_spacing_;
        last += n * repeat_spacing_;
    }
    if (repeats) *repeats = n;
    return std::max(t, last + min_period_);
}

void SimulatedDisplay::vrr_commit(std::int64_t ready, std::int64_t scanout) noexcept {
    if (have_ready_) ready_interval_ = ready - last_ready_;
    last_ready_ = ready;
    have_ready_ = true;
    last_frame_ = scanout;
    repeat_spacing_ = max_period_;
    if (cfg_.lfc && ready_interval_ > 0) {
        // Repeat so that the panel is free when the next frame is expected: k even repeats of
        // the gap, the fewest that keep each within the max period.
        const std::int64_t gap = last_ready_ + ready_interval_ - last_frame_;
        if (gap > 0) {
            const std::int64_t k = ceil_div(gap, max_period_);
            repeat_spacing_ = std::clamp(ceil_div(gap, k), min_period_, max_period_);
        }
    }
}

double SimulatedDisplay::uniform() noexcept { return detail::next_uniform(rng_); }

std::int64_t SimulatedDisplay::noise() noexcept {
    // Uniform integer in [-n, n].
    const std::int64_t n = cfg_.report_noise.count();
    const double u = uniform();
    if (n == 0) return 0;
    const auto k = static_cast<std::int64_t>(u * static_cast<double>(2 * n + 1));
    return std::min(k, 2 * n) - n;
}

PresentResult SimulatedDisplay::present(int swap_interval) noexcept {
    // In int64 ns, as the rest of the model; the result's times are set from these at the end.
    PresentResult r;
    r.id = next_id_++;
    r.swap_interval = swap_interval;
    const std::int64_t begin = clock::to_ns(os_.now());
    r.refresh_hz = refresh_hz_at(clock::from_ns(begin));
    os_.advance(cfg_.present_cpu);
    const bool tear = swap_interval <= 0 || !cfg_.vsync;
    std::int64_t returned = 0, scanout = 0;
    if (tear) {
        r.torn = true;
        returned = clock::to_ns(os_.now());
        scanout = returned;
    } else {
        const auto depth = static_cast<std::uint64_t>(cfg_.queue_depth);
        if (queued_ >= depth) {
            const std::int64_t slot_free = shown_[(queued_ - depth) % 3];
            if (slot_free > clock::to_ns(os_.now())) {
                r.blocked = true;
                os_.block_until(clock::from_ns(slot_free));
            }
        }
        returned = clock::to_ns(os_.now());
        const std::int64_t ready = returned;
        if (cfg_.vrr_min_hz > 0) {
            std::int64_t n = 0;
            scanout = vrr_earliest(ready, &n);
            repeats_ += static_cast<std::uint64_t>(n);
            vrr_commit(ready, scanout);
        } else {
            std::int64_t v = fixed_vblank_after(ready);
            if (queued_ > 0) {
                std::int64_t after = last_shown_;
                for (int i = 0; i < std::min(swap_interval, 8); ++i) after = fixed_vblank_after(after);
                v = std::max(v, after);
            }
            scanout = v;
        }
        shown_[queued_ % 3] = scanout;
        last_shown_ = scanout;
        ++queued_;
    }
    const std::int64_t displayed = scanout + cfg_.compositor_delay.count();
    // Always four draws, whatever the outcome.
    const std::int64_t n_returned = noise();
    const std::int64_t n_displayed = noise();
    const bool dropped = uniform() < cfg_.drop_probability;
    const bool duplicated = uniform() < cfg_.duplicate_probability;
    r.reports = dropped ? 0 : duplicated ? 2 : 1;
    r.begin = clock::from_ns(begin);
    r.returned = clock::from_ns(returned);
    r.scanout = clock::from_ns(scanout);
    r.displayed = clock::from_ns(displayed);
    r.reported_returned = clock::from_ns(std::max(begin, returned + n_returned));
    r.reported_displayed = clock::from_ns(displayed + n_displayed);
    return r;
}

}  // namespace pacer
