// pacer/cadence.hpp - the cadence governor, the display-time delta and the VRR cap: pure logic.
//
//   CadenceGovernor   the divisor of the refresh (or target) the frame's work sustains
//   CadenceStatus     the cadence in force and why (CadenceReason: a name and a sentence)
//   DisplayDelta      the display-time delta (FrameTiming::display_dt), its debt to wall time
//   vrr_period        the frame period kept inside a VRR panel's range by the wake-up jitter
//   slew_period       a period moving toward another by at most a share per frame
//
// FramePacer uses these through its rate planner (pacer/rate.hpp) with PacerConfig::cadence =
// CadenceMode::automatic (the governor), on every frame (DisplayDelta) and on a variable-refresh
// display (vrr_period, slew_period). They take times and durations and return decisions: no
// clock, no sleeping, no allocation, so they are tested on their own (tests/cadence_test.cpp).
//
// Cadence governor. A frame whose work does not fit the refresh is shown one refresh late; when
// that happens to every other frame the player sees 16.7 / 33.3 ms alternating on a 60 Hz display,
// which looks worse than a steady 30 fps with the same average. So the governor picks the frame
// period as a whole multiple N of a base period (the display's refresh period when it is known,
// else the target period): N = 1 is the full rate, N = 2 every other refresh (60 -> 30, 144 -> 72),
// N = 3 every third (144 -> 48). Its rules, per frame, from the frame's cost (wake to present call:
// the CPU time the frame needs, not the time the swap blocked):
//   * The cost is measured by a quantile (CadenceConfig::quantile, default 0.9) of the last
//     kWindow (64) frames: one hitch does not change the cadence, ten percent of the frames
//     over budget do.
//   * Slower: when that quantile exceeds fit (0.95) x N x base, the new N is the smallest that
//     holds it (the highest sustainable rate), at once: frames that miss their refresh are what
//     the governor is there to prevent. Up to the slowest cadence allowed, min_hz (default 20 Hz;
//     below it a slower cadence no longer helps anyone).
//   * Faster: when the quantile fits headroom (0.8) x n x base for some n < N, and has done so
//     for a whole dwell time (default 1 s), the new N is the smallest such n. The gap between fit
//     and headroom is the hysteresis: a cost that hovers around one budget does not flip the
//     cadence back and forth.
//   * Dwell: two switches are at least `dwell` apart (the first switch down needs only the
//     first kMinFrames frames). A sawtooth workload therefore switches at most once per dwell.
//   * The rate never exceeds the target: the smallest N is the one whose rate is within 0.5 % of
//     the target or below it (a 144 Hz display with a 60 Hz target: 48 Hz, N = 3, since 72 is
//     above 60 and 60 is no divisor of 144 - a steady 48 rather than a 2-3-2-3 refresh mix).
//   * A new base (a refresh change, another target: a move of more than 0.5 %, so that the
//     wobble of a fitted refresh is none) chooses N afresh at once, from the costs
//     already seen, and counts as a switch for the dwell.
//
// Display-time delta (DisplayDelta). The simulation should advance by the time between two
// displayed frames, not by the CPU's wake-to-wake interval, which carries the OS's wake-up jitter
// into every step. Per frame: on a fixed-refresh display whose refresh is known, the wake interval
// rounded to a whole number of refreshes (at least one); elsewhere (unknown display, VRR) the
// scheduled interval (deadline to deadline, free of wake-up error). What that leaves out, the
// debt = wall time (the sum of wake intervals) - sum of deltas, is handed back slowly: each
// delta moves by a quarter of the debt beyond a dead band of an eighth of a refresh, and the debt
// is never allowed beyond half a refresh (the delta is clamped to keep it there; without a known
// refresh, half the scheduled interval). So a steady run gets exact refresh multiples, and
// |sum of deltas - wall time| <= half a refresh at every frame, whatever the jitter, lost reports
// or refresh changes.
//
// VRR cap (vrr_period). On a variable-refresh display a frame that comes sooner than the panel's
// shortest period (1 / vrr_max_hz) waits for it or tears, and one that comes later than its longest
// (1 / vrr_min_hz) meets a repeat of the previous frame. Wake-ups come late, never early, so an
// interval is shorter than the period by at most the wake-up jitter quantile j: the period is
// kept in [1 / max + j, 1 / min - j] (the ceiling wins when the range is narrower than 2 j); a
// fixed "-3 fps" cap is too much at 60 Hz and too little at 240 Hz on a noisy machine.
// slew_period limits how fast the period in force moves toward it (a step of at most a fraction
// of the period per frame), so a change of target or jitter does not show as one sudden jump.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/names.hpp"
#include "pacer/status.hpp"

namespace pacer {

struct CadenceConfig {
    double min_hz = 20.0;    // slowest cadence allowed, in [1, 1000]
    std::chrono::nanoseconds dwell{1'000'000'000};  // least time between two switches, [0, 60 s]
    double quantile = 0.9;   // of the recent costs, in [0.5, 1]
    double fit = 0.95;       // slower when the quantile > fit x budget, in (0, 1]
    double headroom = 0.8;   // faster when it <= headroom x the faster budget, in (0, fit)
};
Status validate(const CadenceConfig& config);

// Why the cadence is what it is: a short name (to_string, the capture's CadenceReason column)
// and a sentence (describe, for people).
enum class CadenceReason {
    fixed,       // CadenceMode::fixed (or the background): the target rate
    learning,    // too few frames seen yet to judge the cost
    fits,        // the work fits the full rate
    steady,      // the work fits this cadence, not a faster one
    overrun,     // the work overran the budget: switched to a slower cadence
    headroom,    // the work had headroom for a whole dwell: switched to a faster cadence
    dwell,       // a switch is due, held until the dwell since the last one has passed
    slowest,     // the work overruns even the slowest cadence (min_hz)
    rebased,     // the refresh or the target changed: cadence chosen afresh
    vrr,         // a variable-refresh display: no divisor, the period capped to the panel's range
};
inline constexpr EnumName<CadenceReason> kCadenceReasonNames[] = {
    {CadenceReason::fixed, "fixed"},       {CadenceReason::learning, "learning"},
    {CadenceReason::fits, "fits"},         {CadenceReason::steady, "steady"},
    {CadenceReason::overrun, "overrun"},   {CadenceReason::headroom, "headroom"},
    {CadenceReason::dwell, "dwell"},       {CadenceReason::slowest, "slowest"},
    {CadenceReason::rebased, "rebased"},   {CadenceReason::vrr, "vrr"},
};
inline constexpr EnumName<CadenceReason> kCadenceReasonText[] = {
    {CadenceReason::fixed, "fixed cadence: the target rate"},
    {CadenceReason::learning, "learning the frame's cost"},
    {CadenceReason::fits, "the work fits every frame"},
    {CadenceReason::steady, "the work fits this cadence, not a faster one"},
    {CadenceReason::overrun, "the work overran its budget: slower cadence"},
    {CadenceReason::headroom, "the work had headroom for the dwell time: faster cadence"},
    {CadenceReason::dwell, "a switch is due, held for the dwell time since the last one"},
    {CadenceReason::slowest, "the work overruns even the slowest cadence allowed (min_hz)"},
    {CadenceReason::rebased, "the refresh or the target changed: cadence chosen afresh"},
    {CadenceReason::vrr, "variable refresh: no divisor, the period kept inside the panel's range"},
};
inline const char* to_string(CadenceReason reason) noexcept { return name_of(kCadenceReasonNames, reason); }
inline const char* describe(CadenceReason reason) noexcept { return name_of(kCadenceReasonText, reason); }

struct CadenceStatus {
    std::uint32_t divisor = 1;          // frames every `divisor` base periods
    double hz = 0;                      // the frame rate in force: 1e9 / (divisor x base)
    std::chrono::nanoseconds base{0};   // the base period (refresh, or target)
    std::chrono::nanoseconds cost{0};   // the cost quantile over the recent frames
    std::uint64_t switches = 0;         // cadence changes so far (rebases included)
    CadenceReason code = CadenceReason::fixed;
    const char* reason = describe(CadenceReason::fixed);  // in words (static storage)
};

class CadenceGovernor {
public:
    static constexpr int kWindow = 64;     // recent frames whose cost counts
    static constexpr int kMinFrames = 16;  // frames before the first judgement

    // Throws ConfigError for an invalid config.
    explicit CadenceGovernor(const CadenceConfig& config = {});

    // One frame at `now`: its cost, the base period and the shortest frame period allowed (the
    // target's). Returns true when the divisor changed.
    bool update(clock::time_point now, std::chrono::nanoseconds cost, std::chrono::nanoseconds base,
                std::chrono::nanoseconds min_period) noexcept;

    std::uint32_t divisor() const noexcept { return status_.divisor; }
    const CadenceStatus& status() const noexcept { return status_; }
    const CadenceConfig& config() const noexcept { return cfg_; }
    // Rejected configs keep the old one; the costs seen are kept.
    Status set_config(const CadenceConfig& config);
    // Forget the costs and go back to divisor 1.
    void reset() noexcept;

    // The smallest divisor whose period is not shorter than min_period (0.5 % slack), >= 1.
    static std::uint32_t min_divisor(std::chrono::nanoseconds base, std::chrono::nanoseconds min_period) noexcept;

private:
    struct Range {
        std::uint32_t fastest = 1, slowest = 1;  // divisors allowed
    };
    bool record(std::int64_t cost, std::int64_t base, std::int64_t min_period) noexcept;
    Range range(std::int64_t base, std::int64_t min_period) const noexcept;
    std::uint32_t smallest_fitting(double q, double share, std::int64_t base, std::uint32_t from,
                                   std::uint32_t to) const noexcept;
    bool learning(std::int64_t now, std::uint32_t old, bool first, bool rebase, Range r) noexcept;
    bool switch_to(std::int64_t now, std::uint32_t old, std::uint32_t n, CadenceReason why) noexcept;
    std::int64_t cost_quantile() const noexcept;
    void set(std::uint32_t divisor, CadenceReason why) noexcept;

    CadenceConfig cfg_;
    CadenceStatus status_{};
    std::array<std::int64_t, kWindow> costs_{};
    int count_ = 0, next_ = 0;      // costs in the ring; where the next one goes
    int since_rebase_ = 0;          // frames since the base changed or reset
    std::int64_t min_period_ = 0;
    std::int64_t last_switch_ = 0;  // time of the last switch ...
    bool switched_ = false;         // ... once there was one
    std::int64_t headroom_since_ = 0;  // the faster cadence has fitted since then ...
    bool has_headroom_ = false;        // ... while this holds
};

// The display-time delta (see above). Pure logic, one call per frame.
class DisplayDelta {
public:
    // interval: this frame's wall time (wake to wake); nominal: the delta it should get (a whole
    // number of refreshes, or the scheduled interval); bound: the largest |debt| allowed (half a
    // refresh). Returns the delta, >= 0, after slewing toward the debt and clamping to the bound.
    std::chrono::nanoseconds next(std::chrono::nanoseconds interval, std::chrono::nanoseconds nominal,
                                  std::chrono::nanoseconds bound) noexcept;
    // Wall time given minus deltas returned so far.
    std::chrono::nanoseconds debt() const noexcept { return std::chrono::nanoseconds(debt_); }
    // Real time that belongs to the last interval but came after next() saw it (the end of a
    // spin finished in the caller): owed to the next delta.
    void carry(std::chrono::nanoseconds d) noexcept { debt_ += d.count(); }
    void reset() noexcept { debt_ = 0; }

    // interval rounded to a whole number of refreshes, at least one (0 for an interval <= 0).
    static std::chrono::nanoseconds quantize(std::chrono::nanoseconds interval, std::chrono::nanoseconds refresh) noexcept;

private:
    std::int64_t debt_ = 0;
};

// The VRR frame period (see above): the target period kept within [1 / max_hz + jitter,
// 1 / min_hz - jitter] (the lower bound wins). min_hz 0: no floor. At least 1 ns.
std::chrono::nanoseconds vrr_period(std::chrono::nanoseconds target_period, double vrr_min_hz, double vrr_max_hz,
                                    std::chrono::nanoseconds jitter) noexcept;
// The period in force moving toward `want` by at most max_step x current per frame.
std::chrono::nanoseconds slew_period(std::chrono::nanoseconds current, std::chrono::nanoseconds want,
                                     double max_step = 0.02) noexcept;

}  // namespace pacer
