#include "frames.hpp"

#include <algorithm>
#include <chrono>

#include "pacer/waiter.hpp"

namespace pacer_layer {

pacer::PacerConfig pacer_config(const Settings& s) {
    pacer::PacerConfig c;
    c.target_hz = s.hz > 0 ? s.hz : 60.0;
    c.mode = pacer::WaitMode::automatic;
    c.sync = s.before ? pacer::SyncMode::present : pacer::SyncMode::frame_start;
    c.waiter.priority.mode = s.priority;
    // PACER_WAIT=sleep: a late wake-up weighs a 32nd of the period in spin, kept below the floor's
    // 1 ms (under 31 Hz): the lean spin over the wake-up's dense spread (settings.hpp).
    if (s.sleep_only) {
        const auto share = std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / c.target_hz / 32));
        c.waiter.late_cost = std::min(share, pacer::HybridWaiter::kFloorLateCost - std::chrono::microseconds(1));
    }
    return c;
}

void capture_row(pacer::CaptureWriter& capture, const Settings& s, const pacer::PresentInfo& p,
                 const pacer::FrameTiming* waited, std::uint64_t frames, pacer::clock::time_point last_begin) {
    pacer::CaptureExtras x;
    x.present = p;
    if (waited != nullptr) {
        if (s.sleep_only && waited->source == pacer::PacingSource::hybrid) x.pacing_source = "sleep";
        capture.add(*waited, x);
        return;
    }
    pacer::FrameTiming t;
    t.frame = frames + 1;
    t.deadline = t.wake = p.begin;
    if (last_begin != pacer::clock::time_point{}) t.interval = p.begin - last_begin;
    t.work = t.interval;
    x.pacing_source = s.hz > 0 ? "unpaced" : "none";
    capture.add(t, x);
}

}  // namespace pacer_layer
