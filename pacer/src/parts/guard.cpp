#include "pacer/guard.hpp"

#include <algorithm>
#include <cstdio>

namespace pacer {

RealtimeGuard::RealtimeGuard(const GuardConfig& config, const GuardSample& first) noexcept
    : cfg_(config), calm_needed_(config.calm), raised_since_(first.wall) {
    ring_[0] = first;
    count_ = 1;
}

namespace {

double ms(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e6; }

}  // namespace

// Whether s breaks a rule (reason_ says which); `record` writes the reason.
bool RealtimeGuard::breaks_a_rule(const GuardSample& s, bool record) noexcept {
    const bool awake = s.sleeps % 2 == 0;
    const std::chrono::nanoseconds stretch = s.cpu - s.cpu_at_sleep;
    if (awake && stretch >= cfg_.one_frame) {
        if (record)
            std::snprintf(reason_, sizeof reason_,
                          "put the thread back to its own class: a frame ran %.0f ms of CPU without sleeping (its "
                          "bound: %.0f ms)",
                          ms(stretch), ms(cfg_.one_frame));
        return true;
    }
    if (awake && cfg_.rt_limit.count() > 0 && s.rt_counted >= cfg_.rt_limit) {
        if (record)
            std::snprintf(reason_, sizeof reason_,
                          "put the thread back to its own class: the kernel's RLIMIT_RTTIME count reached %.0f ms "
                          "(its bound: %.0f ms, half the soft limit)",
                          ms(s.rt_counted), ms(cfg_.rt_limit));
        return true;
    }
    if (s.period.count() <= 0) return false;
    // The newest sample at least a window old.
    const GuardSample* ref = nullptr;
    for (int i = 0; i < count_; ++i) {
        const GuardSample& r = ring_[(head_ - i + kRing) % kRing];
        if (s.wall - r.wall >= cfg_.window) {
            ref = &r;
            break;
        }
    }
    if (ref == nullptr) return false;
    // Frames: the sleeps begun since (none: the whole window is one frame).
    const auto frames = static_cast<double>(std::max<std::uint64_t>(1, (s.sleeps + 1) / 2 - (ref->sleeps + 1) / 2));
    const double per_frame = static_cast<double>((s.cpu - ref->cpu).count()) / frames;
    const auto period = static_cast<double>(s.period.count());
    if (per_frame <= cfg_.share * period) return false;
    if (record)
        std::snprintf(reason_, sizeof reason_,
                      "put the thread back to its own class: its frames used %.0f %% of the %.1f ms period in CPU "
                      "over %.1f s (its budget: %.0f %%)",
                      100.0 * per_frame / period, ms(s.period), ms(s.wall - ref->wall) / 1000.0, 100.0 * cfg_.share);
    return true;
}

// A CPU to spare: besides the threads already runnable (the thread itself among them when it
// runs), one CPU the thread may run on is left over.
void RealtimeGuard::note_look(const GuardSample& s) noexcept {
    const bool spare = s.runnable >= 0 && s.cpus >= 2 && s.runnable <= s.cpus - 2;
    const Look& last = looks_[look_head_];
    if (look_count_ > 0 && s.wall - last.wall < std::min(cfg_.quiet, cfg_.contended) / 16) return;
    look_head_ = (look_head_ + 1) % kLooks;
    looks_[look_head_] = Look{s.wall, spare};
    look_count_ = std::min(look_count_ + 1, kLooks);
}

double RealtimeGuard::spare_share(std::chrono::nanoseconds now, std::chrono::nanoseconds span) const noexcept {
    int looks = 0, spare = 0;
    for (int i = 0; i < look_count_; ++i) {
        const Look& l = looks_[(look_head_ - i + kLooks) % kLooks];
        if (now - l.wall > span) return looks > 0 ? static_cast<double>(spare) / looks : -1.0;
        ++looks;
        spare += l.spare ? 1 : 0;
    }
    return -1.0;  // the looks kept begin inside the span
}

GuardStep RealtimeGuard::observe(const GuardSample& s) noexcept {
    GuardStep step = GuardStep::none;
    if (cfg_.stand_down) note_look(s);
    if (raised_) {
        // Judged on looks made while raised only: those before the raise said nothing of it.
        const double spare =
            cfg_.stand_down && s.wall - raised_since_ >= cfg_.quiet ? spare_share(s.wall, cfg_.quiet) : -1.0;
        if (breaks_a_rule(s, true)) {
            // A put-back soon after the last raise asks for a longer calm run before the next.
            if (put_backs_ > 0 && s.wall - raised_since_ < cfg_.max_calm)
                calm_needed_ = std::min(cfg_.max_calm, calm_needed_ * 2);
            else
                calm_needed_ = cfg_.calm;
            ++put_backs_;
            raised_ = false;
            calm_since_ = s.wall;
            stood_down_ = false;
            step = GuardStep::put_back;
        } else if (spare >= kSpareToStandDown) {
            std::snprintf(reason_, sizeof reason_,
                          "stood down to the thread's own class: over %.1f s, %.0f %% of the looks found a CPU to "
                          "spare",
                          ms(cfg_.quiet) / 1000.0, 100.0 * spare);
            raised_ = false;
            stood_down_ = true;
            calm_since_ = s.wall - calm_needed_;  // no rule was broken: raised again as soon as contended
            step = GuardStep::stand_down;
        }
    } else if (breaks_a_rule(s, false)) {
        calm_since_ = s.wall;
    } else if (s.wall - calm_since_ >= calm_needed_ && s.sleeps % 2 == 1 &&
               (!cfg_.stand_down || spare_share(s.wall, cfg_.contended) == 0.0)) {
        if (cfg_.stand_down)
            std::snprintf(reason_, sizeof reason_,
                          "raised the thread again: for %.2f s no look found a CPU to spare", ms(cfg_.contended) / 1000.0);
        else
            std::snprintf(reason_, sizeof reason_, "raised the thread again after %.0f s of frames within its budget",
                          ms(s.wall - calm_since_) / 1000.0);
        raised_ = true;
        stood_down_ = false;
        raised_since_ = s.wall;
        step = GuardStep::raise_again;
    }
    // Kept for the share's window: at most one sample per 1/64 of it, so the ring spans it.
    const GuardSample& last = ring_[head_];
    if (s.wall - last.wall >= cfg_.window / 64) {
        head_ = (head_ + 1) % kRing;
        ring_[head_] = s;
        count_ = std::min(count_ + 1, kRing);
    }
    return step;
}

void RealtimeGuard::refused(const GuardSample& s) noexcept {
    raised_ = false;
    stood_down_ = false;
    calm_since_ = s.wall;
}

}  // namespace pacer
