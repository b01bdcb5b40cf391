// pacer/display.hpp - the display's vblank clock, fitted from present timestamps.
//
// (Interface in progress: the fit is being built; today the tracker never locks.)
//
// DisplayTracker is FramePacer's model of the display: it takes the vblanks the host's presents
// show (each reported displayed time, and the return of a swap that waited for a vblank), fits
// the refresh period and phase on the pacer's clock, and says whether the fit can be trusted.
// Pure logic on the times it is given: no clock, no sleeping.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/names.hpp"

namespace pacer {

// What the tracker knows of the display.
enum class DisplayState {
    unknown,  // no vblank seen yet
    locking,  // vblanks seen, the fit is not yet trusted
    locked,   // period and phase fitted: next_vblank() predicts the display
    vrr,      // presents show a variable-refresh display: no vblank grid to lock to
    lost,     // timestamps stopped or stopped fitting: the last fit is no longer trusted
};
inline constexpr EnumName<DisplayState> kDisplayStateNames[] = {
    {DisplayState::unknown, "unknown"}, {DisplayState::locking, "locking"}, {DisplayState::locked, "locked"},
    {DisplayState::vrr, "vrr"},         {DisplayState::lost, "lost"},
};
inline const char* to_string(DisplayState state) noexcept { return name_of(kDisplayStateNames, state); }

struct DisplayStatus {
    DisplayState state = DisplayState::unknown;
    const char* reason = "no vblank seen yet";  // in words (static storage)
    double refresh_hz = 0;    // fitted refresh on the pacer's clock; 0 = unknown
    double reported_hz = 0;   // the refresh the host last reported; 0 = unknown
    double skew_ppm = 0;      // fitted against reported: + the display runs fast
    std::chrono::nanoseconds period{0};  // fitted refresh period, rounded
    clock::time_point vblank{};          // a fitted vblank: the phase reference
    std::chrono::nanoseconds residual{0};  // recent fit error of the observed vblanks (median)
    std::uint64_t vblanks = 0;           // observations taken
    std::uint64_t locks = 0;             // times the tracker locked (1 + re-locks)
    double vrr_min_hz = 0, vrr_max_hz = 0;  // state vrr: the range the presents showed
};

class DisplayTracker {
public:
    // One observed vblank (a displayed time, or the return of a swap that waited for one), with
    // the refresh the host reported then (0 = unknown).
    void add(clock::time_point vblank, double reported_hz) noexcept;
    // Once per frame, so that the tracker notices timestamps that stop.
    void on_frame(clock::time_point now) noexcept;
    void reset() noexcept { *this = DisplayTracker(); }

    bool locked() const noexcept { return status_.state == DisplayState::locked; }
    // The first fitted vblank strictly after t. Meaningful when locked().
    clock::time_point next_vblank(clock::time_point t) const noexcept;
    std::chrono::nanoseconds period() const noexcept { return status_.period; }
    const DisplayStatus& status() const noexcept { return status_; }

private:
    DisplayStatus status_{};
};

}  // namespace pacer
