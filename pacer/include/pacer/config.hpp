// pacer/config.hpp - PacerConfig: every setting of a FramePacer, with its default and range.
//
//   PacerConfig           every setting: rate, mode, late policy, tolerance, waiter, background,
//                         sync, late budget, display lock, match display, cadence
//   validate(config)      Status: the first value out of range, named; no side effects
//
//   pacer::PacerConfig c;                 // 60 Hz, hybrid wait, catch-up late policy
//   c.target_hz = 144.0;
//   if (pacer::Status s = pacer::validate(c); !s) log(s.message());   // without exceptions
//   pacer::FramePacer fp(c);              // throws pacer::ConfigError for an invalid config
//
// What each setting does is the FramePacer manual's (pacer/frame_pacer.hpp); the waiter's and the
// cadence governor's own settings are in pacer/waiter.hpp and pacer/cadence.hpp.
#pragma once

#include <chrono>

#include "pacer/cadence.hpp"
#include "pacer/modes.hpp"
#include "pacer/status.hpp"
#include "pacer/waiter.hpp"

namespace pacer {

struct PacerConfig {
    double target_hz = 60.0;                   // frames per second, in (0, 10000]
    WaitMode mode = WaitMode::hybrid;          // how the wait is done
    LatePolicy late_policy = LatePolicy::catch_up;
    int max_catch_up = 1;                      // catch_up only: passed deadlines served at once, [0, 1000]
    // A frame counts as missed when it wakes this much after its deadline or skips a slot.
    // Default 0.5 ms: 3 % of a 60 Hz frame, 7 % at 144 Hz. In [0, 1 s].
    std::chrono::nanoseconds miss_tolerance{500'000};
    WaiterConfig waiter{};                     // hybrid mode's margin learning and spin cap
    double background_hz = 10.0;               // rate while set_background(true), in (0, 10000]
    SyncMode sync = SyncMode::frame_start;     // where the frame waits (see above)
    double max_late_share = 0.01;              // just_in_time: share of frames allowed to be shown
                                               // late, in [0.001, 0.5]
    bool display_lock = true;                  // place waits against the fitted vblanks when known
    bool match_display = false;                // target = the display's fitted refresh (target_hz
                                               // until the fit locks)
    CadenceMode cadence = CadenceMode::fixed;  // the cadence governor
    CadenceConfig governor{};                  // its settings (pacer/cadence.hpp)
};
Status validate(const PacerConfig& config);

}  // namespace pacer
