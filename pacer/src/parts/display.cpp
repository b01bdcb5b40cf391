#include "pacer/display.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "base/log_internal.hpp"

namespace pacer {

namespace {

constexpr double kMinHz = 20.0, kMaxHz = 1000.0;
constexpr double kMinBand = 100'000.0;   // ns: inliers are never cut tighter than this
// ns: counted vblanks count as fitting the line within this (or period / 8) at least. Their
// index is certain; a server that stamps from a millisecond timer (Xvfb) puts a third of its
// 60 Hz stamps a steady 1-1.1 ms off the others, which a band of the median deviation alone
// counted as outliers (two thirds inliers: no lock for 3-27 s). The line itself is still fitted
// through the tight band: the wide one let the scheduler's late stamps tilt it (0.034 % off).
constexpr double kMinCountedBand = 2e6;
constexpr double kMaxLineBand = 1.1e6;   // ns: a server's own stamps scatter this much (Xvfb)
constexpr double kMaxLockSpread = 1e6;   // ns: a lock needs a spread under this (and period / 16)
constexpr double kHintTolerance = 0.02;  // a fitted period this far from the reported one is no fit

double valid_hz(double hz) noexcept { return std::isfinite(hz) && hz >= kMinHz && hz <= kMaxHz ? hz : 0.0; }

// The k-th smallest of v[0..n), reordering v: what std::nth_element finds, in a quarter to a half
// of its time on 128 residuals (its partition's branches mispredict on noise; these are
// branchless). A quickselect on the median of three; a pass that gathers the values equal to the
// pivot keeps runs of equal values (exact vblanks: residuals all 0) linear.
double select_kth(double* v, int n, int k) noexcept {
    int lo = 0, hi = n;  // the k-th is in v[lo, hi)
    while (hi - lo > 8) {
        const double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        const double pivot = std::max(std::min(a, b), std::min(std::max(a, b), c));
        int lt = lo;  // v[lo, lt) < pivot
        for (int j = lo; j < hi; ++j) {
            const double x = v[j];
            v[j] = v[lt];
            v[lt] = x;
            lt += x < pivot ? 1 : 0;
        }
        if (k < lt) {
            hi = lt;
            continue;
        }
        int eq = lt;  // v[lt, eq) == pivot
        for (int j = lt; j < hi; ++j) {
            const double x = v[j];
            v[j] = v[eq];
            v[eq] = x;
            eq += x <= pivot ? 1 : 0;
        }
        if (k < eq) return pivot;
        lo = eq;
    }
    for (int i = lo + 1; i < hi; ++i)
        for (int j = i; j > lo && v[j] < v[j - 1]; --j) std::swap(v[j], v[j - 1]);
    return v[k];
}

// The p-quantile (lower) of v[0..n), reordering v.
double quantile(double* v, int n, double p) noexcept {
    if (n <= 0) return 0.0;
    return select_kth(v, n, std::clamp(static_cast<int>(p * (n - 1)), 0, n - 1));
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
    if (status_.by_counter && count_ >= 2) {
        // Counted vblanks: time over counts between samples half the window apart, the median of
        // them. (First to last alone: one stamp that a busy server delayed by 6 ms, at the end
        // of a window of 14, moved it 3 % at 60 Hz, beyond the 2 % a fit may stray, and the
        // lock was lost for a sample.)
        double slope[kWindow];
        const int h = count_ / 2;
        int n = 0;
        for (int i = 0; i + h < count_; ++i) {
            const int a = (head_ + i) % kWindow, b = (head_ + i + h) % kWindow;
            const std::int64_t counts = msc_[b] - msc_[a];
            if (counts > 0) slope[n++] = static_cast<double>(t_[b] - t_[a]) / static_cast<double>(counts);
        }
        return n > 0 ? quantile(slope, n, 0.5) : 0.0;
    }
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
    firm_ = false;
    told_unsynced_ = false;
    off_fit_ = 0;
    since_fit_ = 0;
    span_n_ = 0;
    long_fit_ = false;
    firm_period_ = 0;
    if (keep == 0) last_msc_ = -1;
    ref_msc_ = keep > 0 ? msc_[(head_ + count_ - 1) % kWindow] : 0;
    status_.period = std::chrono::nanoseconds(0);
    status_.refresh_hz = 0;
    status_.skew_ppm = 0;
    set_state(status_.vblanks > 0 ? DisplayState::locking : DisplayState::unknown, reason);
}

void DisplayTracker::set_reported_hz(double hz) noexcept {
    hz = valid_hz(hz);
    // The same refresh in other words (60 Hz from a display mode, 1e9 / 16666667 ns from a
    // presentation-feedback API) is no change: 10 ppm apart at most. 59.94 from 60 is 1000 ppm.
    if (hz == 0.0 || std::fabs(hz - status_.reported_hz) <= 1e-5 * hz) return;
    const bool change = status_.reported_hz != 0.0;
    status_.reported_hz = hz;
    if (change) restart("the reported refresh changed: fitting again", 0);
}

void DisplayTracker::add(const VblankSample& s, double reported_hz) noexcept {
    set_reported_hz(reported_hz);
    note_frame(s);  // a frame shown at a vblank already seen is still a frame
    const std::int64_t t = clock::to_ns(s.time);
    if (count_ > 0 && t == last_t_) return;  // the same report twice
    if (!take_counter(s)) return;
    if (s.source == VblankSource::unsynced) {
        // The source says its frames are shown on no vblank: nothing to fit, the shown rate only.
        if (!told_unsynced_) restart("the source shows frames on no vblank", 0);
        told_unsynced_ = true;
        push(s, t);
        set_state(DisplayState::unsynced, "the compositor presents on its own timer, no vblank grid");
        return;
    }
    if (status_.state == DisplayState::lost) restart("vblank timestamps resumed: fitting again", 0);
    if (told_unsynced_) restart("the source shows vblanks again: fitting", 0);
    // A locked fit that the observations leave, several in a row: the display changed (a refresh
    // change the host did not report); fit again from those observations.
    push(s, t);
    bool moved = false;
    if (status_.state == DisplayState::locked && period_ > 0) {
        const int slot = (head_ + count_ - 1) % kWindow;
        const double x = index(slot, period_, ref_, ref_msc_);
        const double r = static_cast<double>(t - ref_) - x * period_;
        const bool off = s.source == VblankSource::swap_return ? (r < -band_ || r > 4 * band_) : std::fabs(r) > band_;
        off_fit_ = ((off_fit_ << 1) | (off ? 1 : 0)) & 0xff;
        moved = std::popcount(static_cast<unsigned>(off_fit_)) >= kMovedAfter;
        // Counted vblanks: a display that changed leaves the fit along a line of its own; stamps
        // that a busy server delays scatter off it by whatever each wake-up lost, and come back.
        if (moved && status_.by_counter) moved = recent_on_a_line();
        // A firm lock over a full window is fitted again every kRefitEvery samples only (the
        // window's first fill gets its robust fit: the span's first point and firm_period_).
        if (!moved && firm_ && count_ == kWindow && anchor_.count == kWindow && ++since_fit_ < kRefitEvery)
            return follow(slot);
    }
    if (moved) restart("the vblanks left the fit (a refresh change?): fitting again", 8);
    refit();
}

// The last kMovedLineWindow counted samples lie on a line of their own, about as tight as the
// locked fit's inliers (within 0.6 of its band, 2.1 robust sigmas, at least 0.1 ms) and as a
// server's own stamps (1.1 ms: Xvfb's millisecond timer): a new refresh or phase. A spell of
// stamps that a loaded server delayed by 1-12 ms each scatters wider than that. A spell that it
// delays by about the same each time does not, later than the fit at about its rate: such a line
// must hold for kMovedLateWindow samples. (Xvfb at 144 Hz beside a disk writer and a compositor,
// 14 % of its stamps late: 8 in a row 1.5-2.2 ms late after 8 on time, which the line through
// the last 8 alone took for a new display 4 % faster.)
bool DisplayTracker::recent_on_a_line() const noexcept {
    double db = 0, late = 0;
    if (!recent_line(kMovedLineWindow, &db, &late)) return false;
    if (late <= 0 || std::fabs(db) > kHintTolerance * period_) return true;
    return recent_line(kMovedLateWindow, &db, &late);
}

// The last n counted samples on a line of their own (as above): its slope against the fitted
// period (*db, ns a vblank) and their median residual from the fit (*late, ns).
bool DisplayTracker::recent_line(int n, double* db, double* late) const noexcept {
    if (count_ < n) return false;
    double x[kWindow], y[kWindow], r[kWindow];
    Sums sums;
    const int first = head_ + count_ - n;
    for (int i = 0; i < n; ++i) {
        const int k = (first + i) % kWindow;
        x[i] = static_cast<double>(msc_[k] - msc_[first % kWindow]);
        y[i] = static_cast<double>(t_[k] - t_[first % kWindow]) - x[i] * period_;
        r[i] = static_cast<double>(t_[k] - ref_) - static_cast<double>(msc_[k] - ref_msc_) * period_;
        sums.add(x[i], y[i], 1.0);
    }
    double da = 0;
    if (!sums.line(&da, db)) return false;
    const double band = std::clamp(0.6 * anchor_.band, kMinBand, kMaxLineBand);
    for (int i = 0; i < n; ++i)
        if (std::fabs(y[i] - (da + *db * x[i])) > band) return false;
    *late = quantile(r, n, 0.5);
    return true;
}

// The counter: a sample without one in a fit by counter (or the reverse) starts a new fit; a
// counter seen before is the same vblank again; one that went back is a new counter (a new
// window or output).
bool DisplayTracker::take_counter(const VblankSample& s) noexcept {
    if (count_ > 0 && s.has_msc != status_.by_counter) restart("the vblank counter came or went: fitting again", 0);
    status_.by_counter = s.has_msc;
    if (!s.has_msc) return true;
    const auto m = static_cast<std::int64_t>(s.msc & 0x7fff'ffff'ffff'ffffULL);
    if (last_msc_ >= 0 && m == last_msc_) return false;
    if (last_msc_ >= 0 && m < last_msc_) restart("the vblank counter went back: fitting again", 0);
    last_msc_ = m;
    return true;
}

void DisplayTracker::push(const VblankSample& s, std::int64_t t) noexcept {
    const int slot = (head_ + count_) % kWindow;
    if (count_ == kWindow) {
        if (in_[slot]) sums_.add(x_[slot], y_[slot], -1.0);  // the oldest leaves the followed fit
        head_ = (head_ + 1) % kWindow;
    } else {
        ++count_;
    }
    in_[slot] = false;
    t_[slot] = t;
    swap_[slot] = s.source == VblankSource::swap_return;
    msc_[slot] = last_msc_;
    sub_[slot] = clock::to_ns(s.submitted);
    last_t_ = t;
    frames_since_ = 0;
    ++status_.vblanks;
}

// Shown frames (samples with a submit time): their rate over the last kFrames. A pause of a
// second starts the count again.
void DisplayTracker::note_frame(const VblankSample& s) noexcept {
    if (s.submitted.time_since_epoch().count() == 0) return;
    const std::int64_t t = clock::to_ns(s.time);
    const std::int64_t last = frame_count_ > 0 ? frame_t_[(frame_head_ + frame_count_ - 1) % kFrames] : 0;
    if (frame_count_ > 0 && (t <= last || t - last > 1'000'000'000)) frame_count_ = 0;
    const int slot = (frame_head_ + frame_count_) % kFrames;
    if (frame_count_ == kFrames) frame_head_ = (frame_head_ + 1) % kFrames;
    else ++frame_count_;
    frame_t_[slot] = t;
    const std::int64_t span = t - frame_t_[frame_head_];
    status_.shown_hz = frame_count_ >= 8 && span > 0 ? (frame_count_ - 1) * 1e9 / static_cast<double>(span) : 0.0;
}

// A sample's vblank index from the line (period, ref): its counter's distance when counted, else
// its time's, rounded.
double DisplayTracker::index(int slot, double period, std::int64_t ref, std::int64_t ref_msc) const noexcept {
    if (status_.by_counter) return static_cast<double>(msc_[slot] - ref_msc);
    return std::round(static_cast<double>(t_[slot] - ref) / period);
}

void DisplayTracker::Sums::add(double px, double py, double w) noexcept {
    n += w;
    x += w * px;
    y += w * py;
    xx += w * px * px;
    xy += w * px * py;
}

// The least-squares line through the points: residual = *da + *db index. False: no points.
bool DisplayTracker::Sums::line(double* da, double* db) const noexcept {
    if (n < 0.5) return false;
    const double mx = x / n, my = y / n;
    const double sxx = xx - x * mx, sxy = xy - x * my;
    *db = sxx > 0 ? sxy / sxx : 0.0;
    *da = my - *db * mx;
    return true;
}

// The robust fit of the window, indexed from the line (period, ref): the residuals' median and
// median absolute deviation pick the inliers, a least-squares line goes through them (for swap
// returns, their early envelope), and the fit's vblank nearest the last sample is *out_ref.
// record: this fit is the one follow() continues (its inliers' sums are kept).
void DisplayTracker::fit_once(double period, std::int64_t ref, std::int64_t ref_msc, double* out_period,
                              std::int64_t* out_ref, double* spread, int* inliers, bool record) noexcept {
    double x[kWindow], r[kWindow], tmp[kWindow];
    bool in[kWindow];
    const int n = count_;
    for (int i = 0; i < n; ++i) {
        const int k = (head_ + i) % kWindow;
        x[i] = index(k, period, ref, ref_msc);
        r[i] = static_cast<double>(t_[k] - ref) - x[i] * period;
    }
    // Robust centre and spread of the residuals: median and 1.4826 x median absolute deviation.
    std::copy(r, r + n, tmp);
    const double m = quantile(tmp, n, 0.5);
    for (int i = 0; i < n; ++i) tmp[i] = std::fabs(r[i] - m);
    double band = std::max(3.5 * 1.4826 * quantile(tmp, n, 0.5), kMinBand);
    // Counted vblanks: at most a server's own scatter from the median. Xvfb at 144 Hz beside a
    // disk writer (13-16 % of its stamps late) widened the band to 2.4 ms, and the stamps 1-2 ms
    // late in it tilted the window's line up to 1,470 ppm off the server's rate; capped, 667 ppm
    // at worst over 15 such runs (tests/samples/xvfb_144hz_disk_*.csv).
    if (status_.by_counter) band = std::min(band, kMaxLineBand);
    Sums sums;
    int nsw = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = std::fabs(r[i] - m) <= band;
        if (in[i]) sums.add(x[i], r[i], 1.0);
        nsw += in[i] && swap_[(head_ + i) % kWindow] ? 1 : 0;
    }
    double da = m, db = 0;
    sums.line(&da, &db);
    const double xl = x[n - 1];  // the last sample's index
    double shift = 0;  // envelope - least squares, at the last sample
    if (2 * nsw > sums.n) {
        const double ls_at = da + db * xl;
        envelope(x, r, in, &da, &db);
        shift = da + db * xl - ls_at;
    }
    if (record) keep_fit(x, r, in, sums, {period, ref, ref_msc, m, band, shift, n});
    judge(x, r, da, db, period, spread, inliers);
    *out_period = period + db;
    *out_ref = ref + std::llround(da + xl * period + db * xl);
}

// Swap returns come late, never early: the vblank is their early envelope. The line through the
// earlier half of the inliers (their late tail is noise only), then its 10th percentile.
void DisplayTracker::envelope(const double* x, const double* r, const bool* in, double* da,
                              double* db) const noexcept {
    double tmp[kWindow];
    const int n = count_;
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (in[i]) tmp[k++] = r[i] - (*da + *db * x[i]);
    const double half = quantile(tmp, k, 0.5);
    Sums early;
    for (int i = 0; i < n; ++i)
        if (in[i] && r[i] - (*da + *db * x[i]) <= half) early.add(x[i], r[i], 1.0);
    double ea = 0, eb = 0;
    if (early.n >= 4 && early.line(&ea, &eb) && early.xx * early.n > early.x * early.x) {
        *da = ea;
        *db = eb;
    }
    k = 0;
    for (int i = 0; i < n; ++i)
        if (in[i]) tmp[k++] = r[i] - (*da + *db * x[i]);
    *da += quantile(tmp, k, 0.1);
}

// The spread and inliers of the window against the line (da, db), and the residual it shows.
// What counts as fitting the line for a lock: 3.5 robust standard deviations (1.4826 x the median
// absolute deviation) around the median, and for counted vblanks kMinCountedBand.
double DisplayTracker::inlier_band(double mad, double period) const noexcept {
    const double floor = status_.by_counter ? std::min(period / 8, kMinCountedBand) : kMinBand;
    return std::max({3.5 * 1.4826 * mad, floor, kMinBand});
}

void DisplayTracker::judge(const double* x, const double* r, double da, double db, double period, double* spread,
                           int* inliers) noexcept {
    double res[kWindow], tmp[kWindow];
    const int n = count_;
    for (int i = 0; i < n; ++i) tmp[i] = res[i] = r[i] - (da + db * x[i]);
    const double m = quantile(tmp, n, 0.5);
    for (int i = 0; i < n; ++i) tmp[i] = std::fabs(res[i] - m);
    const double mad = quantile(tmp, n, 0.5);
    const double band = inlier_band(mad, period);
    int count = 0;
    for (int i = 0; i < n; ++i) count += std::fabs(res[i] - m) <= band ? 1 : 0;
    for (int i = 0; i < n; ++i) tmp[i] = std::fabs(res[i]);
    status_.residual = std::chrono::nanoseconds(std::llround(quantile(tmp, n, 0.5)));
    *spread = 1.4826 * mad;
    *inliers = count;
}

// The fit follow() continues: each sample's index and residual from its line, whether it was an
// inlier, and the inliers' sums.
void DisplayTracker::keep_fit(const double* x, const double* r, const bool* in, const Sums& sums,
                              const Anchor& anchor) noexcept {
    for (int i = 0; i < count_; ++i) {
        const int k = (head_ + i) % kWindow;
        x_[k] = x[i];
        y_[k] = r[i];
        in_[k] = in[i];
    }
    sums_ = sums;
    anchor_ = anchor;
}

// Between robust fits (a firm lock over a full window) a sample is followed at O(1): it joins the
// inliers' sums when the last robust fit's band takes it (the oldest one left them in push()),
// and the least-squares line through them is the fit, moved by that fit's envelope shift. Over
// the same points this is the robust fit's line; the band and the shift wait for the next one.
void DisplayTracker::follow(int slot) noexcept {
    const Anchor& a = anchor_;
    const double x = index(slot, a.period, a.ref, a.ref_msc);
    const double y = static_cast<double>(t_[slot] - a.ref) - x * a.period;
    x_[slot] = x;
    y_[slot] = y;
    in_[slot] = std::fabs(y - a.centre) <= a.band;
    if (in_[slot]) sums_.add(x, y, 1.0);
    if (long_fit_) return;  // the span's line holds; the next robust fit checks it
    double da = 0, db = 0;
    if (!sums_.line(&da, &db)) return;
    set_fit(a.period + db, a.ref + std::llround(da + a.shift + x * a.period + db * x),
            status_.by_counter ? last_msc_ : 0);
}

void DisplayTracker::set_fit(double period, std::int64_t ref, std::int64_t ref_msc) noexcept {
    period_ = period;
    ref_ = ref;
    ref_msc_ = ref_msc;
    status_.period = std::chrono::nanoseconds(std::llround(period));
    status_.refresh_hz = 1e9 / period;
    status_.skew_ppm = status_.reported_hz > 0 ? (1e9 / status_.reported_hz / period - 1.0) * 1e6 : 0.0;
    status_.vblank = clock::from_ns(ref);
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
    std::int64_t ref_msc = ref_ != 0 ? ref_msc_ : last_msc_;
    double spread = 0;
    int inliers = 0;
    since_fit_ = 0;
    // Once locked the estimate indexes the window right: one round suffices.
    const int rounds = status_.state == DisplayState::locked ? 1 : 2;
    for (int round = 0; round < rounds; ++round) {
        fit_once(p, ref, ref_msc, &p, &ref, &spread, &inliers, round + 1 == rounds);
        ref_msc = last_msc_;  // the fit's vblank is the one nearest the last sample
    }
    if (hint > 0 && std::fabs(p - hint) > kHintTolerance * hint) {
        // No grid near the expected period: keep the expected one, and let the spread say so.
        p = hint;
        spread = std::max(spread, p);
    }
    set_fit(p, ref, status_.by_counter ? last_msc_ : 0);
    decide(spread, inliers);
    fit_span(firm_ && count_ == kWindow);
}

// Counted vblanks need no index guessed, so the fits of the last seconds share one exact line:
// the least-squares line through each firm robust fit's vblank at its inliers' centre (kSpanFits
// of them, kRefitEvery vblanks apart) gives the period over their whole span. Each such vblank is
// good to ~0.1 ms (Xvfb's stamps: +-0.5 ms, 128 of them) however the window's line tilts (its
// vblank at the last sample is off by the tilt times half the window: 0.9 ms at 144 Hz for a
// 2,000 ppm tilt, which the span took in before), so over 2,000 vblanks the period is within a
// few ppm, where the window's own line wanders by 100-300 ppm. A window fit that leaves that line
// (its period 0.1 % off, or its last vblank a quarter millisecond plus a sixteenth period off: an
// unreported refresh change) starts the span again. A window on slack (still locked, its stamps
// too scattered for a firm fit: a starved server) neither joins the span nor replaces its line:
// its own fit wandered 0.2 % off (Xvfb at 144 Hz beside a 150 %-CPU client).
void DisplayTracker::fit_span(bool firm) noexcept {
    if (!status_.by_counter || status_.state != DisplayState::locked) {
        span_n_ = 0;
        long_fit_ = false;
        firm_period_ = 0;
        return;
    }
    double p = 0, ref = 0;
    if (!firm) {  // on slack: the span's line stays in force, not this window's looser fit
        if (long_fit_ && span_line(&p, &ref)) set_fit(p, std::llround(ref), ref_msc_);
        else if (!firm_ && firm_period_ > 0) hold_period(firm_period_);
        return;
    }
    if (span_line(&p, &ref) &&
        (std::fabs(p - period_) > 1e-3 * period_ || std::fabs(ref - static_cast<double>(ref_)) > 2.5e5 + period_ / 16))
        span_n_ = 0;  // this window left the span's line: the span starts again from it
    const int k = (span_head_ + span_n_) % kSpanFits;
    if (span_n_ == kSpanFits) span_head_ = (span_head_ + 1) % kSpanFits;
    else if (span_n_++ == 0) span_head_ = k;
    double t = 0;
    window_centre(&span_msc_[k], &t);
    span_t_[k] = std::llround(t);
    long_fit_ = span_line(&p, &ref);
    if (long_fit_) set_fit(p, std::llround(ref), ref_msc_);
    firm_period_ = period_;
}

// The window's fit (in force: refit() sets it) at the centre of its inliers, its counter and time:
// there a line tilted by a late spell at one end of the window is still right, where at its last
// sample it is off by the tilt times half the window.
void DisplayTracker::window_centre(std::int64_t* msc, double* t) const noexcept {
    *msc = sums_.n >= 1 ? anchor_.ref_msc + std::llround(sums_.x / sums_.n) : ref_msc_;
    *t = static_cast<double>(ref_) + static_cast<double>(*msc - ref_msc_) * period_;
}

// A window on slack before the span holds: the last firm window's period stays in force, and the
// window gives the phase only (the line at that period through the window's centre). Xvfb beside
// two busy loops spread its stamps over 1.1-1.6 ms for a whole run, every window on slack, and
// their own lines wandered up to 2,000 ppm off the server's rate.
void DisplayTracker::hold_period(double period) noexcept {
    std::int64_t msc = 0;
    double t = 0;
    window_centre(&msc, &t);
    set_fit(period, std::llround(t + static_cast<double>(last_msc_ - msc) * period), last_msc_);
}

// The least-squares line through the span's fitted vblanks: its period and its vblank at ref_msc_;
// false while the span is under 8 fits or 2 windows.
bool DisplayTracker::span_line(double* period, double* ref) const noexcept {
    if (span_n_ < 8) return false;
    const std::int64_t m0 = span_msc_[span_head_], t0 = span_t_[span_head_];
    const int last = (span_head_ + span_n_ - 1) % kSpanFits;
    if (span_msc_[last] - m0 < 2 * kWindow) return false;
    Sums line;  // residuals from the window's period, for the conditioning
    for (int i = 0; i < span_n_; ++i) {
        const int j = (span_head_ + i) % kSpanFits;
        const double x = static_cast<double>(span_msc_[j] - m0);
        line.add(x, static_cast<double>(span_t_[j] - t0) - x * period_, 1.0);
    }
    double da = 0, db = 0;
    if (!line.line(&da, &db)) return false;
    const double x = static_cast<double>(ref_msc_ - m0);
    *period = period_ + db;
    *ref = static_cast<double>(t0) + da + x * *period;
    return true;
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
    firm_ = false;
    if (vrr_) {  // kept (see the manual); the range follows the presents
        vrr_range();
        return;
    }
    // Counted vblanks need no index guessed from their times: their spread may reach a quarter
    // period (Xvfb's timer stamps vblanks 0.1-1.5 ms late on a busy machine: a spread of 0.6 ms,
    // over period / 16 at 120 Hz) before the fit is in doubt; a guessed index, a sixteenth.
    const double limit = status_.by_counter ? p / 4 : p / 16;
    const bool fits = count_ >= kLockMin && 4 * inliers >= 3 * count_ && spread <= std::min(limit, kMaxLockSpread);
    if (fits) {
        // Counted vblanks cannot be mis-indexed: only one a quarter period off leaves the fit
        // (Xvfb's millisecond timer puts a steady pattern of 0-1 ms on its stamps).
        band_ = status_.by_counter ? p / 4 : std::clamp(5 * spread, 3 * kMinBand, p / 4);
        if (status_.state != DisplayState::locked) {
            ++status_.locks;
            status_.vrr_min_hz = status_.vrr_max_hz = 0;
        }
        firm_ = true;
        set_state(DisplayState::locked, "period and phase fitted from the observed vblanks");
        return;
    }
    // Locked: some slack before giving up (a burst of late wake-ups).
    if (status_.state == DisplayState::locked && spread <= 2 * limit && 2 * inliers >= count_) return;
    if (count_ >= kVrrMin && spread > 2 * std::max(limit, p / 16)) {
        // Counted vblanks are a vblank clock whatever their times say: late stamps, not no grid.
        if (!status_.by_counter) return no_grid();
        return set_state(DisplayState::locking, "the counted vblanks' times scatter over half a period: fitting");
    }
    set_state(DisplayState::locking, status_.state == DisplayState::locked
                                         ? "the vblanks stopped fitting: fitting again"
                                         : "fitting the vblanks");
}

// The samples fit no grid at the expected period. A steady grid at another period (a compositor
// that repaints at its own rate) is no variable refresh; neither are times that do not follow the
// frames (a compositor's timer). A variable-refresh display shows each frame as it comes.
void DisplayTracker::no_grid() noexcept {
    const double other = status_.by_counter ? 0.0 : median_interval();
    if (other > 0) {
        double q = 0, other_spread = 0;
        std::int64_t ref = last_t_;
        int in = 0;
        const std::chrono::nanoseconds residual = status_.residual;
        fit_once(other, ref, 0, &q, &ref, &other_spread, &in, false);
        status_.residual = residual;
        if (other_spread <= std::min(other / 16, kMaxLockSpread) && 4 * in >= 3 * count_)
            return set_state(DisplayState::locking, "the presents keep a steady rate other than the reported refresh");
    }
    if (!follows_frames())
        return set_state(DisplayState::unsynced,
                         "the shown times fit no vblank grid and do not follow the frames: frames shown on a "
                         "timer of their own, not a variable refresh");
    vrr_range();
    vrr_ = true;
    set_state(DisplayState::vrr, "the presents fit no fixed refresh and follow the frames: a variable-refresh display");
}

// Evidence of a variable refresh: the samples' frames were submitted at known times, and the
// display follows them: at least half of them shown a steady delay after their submit (within an
// eighth of the period, and 0.5 ms), or the intervals between shown frames follow the intervals
// between their submits (correlation 0.5 or more: a queue of frames shifts the delay, not the
// rhythm). A timer-driven compositor shows them anywhere from 0 to a whole repaint period after
// their submit (weston's delays spread over 0-19 ms) on a rhythm of its own.
bool DisplayTracker::follows_frames() const noexcept {
    double d[kWindow];
    int n = 0;
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int pairs = 0;
    for (int i = 0; i < count_; ++i) {
        const int k = (head_ + i) % kWindow;
        if (sub_[k] == 0) continue;
        d[n++] = static_cast<double>(t_[k] - sub_[k]);
        const int j = (k + kWindow - 1) % kWindow;
        if (i == 0 || sub_[j] == 0) continue;
        const double x = static_cast<double>(sub_[k] - sub_[j]), y = static_cast<double>(t_[k] - t_[j]);
        sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
        ++pairs;
    }
    if (4 * n < 3 * count_) return false;
    double tmp[kWindow];
    std::copy(d, d + n, tmp);
    const double m = quantile(tmp, n, 0.5);
    const double band = std::max(period_ / 8, 500'000.0);
    int steady = 0;
    for (int i = 0; i < n; ++i) steady += std::fabs(d[i] - m) <= band ? 1 : 0;
    if (2 * steady >= n) return true;
    const double cxx = sxx - sx * sx / pairs, cyy = syy - sy * sy / pairs, cxy = sxy - sx * sy / pairs;
    return pairs + 1 >= kVrrMin && cxx > 0 && cyy > 0 && cxy / std::sqrt(cxx * cyy) >= 0.5;
}

void DisplayTracker::on_frame(clock::time_point now) noexcept {
    const std::int64_t t = clock::to_ns(now);
    // A variable-refresh verdict is about the display, not the timestamps: it stays when they stop
    // (the pacer turns vsync off on such a display, and torn presents show no vblanks).
    if (status_.state == DisplayState::unknown || status_.state == DisplayState::lost ||
        status_.state == DisplayState::vrr || status_.state == DisplayState::unsynced)
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

bool DisplayTracker::msc_at(clock::time_point vblank, std::uint64_t* msc) const noexcept {
    if (!locked() || !status_.by_counter || period_ <= 0) return false;
    const double x = std::round(static_cast<double>(clock::to_ns(vblank) - ref_) / period_);
    const double m = static_cast<double>(ref_msc_) + x;
    if (m < 0) return false;
    *msc = static_cast<std::uint64_t>(m);
    return true;
}

}  // namespace pacer
