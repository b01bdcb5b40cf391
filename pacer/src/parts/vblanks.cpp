#include "pacer/vblanks.hpp"

#include <algorithm>
#include <cmath>

namespace pacer {

void Vblanks::set_fallback_period(std::chrono::nanoseconds period) noexcept {
    fallback_ = std::max<std::int64_t>(1, period.count());
}

bool Vblanks::known() const noexcept {
    const DisplayStatus& s = tracker_.status();
    if (!lock_) return last_seen_ != 0 && !unsynced();
    if (s.vblanks == 0) return false;
    return s.state == DisplayState::locked || s.state == DisplayState::locking;
}

std::chrono::nanoseconds Vblanks::period() const noexcept {
    if (use_fit()) return std::chrono::nanoseconds(std::max<std::int64_t>(1, tracker_.period().count()));
    const double hz = tracker_.status().reported_hz;
    if (hz > 0) return std::chrono::nanoseconds(std::llround(1e9 / hz));
    return std::chrono::nanoseconds(fallback_);
}

clock::time_point Vblanks::next_after(clock::time_point t) const noexcept {
    if (use_fit()) return tracker_.next_vblank(t);
    const std::int64_t ref = lock_ ? clock::to_ns(tracker_.last_vblank()) : last_seen_;
    const std::int64_t pv = period().count();
    const std::int64_t x = clock::to_ns(t);
    std::int64_t n = (x - ref) / pv;
    if ((x - ref) % pv < 0) --n;  // floor division
    return clock::from_ns(ref + (n + 1) * pv);
}

std::chrono::nanoseconds Vblanks::known_refresh() const noexcept {
    if (on_vrr() || !known()) return std::chrono::nanoseconds(0);
    if (use_fit()) return tracker_.period();
    const double hz = tracker_.status().reported_hz;  // not period()'s fallback: the pacer's own
    return std::chrono::nanoseconds(hz > 0 ? std::llround(1e9 / hz) : 0);
}

bool Vblanks::renewed(clock::time_point now) const noexcept {
    return tracker_.locked() && now - tracker_.last_vblank() <= 4 * tracker_.period();
}

void Vblanks::observe(const PresentInfo& present, const PresentVerdict& v) noexcept {
    if (present.ok && v.displayed.time_since_epoch().count() != 0) last_seen_ = clock::to_ns(v.displayed);
    else if (v.waited) last_seen_ = clock::to_ns(present.end);
    if (v.observation == VblankSource::none) return;
    VblankSample s{v.vblank, v.observation, present.msc, present.has_msc, present.begin};
    if (v.observation == VblankSource::swap_return) s.has_msc = false;  // the counter is the shown one
    tracker_.add(s, present.refresh_hz);
}

void Vblanks::add_vblank(const VblankInfo& vblank) noexcept {
    tracker_.add(VblankSample{vblank.time, VblankSource::displayed, vblank.msc, vblank.has_msc, {}},
                 tracker_.status().reported_hz);
    last_seen_ = clock::to_ns(vblank.time);
}

void Vblanks::reset() noexcept {
    tracker_.reset();
    last_seen_ = 0;
}

}  // namespace pacer
