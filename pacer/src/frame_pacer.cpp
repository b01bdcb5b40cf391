#include "pacer/frame_pacer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "log_internal.hpp"
#include "text.hpp"

namespace pacer {

Status validate(const PacerConfig& c) {
    using detail::num;
    if (!std::isfinite(c.target_hz) || c.target_hz <= 0.0 || c.target_hz > kMaxTargetHz)
        return Status::error("target_hz = " + num(c.target_hz) + ": must be a finite number in (0, " +
                             num(kMaxTargetHz) + "]");
    if (!is_named(kWaitModeNames, c.mode))
        return Status::error("mode = " + num(static_cast<int>(c.mode)) + ": not a WaitMode");
    if (!is_named(kLatePolicyNames, c.late_policy))
        return Status::error("late_policy = " + num(static_cast<int>(c.late_policy)) + ": not a LatePolicy");
    if (c.max_catch_up < 0 || c.max_catch_up > 1000)
        return Status::error("max_catch_up = " + num(c.max_catch_up) + ": must be in [0, 1000] frames");
    if (c.miss_tolerance.count() < 0 || c.miss_tolerance.count() > 1'000'000'000)
        return Status::error("miss_tolerance = " + num(static_cast<std::int64_t>(c.miss_tolerance.count())) +
                             " ns: must be in [0, 1e9] ns");
    if (!std::isfinite(c.background_hz) || c.background_hz <= 0.0 || c.background_hz > kMaxTargetHz)
        return Status::error("background_hz = " + num(c.background_hz) + ": must be a finite number in (0, " +
                             num(kMaxTargetHz) + "]");
    if (!is_named(kSyncModeNames, c.sync))
        return Status::error("sync = " + num(static_cast<int>(c.sync)) + ": not a SyncMode");
    if (!is_named(kCadenceModeNames, c.cadence))
        return Status::error("cadence = " + num(static_cast<int>(c.cadence)) + ": not a CadenceMode");
    if (!std::isfinite(c.max_late_share) || c.max_late_share < 0.001 || c.max_late_share > 0.5)
        return Status::error("max_late_share = " + num(c.max_late_share) + ": must be in [0.001, 0.5]");
    if (Status s = validate(c.governor); !s) return s;
    return validate(c.waiter);
}

namespace {

PacerConfig checked(const PacerConfig& c) {
    if (Status s = validate(c); !s) throw ConfigError(s.message());
    return c;
}

void log_config(const PacerConfig& c, const char* what) noexcept {
    if (!detail::log_enabled(LogLevel::info)) return;
    char policy[32] = "";
    if (c.late_policy == LatePolicy::catch_up)
        std::snprintf(policy, sizeof policy, " (max %d)", c.max_catch_up);
    detail::log(LogLevel::info, "%s %g Hz, mode %s, late policy %s%s, sync %s, cadence %s", what, c.target_hz,
                to_string(c.mode), to_string(c.late_policy), policy, to_string(c.sync), to_string(c.cadence));
}

// What paces a frame when the swap does not.
PacingSource own_source(WaitMode mode) noexcept {
    return mode == WaitMode::sleep ? PacingSource::sleep
         : mode == WaitMode::spin  ? PacingSource::spin
                                   : PacingSource::hybrid;
}

bool same_waiter_config(const WaiterConfig& a, const WaiterConfig& b) noexcept {
    return a.late_cost == b.late_cost && a.half_life == b.half_life && a.initial_margin == b.initial_margin &&
           a.min_margin == b.min_margin && a.max_spin == b.max_spin;
}

}  // namespace

FramePacer::FramePacer(const PacerConfig& config, TimeSource* ts)
    : cfg_(checked(config)), ts_(ts ? ts : &system_time_source()), waiter_(config.waiter, ts_),
      governor_(config.governor) {
    log_config(cfg_, "pacing at");
    apply_config();
}

FramePacer::~FramePacer() { end_pacing(); }

void FramePacer::end_pacing() noexcept {
    if (pacing_ && pacing_thread_ == std::this_thread::get_id()) {
        ts_->end_pacing();
        pacing_ = false;
    }
}

void FramePacer::begin_thread() noexcept {
    if (pacing_) return;
    ts_->begin_pacing();
    pacing_ = true;
    pacing_thread_ = std::this_thread::get_id();
}

void FramePacer::set_time_source(TimeSource* ts) noexcept {
    end_pacing();
    ts_ = ts ? ts : &system_time_source();
    waiter_.set_time_source(ts_);
    display_.reset();  // its vblanks were on the other clock
    last_seen_vblank_ = 0;
    reset();
}

double FramePacer::active_hz() const noexcept {
    return background_ ? std::min(cfg_.background_hz, target_hz()) : rate_hz_ > 0 ? rate_hz_ : target_hz();
}

std::chrono::nanoseconds FramePacer::period() const noexcept {
    return std::chrono::nanoseconds(std::llround(1e9 / active_hz()));
}

void FramePacer::set_background(bool on) noexcept {
    if (on == background_) return;
    background_ = on;
    pending_ = true;
    detail::log(LogLevel::info, on ? "background: %g Hz, OS sleep only" : "foreground: %g Hz", active_hz());
}

void FramePacer::reanchor(std::int64_t anchor) noexcept {
    index_base_ += k_;
    anchor_ = anchor;
    k_ = 0;
}

void FramePacer::set_period(double hz) noexcept {
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
    if (started_) reanchor(last_deadline_);  // the new period starts at the last deadline
}

void FramePacer::apply_config() noexcept {
    (void)governor_.set_config(cfg_.governor);  // validated with cfg_; keeps the costs seen
    if (cfg_.cadence == CadenceMode::fixed) governor_.reset();
    rate_hz_ = wanted_hz();
    set_period(active_hz());
    if (!same_waiter_config(waiter_.config(), cfg_.waiter))
        (void)waiter_.set_config(cfg_.waiter);  // validated with cfg_; keeps what it learned
    pending_ = false;
    // In the background the swap is not asked to pace (the vsync decision restarts on return).
    vsync_hz_ = background_ ? target_hz() : active_hz();
    vsync_.configure(active_mode(), vsync_hz_, now());
}

std::int64_t FramePacer::deadline_of(std::uint64_t k) const noexcept {
    // k * frac / 2^32 without overflow for any k: split k into 32-bit halves. The high half's
    // product is whole nanoseconds; only the low half's carries a fraction.
    const std::uint64_t hi = k >> 32, lo = k & 0xffffffffu;
    const std::uint64_t frac_ns = hi * period_frac_ + ((lo * period_frac_) >> 32);
    return anchor_ + static_cast<std::int64_t>(k) * period_whole_ + static_cast<std::int64_t>(frac_ns);
}

Status FramePacer::set_config(const PacerConfig& config) {
    if (Status s = validate(config); !s) {
        detail::log(LogLevel::warn, "setting refused: %s", s.message().c_str());
        return s;
    }
    const bool changed = config.target_hz != cfg_.target_hz || config.mode != cfg_.mode ||
                         config.late_policy != cfg_.late_policy ||
                         config.max_catch_up != cfg_.max_catch_up || config.sync != cfg_.sync ||
                         config.cadence != cfg_.cadence;
    cfg_ = config;
    pending_ = true;
    rate_hz_ = wanted_hz();  // period() says the new rate at once
    if (changed) log_config(cfg_, "now");
    return {};
}

Status FramePacer::set_target_hz(double hz) {
    PacerConfig c = cfg_;
    c.target_hz = hz;
    return set_config(c);
}

Status FramePacer::set_mode(WaitMode mode) {
    PacerConfig c = cfg_;
    c.mode = mode;
    return set_config(c);
}

Status FramePacer::set_sync(SyncMode sync) {
    PacerConfig c = cfg_;
    c.sync = sync;
    return set_config(c);
}

Status FramePacer::set_late_policy(LatePolicy policy, int max_catch_up) {
    PacerConfig c = cfg_;
    c.late_policy = policy;
    c.max_catch_up = max_catch_up;
    return set_config(c);
}

void FramePacer::reset() noexcept {
    if (started_) index_base_ += k_ + 1;
    started_ = false;
    k_ = 0;
}

void FramePacer::report_present(const PresentInfo& in) noexcept {
    const PresentInfo present = swap_rate_present(in);
    vsync_.on_present(present);
    display_.set_reported_hz(present.refresh_hz);
    const std::int64_t b = clock::to_ns(present.begin), e = clock::to_ns(present.end);
    // A displayed time before the call or more than a second after its return is not one (an
    // uninitialised field): unknown.
    std::int64_t d = present.displayed.time_since_epoch().count() != 0 ? clock::to_ns(present.displayed) : 0;
    if (d != 0 && (d < b || d > e + 1'000'000'000)) d = 0;
    const bool synced = present.swap_interval > 0 || (present.swap_interval < 0 && vsync_.status().in_use);
    // When the frame will be shown, if the swap is synchronised: a swap that blocked a good part
    // of a refresh, or one that spanned a known vblank and returned just after it, waited for that
    // vblank and returned when its frame was shown; otherwise the frame is shown at the first
    // vblank after the return.
    const std::int64_t pv = vblank_period();
    const std::int64_t tol = std::max<std::int64_t>(250'000, pv * 3 / 100);
    std::int64_t shown = 0;
    bool waited = false;
    if (present.ok && synced) {
        if (e - b > pv / 4) {
            shown = e;
            waited = true;
        } else if (vblanks_known()) {
            // The last vblank at or before e. With the display lock, one predicted up to tol
            // after e counts too (the prediction may come from a late return), and a return up
            // to a wake-up on a loaded machine after it (2 ms, a quarter period at most) still
            // waited for it: taken for a miss, it would push the next frame a period out.
            const std::int64_t slack = cfg_.display_lock ? tol : 0;
            const std::int64_t late = cfg_.display_lock ? std::max(tol, std::min<std::int64_t>(2'000'000, pv / 4)) : tol;
            const std::int64_t v = vblank_after(e + slack) - pv;
            waited = b < v && e - v <= late;
            shown = waited ? std::min(v, e) : v + pv;
        }
    }
    observe_vblank(present, d, waited);
    if (!started_ || !cur_.open) return;
    if (!cur_.presented) {
        cur_.presented = true;
        cur_.present_begin = b;
        cur_.present_end = e;
        cur_.displayed = d;
        cur_.predicted = shown;
        cur_.has_prediction = shown != 0 || waited;
    } else if (cur_.displayed == 0 && d != 0 && b == cur_.present_begin) {
        cur_.displayed = d;  // the same present reported again, now with its displayed time
    }
}

void FramePacer::report_vblank(clock::time_point vblank) noexcept {
    display_.add(vblank, display_.status().reported_hz, VblankSource::displayed);
    last_seen_vblank_ = clock::to_ns(vblank);
}

// A displayed time is a vblank, and so is the return of a swap that waited for one: both go to
// the display's fit.
void FramePacer::observe_vblank(const PresentInfo& present, std::int64_t displayed, bool waited) noexcept {
    // A torn present's displayed time is when it was torn in, not a vblank: only a synchronised
    // present's counts (else the fit would follow the pacer's own grid).
    // Without the lock, the last one of either kind serves as the vblank reference, as it always
    // did; the tracker (its status) still takes only what is a vblank.
    const bool synced = present.swap_interval > 0 || (present.swap_interval < 0 && vsync_.status().in_use);
    if (present.ok && displayed != 0) last_seen_vblank_ = displayed;
    else if (waited) last_seen_vblank_ = clock::to_ns(present.end);
    if (!synced) displayed = 0;
    if (present.ok && displayed != 0)
        display_.add(clock::from_ns(displayed), present.refresh_hz, VblankSource::displayed);
    else if (waited)
        display_.add(present.end, present.refresh_hz, VblankSource::swap_return);
}

void FramePacer::mark_input() noexcept {
    if (!cur_.open) return;
    cur_.input = ts_->now_ns();
    cur_.has_input = true;
}

// Known vblanks: with the display lock, the fit once it holds, and until then the last observed
// vblank with the reported refresh (as without the lock); none on a variable-refresh display or
// once the timestamps stopped.
bool FramePacer::vblanks_known() const noexcept {
    const DisplayStatus& s = display_.status();
    if (!cfg_.display_lock) return last_seen_vblank_ != 0;
    if (s.vblanks == 0) return false;
    return s.state == DisplayState::locked || s.state == DisplayState::locking;
}

std::int64_t FramePacer::vblank_period() const noexcept {
    if (use_fit()) return std::max<std::int64_t>(1, display_.period().count());
    const double hz = display_.status().reported_hz;
    if (hz > 0) return std::llround(1e9 / hz);
    return std::max<std::int64_t>(1, period_rounded_.count());
}

std::int64_t FramePacer::vblank_after(std::int64_t t) const noexcept {
    if (use_fit()) return clock::to_ns(display_.next_vblank(clock::from_ns(t)));
    const std::int64_t ref = cfg_.display_lock ? clock::to_ns(display_.last_vblank()) : last_seen_vblank_;
    const std::int64_t pv = vblank_period();
    std::int64_t n = (t - ref) / pv;
    if ((t - ref) % pv < 0) --n;  // floor division
    return ref + (n + 1) * pv;
}

// The display deadline of a frame that cannot be ready before `earliest`: a vblank at least one
// target period after the previous frame's (or its late showing), and not before `earliest`.
std::int64_t FramePacer::next_target(std::int64_t earliest) const noexcept {
    const std::int64_t pv = vblank_period();
    std::int64_t d = vblank_after(earliest - 1);
    if (have_last_target_) {
        std::int64_t base = last_target_ + period_rounded_.count();
        if (last_shown_ > last_target_ + pv / 2) base = std::max(base, last_shown_ + period_rounded_.count());
        d = std::max(d, vblank_after(base - pv / 4));
    }
    return d;
}

std::int64_t FramePacer::jit_lead_ns() const noexcept {
    const std::int64_t p = period_rounded_.count();
    if (work_est_.count() < 8) return p;  // nothing learned yet: start as frame_start would
    const double q = static_cast<double>(work_est_.quantile(1.0 - cfg_.max_late_share));
    return std::clamp(static_cast<std::int64_t>(q + jit_offset_), std::int64_t{0}, 4 * p);
}

std::chrono::nanoseconds FramePacer::jit_lead() const noexcept { return std::chrono::nanoseconds(jit_lead_ns()); }

// Closes the frame in progress: its latency figures into t, and what just_in_time learns from it.
void FramePacer::finish_frame(std::int64_t now, Figures& t) noexcept {
    const FrameMarks& f = cur_;
    if (!f.open) return;
    const std::int64_t input = f.has_input ? f.input : f.start;
    const std::int64_t call = f.presented ? f.present_begin : f.has_call ? f.present_call : now;
    const std::int64_t end = f.presented ? f.present_end : call;
    std::int64_t shown = end;
    if (f.displayed != 0) {
        shown = f.displayed;
        t.latency_measured = true;
    } else if (f.presented && f.has_prediction) {
        shown = f.predicted;
    }
    t.latency = std::chrono::nanoseconds(std::max<std::int64_t>(0, shown - input));
    t.input_to_present = std::chrono::nanoseconds(std::max<std::int64_t>(0, call - input));
    if (f.has_target) {
        // A torn frame is late as soon as it lands after the vblank: the tear is on screen.
        const std::int64_t tol = f.aligned ? 0 : f.locked ? vblank_period() / 2 : cfg_.miss_tolerance.count();
        t.shown_late = shown > f.target + tol;
    }
    last_shown_ = shown;
    if ((f.sync != SyncMode::just_in_time && !f.aligned) || !f.has_target) return;
    // Learn from the wake-up target to the present call, so that the lead covers the wake-up
    // error too. Not to its return: a swap that blocks returns at the vblank whatever the work,
    // and the lead would learn itself. The call's own cost is left to the offset.
    const std::int64_t x = call - f.start_target;
    work_est_.add(x);
    const double p = static_cast<double>(period_rounded_.count());
    const double step = p / 64.0, b = cfg_.max_late_share;
    // Two late frames in a row, the second overrunning its lead: a heavier scene, not the tail
    // of the work. Half the overrun at once, so that the next frames are not late too. (An
    // isolated tail frame moves the offset by one step only: the budget counts on those.)
    const double overrun = static_cast<double>(x - f.lead);
    const bool was_late = jit_late_;
    jit_late_ = t.shown_late;
    if (t.shown_late)
        jit_offset_ += step + (was_late && overrun > 0 ? 0.5 * overrun : 0.0);
    else
        jit_offset_ -= step * b / (1.0 - b);
    const double q = static_cast<double>(work_est_.quantile(1.0 - b));
    jit_offset_ = std::clamp(jit_offset_, -0.5 * q, p);
}

FrameTiming FramePacer::wait_handoff() noexcept {
#ifndef NDEBUG
    // Two pacing threads would race on the grid and hand one thread's timer settings to the
    // other; stop at the first such call, where the stack still shows the culprit.
    if (pacing_ && pacing_thread_ != std::this_thread::get_id()) {
        detail::log(LogLevel::error,
                    "FramePacer::wait() called from a second thread: one thread paces (see frame_pacer.hpp)");
        std::abort();
    }
#endif
    begin_thread();
    follow_display();
    if (pending_) apply_config();
    const std::int64_t now = ts_->now_ns();
    display_.on_frame(clock::from_ns(now));
    ++frames_;
    const std::int64_t cost = frame_cost(now);
    Figures figures;  // the previous frame's latency
    finish_frame(now, figures);
    cur_ = FrameMarks{};
    host_presents_ = second_call_;
    second_call_ = false;
    const bool swap_paces = vsync_.on_frame();
    swap_paces_ = swap_paces;
    sync_ = background_ ? SyncMode::frame_start : cfg_.sync;
    govern(now, cost);
    if ((sync_ == SyncMode::just_in_time || align_torn_frames(swap_paces, now)) && work_est_.count() < 8)
        jit_offset_ = static_cast<double>(period_rounded_.count()) / 32.0;

    // The swap paced the frames until now: start a grid one period after the last wake, so the
    // hand-over frame gets a whole period like any other.
    if (started_ && grid_dirty_ && !swap_paces && now >= last_wake_) {
        reanchor(last_wake_);
        grid_dirty_ = false;
    }
    cur_.sync = sync_;
    FrameTiming t = pace(now, swap_paces);
    cur_.open = true;
    // A record of a wait made before a present belongs to present sync in progress; a later
    // switch back to present sync starts without one.
    if (!(sync_ == SyncMode::present && host_presents_)) present_record_.period = std::chrono::nanoseconds(0);
    t.sync = sync_;
    t.latency = figures.latency;
    t.input_to_present = figures.input_to_present;
    t.latency_measured = figures.latency_measured;
    t.shown_late = figures.shown_late;
    fill_display(t);
    return t;  // wait() finishes a handed-off spin
}

// The wait of wait(), by sync mode; fills cur_'s start and target.
FrameTiming FramePacer::pace(std::int64_t now, bool swap_paces) noexcept {
    // First frame, or a clock that went backwards (only an injected clock can).
    if (!started_ || now < last_wake_) {
        cur_.start = now;
        have_last_target_ = false;
        return first_frame(now);
    }
    if (sync_ == SyncMode::present && host_presents_) {
        // The wait is in before_present(); report the last one made there.
        cur_.start = now;
        if (present_record_.period.count() != 0) return present_record_;
        FrameTiming t;
        t.index = index_base_ + k_;
        t.deadline = t.wake = clock::from_ns(now);
        t.period = period_rounded_;
        t.mode = cfg_.mode;
        return t;
    }
    if (sync_ == SyncMode::just_in_time) {
        const std::int64_t lead = jit_lead_ns();
        const bool locked = swap_paces && vblanks_known();
        Slot slot;
        if (locked) {
            grid_dirty_ = true;
            slot.k = k_ + 1;
            slot.deadline = next_target(now + lead);
            slot.swap_paces = true;
        } else {
            slot = grid_slot(now + lead);
        }
        // The learned lead covers the wake-up error: no spin when the target is a vblank.
        FrameTiming t = lead_wait(slot, lead, locked ? WaitMode::sleep : active_mode(), locked, now);
        t.display_locked = locked && use_fit();
        return t;
    }
    if (align_torn_frames(swap_paces, now)) return aligned_frame(now);
    const Slot slot = swap_paces ? swap_slot() : grid_slot(now);
    // The spin's last microseconds are left to wait(), inline in the caller, after all the
    // bookkeeping (see HybridWaiter::wait_until_handoff).
    const WaitResult r =
        waiter_.wait_until_handoff(clock::from_ns(slot.wait_until), swap_paces ? WaitMode::hybrid : active_mode());
    if (clock::to_ns(r.end) < slot.wait_until) handoff_to_ = slot.wait_until;
    cur_.start = clock::to_ns(r.end);
    have_last_target_ = false;
    return record(slot, r, now);
}

void FramePacer::before_present() noexcept {
    if (!started_ || !cur_.open) return;
    second_call_ = true;
    cur_.has_call = true;
    cur_.work_end = ts_->now_ns();
    if (sync_ != SyncMode::present) {
        cur_.present_call = cur_.work_end;
        return;
    }
    present_record_ = present_wait(cur_.work_end);
    cur_.present_call = clock::to_ns(present_record_.wake);
}

// present sync: waits for the frame's present deadline (see the manual).
FrameTiming FramePacer::present_wait(std::int64_t now) noexcept {
    Slot slot;
    WaitMode mode = active_mode();
    const bool locked = swap_paces_ && vblanks_known();
    if (locked) {
        grid_dirty_ = true;
        const std::int64_t lead = std::min<std::int64_t>(1'000'000, vblank_period() / 4);
        slot.k = k_ + 1;
        slot.deadline = next_target(now + lead) - lead;
        slot.swap_paces = true;
        mode = WaitMode::hybrid;
        cur_.target = last_target_ = slot.deadline + lead;
    } else {
        if (grid_dirty_ && now >= last_wake_) {
            reanchor(last_wake_);
            grid_dirty_ = false;
        }
        slot = grid_slot(now);
        cur_.target = last_target_ = slot.deadline;
    }
    cur_.has_target = have_last_target_ = true;
    slot.wait_until = slot.deadline;
    cur_.locked = locked;
    const WaitResult r = waiter_.wait_until(clock::from_ns(slot.wait_until), mode);
    FrameTiming t = record(slot, r, now);
    t.sync = SyncMode::present;
    t.display_locked = locked && use_fit();
    return t;
}

// Anchors the grid here and returns at once: there is no frame time yet.
FrameTiming FramePacer::first_frame(std::int64_t now) noexcept {
    if (started_) index_base_ += k_ + 1;
    started_ = true;
    grid_dirty_ = false;
    anchor_ = now;
    k_ = 0;
    last_deadline_ = last_wake_ = now;
    FrameTiming t;
    t.index = index_base_;
    t.deadline = t.wake = clock::from_ns(now);
    t.mode = cfg_.mode;
    t.source = own_source(active_mode());
    t.period = period_rounded_;
    t.background = background_;
    return t;
}

// The swap paces this frame. Nominal deadline one period after the last wake; the wait only
// enforces a floor of 15/16 of a period: a swap that blocks is never held up by it, and one that
// does not (a probe, vsync lost) cannot run the loop more than 1/16 fast, which does not show in
// the frame times the way a faster floor would.
FramePacer::Slot FramePacer::swap_slot() noexcept {
    grid_dirty_ = true;
    const std::int64_t p = period_rounded_.count();
    Slot s;
    s.k = k_ + 1;
    s.deadline = last_wake_ + p;
    s.wait_until = last_wake_ + p - p / 16;
    s.swap_paces = true;
    return s;
}

// The next slot on the grid, or a later one when the frame comes late (the late policy).
FramePacer::Slot FramePacer::grid_slot(std::int64_t now) noexcept {
    Slot s;
    s.k = k_ + 1;
    s.deadline = deadline_of(s.k);
    if (now >= s.deadline) {
        // Slots whose time has come, this frame's included.
        const std::int64_t p = period_whole_ > 0 ? period_whole_ : 1;
        std::uint64_t behind = static_cast<std::uint64_t>((now - s.deadline) / p) + 1;
        while (behind > 1 && deadline_of(s.k + behind - 1) > now) --behind;  // period rounding
        std::uint64_t skip = 0;
        switch (cfg_.late_policy) {
            case LatePolicy::catch_up: {
                const auto m = static_cast<std::uint64_t>(cfg_.max_catch_up);
                skip = behind > m ? behind - m : 0;
                break;
            }
            case LatePolicy::skip: skip = behind; break;
            case LatePolicy::resync:  // slot s.k starts the new grid, at now
                index_base_ += s.k;
                anchor_ = now;
                k_ = s.k = 0;
                break;
        }
        s.k += skip;
        s.skipped = static_cast<std::uint32_t>(std::min<std::uint64_t>(skip, 0xffffffffu));
        s.deadline = deadline_of(s.k);
    }
    s.wait_until = s.deadline;
    return s;
}

FrameTiming FramePacer::record(const Slot& slot, const WaitResult& r, std::int64_t now) noexcept {
    using std::chrono::nanoseconds;
    const std::int64_t wake = clock::to_ns(r.end);
    FrameTiming t;
    t.index = index_base_ + slot.k;
    t.wake = r.end;
    const std::int64_t due = slot.early ? slot.wait_until : slot.deadline;
    t.deadline = clock::from_ns(due);
    t.lateness = nanoseconds(wake > due ? wake - due : 0);
    t.interval = nanoseconds(wake - last_wake_);
    t.work = nanoseconds(now - last_wake_);
    t.period = period_rounded_;
    t.slept = r.slept;
    t.spun = r.spun;
    t.oversleep = r.oversleep;
    t.margin = r.margin;
    t.skipped = slot.skipped;
    t.mode = cfg_.mode;
    t.background = background_;
    t.source = !slot.swap_paces                ? own_source(active_mode())
             : vsync_.last_present_locked() ? PacingSource::vsync
                                            : PacingSource::hybrid;
    t.missed = t.skipped > 0 || t.lateness > cfg_.miss_tolerance;
    if (t.missed) ++missed_;
    last_deadline_ = slot.deadline;
    last_wake_ = wake;
    k_ = slot.k;
    return t;
}

// ---- Display lock: vsync off, torn frames placed before a vblank; match_display -------------------

// Vsync off and the display's vblanks fitted: frame_start frames are started so that the present
// lands just before a vblank (the tear line off screen), every N vblanks, N the swap interval
// that serves the target (none: the target's own grid).
// Only while vblanks keep coming (within 4 periods): the fit of a swap that waited before
// vsync was turned off is not renewed, and a grid that would jump twice (to the fit, then back
// when it is lost) is worse than one that keeps its own phase.
bool FramePacer::align_torn_frames(bool swap_paces, std::int64_t now) const noexcept {
    return cfg_.display_lock && !swap_paces && !background_ && sync_ == SyncMode::frame_start &&
           vsync_.desired_swap_interval() == 0 && display_.locked() &&
           now - clock::to_ns(display_.last_vblank()) <= 4 * display_.period().count() &&
           compatible_swap_interval(display_.status().refresh_hz, target_hz()) > 0;
}

// As just_in_time with a vblank target, the wait exact (hybrid): the lead is the learned time
// from the wake-up target to the present call plus the safety offset.
FrameTiming FramePacer::aligned_frame(std::int64_t now) noexcept {
    grid_dirty_ = true;  // leaving the lock re-anchors the grid at the last wake
    const std::int64_t lead = jit_lead_ns();
    Slot slot;
    slot.k = k_ + 1;
    slot.deadline = next_target(now + lead);
    cur_.aligned = true;
    FrameTiming t = lead_wait(slot, lead, active_mode(), true, now);
    t.display_locked = true;
    return t;
}

// just_in_time's wait, and vsync-off frames placed before a vblank: wake `lead` before the
// slot's display deadline; the frame in progress is started for that deadline.
FrameTiming FramePacer::lead_wait(Slot slot, std::int64_t lead, WaitMode mode, bool locked,
                                  std::int64_t now) noexcept {
    slot.wait_until = slot.deadline - lead;
    slot.early = true;
    const WaitResult r = waiter_.wait_until(clock::from_ns(slot.wait_until), mode);
    cur_.start = clock::to_ns(r.end);
    cur_.target = last_target_ = slot.deadline;
    cur_.has_target = have_last_target_ = true;
    cur_.start_target = slot.wait_until;
    cur_.lead = lead;
    cur_.locked = locked;
    return record(slot, r, now);
}

// match_display with a swap that waits at its own steady rate (VsyncReason::auto_other_rate, a
// compositor): that rate is taken for the refresh, the presents reported with it, until the host
// reports another refresh.
PresentInfo FramePacer::swap_rate_present(const PresentInfo& present) noexcept {
    if (swap_rate_hz_ == 0) return present;
    if (!cfg_.match_display ||
        (present.refresh_hz > 0 && std::fabs(present.refresh_hz - swap_rate_reported_) > 1e-3 * swap_rate_reported_)) {
        swap_rate_hz_ = 0;
        matched_hz_ = 0;
        pending_ = true;
        return present;
    }
    PresentInfo p = present;
    p.refresh_hz = swap_rate_hz_;
    return p;
}

// match_display: the target follows the display's fitted refresh once locked; a change of more
// than 0.02 % (a new refresh, not the fit's noise) takes effect at this wait() like set_target_hz.
// Until the first lock the target is target_hz.
void FramePacer::follow_display() noexcept {
    if (!cfg_.match_display) {
        if (matched_hz_ != 0) {
            matched_hz_ = 0;
            pending_ = true;
        }
        return;
    }
    const VsyncStatus& vs = vsync_.status();
    if (swap_rate_hz_ == 0 && vs.code == VsyncReason::auto_other_rate && vs.swap_hz >= kMinRefreshHz &&
        vs.swap_hz <= kMaxRefreshHz) {
        swap_rate_hz_ = matched_hz_ = vs.swap_hz;
        swap_rate_reported_ = vs.refresh_hz;
        pending_ = true;
        detail::log(LogLevel::info, "matching the swap's own rate: %.3f Hz (reported refresh %g Hz)", swap_rate_hz_,
                    swap_rate_reported_);
        return;
    }
    // A new refresh the host reports voids the fit: follow it at once, then its fit.
    const double reported = display_.status().reported_hz;
    double hz = display_.locked() ? display_.status().refresh_hz : 0.0;
    if (hz == 0.0 && matched_hz_ > 0 && reported > 0 && std::fabs(reported - matched_hz_) > 5e-3 * matched_hz_)
        hz = reported;
    if (hz == 0.0) return;
    if (matched_hz_ > 0 && std::fabs(hz - matched_hz_) <= 2e-4 * matched_hz_) return;
    matched_hz_ = std::clamp(hz, 1e-3, kMaxTargetHz);
    pending_ = true;
    detail::log(LogLevel::info, "matching the display: %.4f Hz", matched_hz_);
}

// ---- Cadence, display-time delta, VRR cap -----------------------------------------------------

std::int64_t FramePacer::known_refresh() const noexcept {
    if (on_vrr() || !vblanks_known()) return 0;
    if (use_fit()) return display_.period().count();
    const double hz = display_.status().reported_hz;  // not vblank_period()'s fallback: the active period
    return hz > 0 ? std::llround(1e9 / hz) : 0;
}

// The rate in force outside the background: the VRR period when on VRR, else the cadence's
// divisor of its base (the target in CadenceMode::fixed).
double FramePacer::wanted_hz() const noexcept {
    if (vrr_period_ > 0) return 1e9 / static_cast<double>(vrr_period_);
    if (cfg_.cadence != CadenceMode::automatic) return target_hz();
    const CadenceStatus& g = governor_.status();
    if (g.base.count() <= 0 || cadence_base_hz_ <= 0) return target_hz();
    return cadence_base_hz_ / static_cast<double>(g.divisor);
}

// Wake to the end of the frame's work: before_present() entry, else the present call, else this
// wait() call (FrameTiming::work).
std::int64_t FramePacer::frame_cost(std::int64_t now) const noexcept {
    if (!cur_.open) return -1;
    const std::int64_t end = cur_.has_call ? cur_.work_end : cur_.presented ? cur_.present_begin : now;
    return std::max<std::int64_t>(0, end - cur_.start);
}

void FramePacer::govern(std::int64_t now, std::int64_t cost) noexcept {
    const std::int64_t target = std::max<std::int64_t>(1, std::llround(1e9 / target_hz()));
    // VRR: the target kept inside the panel's range by the wake-up jitter, approached gradually.
    if (!background_ && on_vrr()) {
        const DisplayStatus& d = display_.status();
        const std::int64_t jitter = wake_est_.count() >= 8 ? wake_est_.quantile(0.99) : 0;
        std::int64_t paced = target;
        // With the governor on, the rate the work sustains: any rate shows evenly on VRR, so the
        // period follows the cost's quantile (over fit) instead of a divisor.
        if (cfg_.cadence == CadenceMode::automatic && cost >= 0) vrr_cost_.add(cost);
        if (cfg_.cadence == CadenceMode::automatic && vrr_cost_.count() >= 16) {
            const double q = static_cast<double>(vrr_cost_.quantile(cfg_.governor.quantile));
            paced = std::max<std::int64_t>(paced, std::llround(q / cfg_.governor.fit));
        }
        const std::int64_t want = vrr_period(paced, d.vrr_min_hz, d.vrr_max_hz, jitter);
        vrr_period_ = slew_period(vrr_period_ > 0 ? vrr_period_ : period_rounded_.count(), want);
    } else {
        vrr_period_ = 0;
    }
    cadence_ = CadenceStatus{};
    if (!background_ && vrr_period_ == 0 && cfg_.cadence == CadenceMode::automatic) {
        const std::int64_t refresh = known_refresh();
        if (cost >= 0) cadence_base_hz_ = refresh > 0 ? 1e9 / static_cast<double>(refresh) : target_hz();
        if (cost >= 0 && governor_.update(now, cost, refresh > 0 ? refresh : target, target)) {
            const CadenceStatus& g = governor_.status();
            detail::log(LogLevel::info, "cadence: every %u %s, %g Hz (cost %.2f ms): %s", g.divisor,
                        refresh > 0 ? "refreshes" : "target periods", g.hz, static_cast<double>(g.cost.count()) / 1e6,
                        g.reason);
        }
        if (governor_.status().base.count() > 0) cadence_ = governor_.status();
    }
    if (background_) {  // the background rate is apply_config()'s
        cadence_.hz = active_hz();
        cadence_.base = period_rounded_;
        return;
    }
    const double want = wanted_hz();
    if (want != rate_hz_) {
        rate_hz_ = want;
        set_period(want);  // re-anchors at the last deadline, as a rate change does
    }
    // The swap is asked for the cadence's interval (refresh / rate); not for each VRR step.
    const double vsync_hz = vrr_period_ > 0 ? target_hz() : rate_hz_;
    if (vsync_hz != vsync_hz_) {
        vsync_hz_ = vsync_hz;
        vsync_.configure(active_mode(), vsync_hz_, clock::from_ns(now));
    }
    if (vrr_period_ > 0) {
        cadence_.code = CadenceReason::vrr;
        cadence_.reason = describe(CadenceReason::vrr);
    }
    if (cadence_.code == CadenceReason::fixed || cadence_.code == CadenceReason::vrr) {
        cadence_.hz = active_hz();
        cadence_.base = period_rounded_;
    }
}

void FramePacer::fill_display(FrameTiming& t) noexcept {
    t.cadence = std::max<std::uint32_t>(1, cadence_.divisor);
    t.cadence_hz = active_hz();
    t.cadence_reason = cadence_.code;
    const std::int64_t due = clock::to_ns(t.deadline), interval = t.interval.count();
    if (interval <= 0) {  // the first frame of a grid: no display interval yet
        prev_due_ = due;
        return;
    }
    // What the pacer's own waits deliver (the VRR cap's jitter); a frame that came in late did
    // not wait and says nothing about the wake-up.
    if (t.source != PacingSource::vsync && (t.slept + t.spun).count() > 0) wake_est_.add(t.lateness.count());
    const std::int64_t refresh = known_refresh();
    std::int64_t nominal = 0, bound = 0;
    if (refresh > 0) {  // a fixed display: whole refreshes
        nominal = DisplayDelta::quantize(interval, refresh);
        bound = refresh / 2;
    } else {  // unknown or VRR: the schedule, free of wake-up error
        nominal = due > prev_due_ ? due - prev_due_ : interval;
        bound = nominal / 2;
        const double top = display_.status().vrr_max_hz;
        if (vrr_period_ > 0 && top > 0) bound = std::min<std::int64_t>(bound, std::llround(1e9 / top) / 2);
    }
    prev_due_ = due;
    t.display_dt = std::chrono::nanoseconds(delta_.next(interval, nominal, bound));
}

}  // namespace pacer
