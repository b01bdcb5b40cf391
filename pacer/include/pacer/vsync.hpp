// pacer/vsync.hpp - is vsync really pacing the frames? Evidence from the host's presents.
//
// Vsync is the best pacer when it works: exact and free. But drivers and users override the swap
// interval, the display may refresh at a rate the game does not want, and under a compositor or a
// virtual display (Xvfb + Mesa) the swap may not block at all. So pacer trusts vsync only on
// evidence. The host reports every present (no SDL or GL dependency here):
//
//   int want = pacer.desired_swap_interval();                // 0 = vsync off, N = every N-th vblank
//   if (want != in_effect) in_effect = SDL_GL_SetSwapInterval(want) == 0 ? want : -1;
//   auto t0 = std::chrono::steady_clock::now();
//   SDL_GL_SwapWindow(window);
//   pacer.report_present({t0, std::chrono::steady_clock::now(), in_effect, refresh_hz});
//
// A present is "locked" when the time from the previous present's end is k refresh periods
// (k >= the swap interval) within max(0.25 ms, 3 % of a refresh period). Hysteresis as in
// Glaiel's vsync detection: 16 locked presents in a row verify vsync, 4 unlocked ones in a row
// drop it, so one hitch (a long frame is still locked: it shows at a later vblank) or one odd swap
// does not flip the decision.
//
// In WaitMode::automatic the FramePacer uses vsync when it is verified at the target rate or at a
// whole divisor of the refresh (60 Hz on a 120 Hz display with swap interval 2); otherwise it
// paces with hybrid sleep and asks for vsync off. The reason for the current choice is
// queryable (VsyncStatus::reason) and logged once per change. See README "Vsync".
#pragma once

#include <chrono>
#include <cstdint>

namespace pacer {

// One present, as the host saw it.
struct PresentInfo {
    std::chrono::steady_clock::time_point begin;  // just before the swap call
    std::chrono::steady_clock::time_point end;    // just after it returned
    int swap_interval = -1;  // interval in effect: 0 off, N >= 1, -1 unknown or refused
    double refresh_hz = 0;   // display refresh rate; 0 = unknown
    bool ok = true;          // the swap call succeeded
};

// Accepted refresh rates. Outside: treated as unknown (an EDID of 0 Hz, a driver's 1 Hz).
inline constexpr double kMinRefreshHz = 20.0;
inline constexpr double kMaxRefreshHz = 1000.0;

// Swap interval N for which refresh / N is target within 0.5 % (59.94 Hz serves 60); 0 if none.
int compatible_swap_interval(double refresh_hz, double target_hz) noexcept;

// The evidence half: locked / unlocked presents with hysteresis. Pure logic, no clock.
class VsyncDetector {
public:
    static constexpr int kTrustAfter = 16;  // locked presents in a row to verify
    static constexpr int kDropAfter = 4;    // unlocked presents in a row to drop

    // Feeds one present. Times in ns on one clock. Returns true if this present was locked.
    bool add(std::int64_t begin_ns, std::int64_t end_ns, int swap_interval, double refresh_hz,
             bool ok) noexcept;
    void reset() noexcept;

    bool verified() const noexcept { return verified_; }
    int locked_streak() const noexcept { return good_; }
    int unlocked_streak() const noexcept { return bad_; }
    // Share of the last 64 locked presents that came more than swap_interval vblanks late.
    double missed_share() const noexcept;
    int locked_in_window() const noexcept;  // locked presents among the last 64
    std::int64_t last_swap_ns() const noexcept { return last_block_ns_; }  // duration of the last swap

private:
    std::int64_t last_end_ = -1;
    std::int64_t last_block_ns_ = 0;
    int good_ = 0, bad_ = 0;
    bool verified_ = false;
    std::uint64_t missed_bits_ = 0, locked_bits_ = 0;  // the last 64 presents
};

// Which mechanism paced a frame.
enum class PacingSource { sleep, spin, hybrid, vsync };
const char* to_string(PacingSource source) noexcept;

struct VsyncStatus {
    bool requested = false;       // the pacer wants vsync on (desired_swap_interval() > 0)
    bool detected = false;        // presents show vsync pacing (verified)
    bool in_use = false;          // frames are paced by the swap, not by the pacer's wait
    int swap_interval = 0;        // what the pacer asks for
    double refresh_hz = 0;        // last reported refresh rate (0 unknown)
    const char* reason = "";      // why the pacer does what it does; static storage
};

}  // namespace pacer
