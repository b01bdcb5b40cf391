// pacer/modes.hpp - the named choices of the API: how a frame waits, where it waits, what a late
// frame does to the grid, whether the cadence follows the work, and what paced a frame.
//
//   WaitMode      sleep, spin, hybrid, vsync, automatic ("auto")
//   SyncMode      frame_start, present, just_in_time
//   LatePolicy    catch_up, skip, resync
//   CadenceMode   fixed, automatic ("auto")
//   PacingSource  sleep, spin, hybrid, vsync (what paced a frame)
//   ThreadPriority  normal, wait, thread, high, automatic (the enum is in pacer/priority.hpp, its manual)
//   PriorityLever   none, weight, realtime; PriorityGrantor none, os, realtimekit, portal, host
//                   (what is in force and who granted it: pacer/priority.hpp)
//
// Each enum has a name table (kWaitModeNames, ...; pacer/names.hpp), to_string() and parse_*():
// the names are part of the stable API, they appear in capture files and on command lines.
#pragma once

#include "pacer/names.hpp"
#include "pacer/priority.hpp"

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

// Where a frame's wait sits relative to its work (FramePacer's manual says exactly where each
// mode waits). The choice users know as RTSS's front edge / back edge sync or MangoHud's early /
// late limiting, plus the low-latency one.
enum class SyncMode {
    frame_start,   // wait at the frame start, on the grid (default): flat frame starts
    present,       // wait just before the present: flat present times on jittery work
    just_in_time,  // wait at the frame start until the display deadline - learned work - safety
};
inline constexpr EnumName<SyncMode> kSyncModeNames[] = {
    {SyncMode::frame_start, "frame_start"}, {SyncMode::present, "present"},
    {SyncMode::just_in_time, "just_in_time"},
};
inline const char* to_string(SyncMode sync) noexcept { return name_of(kSyncModeNames, sync); }
inline bool parse_sync_mode(const char* text, SyncMode* out) noexcept {
    return parse_name(kSyncModeNames, text, out);
}

inline constexpr EnumName<ThreadPriority> kThreadPriorityNames[] = {
    {ThreadPriority::normal, "normal"}, {ThreadPriority::wait, "wait"},           {ThreadPriority::thread, "thread"},
    {ThreadPriority::high, "high"},     {ThreadPriority::automatic, "automatic"},
};
inline const char* to_string(ThreadPriority p) noexcept { return name_of(kThreadPriorityNames, p); }
inline bool parse_thread_priority(const char* text, ThreadPriority* out) noexcept {
    return parse_name(kThreadPriorityNames, text, out);
}

// Which mechanism paced a frame (in WaitMode::automatic: which one won).
enum class PacingSource { sleep, spin, hybrid, vsync };
inline constexpr EnumName<PriorityLever> kPriorityLeverNames[] = {
    {PriorityLever::none, "none"}, {PriorityLever::weight, "weight"}, {PriorityLever::realtime, "realtime"}};
inline const char* to_string(PriorityLever l) noexcept { return name_of(kPriorityLeverNames, l); }

inline constexpr EnumName<PriorityGrantor> kPriorityGrantorNames[] = {
    {PriorityGrantor::none, "none"},     {PriorityGrantor::os, "os"},     {PriorityGrantor::realtimekit, "realtimekit"},
    {PriorityGrantor::portal, "portal"}, {PriorityGrantor::host, "host"}};
inline const char* to_string(PriorityGrantor g) noexcept { return name_of(kPriorityGrantorNames, g); }

inline constexpr EnumName<PacingSource> kPacingSourceNames[] = {
    {PacingSource::sleep, "sleep"}, {PacingSource::spin, "spin"},
    {PacingSource::hybrid, "hybrid"}, {PacingSource::vsync, "vsync"},
};
inline const char* to_string(PacingSource source) noexcept { return name_of(kPacingSourceNames, source); }

enum class LatePolicy {
    catch_up,  // keep the grid; serve up to max_catch_up passed deadlines at once (default)
    skip,      // keep the grid; skip every passed slot
    resync,    // restart the grid at the late wake-up
};
inline constexpr EnumName<LatePolicy> kLatePolicyNames[] = {
    {LatePolicy::catch_up, "catch_up"}, {LatePolicy::skip, "skip"}, {LatePolicy::resync, "resync"},
};
inline const char* to_string(LatePolicy policy) noexcept { return name_of(kLatePolicyNames, policy); }
inline bool parse_late_policy(const char* text, LatePolicy* out) noexcept {
    return parse_name(kLatePolicyNames, text, out);
}

// Cadence governor (PacerConfig::cadence; pacer/cadence.hpp has its rules).
enum class CadenceMode {
    fixed,      // always the target rate
    automatic,  // the highest whole divisor of the refresh (or target) the frame's work sustains
};
inline constexpr EnumName<CadenceMode> kCadenceModeNames[] = {
    {CadenceMode::fixed, "fixed"}, {CadenceMode::automatic, "auto"},
};
inline const char* to_string(CadenceMode mode) noexcept { return name_of(kCadenceModeNames, mode); }
inline bool parse_cadence_mode(const char* text, CadenceMode* out) noexcept {
    return parse_name(kCadenceModeNames, text, out);
}

// Highest accepted rate. Above 10 kHz a period is shorter than one OS wake-up on any desktop OS;
// such a "frame rate" is a bug in the caller, not a pacing request.
inline constexpr double kMaxTargetHz = 10'000.0;

}  // namespace pacer
