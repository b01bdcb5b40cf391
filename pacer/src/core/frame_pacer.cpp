// FramePacer: the door (frame_pacer.hpp), the settings, and the steps of wait() (pacer_impl.hpp).
#include "pacer/frame_pacer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/log_internal.hpp"
#include "pacer/present_classifier.hpp"
#include "core/pacer_impl.hpp"
#include "base/text.hpp"

namespace pacer {

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
    detail::log(LogLevel::info, "%s %g Hz, mode %s, late policy %s%s, sync %s, cadence %s, priority %s", what,
                c.target_hz, to_string(c.mode), to_string(c.late_policy), policy, to_string(c.sync),
                to_string(c.cadence), to_string(c.waiter.priority.mode));
}

// The present side's waiter: the pacing thread's settings as made, at the thread's own priority
// (the present thread's class is its own; pacer/priority.hpp raises the pacing thread only).
WaiterConfig present_side_waiter(WaiterConfig c) noexcept {
    c.priority = PriorityConfig{};
    return c;
}

bool same_waiter_config(const WaiterConfig& a, const WaiterConfig& b) noexcept {
    return a.late_cost == b.late_cost && a.half_life == b.half_life && a.initial_margin == b.initial_margin &&
           a.min_margin == b.min_margin && a.max_spin == b.max_spin &&
           a.raised_spin_share == b.raised_spin_share && a.priority == b.priority;
}

bool same_governor_config(const CadenceConfig& a, const CadenceConfig& b) noexcept {
    return a.min_hz == b.min_hz && a.dwell == b.dwell && a.quantile == b.quantile && a.fit == b.fit &&
           a.headroom == b.headroom;
}

bool same_config(const PacerConfig& a, const PacerConfig& b) noexcept {
    return a.target_hz == b.target_hz && a.mode == b.mode && a.late_policy == b.late_policy &&
           a.max_catch_up == b.max_catch_up && a.miss_tolerance == b.miss_tolerance &&
           same_waiter_config(a.waiter, b.waiter) && a.background_hz == b.background_hz && a.sync == b.sync &&
           a.max_late_share == b.max_late_share && a.display_lock == b.display_lock &&
           a.match_display == b.match_display && a.cadence == b.cadence &&
           same_governor_config(a.governor, b.governor);
}

}  // namespace

// ---- The door ------------------------------------------------------------------------------------

FramePacer::FramePacer(const PacerConfig& config, TimeSource* ts) : impl_(std::make_unique<Impl>(config, ts)) {}
FramePacer::~FramePacer() { impl_->end_pacing(); }

FrameTiming FramePacer::wait_handoff() noexcept { return impl_->wait(handoff_); }
void FramePacer::mark_input() noexcept {
    impl_->settle(handoff_);
    impl_->mark_input();
}
// The present side: on the pacing thread at once; from the present thread through the queue,
// drained at the pacing thread's next wait().
void FramePacer::before_present(std::uint64_t frame) noexcept {
    if (!impl_->owns()) {
        detail::PresentEvent e;
        e.kind = detail::PresentEvent::Kind::before_present;
        e.frame = frame;
        impl_->present_side_wait(e);  // present sync: the present thread waits here
        return impl_->post(e);
    }
    impl_->settle(handoff_);
    impl_->before_present(frame);
}
void FramePacer::report_present(const PresentInfo& present) noexcept {
    if (!impl_->owns()) {
        detail::PresentEvent e;
        e.kind = detail::PresentEvent::Kind::present;
        e.present = present;
        return impl_->post(e);
    }
    impl_->settle(handoff_);
    impl_->report_present(present);
}
void FramePacer::report_vblank(const VblankInfo& vblank) noexcept {
    if (!impl_->owns()) {
        detail::PresentEvent e;
        e.kind = detail::PresentEvent::Kind::vblank;
        e.vblank = vblank;
        return impl_->post(e);
    }
    impl_->settle(handoff_);
    impl_->report_vblank(vblank);
}
int FramePacer::desired_swap_interval() const noexcept { return impl_->desired_swap_interval(); }
Status FramePacer::set_config(const PacerConfig& config) {
    impl_->settle(handoff_);
    return impl_->set_config(config);
}
Status FramePacer::set_target_hz(double hz) {
    PacerConfig c = impl_->config();
    c.target_hz = hz;
    return set_config(c);
}
void FramePacer::set_background(bool on) noexcept {
    impl_->settle(handoff_);
    impl_->set_background(on);
}
const PacerConfig& FramePacer::config() const noexcept { return impl_->config(); }
PacerStatus FramePacer::status() const noexcept {
    if (!impl_->owns()) return impl_->snapshot();
    PacerStatus s = impl_->status();
    if (handoff_.pending && handoff_.missed) ++s.missed;  // settled at the next call
    return s;
}
clock::time_point FramePacer::now() const noexcept { return impl_->now(); }
void FramePacer::reset() noexcept {
    impl_->settle(handoff_);
    impl_->reset();
}
void FramePacer::end_pacing() noexcept { impl_->end_pacing(); }
void FramePacer::set_time_source(TimeSource* ts) noexcept {
    impl_->settle(handoff_);
    impl_->set_time_source(ts);
}

// ---- Settings ------------------------------------------------------------------------------------

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

FramePacer::Impl::Impl(const PacerConfig& config, TimeSource* ts)
    : cfg_(checked(config)),
      ts_(ts ? ts : &system_time_source()),
      waiter_(config.waiter, ts_),
      present_waiter_(present_side_waiter(config.waiter), ts_) {
    log_config(cfg_, "pacing at");
    vblanks_.set_lock(cfg_.display_lock);
    rate_.configure(rate_config());
    apply_config();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);  // until the first wait()
    snapshot_ = status();
}

RateConfig FramePacer::Impl::rate_config() const noexcept {
    RateConfig r;
    r.target_hz = cfg_.target_hz;
    r.background_hz = cfg_.background_hz;
    r.cadence = cfg_.cadence;
    r.governor = cfg_.governor;
    r.match_display = cfg_.match_display;
    return r;
}

Status FramePacer::Impl::set_config(const PacerConfig& config) {
    if (Status s = validate(config); !s) {
        detail::log(LogLevel::warn, "setting refused: %s", s.message().c_str());
        return s;
    }
    if (same_config(config, cfg_)) return {};  // nothing to re-anchor, nothing to decide again
    const bool changed = config.target_hz != cfg_.target_hz || config.mode != cfg_.mode ||
                         config.late_policy != cfg_.late_policy || config.max_catch_up != cfg_.max_catch_up ||
                         config.sync != cfg_.sync || config.cadence != cfg_.cadence;
    cfg_ = config;
    pending_ = true;
    rate_.configure(rate_config());  // status() says the new rate at once
    vblanks_.set_lock(cfg_.display_lock);
    if (changed) log_config(cfg_, "now");
    return {};
}

void FramePacer::Impl::set_background(bool on) noexcept {
    if (!rate_.set_background(on)) return;
    pending_ = true;
    detail::log(LogLevel::info, on ? "background: %g Hz, OS sleep only" : "foreground: %g Hz", rate_.hz());
}

void FramePacer::Impl::apply_config() noexcept {
    rate_.apply();
    set_period(rate_.hz());
    if (!same_waiter_config(waiter_.config(), cfg_.waiter))
        (void)waiter_.set_config(cfg_.waiter);  // validated with cfg_; keeps what it learned
    pending_ = false;
    // In the background the swap is not asked to pace (the vsync decision restarts on return).
    vsync_hz_ = rate_.background() ? rate_.target_hz() : rate_.hz();
    vsync_.configure(active_mode(), vsync_hz_, now());
}

void FramePacer::Impl::set_period(double hz) noexcept {
    grid_.set_rate(hz);  // re-anchors at the last deadline once started
    vblanks_.set_fallback_period(grid_.period());
}

PacerStatus FramePacer::Impl::status() const noexcept {
    PacerStatus s;
    s.period = std::chrono::nanoseconds(std::llround(1e9 / rate_.hz()));
    s.rate = rate_.status();
    s.background = rate_.background();
    s.frames = frames_;
    s.missed = missed_;
    s.waiter = waiter_.status();
    s.vsync = vsync_.status();
    s.display = vblanks_.tracker().status();
    s.cadence = rate_.cadence();
    s.lead.lead = std::chrono::nanoseconds(lead_ns());
    s.lead.offset = lead_.offset();
    s.lead.learned = lead_.learned();
    s.presents = presents_;
    if (vblanks_.tracker().locked()) s.next_vblank = vblanks_.tracker().next_vblank(now());
    if (depth_count_ > 0) {
        std::array<std::uint8_t, 15> d = depths_;
        std::nth_element(d.begin(), d.begin() + depth_count_ / 2, d.begin() + depth_count_);
        s.frames_in_flight = d[static_cast<std::size_t>(depth_count_ / 2)];
    }
    s.reports_lost = reports_lost_.load(std::memory_order_relaxed);
    return s;
}

// ---- The present thread ----------------------------------------------------------------------------

void FramePacer::Impl::post(detail::PresentEvent e) noexcept {
#ifndef NDEBUG
    // The queue has one producer: a second present thread would race on it.
    std::thread::id none{}, me = std::this_thread::get_id();
    if (!present_thread_.compare_exchange_strong(none, me) && none != me) {
        detail::log(LogLevel::error, "FramePacer: present-side calls from a second thread besides the pacing thread "
                                     "(one present thread; see frame_pacer.hpp)");
        std::abort();
    }
#endif
    e.newest = newest_.load(std::memory_order_acquire);
    if (e.kind == detail::PresentEvent::Kind::before_present && e.call == clock::time_point{}) e.call = ts_->now();
    if (!queue_.push(e)) reports_lost_.fetch_add(1, std::memory_order_relaxed);
}

void FramePacer::Impl::drain() noexcept {
    queue_.drain([this](const detail::PresentEvent& e) {
        switch (e.kind) {
        case detail::PresentEvent::Kind::before_present:
            if (!grid_.started()) break;
            if (e.waited.period.count() != 0) take_present_wait(e, e.frame ? e.frame : e.newest);
            mark_present(e.frame ? e.frame : e.newest, clock::to_ns(e.call));
            break;
        case detail::PresentEvent::Kind::present: {
            PresentInfo p = e.present;
            if (p.frame == 0) p.frame = e.newest;  // the newest frame at the call
            report_present(p, e.newest);
            break;
        }
        case detail::PresentEvent::Kind::vblank: report_vblank(e.vblank); break;
        }
    });
}

// Another thread reads a copy the pacing thread makes at each wait() once one asked: the pacing
// thread never waits for a reader (try_lock), and a reader waits only for a copy in progress.
void FramePacer::Impl::publish() noexcept {
    swap_interval_.store(vsync_.desired_swap_interval(), std::memory_order_relaxed);
    // Present sync's plan for the present side: the grid, and the vblanks while the swap paces.
    const bool present_sync = sync_ == SyncMode::present && !rate_.background() && grid_.started();
    plan_.on.store(present_sync, std::memory_order_relaxed);
    if (present_sync) {
        const bool locked = swap_paces_ && vblanks_.known();
        plan_.grid.store(clock::to_ns(grid_.last_deadline()), std::memory_order_relaxed);
        plan_.period.store(grid_.period().count(), std::memory_order_relaxed);
        plan_.vblank.store(locked ? vblank_after(last_wake_) : 0, std::memory_order_relaxed);
        plan_.vblank_period.store(locked ? vblank_period() : 0, std::memory_order_relaxed);
        plan_.mode.store(static_cast<int>(locked ? WaitMode::hybrid : active_mode()), std::memory_order_relaxed);
        plan_.miss_tolerance.store(cfg_.miss_tolerance.count(), std::memory_order_relaxed);
    }
    if (!status_wanted_.load(std::memory_order_relaxed)) return;
    const PacerStatus s = status();
    std::unique_lock<std::mutex> lock(snapshot_mutex_, std::try_to_lock);
    if (lock.owns_lock()) snapshot_ = s;
}

PacerStatus FramePacer::Impl::snapshot() const noexcept {
    status_wanted_.store(true, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    return snapshot_;
}

// ---- Threads and clocks --------------------------------------------------------------------------

void FramePacer::Impl::end_pacing() noexcept {
    if (pacing_ && pacing_thread_ == std::this_thread::get_id()) {
        waiter_.release_priority();  // a thread raised for good (thread, high, automatic)
        ts_->end_pacing();
        pacing_ = false;
    }
}

void FramePacer::Impl::enter_thread() noexcept {
#ifndef NDEBUG
    // Two pacing threads would race on the grid and hand one thread's timer settings to the
    // other; stop at the first such call, where the stack still shows the culprit.
    if (pacing_ && pacing_thread_ != std::this_thread::get_id()) {
        detail::log(LogLevel::error,
                    "FramePacer::wait() called from a second thread: one thread paces (see frame_pacer.hpp)");
        std::abort();
    }
#endif
    if (pacing_) return;
    ts_->begin_pacing();
    pacing_ = true;
    pacing_thread_ = std::this_thread::get_id();
    owner_.store(pacing_thread_, std::memory_order_relaxed);
}

void FramePacer::Impl::set_time_source(TimeSource* ts) noexcept {
    end_pacing();
    ts_ = ts ? ts : &system_time_source();
    waiter_.set_time_source(ts_);
    present_waiter_.set_time_source(ts_);
    vblanks_.reset();  // its vblanks were on the other clock
    reset();
}

void FramePacer::Impl::settle(detail::Handoff& h) noexcept {
    if (!h.pending) return;
    h.pending = false;
    delta_.carry(h.extra);  // display_dt saw the interval before the spin ended
    if (h.missed) ++missed_;
    last_wake_ = clock::to_ns(h.end);
    latency_.start(h.end);
}

// ---- A frame ---------------------------------------------------------------------------------------

FrameTiming FramePacer::Impl::wait(detail::Handoff& handoff) noexcept {
    enter_thread();
    settle(handoff);
    drain();
    const std::int64_t now = start_frame();
    std::optional<std::chrono::nanoseconds> cost;
    const ClosedFrame previous = close_frame(now, &cost);
    const bool swap_paces = plan_frame(now, cost);
    FrameTiming t = pace(now, swap_paces, handoff);
    describe(t, previous);
    publish();
    return t;  // FramePacer::wait() finishes a handed-off spin
}

// Match the display, apply pending settings, read the clock, tick the display.
std::int64_t FramePacer::Impl::start_frame() noexcept {
    if (rate_.follow_display(vsync_.status(), vblanks_.tracker().status())) pending_ = true;
    if (pending_) apply_config();
    waiter_.hold_priority(grid_.period());  // raised for good: from the first frame
    const std::int64_t now = clock::to_ns(ts_->now());
    vblanks_.on_frame(clock::from_ns(now));
    ++frames_;
    newest_.store(frames_, std::memory_order_release);
    return now;
}

// The cost of the frame the caller just finished; the frames due close (the previous one in a
// single-thread loop, those presented since in flight) and the lead learns from each. Returns the
// newest one closed: its figures go to this frame's FrameTiming.
ClosedFrame FramePacer::Impl::close_frame(std::int64_t now, std::optional<std::chrono::nanoseconds>* cost) noexcept {
    *cost = latency_.cost(clock::from_ns(now));
    ClosedFrame closed[LatencyTracker::kMaxInFlight];
    const int n = latency_.close_due(clock::from_ns(now), std::chrono::nanoseconds(vblank_period() / 2),
                                     cfg_.miss_tolerance, closed);
    ClosedFrame last;
    for (int i = 0; i < n; ++i) {
        const ClosedFrame& c = closed[i];
        if (c.sample) lead_.learn(c.sample->work, c.sample->lead, c.sample->shown_late, grid_.period(), cfg_.max_late_share);
        if (c.presented || !last.presented) last = c;
    }
    host_presents_ = second_call_;
    second_call_ = false;
    return last;
}

// Does the swap pace this frame; its sync mode; the rate in force; the grid after the swap paced.
bool FramePacer::Impl::plan_frame(std::int64_t now, std::optional<std::chrono::nanoseconds> cost) noexcept {
    const bool swap_paces = vsync_.on_frame();
    swap_paces_ = swap_paces;
    sync_ = rate_.background() ? SyncMode::frame_start : cfg_.sync;
    latency_.begin(sync_, frames_);
    govern(now, cost);
    if (sync_ == SyncMode::just_in_time || align_torn_frames(swap_paces, now)) lead_.prime(grid_.period());
    // The swap paced the frames until now: start a grid one period after the last wake, so the
    // hand-over frame gets a whole period like any other.
    if (grid_.started() && !swap_paces) leave_swap_grid(now);
    return swap_paces;
}

void FramePacer::Impl::leave_swap_grid(std::int64_t now) noexcept {
    if (!grid_dirty_ || now < last_wake_) return;
    grid_.restart_at(clock::from_ns(last_wake_));
    grid_dirty_ = false;
}

// The rate in force for this frame (pacer/rate.hpp); a new one re-anchors the grid and, unless in
// the background, asks the swap for the matching interval.
void FramePacer::Impl::govern(std::int64_t now, std::optional<std::chrono::nanoseconds> cost) noexcept {
    RateInputs in;
    const DisplayStatus& d = vblanks_.tracker().status();
    in.vrr = vblanks_.on_vrr();
    in.vrr_min_hz = d.vrr_min_hz;
    in.vrr_max_hz = d.vrr_max_hz;
    in.refresh = vblanks_.known_refresh();
    if (rate_.update(clock::from_ns(now), cost, in, grid_.period())) set_period(rate_.hz());
    if (!rate_.background()) {
        // The swap is asked for the cadence's interval (refresh / rate); not for each VRR step.
        const double vsync_hz = rate_.vsync_hz();
        if (vsync_hz != vsync_hz_) {
            vsync_hz_ = vsync_hz;
            vsync_.configure(active_mode(), vsync_hz_, clock::from_ns(now));
        }
    }
    rate_.settle(grid_.period());
    rate_.log_change();
}

// The wait of wait(), by sync mode; starts the frame's latency marks.
FrameTiming FramePacer::Impl::pace(std::int64_t now, bool swap_paces, detail::Handoff& handoff) noexcept {
    // First frame, or a clock that went backwards (only an injected clock can).
    if (!grid_.started() || now < last_wake_) {
        latency_.start(clock::from_ns(now));
        latency_.no_target();
        return first_frame(now);
    }
    if (sync_ == SyncMode::present && host_presents_) {  // the wait is in before_present()
        latency_.start(clock::from_ns(now));
        return present_placeholder(now);
    }
    if (sync_ == SyncMode::just_in_time) return just_in_time(now, swap_paces);
    if (align_torn_frames(swap_paces, now)) return aligned_frame(now);
    return grid_wait(now, swap_paces, handoff);
}

void FramePacer::Impl::describe(FrameTiming& t, const ClosedFrame& closed) noexcept {
    const LatencyFigures& previous = closed.figures;
    t.frame = frames_;
    t.latency_frame = closed.frame;
    latency_.open();
    // A record of a wait made before a present belongs to present sync in progress; a later
    // switch back to present sync starts without one.
    if (!(sync_ == SyncMode::present && host_presents_)) present_record_.period = std::chrono::nanoseconds(0);
    t.sync = sync_;
    t.latency = previous.latency;
    t.input_to_present = previous.input_to_present;
    t.latency_measured = previous.measured;
    t.shown_late = previous.shown_late;
    t.presents_shown = shown_since_;
    t.presents_dropped = dropped_since_;
    t.present_feedback = presents_.feedback;
    shown_since_ = dropped_since_ = 0;
    display_delta(t);
}

// ---- The waits -------------------------------------------------------------------------------------

// Anchors the grid here and returns at once: there is no frame time yet.
FrameTiming FramePacer::Impl::first_frame(std::int64_t now) noexcept {
    grid_dirty_ = false;
    FrameTiming t;
    t.index = grid_.start(clock::from_ns(now));
    last_wake_ = now;
    t.deadline = t.wake = clock::from_ns(now);
    t.mode = cfg_.mode;
    t.source = own_source(active_mode());
    t.period = grid_.period();
    t.background = rate_.background();
    PaceSlot slot;
    slot.grid.deadline = t.deadline;
    aim_display(t, slot);
    return t;
}

// Present sync with a host that calls before_present(): the last wait made there.
FrameTiming FramePacer::Impl::present_placeholder(std::int64_t now) noexcept {
    if (present_record_.period.count() != 0) return present_record_;
    FrameTiming t;
    t.index = grid_.index();
    t.deadline = t.wake = clock::from_ns(now);
    t.period = grid_.period();
    t.mode = cfg_.mode;
    return t;
}

// just_in_time: wake the lead before the frame's display deadline (a vblank when the swap paces
// and the vblanks are known; the learned lead covers the wake-up error, so an OS sleep).
FrameTiming FramePacer::Impl::just_in_time(std::int64_t now, bool swap_paces) noexcept {
    const std::int64_t lead = lead_ns();
    const bool locked = swap_paces && vblanks_.known();
    PaceSlot slot;
    if (locked) {
        grid_dirty_ = true;
        slot.grid = grid_.after(clock::from_ns(next_target(now + lead)));
        slot.swap_paces = true;
    } else {
        slot = grid_slot(now + lead);
    }
    FrameTiming t = lead_wait(slot, lead, locked ? WaitMode::sleep : active_mode(), locked, false, now);
    t.display_locked = locked && vblanks_.use_fit();
    return t;
}

// Vsync off and the vblanks fitted: a frame_start frame is started so that its present lands just
// before a vblank (the tear line off screen), as just_in_time with a vblank target, the wait exact.
FrameTiming FramePacer::Impl::aligned_frame(std::int64_t now) noexcept {
    grid_dirty_ = true;  // leaving the lock re-anchors the grid at the last wake
    const std::int64_t lead = lead_ns();
    PaceSlot slot;
    slot.grid = grid_.after(clock::from_ns(next_target(now + lead)));
    FrameTiming t = lead_wait(slot, lead, active_mode(), true, true, now);
    t.display_locked = true;
    return t;
}

FrameTiming FramePacer::Impl::lead_wait(PaceSlot slot, std::int64_t lead, WaitMode mode, bool locked, bool aligned,
                                        std::int64_t now) noexcept {
    slot.wait_until = clock::to_ns(slot.grid.deadline) - lead;
    slot.early = true;
    slot.aim = clock::to_ns(slot.grid.deadline);
    const WaitResult r = waiter_.wait_until(clock::from_ns(slot.wait_until), mode);
    latency_.start(r.end);
    latency_.aim_early(slot.grid.deadline, clock::from_ns(slot.wait_until), std::chrono::nanoseconds(lead), locked,
                       aligned);
    return record(slot, r, now);
}

// frame_start: the grid slot, or the swap's floor; the spin's last microseconds are left to
// wait(), inline in the caller, after all the bookkeeping (HybridWaiter::wait_until_handoff).
FrameTiming FramePacer::Impl::grid_wait(std::int64_t now, bool swap_paces, detail::Handoff& handoff) noexcept {
    const PaceSlot slot = swap_paces ? swap_slot() : grid_slot(now);
    const WaitResult r =
        waiter_.wait_until_handoff(clock::from_ns(slot.wait_until), swap_paces ? WaitMode::hybrid : active_mode());
    if (clock::to_ns(r.end) < slot.wait_until) {
        handoff.ts = ts_;
        handoff.until = clock::from_ns(slot.wait_until);
        handoff.miss_tolerance = cfg_.miss_tolerance;
    }
    latency_.start(r.end);
    latency_.no_target();
    return record(slot, r, now);
}

// The swap paces this frame. Nominal deadline one period after the last wake; the wait only
// enforces a floor of 15/16 of a period: a swap that blocks is never held up by it, and one that
// does not (a probe, vsync lost) cannot run the loop more than 1/16 fast, which does not show in
// the frame times the way a faster floor would.
FramePacer::Impl::PaceSlot FramePacer::Impl::swap_slot() noexcept {
    grid_dirty_ = true;
    const std::int64_t p = grid_.period().count();
    PaceSlot s;
    s.grid = grid_.after(clock::from_ns(last_wake_ + p));
    s.wait_until = last_wake_ + p - p / 16;
    s.swap_paces = true;
    return s;
}

FramePacer::Impl::PaceSlot FramePacer::Impl::grid_slot(std::int64_t now) const noexcept {
    PaceSlot s;
    s.grid = grid_.next_slot(clock::from_ns(now), cfg_.late_policy, cfg_.max_catch_up);
    s.wait_until = clock::to_ns(s.grid.deadline);
    return s;
}

FrameTiming FramePacer::Impl::record(const PaceSlot& slot, const WaitResult& r, std::int64_t now) noexcept {
    using std::chrono::nanoseconds;
    const std::int64_t wake = clock::to_ns(r.end);
    FrameTiming t;
    t.index = slot.grid.index;
    t.wake = r.end;
    const std::int64_t due = slot.early ? slot.wait_until : clock::to_ns(slot.grid.deadline);
    t.deadline = clock::from_ns(due);
    t.lateness = nanoseconds(wake > due ? wake - due : 0);
    t.interval = nanoseconds(wake - last_wake_);
    t.work = nanoseconds(now - last_wake_);
    t.period = grid_.period();
    t.slept = r.slept;
    t.spun = r.spun;
    t.oversleep = r.oversleep;
    t.margin = r.margin;
    t.past_spin_bound = r.past_spin_bound;
    t.skipped = slot.grid.skipped;
    t.mode = cfg_.mode;
    t.background = rate_.background();
    t.source = !slot.swap_paces                ? own_source(active_mode())
             : vsync_.last_present_locked() ? PacingSource::vsync
                                            : PacingSource::hybrid;
    t.missed = t.skipped > 0 || t.lateness > cfg_.miss_tolerance;
    if (t.missed) ++missed_;
    aim_display(t, slot);
    grid_.take(slot.grid);
    last_wake_ = wake;
    return t;
}

// ---- Vblank targets ---------------------------------------------------------------------------------

// The display time a frame is for: where it was aimed (a vblank, or the present deadline), else
// the next slot after its start, on the first predicted vblank at or after it (the early window
// before: the prediction's error) while the vblanks are predicted.
std::int64_t FramePacer::Impl::display_target(const PaceSlot& slot) const noexcept {
    if (slot.aim != 0) return slot.aim;
    const std::int64_t next = clock::to_ns(slot.grid.deadline) + grid_.period().count();
    if (!vblanks_.use_fit()) return next;
    const std::int64_t early = PresentClassifier::window(vblanks_.period()).early.count();
    return vblank_after(next - early);
}

// The frame's display target, and its vblank counter when the fit counts the vblanks.
void FramePacer::Impl::aim_display(FrameTiming& t, const PaceSlot& slot) noexcept {
    t.display_target = clock::from_ns(display_target(slot));
    t.has_display_target_msc =
        vblanks_.use_fit() && vblanks_.tracker().msc_at(t.display_target, &t.display_target_msc);
    aims_[static_cast<std::size_t>(frames_ % aims_.size())] = {
        frames_, {clock::to_ns(t.display_target), t.display_target_msc, t.has_display_target_msc}};
}

std::int64_t FramePacer::Impl::vblank_after(std::int64_t t) const noexcept {
    return clock::to_ns(vblanks_.next_after(clock::from_ns(t)));
}

// The display deadline of a frame that cannot be ready before `earliest`: a vblank at least one
// period after the previous frame's (or its late showing), and not before `earliest`.
std::int64_t FramePacer::Impl::next_target(std::int64_t earliest) const noexcept {
    const std::int64_t pv = vblank_period();
    std::int64_t d = vblank_after(earliest - 1);
    if (latency_.has_previous_target()) {
        const std::int64_t p = grid_.period().count();
        const std::int64_t last_target = clock::to_ns(latency_.previous_target());
        const std::int64_t last_shown = clock::to_ns(latency_.previous_shown());
        std::int64_t base = last_target + p;
        if (last_shown > last_target + pv / 2) base = std::max(base, last_shown + p);
        d = std::max(d, vblank_after(base - pv / 4));
    }
    return d;
}

std::int64_t FramePacer::Impl::lead_ns() const noexcept { return lead_.lead(grid_.period(), cfg_.max_late_share).count(); }

// Vsync off and the display's vblanks fitted: frame_start frames are placed before a vblank, every
// N vblanks, N the swap interval that serves the target. Only while vblanks keep coming (within 4
// periods): the fit of a swap that waited before vsync was turned off is not renewed, and a grid
// that would jump twice (to the fit, then back when it is lost) is worse than one that keeps its
// own phase.
bool FramePacer::Impl::align_torn_frames(bool swap_paces, std::int64_t now) const noexcept {
    return cfg_.display_lock && !swap_paces && !rate_.background() && sync_ == SyncMode::frame_start &&
           vsync_.desired_swap_interval() == 0 && vblanks_.renewed(clock::from_ns(now)) &&
           compatible_swap_interval(vblanks_.tracker().status().refresh_hz, rate_.target_hz()) > 0;
}

// The frame's predicted display interval (FrameTiming::display_dt) and the cadence fields.
void FramePacer::Impl::display_delta(FrameTiming& t) noexcept {
    const CadenceStatus& c = rate_.cadence();
    t.cadence = std::max<std::uint32_t>(1, c.divisor);
    t.cadence_hz = rate_.hz();
    t.cadence_reason = c.code;
    const std::int64_t due = clock::to_ns(t.deadline), interval = t.interval.count();
    if (interval <= 0) {  // the first frame of a grid: no display interval yet
        prev_due_ = due;
        return;
    }
    // What the pacer's own waits deliver (the VRR cap's jitter); a frame that came in late did
    // not wait and says nothing about the wake-up.
    if (t.source != PacingSource::vsync && (t.slept + t.spun).count() > 0) rate_.note_wake(t.lateness);
    const std::int64_t refresh = vblanks_.known_refresh().count();
    std::int64_t nominal = 0, bound = 0;
    if (refresh > 0) {  // a fixed display: whole refreshes
        nominal = DisplayDelta::quantize(t.interval, std::chrono::nanoseconds(refresh)).count();
        bound = refresh / 2;
    } else {  // unknown or VRR: the schedule, free of wake-up error
        nominal = due > prev_due_ ? due - prev_due_ : interval;
        bound = nominal / 2;
        const double top = vblanks_.tracker().status().vrr_max_hz;
        if (rate_.on_vrr() && top > 0) bound = std::min<std::int64_t>(bound, std::llround(1e9 / top) / 2);
    }
    prev_due_ = due;
    t.display_dt = delta_.next(t.interval, std::chrono::nanoseconds(nominal), std::chrono::nanoseconds(bound));
}

}  // namespace pacer
