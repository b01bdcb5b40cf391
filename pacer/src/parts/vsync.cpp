#include "pacer/vsync.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "base/log_internal.hpp"
#include "pacer/present_classifier.hpp"

namespace pacer {

namespace {
bool refresh_known(double hz) noexcept {
    return std::isfinite(hz) && hz >= kMinRefreshHz && hz <= kMaxRefreshHz;
}
// The swap's cadence is the refresh or a whole divisor of it, within 3 %.
bool cadence_is_refresh(double refresh_hz, double cadence_hz) noexcept {
    const double n = std::round(refresh_hz / cadence_hz);
    return n >= 1 && std::fabs(refresh_hz / n - cadence_hz) <= 0.03 * cadence_hz;
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

// ---------------------------------------------------------------------------------------------
// VsyncDetector

void VsyncDetector::reset() noexcept { *this = VsyncDetector(); }

bool VsyncDetector::add(const PresentInfo& p) noexcept {
    last_block_ = p.end - p.begin;
    const bool had_last = have_last_;
    const clock::time_point prev = last_end_;
    last_end_ = p.end;
    have_last_ = true;
    Evidence e = Evidence::none;
    bool missed = false;
    if (p.ok && had_last && p.swap_interval >= 1 && refresh_known(p.refresh_hz) && p.end > prev) {
        e = judge(p, prev, &missed);
    } else {
        have_grid_ = false;
    }
    if (!had_last && p.ok) return false;  // the first present has no interval: no evidence either way
    if (p.ok && had_last && p.end > prev) {
        intervals_[ring_next_] = (p.end - prev).count();
        swaps_[ring_next_] = std::max<std::int64_t>(0, last_block_.count());
        ring_next_ = (ring_next_ + 1) % kCadenceWindow;
        ring_count_ = std::min(ring_count_ + 1, kCadenceWindow);
    }
    // A late present is no evidence, unless many are: then the swap waits for something else
    // than these vblanks.
    late_bits_ = ((late_bits_ << 1) | (e == Evidence::late ? 1u : 0u)) & 0xffffu;
    if (e == Evidence::late && std::popcount(late_bits_) > kLateOf16) e = Evidence::unlocked;
    const bool locked = e == Evidence::locked;
    const bool waited = locked && static_cast<double>(last_block_.count()) * p.refresh_hz >= 0.25e9;
    waited_bits_ = ((waited_bits_ << 1) | (waited ? 1u : 0u)) & ((1u << kWaitedWindow) - 1);
    if (locked) {
        ++good_;
        bad_ = 0;
        if (good_ >= kTrustAfter) verified_ = true;
    } else if (e != Evidence::late) {
        ++bad_;
        good_ = 0;
        if (bad_ >= kDropAfter) verified_ = false;
    }
    locked_bits_ = (locked_bits_ << 1) | (locked ? 1u : 0u);
    missed_bits_ = (missed_bits_ << 1) | (missed ? 1u : 0u);
    return locked;
}

int VsyncDetector::waited_on_grid() const noexcept { return std::popcount(waited_bits_); }

// Where a present ends against the vblank grid the presents follow (grid_, a predicted vblank;
// index_, the previous present's vblank counted from it).
VsyncDetector::Evidence VsyncDetector::judge(const PresentInfo& p, clock::time_point prev, bool* missed) noexcept {
    const double t = 1e9 / p.refresh_hz;
    if (!have_grid_) {
        grid_ = prev;
        index_ = 0;
        have_grid_ = true;
    }
    // The window of the one present rule (pacer/present_classifier.hpp).
    const VblankWindow w = PresentClassifier::window(std::chrono::nanoseconds(std::llround(t)));
    const double early = static_cast<double>(w.early.count()), late = static_cast<double>(w.late.count());
    const double since = static_cast<double>((p.end - grid_).count());
    const double m = std::round(since / t);  // the nearest predicted vblank
    const double err = since - m * t;
    if (m - index_ >= p.swap_interval && err >= -early && err <= late) {
        *missed = m - index_ > p.swap_interval;
        // Following late presents by an eighth bounds the drift a lock tolerates: a cadence off
        // the grid by d per period settles at 8 d late, outside the window once d > late / 8
        // (0.25 ms at 60 Hz: 1.5 %), so a swap paced at another rate never gets 16 in a row.
        grid_ += clock::duration(static_cast<clock::rep>(std::llround(m * t + (err < 0 ? err : err / 8))));
        index_ = 0;
        return Evidence::locked;
    }
    // After its vblank by more than the window, having waited in the swap at least that long: a
    // return the machine delayed (a stall of the whole machine, a busy core), not a swap off the
    // grid. No evidence either way, and the grid stays; its vblank is the last one before it.
    const double vblank = std::floor((since + early) / t);
    const double after = since - vblank * t;
    if (after > late && static_cast<double>((p.end - p.begin).count()) >= after &&
        vblank - index_ >= p.swap_interval) {
        index_ = vblank;
        return Evidence::late;
    }
    if (bad_ >= 1) {
        grid_ = p.end;  // a second unlocked present in a row: the grid moved; follow it
        index_ = 0;
    } else {
        index_ = m;
    }
    return Evidence::unlocked;
}

namespace {
// The median of the first n values of a ring (left as it is), 0 for fewer than 2.
std::int64_t median_of(const std::int64_t* ring, int n) noexcept {
    if (n < 2) return 0;
    std::int64_t v[VsyncDetector::kCadenceWindow];
    std::copy(ring, ring + n, v);
    std::nth_element(v, v + n / 2, v + n);
    return v[n / 2];
}
}  // namespace

clock::duration VsyncDetector::median_swap() const noexcept { return clock::duration(median_of(swaps_, ring_count_)); }

clock::duration VsyncDetector::median_interval() const noexcept {
    return clock::duration(median_of(intervals_, ring_count_));
}

bool VsyncDetector::swap_waits() const noexcept {
    return ring_count_ >= 2 && median_swap() >= median_interval() / 4;
}

clock::duration VsyncDetector::mean_interval() const noexcept {
    const int n = ring_count_;
    if (n < kCadenceMin) return clock::duration(0);
    const double m = static_cast<double>(median_of(intervals_, n));
    double sum = 0;
    int near = 0;
    for (int i = 0; i < n; ++i) {
        const double x = static_cast<double>(intervals_[i]);
        if (std::fabs(x - m) <= 0.5 * m) {
            sum += x;
            ++near;
        }
    }
    return 4 * near >= 3 * n ? clock::duration(std::llround(sum / near)) : clock::duration(0);
}

clock::duration VsyncDetector::cadence() const noexcept {
    return swap_waits() ? mean_interval() : clock::duration(0);
}

int VsyncDetector::locked_in_window() const noexcept { return std::popcount(locked_bits_); }

double VsyncDetector::missed_share() const noexcept {
    const int n = std::popcount(locked_bits_);
    return n > 0 ? static_cast<double>(std::popcount(missed_bits_)) / n : 0.0;
}

// ---------------------------------------------------------------------------------------------
// VsyncController

namespace {
constexpr clock::duration kFirstReprobe = std::chrono::seconds(10);  // after a fallback ...
constexpr clock::duration kMaxReprobe = std::chrono::seconds(160);   // ... doubling up to this
// While probing, the loop runs at most 1/16 faster than the target (FramePacer's floor), so a
// FIFO of 3 fills within 48 frames: until then a swap that does not block yet proves nothing.
constexpr int kFillPresents = 48;
constexpr int kMaxProbePresents = kFillPresents + 3 * VsyncDetector::kTrustAfter;
constexpr double kMaxMissedShare = 0.10;                             // Android Swappy's threshold
}  // namespace

void VsyncController::set(State state, int interval, VsyncReason reason) noexcept {
    if (interval != vs_.swap_interval) {
        settle_ = 2;  // the first presents after a change may still follow the old interval
        detector_.reset();
        probe_presents_ = 0;
        last_locked_ = false;
    }
    const bool changed = state != state_ || reason != vs_.code;
    state_ = state;
    vs_.swap_interval = interval;
    vs_.requested = interval > 0;
    vs_.detected = detector_.verified();
    vs_.locked_streak = detector_.locked_streak();
    vs_.in_use = mode_ == WaitMode::vsync || state == State::verified;
    vs_.refresh_hz = refresh_hz_;
    vs_.code = reason;
    vs_.reason = to_string(reason);
    // Plain modes say nothing about vsync: there is nothing to decide.
    if (changed && reason != VsyncReason::off) {
        const LogLevel level = reason == VsyncReason::vsync_not_shown ? LogLevel::warn : LogLevel::info;
        if (vs_.swap_hz > 0)
            detail::log(level, "%s (refresh %g Hz, swap cadence %.2f Hz, target %g Hz, swap interval %d)",
                        vs_.reason, refresh_hz_, vs_.swap_hz, target_hz_, interval);
        else if (reason == VsyncReason::auto_not_blocking || reason == VsyncReason::auto_irregular)
            // The evidence: did the swap wait, and how long between the presents?
            detail::log(level, "%s (refresh %g Hz, target %g Hz, swap interval %d; over the last %d presents the "
                        "median swap took %.2f ms of the %.2f ms between them)", vs_.reason, refresh_hz_,
                        target_hz_, interval, detector_.intervals_seen(), to_ms(detector_.median_swap()),
                        to_ms(detector_.median_interval()));
        else
            detail::log(level, "%s (refresh %g Hz, target %g Hz, swap interval %d)", vs_.reason,
                        refresh_hz_, target_hz_, interval);
    }
}

void VsyncController::fall_back(VsyncReason reason, bool schedule_probe, clock::time_point now) noexcept {
    if (schedule_probe) {
        if (probe_backoff_.count() == 0) probe_backoff_ = kFirstReprobe;
        next_probe_ = now + probe_backoff_;
        probe_backoff_ = std::min(probe_backoff_ * 2, kMaxReprobe);
    }
    set(State::fallback, 0, reason);
}

void VsyncController::configure(WaitMode mode, double target_hz, clock::time_point now) noexcept {
    // A new target (by more than 0.5 %: a cadence switch, a matched display rate) is a new
    // question: probe it now rather than at the backoff set for the old one.
    if (state_ == State::fallback && std::fabs(target_hz - target_hz_) > 0.005 * target_hz_) {
        next_probe_ = now;
        probe_backoff_ = clock::duration(0);
    }
    mode_ = mode;
    target_hz_ = target_hz;
    decide(now);
}

void VsyncController::decide(clock::time_point now) noexcept {
    const WaitMode m = mode_;
    if (m == WaitMode::sleep || m == WaitMode::spin || m == WaitMode::hybrid) {
        set(State::off, 0, VsyncReason::off);
        return;
    }
    const int n = compatible_swap_interval(refresh_hz_, target_hz_);
    if (m == WaitMode::vsync) return decide_vsync(n);
    // automatic
    // A present that reports neither a refresh nor an interval (Mesa under Xvfb refuses even
    // interval 0) still reports the display: it has no usable refresh, said as such below.
    if (!presented_ && (state_ == State::off || state_ == State::waiting)) {
        set(State::waiting, 0, VsyncReason::auto_waiting);
        return;
    }
    if (!refresh_known(refresh_hz_)) return fall_back(VsyncReason::auto_bad_refresh, false, now);
    if (n == 0) return fall_back(VsyncReason::auto_no_divisor, false, now);
    switch (state_) {
        case State::off:
        case State::waiting:
        case State::fallback:
            if (now >= next_probe_ || vs_.swap_interval != 0) set(State::probing, n, VsyncReason::auto_probing);
            break;
        case State::probing: decide_probing(n, now); break;
        case State::verified: decide_verified(n, now); break;
    }
}

// WaitMode::vsync: the swap paces, always, at the interval that serves the target best; the
// reason says whether the presents show it.
void VsyncController::decide_vsync(int n) noexcept {
    int want = n;
    if (want == 0) {
        want = refresh_known(refresh_hz_) ? std::max(1, static_cast<int>(std::lround(refresh_hz_ / target_hz_))) : 1;
        want = std::min(want, 8);
    }
    const VsyncReason why = detector_.verified()                           ? VsyncReason::vsync_verified
                          : probe_presents_ >= VsyncDetector::kTrustAfter ? VsyncReason::vsync_not_shown
                                                                          : VsyncReason::vsync_unverified;
    set(detector_.verified() ? State::verified : State::probing, want, why);
}

void VsyncController::decide_probing(int n, clock::time_point now) noexcept {
    if (vs_.swap_interval != n) {
        set(State::probing, n, VsyncReason::auto_probing);
    } else if (settle_ == 0 && interval_in_effect_ != n && probe_presents_ > 0) {
        fall_back(VsyncReason::auto_refused, true, now);
    } else if (detector_.verified() && at_refresh(n)) {
        probe_backoff_ = clock::duration(0);
        set(State::verified, n, VsyncReason::auto_verified);
    } else if (probe_presents_ >= kMaxProbePresents ||
               (detector_.unlocked_streak() >= VsyncDetector::kDropAfter &&
                // A swap that waits, but not for the reported vblank: a few more presents to
                // measure its cadence before falling back. One that does not wait (yet): until
                // the queue has had time to fill.
                (detector_.swap_waits() ? detector_.intervals_seen() >= VsyncDetector::kCadenceMin
                                        : probe_presents_ >= kFillPresents))) {
        // The swap blocked at a steady cadence of its own: say so, with the rate. One that
        // waited without a steady pace (weston's repaint on a stalling machine) is irregular,
        // not one that does not wait.
        fall_back(vs_.swap_hz > 0 ? (cadence_is_refresh(refresh_hz_, vs_.swap_hz) ? VsyncReason::auto_irregular
                                                                                  : VsyncReason::auto_other_rate)
                  : detector_.swap_waits() ? VsyncReason::auto_irregular
                                           : VsyncReason::auto_not_blocking,
                  true, now);
    }
}

void VsyncController::decide_verified(int n, clock::time_point now) noexcept {
    if (vs_.swap_interval != n) {
        set(State::probing, n, VsyncReason::auto_probing);
    } else if (!detector_.verified() && !waits_at_refresh(n)) {
        probe_backoff_ = clock::duration(0);
        fall_back(VsyncReason::auto_lost, true, now);
    } else if (detector_.locked_in_window() >= 32 && detector_.missed_share() > kMaxMissedShare) {
        fall_back(VsyncReason::auto_missing, true, now);
    }
}

// Verified vsync is lost on four presents off the grid in a row only when the swap stopped
// waiting for the vblanks too. A machine that stalls for a few milliseconds makes a FIFO swap
// chain return late, then at once (off the grid) until its queue is full again: four presents
// off the grid after a 12 ms stall at 60 Hz with two frames queued, while between the stalls the
// swap still blocks until a vblank. So: none of the last 12 presents blocked for a quarter
// period and came back on the grid (a swap that no longer waits), or the swap's cadence is not
// the refresh's (one that waits for something else, a compositor's repaint).
bool VsyncController::waits_at_refresh(int n) const noexcept {
    if (detector_.waited_on_grid() == 0) return false;
    const double cadence = static_cast<double>(detector_.cadence().count());
    return cadence <= 0 || cadence_is_refresh(refresh_hz_ / n, 1e9 / cadence);
}

// The presents come at the swap interval's rate: their mean interval is within 1/32 of it. Locked
// presents alone do not show that: a swap that returns at once, paced by FramePacer's floor 1/16
// early each frame, stays within the lock window when a period is short (at 240 Hz, 1/16 is
// 0.26 ms against a window of 0.25 ms).
bool VsyncController::at_refresh(int n) const noexcept {
    const double want = n * 1e9 / refresh_hz_;
    const double mean = static_cast<double>(detector_.mean_interval().count());
    return mean > 0 && std::fabs(mean - want) <= want / 32;
}

void VsyncController::on_present(const PresentInfo& p) noexcept {
    if (!p.ok && !present_failed_) detail::log(LogLevel::warn, "a present failed; counted as an unlocked present");
    present_failed_ = !p.ok;
    presented_ = true;
    frames_without_present_ = 0;
    refresh_hz_ = std::isfinite(p.refresh_hz) && p.refresh_hz > 0 ? p.refresh_hz : 0.0;
    interval_in_effect_ = p.swap_interval;
    PresentInfo seen = p;
    seen.refresh_hz = refresh_hz_;
    if (settle_ > 0) {
        --settle_;
        detector_.reset();
        detector_.add(seen);  // keeps the time of this present
        last_locked_ = false;
    } else {
        last_locked_ = detector_.add(seen);
        ++probe_presents_;
    }
    // Measured while the swap is asked to wait; kept through the fallback that follows, so the
    // status still tells the rate the swap ran at.
    if (vs_.swap_interval > 0) {
        const clock::duration c = detector_.cadence();
        vs_.swap_hz = c.count() > 0 ? 1e9 / static_cast<double>(c.count()) : 0.0;
    }
    decide(p.end);
    vs_.detected = detector_.verified();
    vs_.locked_streak = detector_.locked_streak();
}

bool VsyncController::on_frame() noexcept {
    const bool paces = (vs_.in_use || state_ == State::probing) && frames_without_present_ < 2;
    if (frames_without_present_ < 2) ++frames_without_present_;
    return paces;
}

}  // namespace pacer
