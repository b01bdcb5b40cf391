#include "pacer/waiter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "base/log_internal.hpp"
#include "base/text.hpp"

namespace pacer {

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

Status duration_in(const char* name, std::chrono::nanoseconds v, std::int64_t lo, std::int64_t hi) {
    if (v.count() < lo || v.count() > hi)
        return Status::error(std::string(name) + " = " + detail::num(v.count()) + " ns: must be in [" +
                             detail::num(lo) + ", " + detail::num(hi) + "] ns");
    return {};
}

}  // namespace

Status validate(const WaiterConfig& c) {
    if (Status s = duration_in("waiter.late_cost", c.late_cost, 0, kSecond); !s) return s;
    if (!std::isfinite(c.half_life) || c.half_life < 8.0 || c.half_life > 1e6)
        return Status::error("waiter.half_life = " + detail::num(c.half_life) + ": must be in [8, 1e6] sleeps");
    if (Status s = duration_in("waiter.max_spin", c.max_spin, 0, kSecond); !s) return s;
    if (Status s = duration_in("waiter.initial_margin", c.initial_margin, 0, kSecond); !s) return s;
    if (Status s = duration_in("waiter.min_margin", c.min_margin, 0, c.max_spin.count()); !s)
        return Status::error(s.message() + " (min_margin cannot exceed max_spin)");
    if (!std::isfinite(c.raised_spin_share) || c.raised_spin_share <= 0.0 || c.raised_spin_share > 1.0)
        return Status::error("waiter.raised_spin_share = " + detail::num(c.raised_spin_share) +
                             ": must be in (0, 1] (a share of the period)");
    if (!is_named(kThreadPriorityNames, c.priority.mode))
        return Status::error("waiter.priority.mode = " + detail::num(static_cast<int>(c.priority.mode)) +
                             ": must be normal, wait, thread, high or automatic");
    if (c.priority.realtime_priority < 1 || c.priority.realtime_priority > 99)
        return Status::error("waiter.priority.realtime_priority = " + detail::num(c.priority.realtime_priority) +
                             ": must be in [1, 99]");
    if (c.priority.nice < -20 || c.priority.nice > -1)
        return Status::error("waiter.priority.nice = " + detail::num(c.priority.nice) + ": must be in [-20, -1]");
    return {};
}

// ---------------------------------------------------------------------------------------------
// HybridWaiter

HybridWaiter::HybridWaiter(const WaiterConfig& config, TimeSource* ts)
    : cfg_(config), ts_(ts ? ts : &system_time_source()), est_(config.half_life),
      cap_ns_(config.max_spin.count()) {
    if (Status s = validate(config); !s) throw ConfigError(s.message());
}

namespace {

template <std::size_t N>
void copy_text(char (&to)[N], const char* from) noexcept {
    std::size_t i = 0;
    for (; i + 1 < N && from[i]; ++i) to[i] = from[i];
    to[i] = '\0';
}

}  // namespace

Status HybridWaiter::set_config(const WaiterConfig& config) {
    if (Status s = validate(config); !s) return s;
    if (config.priority != cfg_.priority) forget_priority(config.priority.mode);  // put back, ask afresh
    if (config.max_spin != cfg_.max_spin) {  // a new ceiling: start there, as at construction
        cap_ns_ = config.max_spin.count();
        calm_spins_ = 0;
    }
    cfg_ = config;
    est_.set_half_life(config.half_life);
    return {};
}

void HybridWaiter::set_time_source(TimeSource* ts) noexcept {
    TimeSource* next = ts ? ts : &system_time_source();
    if (next == ts_) return;
    forget_priority(cfg_.priority.mode);  // through the old source; the new OS is asked afresh
    ts_ = next;
}

void HybridWaiter::forget_priority(ThreadPriority asked) noexcept {
    release_priority();
    priority_ = PriorityStatus{};
    priority_.asked = asked;
    level_ = 0;
}

void HybridWaiter::release_priority() noexcept {
    if (!held_) return;
    ts_->restore_priority(grant_);  // a pending ask too: an answer that comes after is undone
    held_ = false;
    priority_.raised_now = false;
    priority_.pending = false;
    priority_.lever = PriorityLever::none;
    priority_.by = PriorityGrantor::none;
}

// One raise through the time source; a refusal is kept (with its reason, logged once) and stops
// further raises until the setting or the source changes. A pending grant (an answer to come, or
// the guard's raise again) is held and refreshed at each wait.
bool HybridWaiter::raise(std::chrono::nanoseconds period) noexcept {
    PriorityConfig c = cfg_.priority;
    if (level_ > 0) c.realtime_priority = level_;  // what the OS granted before (its limit)
    if (level_ < 0) c.nice = level_;
    grant_ = ts_->raise_priority(c, period);
    held_ = raised_for_good(cfg_.priority.mode) && (grant_.granted || grant_.pending);
    take_grant(true);
    return grant_.granted;
}

void HybridWaiter::refresh(std::chrono::nanoseconds period) noexcept {
    if (!ts_->refresh_priority(grant_, period)) return;
    take_grant(false);
    if (!grant_.granted && !grant_.pending) held_ = false;  // refused in the end: nothing to put back
}

// priority_ from grant_; the news logged once: a grant, a refusal, an ask under way, the guard.
void HybridWaiter::take_grant(bool first) noexcept {
    const PriorityGrant& g = grant_;
    const char* mode = to_string(cfg_.priority.mode);
    const bool was_granted = priority_.granted, was_pending = priority_.pending;
    const std::uint64_t demotions = priority_.demotions;
    priority_.pending = g.pending;
    priority_.demotions = g.demotions;
    copy_text(priority_.guard, g.guard);
    if (g.demotions != demotions)  // the guard put the thread back: news worth a warning
        detail::log(LogLevel::warn, "thread priority %s: the real-time guard %s", mode, g.guard);
    if (g.granted) {
        if (priority_.raises == 0 || !was_granted || std::strcmp(priority_.in_force, g.in_force) != 0 ||
            priority_.by != g.by)
            detail::log(LogLevel::info, "thread priority %s: %s%s%s", mode, g.in_force,
                        g.pending ? "; " : "", g.pending ? g.reason : "");
        level_ = g.level;
        priority_.granted = true;
        priority_.refused = false;
        if (first || !was_granted) ++priority_.raises;
        copy_text(priority_.in_force, g.in_force);
        copy_text(priority_.reason, g.pending ? g.reason : "");
        priority_.lever = g.lever;
        priority_.by = g.by;
        priority_.raised_now = raised_for_good(cfg_.priority.mode);
        return;
    }
    priority_.granted = false;
    priority_.raised_now = false;
    priority_.lever = PriorityLever::none;
    priority_.by = PriorityGrantor::none;
    copy_text(priority_.in_force, "normal");
    copy_text(priority_.reason, g.reason[0] ? g.reason : "refused");
    if (g.pending) {  // asked, the answer to come, or put back by the guard: no verdict yet (the
                      // answer is the one info line: a missing bus or daemon is one line, not two)
        if ((first || !was_pending) && g.demotions == demotions)
            detail::log(LogLevel::debug, "thread priority %s: %s", mode, priority_.reason);
        return;
    }
    priority_.refused = true;
    // automatic asked for nothing the user must give: its refusal is news, not a warning.
    detail::log(cfg_.priority.mode == ThreadPriority::automatic ? LogLevel::info : LogLevel::warn,
                "thread priority %s: %s; pacing goes on at the thread's own class", mode, priority_.reason);
}

void HybridWaiter::note_spin(bool preempted) noexcept {
    spins_since_preempted_ = preempted ? 0 : spins_since_preempted_ + 1;
    const std::int64_t floor = std::min(cfg_.max_spin.count(), std::max(kMinGuardedCap.count(), cfg_.min_margin.count()));
    if (preempted) {
        ++preempted_spins_;
        calm_spins_ = 0;
        cap_ns_ = std::max(floor, cap_ns_ / 2);
    } else if (++calm_spins_ >= kCalmSpinsToGrow) {
        calm_spins_ = 0;
        cap_ns_ = std::min(cfg_.max_spin.count(), cap_ns_ * 2);
    }
}

std::chrono::nanoseconds HybridWaiter::margin() const noexcept {
    std::int64_t cap = cap_ns_;
    if (runs_raised() && period_hint_ > 0) cap = std::min(cap, spin_bound(period_hint_));
    return margin_within(cap);
}

// The margin of least expected cost among those up to `cap` (see waiter.hpp).
std::chrono::nanoseconds HybridWaiter::margin_within(std::int64_t cap_ns) const noexcept {
    // Until a few sleeps are measured, the histogram is a guess; use the configured prior as a floor.
    const std::int64_t cap = std::max(cfg_.min_margin.count(), cap_ns);
    const std::int64_t reach = cap - cfg_.min_margin.count();  // the oversleep a spin can catch
    std::int64_t m = est_.least_cost(cfg_.late_cost, std::chrono::nanoseconds(reach)).count();
    if (cfg_.late_cost >= kFloorLateCost && spins_since_preempted_ >= kCalmSpinsForFloor) {  // waiter.hpp: why
        // The floor: kFloorQuantile of the catchable wake-ups, once at least kFloorSamples
        // wake-ups' weight lies between the least-cost margin and the reach.
        const double catchable = est_.fraction_below(std::chrono::nanoseconds(reach));
        const double left_late = catchable - est_.fraction_below(std::chrono::nanoseconds(m));
        if (left_late * est_.effective_count() >= kFloorSamples)
            m = std::max(m, est_.quantile(kFloorQuantile * catchable).count());
    }
    m += cfg_.min_margin.count();
    if (est_.count() < kWarmup) m = std::max(m, cfg_.initial_margin.count());
    m = std::clamp(m, cfg_.min_margin.count(), cap);
    return std::chrono::nanoseconds(m);
}

// Raised now: for good (granted), or wait mode, whose sleep and spin are raised unless refused.
bool HybridWaiter::runs_raised() const noexcept {
    return priority_.raised_now || (cfg_.priority.mode == ThreadPriority::wait && !priority_.refused);
}

// The longest spin a raised wait may make: raised_spin_share of the frame period (or of the
// wait, without one), never below min_margin.
std::int64_t HybridWaiter::spin_bound(std::int64_t wait) const noexcept {
    const std::int64_t period = std::max(period_hint_, wait);
    const auto bound = static_cast<std::int64_t>(cfg_.raised_spin_share * static_cast<double>(period));
    return std::max(bound, cfg_.min_margin.count());
}

WaiterStatus HybridWaiter::status() const noexcept {
    WaiterStatus s;
    s.margin = margin();
    s.spin_cap = spin_cap();
    s.preempted_spins = preempted_spins_;
    s.sleeps_measured = est_.count();
    s.sleep_primitive = ts_->sleep_primitive();
    s.priority = priority_;
    s.priority.asked = cfg_.priority.mode;
    if (runs_raised() && period_hint_ > 0) s.spin_bound = std::chrono::nanoseconds(spin_bound(period_hint_));
    s.wakeups_past_bound = past_bound_;
    return s;
}

namespace {

// The spin of wait_until_handoff(), inline in it: reads ts's clock from `now` until it reaches
// `end` and returns the last read; a gap of more than kPreemptGap between two reads sets
// `preempted`.
inline std::int64_t spin_until(TimeSource& ts, std::int64_t now, std::int64_t end, bool& preempted) noexcept {
    std::int64_t prev = now;
    while (now < end) {
        ts.relax();
        now = clock::to_ns(ts.now());
        if (now - prev > HybridWaiter::kPreemptGap.count()) preempted = true;
        prev = now;
    }
    return now;
}

}  // namespace

WaitResult HybridWaiter::wait_until_handoff(clock::time_point deadline_tp, WaitMode mode) noexcept {
    using std::chrono::nanoseconds;
    const std::int64_t deadline = clock::to_ns(deadline_tp);
    WaitResult r;
    TimeSource& ts = *ts_;
    if (mode == WaitMode::vsync || mode == WaitMode::automatic) mode = WaitMode::hybrid;
    std::int64_t now = clock::to_ns(ts.now());

    const std::int64_t wait = deadline - now;
    hold(nanoseconds(wait));
    const ThreadPriority prio = priority_.refused ? ThreadPriority::normal : cfg_.priority.mode;
    // Raised, the spin is bounded (waiter.hpp says why): the margin is chosen among those up to
    // the bound. Until the margin is learned, a thread raised for good also sleeps half of a wait
    // the prior would spin whole (at 1 kHz under the 1 ms prior, a busy thread on the pacer's
    // core got 0 % of it, against 94 % alone; tests/priority/).
    const bool raised = runs_raised();
    const std::int64_t bound = raised ? spin_bound(wait) : 0;
    std::int64_t m = 0;
    if (mode == WaitMode::hybrid) {
        m = raised ? margin_within(std::min(cap_ns_, bound)).count() : margin().count();
        if (priority_.raised_now && est_.count() < kWarmup && m >= wait) m = std::max<std::int64_t>(0, wait / 2);
        r.margin = nanoseconds(m);
    }
    const std::int64_t wake_target = deadline - m;
    // wait: raised for the sleep and the spin, put back just before the deadline (the header says
    // why there).
    bool lower = false;
    if (mode != WaitMode::spin && wake_target > now) {
        lower = prio == ThreadPriority::wait && raise(nanoseconds(deadline - now));
        ts.sleep_until(clock::from_ns(wake_target));
        const std::int64_t woke = clock::to_ns(ts.now());
        r.os_slept = true;
        r.slept = nanoseconds(woke - now);
        r.oversleep = nanoseconds(std::max<std::int64_t>(0, woke - wake_target));
        if (mode == WaitMode::hybrid) est_.add(nanoseconds(woke - wake_target));
        if (raised && mode == WaitMode::hybrid && woke - wake_target > bound) {  // accepted late
            r.past_spin_bound = true;
            ++past_bound_;
        }
        now = woke;
    }
    if (mode != WaitMode::sleep) {
        const std::int64_t spin_start = now;
        // The caller's finish_wait() spins the rest: kHandoff, or what putting the priority back takes.
        const std::int64_t spin_end = deadline - (lower ? restore_ns_ : kHandoff.count());
        now = spin_until(ts, now, spin_end, r.spin_preempted);
        r.spun = nanoseconds(now - spin_start);
        if (mode == WaitMode::hybrid && r.spun.count() > 0) note_spin(r.spin_preempted);
    }
    if (lower) {  // the call's cost learned: up at once, down slowly
        const std::int64_t before = now;
        ts.restore_priority(grant_);
        now = clock::to_ns(ts.now());
        const std::int64_t cost = std::min(now - before, kHandoff.count());
        restore_ns_ = cost > restore_ns_ ? cost : restore_ns_ - (restore_ns_ - cost) / 16;
    }
    r.lateness = nanoseconds(std::max<std::int64_t>(0, now - deadline));
    r.end = clock::from_ns(now);
    return r;
}

// ---------------------------------------------------------------------------------------------
// Free functions

namespace {

// Must stay trivially destructible: a thread_local with a destructor can corrupt the heap at
// thread exit with mingw-w64's emulated TLS (GCC PR 80816; platform/windows/platform.cpp).
static_assert(std::is_trivially_destructible_v<HybridWaiter>);

// Where a new thread's waiter starts. A waiter spins whenever its margin covers the whole wait,
// so the 1 ms default prior would turn a fresh thread's first 16 sleep_for(1 ms) calls into pure
// spins. The free functions start instead from the margin another thread of this process has
// learned, or else from a prior that covers the usual wake-up lateness: the 99.5th percentile of
// oversleep measured 250-480 us on a loaded 2-core VM on Linux (1 ns timer slack) and about
// 480 us for Windows' high-resolution timer under Wine. A machine on Windows' coarser Sleep rung
// wakes later for the first 16 sleeps, until the waiter has measured it.
constexpr std::int64_t kFreshThreadPriorNs = 500'000;
std::atomic<std::int64_t> g_learned_margin_ns{0};

// Their priority is normal until set_sleep_priority() says otherwise: the calling thread may be
// anyone's (a pool worker, an audio thread), and nothing would put a raise back before it ends.
WaiterConfig fresh_thread_config() noexcept {
    WaiterConfig c;
    c.priority.mode = ThreadPriority::normal;
    const std::int64_t learned = g_learned_margin_ns.load(std::memory_order_relaxed);
    c.initial_margin = std::chrono::nanoseconds(learned > 0 ? learned : kFreshThreadPriorNs);
    return c;
}

// The free functions' OS: the system source, with each OS sleep bracketed by begin_pacing() and
// end_pacing(), so that the timer slack is lowered for the sleep and restored right after the
// wake-up, before the spin. Restored after the spin instead (a PacingScope around the whole
// call), the prctl() ran between the spin's handoff and the caller's finish_wait(), cold after the
// sleep: that gap took 5.0-7.5 us at the median and 20-47 us at the 99th percentile, past the
// 20 us the handoff leaves (kHandoff), against 0.8-1.1 us and 1.2-1.7 us with this bracket
// (bench/bench_handoff, 60 and 144 Hz, both interleaved in one run on a loaded 2-core virtual
// machine). Here the system call's time counts as oversleep, which the margin learns. Stateless:
// one for all threads (the nesting count of begin_pacing() is per thread, in the platform layer).
class PacedSleeps final : public TimeSource {
public:
    clock::time_point now() noexcept override { return os_.now(); }
    void sleep_until(clock::time_point deadline) noexcept override {
        os_.begin_pacing();
        os_.sleep_until(deadline);
        os_.end_pacing();
    }
    void relax() noexcept override { os_.relax(); }
    CpuTimes cpu_times() noexcept override { return os_.cpu_times(); }
    void begin_pacing() noexcept override { os_.begin_pacing(); }
    void end_pacing() noexcept override { os_.end_pacing(); }
    const char* sleep_primitive() const noexcept override { return os_.sleep_primitive(); }
    PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept override {
        return os_.raise_priority(c, period);
    }
    void restore_priority(const PriorityGrant& grant) noexcept override { os_.restore_priority(grant); }

private:
    TimeSource& os_ = system_time_source();
};

TimeSource& paced_sleeps() noexcept {
    static PacedSleeps source;
    return source;
}

HybridWaiter& thread_waiter() noexcept {
    thread_local HybridWaiter w(fresh_thread_config(), &paced_sleeps());  // always valid: cannot throw
    return w;
}

// Shares what this thread learned, now and then (a margin query walks the histogram: 0.25 us
// warm, more right after a sleep). Done before a wait, so that it never runs between the
// spin's handoff and the caller's finish_wait().
void share_margin(const HybridWaiter& w) noexcept {
    thread_local std::int64_t shared_at = -1;  // the sample count last shared
    const std::int64_t n = w.estimator().count();
    if (n % 64 != 16 || n == shared_at) return;
    shared_at = n;
    g_learned_margin_ns.store(w.margin().count(), std::memory_order_relaxed);
}

}  // namespace

namespace detail {

// Nothing runs after the handoff spin but the return: the timer slack was restored right after
// the wake-up (PacedSleeps), what this thread learned is shared before the wait.
WaitResult sleep_until_handoff(clock::time_point deadline) noexcept {
    HybridWaiter& w = thread_waiter();
    const clock::time_point now = w.time_source().now();
    if (deadline <= now) {  // at once, and counted on time
        WaitResult r;
        r.end = now;
        return r;
    }
    share_margin(w);
    return w.wait_until_handoff(deadline, WaitMode::hybrid);
}

}  // namespace detail

Status set_sleep_priority(const PriorityConfig& config) {
    HybridWaiter& w = thread_waiter();
    WaiterConfig c = w.config();
    c.priority = config;
    return w.set_config(c);
}

PriorityStatus sleep_priority() noexcept { return thread_waiter().status().priority; }

}  // namespace pacer
