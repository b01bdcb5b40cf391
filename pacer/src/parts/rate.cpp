#include "pacer/rate.hpp"

#include <algorithm>
#include <cmath>

#include "base/log_internal.hpp"

namespace pacer {

void RatePlanner::configure(const RateConfig& config) noexcept {
    cfg_ = config;
    rate_hz_ = wanted_hz();
}

void RatePlanner::apply() noexcept {
    (void)governor_.set_config(cfg_.governor);  // validated with the pacer's config; keeps the costs seen
    if (cfg_.cadence == CadenceMode::fixed) governor_.reset();
    rate_hz_ = wanted_hz();
}

bool RatePlanner::set_background(bool on) noexcept {
    if (on == background_) return false;
    background_ = on;
    return true;
}

double RatePlanner::hz() const noexcept {
    return background_ ? std::min(cfg_.background_hz, target_hz()) : rate_hz_ > 0 ? rate_hz_ : target_hz();
}

double RatePlanner::vsync_hz() const noexcept { return vrr_period_ > 0 ? target_hz() : rate_hz_; }

// The rate in force outside the background: the VRR period when on VRR, else the cadence's
// divisor of its base (the target with CadenceMode::fixed).
double RatePlanner::wanted_hz() const noexcept {
    if (vrr_period_ > 0) return 1e9 / static_cast<double>(vrr_period_);
    if (cfg_.cadence != CadenceMode::automatic) return target_hz();
    const CadenceStatus& g = governor_.status();
    if (g.base.count() <= 0 || cadence_base_hz_ <= 0) return target_hz();
    return cadence_base_hz_ / static_cast<double>(g.divisor);
}

// A change of more than 0.02 % (a new refresh, not the fit's noise) moves the target; until the
// first lock the target is target_hz.
bool RatePlanner::follow_display(const VsyncStatus& vs, const DisplayStatus& display) noexcept {
    if (!cfg_.match_display) {
        if (matched_hz_ == 0) return false;
        matched_hz_ = 0;
        return true;
    }
    if (swap_rate_hz_ == 0 && vs.code == VsyncReason::auto_other_rate && vs.swap_hz >= kMinRefreshHz &&
        vs.swap_hz <= kMaxRefreshHz) {
        swap_rate_hz_ = matched_hz_ = vs.swap_hz;
        swap_rate_reported_ = vs.refresh_hz;
        detail::log(LogLevel::info, "matching the swap's own rate: %.3f Hz (reported refresh %g Hz)", swap_rate_hz_,
                    swap_rate_reported_);
        return true;
    }
    // A new refresh the host reports voids the fit: follow it at once, then its fit.
    const double reported = display.reported_hz;
    double hz = display.state == DisplayState::locked ? display.refresh_hz : 0.0;
    // (Not on no vblank grid: there the reported refresh is not the rate frames are shown at.)
    if (hz == 0.0 && display.state != DisplayState::unsynced && matched_hz_ > 0 && reported > 0 &&
        std::fabs(reported - matched_hz_) > 5e-3 * matched_hz_)
        hz = reported;
    // No vblank grid: the rate the frames are shown at. It is a count over the last 128 frames
    // (a compositor's timer jitters each by milliseconds: the count's noise is about 0.1 %), so it
    // is followed when it moves by more than 0.3 %.
    const bool shown = hz == 0.0 && display.state == DisplayState::unsynced && display.shown_hz > 0;
    if (shown) hz = display.shown_hz;
    if (hz == 0.0) return false;
    const double keep = shown ? 3e-3 : 2e-4;
    if (matched_hz_ > 0 && shown == matched_shown_ && std::fabs(hz - matched_hz_) <= keep * matched_hz_) return false;
    matched_hz_ = std::clamp(hz, 1e-3, kMaxTargetHz);
    matched_shown_ = shown;
    detail::log(LogLevel::info, shown ? "matching the shown rate (no vblank grid): %.4f Hz" : "matching the display: %.4f Hz",
                matched_hz_);
    return true;
}

PresentInfo RatePlanner::as_reported(const PresentInfo& present, bool* moved) noexcept {
    *moved = false;
    if (swap_rate_hz_ == 0) return present;
    if (!cfg_.match_display || (present.refresh_hz > 0 && std::fabs(present.refresh_hz - swap_rate_reported_) >
                                                              1e-3 * swap_rate_reported_)) {
        swap_rate_hz_ = 0;
        matched_hz_ = 0;
        *moved = true;
        return present;
    }
    PresentInfo p = present;
    p.refresh_hz = swap_rate_hz_;
    return p;
}

// VRR: the target kept inside the panel's range by the wake-up jitter, approached gradually.
void RatePlanner::update_vrr(std::optional<std::chrono::nanoseconds> cost, const RateInputs& d,
                             std::int64_t period) noexcept {
    if (background_ || !d.vrr) {
        vrr_period_ = 0;
        vrr_by_work_ = false;
        return;
    }
    const std::int64_t target = std::max<std::int64_t>(1, std::llround(1e9 / target_hz()));
    const std::chrono::nanoseconds jitter = wakes_.count() >= kMinWakes ? wakes_.quantile(kWakeQuantile) : std::chrono::nanoseconds(0);
    std::int64_t paced = target;
    // With the governor on, the rate the work sustains: any rate shows evenly on VRR, so the
    // period follows the cost's quantile (over fit) instead of a divisor.
    const bool governed = cfg_.cadence == CadenceMode::automatic;
    if (governed && cost) vrr_cost_.add(*cost);
    if (governed && vrr_cost_.count() >= kMinVrrCosts) {
        const double q = static_cast<double>(vrr_cost_.quantile(cfg_.governor.quantile).count());
        paced = std::max<std::int64_t>(paced, std::llround(q / cfg_.governor.fit));
    }
    vrr_by_work_ = paced > target;
    const std::chrono::nanoseconds want =
        vrr_period(std::chrono::nanoseconds(paced), d.vrr_min_hz, d.vrr_max_hz, jitter);
    vrr_want_ = want.count();
    vrr_period_ = slew_period(std::chrono::nanoseconds(vrr_period_ > 0 ? vrr_period_ : period), want).count();
}

void RatePlanner::update_cadence(clock::time_point now, std::optional<std::chrono::nanoseconds> cost,
                                 const RateInputs& d) noexcept {
    cadence_ = CadenceStatus{};
    if (background_ || vrr_period_ != 0 || cfg_.cadence != CadenceMode::automatic) return;
    const std::int64_t target = std::max<std::int64_t>(1, std::llround(1e9 / target_hz()));
    const std::int64_t refresh = d.refresh.count();
    if (cost) cadence_base_hz_ = refresh > 0 ? 1e9 / static_cast<double>(refresh) : target_hz();
    if (cost && governor_.update(now, *cost, std::chrono::nanoseconds(refresh > 0 ? refresh : target),
                                 std::chrono::nanoseconds(target))) {
        const CadenceStatus& g = governor_.status();
        detail::log(LogLevel::info, "cadence: every %u %s, %g Hz (cost %.2f ms): %s", g.divisor,
                    refresh > 0 ? "refreshes" : "target periods", g.hz, to_ms(g.cost),
                    g.reason);
    }
    if (governor_.status().base.count() > 0) cadence_ = governor_.status();
}

bool RatePlanner::update(clock::time_point now, std::optional<std::chrono::nanoseconds> cost,
                         const RateInputs& display, std::chrono::nanoseconds period) noexcept {
    update_vrr(cost, display, period.count());
    update_cadence(now, cost, display);
    if (background_) return false;  // the background rate is the pacer's, at apply time
    const double want = wanted_hz();
    if (want == rate_hz_) return false;
    rate_hz_ = want;
    return true;
}

void RatePlanner::settle(std::chrono::nanoseconds period) noexcept {
    if (!background_ && vrr_period_ > 0) {
        cadence_.code = CadenceReason::vrr;
        cadence_.reason = describe(CadenceReason::vrr);
    }
    if (background_ || cadence_.code == CadenceReason::fixed || cadence_.code == CadenceReason::vrr) {
        cadence_.hz = hz();
        cadence_.base = period;
    }
}

bool RatePlanner::log_change() noexcept {
    const RateStatus s = status();
    // On VRR the rate slews toward where it is going: that destination is what is said.
    const double hz = vrr_period_ > 0 && vrr_want_ > 0 ? 1e9 / static_cast<double>(vrr_want_) : s.hz;
    if (logged_hz_ > 0 && s.code == logged_code_ && std::fabs(hz - logged_hz_) <= 0.01 * logged_hz_) return false;
    const bool first = logged_hz_ == 0;
    logged_hz_ = hz;
    logged_code_ = s.code;
    if (!first || s.code != RateReason::target)  // the first target is in the "pacing at" line
        detail::log(LogLevel::info, "rate in force: %.3f Hz, %s", hz, s.reason);
    return true;
}

RateStatus RatePlanner::status() const noexcept {
    RateStatus s;
    s.hz = hz();
    s.period = std::chrono::nanoseconds(std::llround(1e9 / s.hz));
    s.target_hz = target_hz();
    if (background_) s.code = RateReason::background;
    else if (vrr_period_ > 0) s.code = vrr_by_work_ ? RateReason::vrr_work : RateReason::vrr_cap;
    else if (cfg_.cadence == CadenceMode::automatic && cadence_.divisor > 1) s.code = RateReason::cadence;
    else if (swap_rate_hz_ > 0) s.code = RateReason::swap_rate;
    else if (matched_hz_ > 0) s.code = matched_shown_ ? RateReason::shown_rate : RateReason::display;
    s.reason = describe(s.code);
    return s;
}

}  // namespace pacer
