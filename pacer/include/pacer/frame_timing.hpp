// pacer/frame_timing.hpp - what one paced frame looked like: FrameTiming, WaitMode, PacingSource.
//
// The record FramePacer::wait() returns and FrameStats and CaptureWriter consume. Its own header
// so that statistics and capture code need not see the pacer.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/names.hpp"

namespace pacer {

// How a wait is done.
enum class WaitMode {
    sleep,      // OS sleep only: no CPU, late by whatever the OS adds
    spin,       // busy-wait only: exact, burns a core
    hybrid,     // OS sleep to deadline - learned margin, then spin (default)
    vsync,      // FramePacer only: the swap paces, the pacer measures (pacer/vsync.hpp)
    automatic,  // FramePacer only: vsync when verified at the target rate, else hybrid ("auto")
};
inline constexpr EnumName<WaitMode> kWaitModeNames[] = {
    {WaitMode::sleep, "sleep"}, {WaitMode::spin, "spin"},           {WaitMode::hybrid, "hybrid"},
    {WaitMode::vsync, "vsync"}, {WaitMode::automatic, "auto"},
};
inline const char* to_string(WaitMode mode) noexcept { return name_of(kWaitModeNames, mode); }
inline bool parse_wait_mode(const char* text, WaitMode* out) noexcept {
    return parse_name(kWaitModeNames, text, out);
}

// Which mechanism paced a frame (in WaitMode::automatic: which one won).
enum class PacingSource { sleep, spin, hybrid, vsync };
inline constexpr EnumName<PacingSource> kPacingSourceNames[] = {
    {PacingSource::sleep, "sleep"}, {PacingSource::spin, "spin"},
    {PacingSource::hybrid, "hybrid"}, {PacingSource::vsync, "vsync"},
};
inline const char* to_string(PacingSource source) noexcept { return name_of(kPacingSourceNames, source); }

// One frame, as FramePacer::wait() returns it. Time points are on the pacer's TimeSource clock
// (pacer/clock.hpp): the real OS clock unless a TimeSource was injected.
struct FrameTiming {
    std::uint64_t index = 0;             // grid slot of this frame (skipped slots count)
    clock::time_point deadline{};        // when this frame was due
    clock::time_point wake{};            // when wait() returned
    std::chrono::nanoseconds lateness{0};   // wake - deadline; > 0 when late, never < 0
    std::chrono::nanoseconds interval{0};   // wake - previous wake (0 for the first frame)
    std::chrono::nanoseconds work{0};       // previous wake -> this wait() call: the caller's frame
    std::chrono::nanoseconds period{0};     // target period in force for this frame (rounded)
    std::chrono::nanoseconds slept{0};      // inside the OS sleep
    std::chrono::nanoseconds spun{0};       // spinning
    std::chrono::nanoseconds oversleep{0};  // OS wake-up past the requested wake-up
    std::chrono::nanoseconds margin{0};     // hybrid margin in force
    std::uint32_t skipped = 0;              // grid slots skipped before this frame
    WaitMode mode = WaitMode::hybrid;       // the configured mode
    PacingSource source = PacingSource::hybrid;  // what actually paced this frame
    bool missed = false;                    // lateness > miss_tolerance, or skipped > 0
    bool background = false;                // paced at PacerConfig::background_hz (set_background)
};

}  // namespace pacer
