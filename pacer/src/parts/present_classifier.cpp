#include "pacer/present_classifier.hpp"

#include <algorithm>
#include <cstdint>

namespace pacer {

VblankWindow PresentClassifier::window(std::chrono::nanoseconds period) noexcept {
    const std::int64_t p = period.count();
    const std::int64_t early = std::max<std::int64_t>(kMinEarly.count(), p * kEarlyPercent / 100);
    const std::int64_t late = std::max(early, std::min<std::int64_t>(kMaxLate.count(), p / kLateDivisor));
    return {std::chrono::nanoseconds(early), std::chrono::nanoseconds(late)};
}

bool PresentClassifier::synchronised(const PresentInfo& p, bool vsync_in_use) noexcept {
    return p.swap_interval > 0 || (p.swap_interval < 0 && vsync_in_use);
}

clock::time_point PresentClassifier::displayed_time(const PresentInfo& p) noexcept {
    if (p.displayed.time_since_epoch().count() == 0) return {};
    if (p.displayed < p.begin || p.displayed > p.end + std::chrono::seconds(1)) return {};
    return p.displayed;
}

namespace {
// What a present's displayed time (or a waited return) says about the display.
void observe(PresentVerdict& v, const PresentInfo& p, bool swap_verified) noexcept {
    const bool has_displayed = p.ok && v.displayed.time_since_epoch().count() != 0;
    if (has_displayed && p.flags.known) {
        v.observation = p.flags.vsync ? VblankSource::displayed : VblankSource::unsynced;
        v.vblank = v.displayed;
    } else if (has_displayed && v.synced) {
        v.observation = VblankSource::displayed;
        v.vblank = v.displayed;
    } else if (v.waited && swap_verified) {
        v.observation = VblankSource::swap_return;
        v.vblank = p.end;
    }
}
}  // namespace

PresentVerdict PresentClassifier::classify_feedback(const PresentInfo& p, bool vsync_in_use) noexcept {
    PresentVerdict v;
    v.synced = synchronised(p, vsync_in_use);
    v.displayed = displayed_time(p);
    if (v.displayed.time_since_epoch().count() != 0) {
        v.shown = v.displayed;
        v.shown_known = true;
    }
    observe(v, p, false);  // no waiting judged here: waited is false
    return v;
}

PresentVerdict PresentClassifier::classify(const PresentInfo& p, bool vsync_in_use, const VblankModel& vblanks,
                                           bool swap_verified) noexcept {
    PresentVerdict v;
    v.synced = synchronised(p, vsync_in_use);
    v.displayed = displayed_time(p);
    const std::int64_t b = clock::to_ns(p.begin), e = clock::to_ns(p.end);
    const std::int64_t pv = vblanks.period().count();
    std::int64_t shown = 0;
    if (p.ok && v.synced) {
        if (e - b > pv / kBlockedDivisor) {
            shown = e;
            v.waited = true;
        } else if (vblanks.known()) {
            // The last vblank at or before the return (up to `early` after it when predicted).
            const VblankWindow w = window(vblanks.period());
            const std::int64_t slack = vblanks.predicted() ? w.early.count() : 0;
            const std::int64_t late = vblanks.predicted() ? w.late.count() : w.early.count();
            const std::int64_t at = clock::to_ns(vblanks.next_after(clock::from_ns(e + slack))) - pv;
            v.waited = b < at && e - at <= late;
            shown = v.waited ? std::min(at, e) : at + pv;
        }
    }
    v.shown = clock::from_ns(shown);
    v.shown_known = shown != 0 || v.waited;
    observe(v, p, swap_verified);
    return v;
}
}  // namespace pacer
