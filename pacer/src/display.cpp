#include "pacer/display.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "log_internal.hpp"

namespace pacer {

namespace {

constexpr double kMinHz = 20.0, kMaxHz = 1000.0;
constexpr double kMinBand = 100'000.0;   // ns: inliers are never cut tighter than this
constexpr double kMaxLockSpread = 1e6;   // ns: a lock needs a spread under this (and period / 16)
constexpr double kHintTolerance = 0.02;  // a fitted period this far from the reported one is no fit

double valid_hz(double hz) noexcept { return std::isfinite(hz) && hz >= kMinHz && hz <= kMaxHz ? hz : 0.0; }

// The p-quantile (lower) of v[0..n), reordering v.
double quantile(double* v, int n, double p) noexcept {
    if (n <= 0) return 0.0;
    const int k = std::clamp(static_cast<int>(p * (n - 1)), 0, n - 1);
    std::nth_element(v, v + k, v + n);
    return v[k];
}

}  // namespace

void DisplayTracker::set_state(DisplayState state, const char* reason) noexcept {
    if (state == status_.state && reason == status_.reason) return;
    status_.state = state;
    status_.reason = reason;
    if (state == DisplayState::vrr)
        detail::log(LogLevel::info, "display %s: %s (%.1f-%.1f Hz seen)", to_string(state), reason,
                    status_.vrr_min_hz, status_.vrr_max_hz);
    else if (state == DisplayState::locked)
        detail::log(LogLevel::info, "display %s: %s (%.4f Hz, reported %.4f Hz, skew %.0f ppm)", to_string(state),
                    reason, status_.refresh_hz, status_.reported_hz, status_.skew_ppm);
    else
        detail::log(LogLevel::info, "display %s: %s", to_string(state), reason);
}

double DisplayTracker::hint_period() const noexcept {
    if (status_.reported_hz > 0) return 1e9 / status_.reported_hz;
    // No refresh reported: the median interval between observations.
    return median_interval();
}

double DisplayTracker::median_interval() const noexcept {
    double iv[kWindow];
    int n = 0;
    for (int i = 1; i < count_; ++i) {
        const double d = static_cast<double>(t_[(head_ + i) % kWindow] - t_[(head_ + i - 1) % kWindow]);
        if (d >= 1e9 / kMaxHz && d <= 1e9 / kMinHz) iv[n++] = d;
    }
    return n > 0 ? quantile(iv, n, 0.5) : 0.0;
}

void DisplayTracker::restart(const char* reason, int keep) noexcept {
    keep = std::clamp(keep, 0, count_);
    head_ = (head_ + count_ - keep) % kWindow;
    count_ = keep;
    period_ = 0;
    ref_ = keep > 0 ? last_t_ : 0;
    band_ = 0;
    vrr_ = false;
    off_fit_ = 0;
    status_.period = std::chrono::nanoseconds(0);
    status_.refresh_hz = 0;
    status_.skew_ppm = 0;
    set_state(status_.vblanks > 0 ? DisplayState::locking : DisplayState::unknown, reason);
}

void DisplayTracker::set_reported_hz(double hz) noexcept {
    hz = valid_hz(hz);
    if (hz == 0.0 || hz == status_.reported_hz) return;
    const bool change = status_.reported_hz != 0.0;
    status_.reported_hz = hz;
    if (change) restart("the reported refresh changed: fitting again", 0);
}

void DisplayTracker::add(clock::time_point vblank, double reported_hz, VblankSource source) noexcept {
    set_reported_hz(reported_hz);
    const std::int64_t t = clock::to_ns(vblank);
    if (count_ > 0 && t == last_t_) return;  // the same report twice
    if (status_.state == DisplayState::lost) restart("vblank timestamps resumed: fitting again", 0);
    // A locked fit that the observations leave, several in a row: the display changed (a refresh
    // change the host did not report); fit again from those observations.
    bool moved = false;
    if (status_.state == DisplayState::locked && period_ > 0) {
        const double x = std::round(static_cast<double>(t - ref_) / period_);
        const double r = static_cast<double>(t - ref_) - x * period_;
        const bool off = source == VblankSource::swap_return ? (r < -band_ || r > 4 * band_) : std::fabs(r) > band_;
        off_fit_ = ((off_fit_ << 1) | (off ? 1 : 0)) & 0xff;
        moved = std::popcount(static_cast<unsigned>(off_fit_)) >= kMovedAfter;
    }
    const int slot = (head_ + count_) % kWindow;
    if (count_ == kWindow) head_ = (head_ + 1) % kWindow;
    else ++count_;
    t_[slot] = t;
    swap_[slot] = source == VblankSource::swap_return;
    last_t_ = t;
    frames_since_ = 0;
    ++status_.vblanks;
    if (moved) restart("the vblanks left the fit (a refresh change?): fitting again", 8);
    refit();
}

void DisplayTracker::fit_once(double period, std::int64_t ref, double* out_period, std::int64_t* out_ref,
                              double* spread, int* inliers) noexcept {
    double x[kWindow], r[kWindow], tmp[kWindow];
    bool sw[kWindow];
    const int n = count_;
    for (int i = 0; i < n; ++i) {
        const int k = (head_ + i) % kWindow;
        const double dt = static_cast<double>(t_[k] - ref);
        x[i] = std::round(dt / period);
        r[i] = dt - x[i] * period;
        sw[i] = swap_[k];
    }
    // Robust centre and spread of the residuals: median and 1.4826 x median absolute deviation.
    std::copy(r, r + n, tmp);
    const double m = quantile(tmp, n, 0.5);
    for (int i = 0; i < n; ++i) tmp[i] = std::fabs(r[i] - m);
    const double band = std::max(3.5 * 1.4826 * quantile(tmp, n, 0.5), kMinBand);
    // Least squares through the inliers: residual = da + db x.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int ni = 0, nsw = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(r[i] - m) > band) continue;
        sx += x[i];
        sy += r[i];
        ++ni;
        nsw += sw[i] ? 1 : 0;
    }
    double da = m, db = 0;
    if (ni > 0) {
        const double mx = sx / ni, my = sy / ni;
        for (int i = 0; i < n; ++i) {
            if (std::fabs(r[i] - m) > band) continue;
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (r[i] - my);
        }
        db = sxx > 0 ? sxy / sxx : 0.0;
        da = my - db * mx;
    }
    // Swap returns come late, never early: the vblank is their early envelope. The line through
    // the earlier half of the inliers (their late tail is noise only), then its 10th percentile.
    if (ni > 0 && 2 * nsw > ni) {
        int k = 0;
        for (int i = 0; i < n; ++i)
            if (std::fabs(r[i] - m) <= band) tmp[k++] = r[i] - (da + db * x[i]);
        const double half = quantile(tmp, k, 0.5);
        double lx = 0, ly = 0, lxx = 0, lxy = 0;
        int nl = 0;
        for (int i = 0; i < n; ++i) {
            if (std::fabs(r[i] - m) > band || r[i] - (da + db * x[i]) > half) continue;
            lx += x[i];
            ly += r[i];
            ++nl;
        }
        if (nl >= 4) {
            const double mx = lx / nl, my = ly / nl;
            for (int i = 0; i < n; ++i) {
                if (std::fabs(r[i] - m) > band || r[i] - (da + db * x[i]) > half) continue;
                lxx += (x[i] - mx) * (x[i] - mx);
                lxy += (x[i] - mx) * (r[i] - my);
            }
            if (lxx > 0) {
                db = lxy / lxx;
                da = my - db * mx;
            }
        }
        k = 0;
        for (int i = 0; i < n; ++i)
            if (std::fabs(r[i] - m) <= band) tmp[k++] = r[i] - (da + db * x[i]);
        da += quantile(tmp, k, 0.1);
    }
    const double p = period + db;
    // The spread and inliers against the new line, and its vblank nearest the last observation.
    for (int i = 0; i < n; ++i) tmp[i] = r[i] - (da + db * x[i]);
    double* res = r;
    std::copy(tmp, tmp + n, res);
    const double m2 = quantile(tmp, n, 0.5);
    for (int i = 0; i < n; ++i) tmp[i] = std::fabs(res[i] - m2);
    const double mad = quantile(tmp, n, 0.5);
    const double band2 = std::max(3.5 * 1.4826 * mad, kMinBand);
    int in = 0;
    for (int i = 0; i < n; ++i) in += std::fabs(res[i] - m2) <= band2 ? 1 : 0;
    for (int i = 0; i < n; ++i) tmp[i] = std::fabs(res[i]);
    status_.residual = std::chrono::nanoseconds(std::llround(quantile(tmp, n, 0.5)));
    const double xl = std::round(static_cast<double>(last_t_ - ref) / period);
    *out_period = p;
    *out_ref = ref + std::llround(da + xl * period + db * xl);
    *spread = 1.4826 * mad;
    *inliers = in;
}

void DisplayTracker::refit() noexcept {
    const double hint = hint_period();
    double p = period_ > 0 ? period_ : hint;
    if (hint > 0 && std::fabs(p - hint) > kHintTolerance * hint) p = hint;
    if (p <= 0 || count_ < 2) {
        ref_ = last_t_;
        set_state(DisplayState::locking, "fitting the first vblanks");
        return;
    }
    std::int64_t ref = ref_ != 0 ? ref_ : last_t_;
    double spread = 0;
    int inliers = 0;
    // Once locked the estimate indexes the window right: one round suffices.
    const int rounds = status_.state == DisplayState::locked ? 1 : 2;
    for (int round = 0; round < rounds; ++round) fit_once(p, ref, &p, &ref, &spread, &inliers);
    if (hint > 0 && std::fabs(p - hint) > kHintTolerance * hint) {
        // No grid near the expected period: keep the expected one, and let the spread say so.
        p = hint;
        spread = std::max(spread, p);
    }
    period_ = p;
    ref_ = ref;
    status_.period = std::chrono::nanoseconds(std::llround(p));
    status_.refresh_hz = 1e9 / p;
    status_.skew_ppm = status_.reported_hz > 0 ? (1e9 / status_.reported_hz / p - 1.0) * 1e6 : 0.0;
    status_.vblank = clock::from_ns(ref);
    decide(spread, inliers);
}

void DisplayTracker::vrr_range() noexcept {
    double iv[kWindow];
    int n = 0;
    for (int i = 1; i < count_; ++i) {
        const double d = static_cast<double>(t_[(head_ + i) % kWindow] - t_[(head_ + i - 1) % kWindow]);
        if (d >= 1e9 / kMaxHz && d <= 1e9 / kMinHz) iv[n++] = d;
    }
    if (n == 0) return;
    // The shortest interval and the 90th percentile (a lost report doubles one).
    const double hi = quantile(iv, n, 0.9);
    const double lo = *std::min_element(iv, iv + n);
    status_.vrr_max_hz = 1e9 / lo;
    status_.vrr_min_hz = 1e9 / hi;
}

void DisplayTracker::decide(double spread, int inliers) noexcept {
    const double p = period_;
    if (vrr_) {  // kept (see the manual); the range follows the presents
        vrr_range();
        return;
    }
    const bool fits = count_ >= kLockMin && 4 * inliers >= 3 * count_ && spread <= std::min(p / 16, kMaxLockSpread);
    if (fits) {
        band_ = std::clamp(5 * spread, 3 * kMinBand, p / 4);
        if (status_.state != DisplayState::locked) {
            ++status_.locks;
            status_.vrr_min_hz = status_.vrr_max_hz = 0;
        }
        set_state(DisplayState::locked, "period and phase fitted from the presents");
        return;
    }
    // Locked: some slack before giving up (a burst of late wake-ups).
    if (status_.state == DisplayState::locked && spread <= p / 8 && 2 * inliers >= count_) return;
    if (count_ >= kVrrMin && spread > p / 8) {
        // A steady grid at another period than the reported one (a compositor that repaints at
        // its own rate) is not a variable refresh.
        const double other = median_interval();
        double q = 0, other_spread = 0;
        std::int64_t ref = last_t_;
        int in = 0;
        const std::chrono::nanoseconds residual = status_.residual;
        if (other > 0) fit_once(other, ref, &q, &ref, &other_spread, &in);
        status_.residual = residual;
        if (other > 0 && other_spread <= std::min(other / 16, kMaxLockSpread) && 4 * in >= 3 * count_) {
            set_state(DisplayState::locking, "the presents keep a steady rate other than the reported refresh");
            return;
        }
        vrr_range();
        vrr_ = true;
        set_state(DisplayState::vrr, "the presents fit no fixed refresh: a variable-refresh display");
        return;
    }
    set_state(DisplayState::locking, status_.state == DisplayState::locked
                                         ? "the vblanks stopped fitting: fitting again"
                                         : "fitting the vblanks");
}

void DisplayTracker::on_frame(clock::time_point now) noexcept {
    const std::int64_t t = clock::to_ns(now);
    // A variable-refresh verdict is about the display, not the timestamps: it stays when they stop
    // (the pacer turns vsync off on such a display, and torn presents show no vblanks).
    if (status_.state == DisplayState::unknown || status_.state == DisplayState::lost ||
        status_.state == DisplayState::vrr)
        return;
    ++frames_since_;
    double p = period_ > 0 ? period_ : hint_period();
    if (p <= 0) p = 1e9 / 60.0;
    if (frames_since_ >= kLostFrames && static_cast<double>(t - last_t_) >= kLostFrames * p)
        set_state(DisplayState::lost, "no vblank observed for 30 frames: the timestamps stopped");
}

clock::time_point DisplayTracker::next_vblank(clock::time_point t) const noexcept {
    const std::int64_t tn = clock::to_ns(t);
    if (period_ <= 0) return clock::from_ns(tn + 1);
    double n = std::floor(static_cast<double>(tn - ref_) / period_) + 1;
    std::int64_t v = ref_ + std::llround(n * period_);
    while (v <= tn) v = ref_ + std::llround(++n * period_);
    while (ref_ + std::llround((n - 1) * period_) > tn) v = ref_ + std::llround(--n * period_);
    return clock::from_ns(v);
}

}  // namespace pacer
