// pacer/rate.hpp - the rate in force, and why: the target, the display it matches, the cadence
// the work sustains, the VRR panel's range, the background.
//
//   RatePlanner          one decision per frame, from times and statuses handed in
//     configure, apply   the settings (at set_config; at the next frame)
//     set_background     minimized or unfocused: the background rate, OS sleep only
//     follow_display     match_display: take the display's fitted refresh (or the swap's own rate)
//     as_reported        match_display on the swap's own rate: presents report that rate
//     update             the VRR cap and the cadence governor for this frame's cost
//     settle             the cadence status for the period now in force
//     hz, vsync_hz       the rate in force; the rate the swap is asked to serve
//     status             RateStatus: the rate in force and the reason, in words
//
// Order of precedence, per frame: in the background, background_hz (or the target when lower);
// on a variable-refresh display, the target (or, with the governor on, the rate the work
// sustains: the cost quantile over its fit) kept inside the panel's range by the measured wake-up
// jitter and approached by at most 2 % per frame (pacer/cadence.hpp, vrr_period, slew_period);
// else, with the governor on, a whole divisor of the refresh (or of the target) the work
// sustains (pacer/cadence.hpp); else the target. The target is target_hz, or with match_display
// the display's fitted refresh once the tracker locks (a new reported refresh at once, then its
// fit), or the swap's own steady rate when the swap waits at a rate the reported refresh does not
// explain (VsyncReason::auto_other_rate), until the host reports another refresh.
//
// Pure logic: no clock, no allocation. Thread safety: none.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "pacer/cadence.hpp"
#include "pacer/display.hpp"
#include "pacer/estimator.hpp"
#include "pacer/modes.hpp"
#include "pacer/names.hpp"
#include "pacer/present.hpp"
#include "pacer/vsync.hpp"

namespace pacer {

// Why the rate in force is what it is.
enum class RateReason {
    target,      // target_hz, as configured
    display,     // match_display: the display's refresh (fitted, or newly reported)
    swap_rate,   // match_display: the swap's own steady rate, taken for the refresh
    cadence,     // the cadence governor: a whole divisor of the refresh (or target) the work sustains
    vrr_cap,     // a variable-refresh display: the target kept inside the panel's range
    vrr_work,    // a variable-refresh display: the rate the work sustains, inside the panel's range
    background,  // set_background(true): background_hz (or the target when lower)
};
inline constexpr EnumName<RateReason> kRateReasonNames[] = {
    {RateReason::target, "target"},       {RateReason::display, "display"},
    {RateReason::swap_rate, "swap_rate"}, {RateReason::cadence, "cadence"},
    {RateReason::vrr_cap, "vrr_cap"},     {RateReason::vrr_work, "vrr_work"},
    {RateReason::background, "background"},
};
inline constexpr EnumName<RateReason> kRateReasonText[] = {
    {RateReason::target, "the target rate"},
    {RateReason::display, "the display's refresh (match_display)"},
    {RateReason::swap_rate, "the swap's own steady rate, taken for the refresh (match_display)"},
    {RateReason::cadence, "a whole divisor of the refresh the work sustains (cadence governor)"},
    {RateReason::vrr_cap, "variable refresh: the target, kept inside the panel's range"},
    {RateReason::vrr_work, "variable refresh: the rate the work sustains, inside the panel's range"},
    {RateReason::background, "in the background: background_hz, OS sleep only"},
};
inline const char* to_string(RateReason reason) noexcept { return name_of(kRateReasonNames, reason); }
inline const char* describe(RateReason reason) noexcept { return name_of(kRateReasonText, reason); }

struct RateStatus {
    double hz = 0;                        // the rate in force
    std::chrono::nanoseconds period{0};   // its period, rounded
    double target_hz = 0;                 // the target (target_hz, or the matched display's rate)
    RateReason code = RateReason::target;
    const char* reason = describe(RateReason::target);  // in words (static storage)
};

struct RateConfig {
    double target_hz = 60.0;        // (0, 10000]
    double background_hz = 10.0;    // (0, 10000]
    CadenceMode cadence = CadenceMode::fixed;
    CadenceConfig governor{};
    bool match_display = false;
};

// What the display shows, as the pacer knows it (Vblanks, DisplayTracker).
struct RateInputs {
    bool vrr = false;                          // a variable-refresh display
    double vrr_min_hz = 0, vrr_max_hz = 0;     // its range
    std::chrono::nanoseconds refresh{0};       // a fixed display's known refresh period, else 0
};

class RatePlanner {
public:
    static constexpr double kWakeQuantile = 0.99;  // the wake-up jitter kept off the VRR panel's edges
    static constexpr int kMinWakes = 8;            // waits measured before the jitter counts
    static constexpr int kMinVrrCosts = 16;        // frames before the VRR period follows the work

    // New settings (at set_config): the rate in force says the new rate at once.
    void configure(const RateConfig& config) noexcept;
    // At the next frame: the governor takes its settings (fixed cadence: it starts over).
    void apply() noexcept;
    const RateConfig& config() const noexcept { return cfg_; }

    // Returns true when it changed anything.
    bool set_background(bool on) noexcept;
    bool background() const noexcept { return background_; }

    // match_display, once per frame before the settings are applied: true when the target moved.
    bool follow_display(const VsyncStatus& vsync, const DisplayStatus& display) noexcept;
    // match_display on the swap's own rate: the present with that rate for its refresh. *moved
    // is set when the host reported another refresh, which ends it (the target moved).
    PresentInfo as_reported(const PresentInfo& present, bool* moved) noexcept;

    // The pacer's own wait was `lateness` late (the VRR cap's jitter).
    void note_wake(std::chrono::nanoseconds lateness) noexcept { wakes_.add(lateness); }
    // One frame at `now`, its cost (none when unknown), the display, the period in force.
    // Returns true when the rate in force changed (restart the grid at hz()).
    bool update(clock::time_point now, std::optional<std::chrono::nanoseconds> cost, const RateInputs& display,
                std::chrono::nanoseconds period) noexcept;
    // After update() and any new period: the cadence status for the period now in force.
    void settle(std::chrono::nanoseconds period) noexcept;

    double target_hz() const noexcept { return matched_hz_ > 0 ? matched_hz_ : cfg_.target_hz; }
    double hz() const noexcept;          // the rate in force
    double vsync_hz() const noexcept;    // the rate the swap is asked to serve
    bool on_vrr() const noexcept { return vrr_period_ > 0; }
    const CadenceStatus& cadence() const noexcept { return cadence_; }
    RateStatus status() const noexcept;
    // Logs the rate in force and its reason (info level) when the reason changed or the rate
    // moved by more than 1 % since the last line: a change of the rate is never silent. On VRR the
    // line names the rate the period slews toward (2 % a frame): one line, not one per step.
    // Returns true when it logged.
    bool log_change() noexcept;

private:
    double wanted_hz() const noexcept;
    void update_vrr(std::optional<std::chrono::nanoseconds> cost, const RateInputs& display, std::int64_t period) noexcept;
    void update_cadence(clock::time_point now, std::optional<std::chrono::nanoseconds> cost, const RateInputs& display) noexcept;

    RateConfig cfg_;
    CadenceGovernor governor_;
    CadenceStatus cadence_{};     // what FrameTiming and the status show
    bool background_ = false;
    double rate_hz_ = 0;          // the rate in force outside the background (0: the target)
    double cadence_base_hz_ = 0;  // the governor's base as a rate (refresh, or target)
    double matched_hz_ = 0;       // match_display: the display's rate in force, 0 = none
    double swap_rate_hz_ = 0;     // match_display: the swap's own rate taken for the refresh ...
    double swap_rate_reported_ = 0;  // ... while the host reports this refresh
    LatenessEstimator wakes_{100.0};   // wake-up lateness of the pacer's own waits (VRR cap)
    std::int64_t vrr_period_ = 0;      // VRR: the period in force, slewed; 0 = not on VRR
    std::int64_t vrr_want_ = 0;        // ... and the one it moves toward
    bool vrr_by_work_ = false;         // ... raised by the work's cost
    LatenessEstimator vrr_cost_{100.0};  // VRR with the governor on: the frames' cost
    double logged_hz_ = 0;               // the rate and reason of the last log line
    RateReason logged_code_ = RateReason::target;
};

}  // namespace pacer
