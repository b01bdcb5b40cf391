// pacer/capture_columns.hpp - the capture file's columns: one table that the writer
// (CaptureWriter, pacer/capture.hpp), the reader (tools/lib/capture_reader.hpp: its FrameRecord and
// its lookup of other tools' column names), the demo's replay and the documentation all follow.
//
//   for (const pacer::CaptureColumn& c : pacer::kCaptureColumns) {
//       if (c.origin != pacer::CaptureOrigin::other) std::printf("%s (%s)\n", c.name, pacer::to_string(c.unit));
//   }
//
// One line per column, in the order CaptureWriter writes them:
//   X(member, "Name", "aliases", unit, origin, timing, value)
//   member   the column's short name: FrameRecord's member in the reader, CaptureColumnId's value
//   Name     the name pacer writes (for a column it only reads: the name most tools write)
//   aliases  the names other tools write for the same column, '|' between them; "Name:ms" (or
//            ":ns") for one in another unit than `unit` (MangoHud's elapsed is in ns). Matched
//            whatever the case, as Name is.
//   unit     CaptureUnit: how the value is written and which values the reader accepts
//   origin   CaptureOrigin: PresentMon's classic header (written first, in its exact order),
//            pacer's own columns (written after), or a column pacer only reads
//   timing   the FrameTiming member the column mirrors (the demo's replay sets it from the file),
//            or nullptr
//   value    what CaptureWriter::add() writes: an expression over the row r
//            (pacer/src/capture/capture.cpp, CaptureRow: r.t the frame, r.x its CaptureExtras with its
//            presentation feedback applied, r.latency the frame's latency (brought by the frame
//            after it; 0: none), r.frame_ns and r.time_ns the row's frame time and time stamp)
//
// Adding a column is one line. A capture that also records whether the wait was placed against
// the fitted vblanks (FrameTiming::display_locked) needs only
//     X(display_locked, "DisplayLocked", "", flag, pacer, &FrameTiming::display_locked, r.t.display_locked)
// among pacer's own columns: the writer writes it there, the reader reads it into
// FrameRecord::display_locked (from any file with a DisplayLocked column), the replay sets
// FrameTiming::display_locked, and tests/capture_test.cpp (`Columns.*`) then asks for its row in
// docs/capture.md's column table.
//
// None of pacer's own names is one CapFrameX takes for timing data (FrameTime, DisplayedTime,
// GPUBusy, ...); MsCPUBusy and MsCPUWait are PresentMon 2.x's own names for work and wait time.
// What each column holds, in words: docs/capture.md, "The file".
#pragma once

#include <cstddef>

#include "pacer/frame_timing.hpp"

namespace pacer {

// clang-format off
#define PACER_CAPTURE_COLUMNS(X)                                                                                       \
    /* PresentMon's classic header (1.x), exactly: tools that read PresentMon logs read pacer's */                    \
    X(application,    "Application",    "",                  text,     presentmon, nullptr, r.application)             \
    X(process_id,     "ProcessID",      "",                  id,       presentmon, nullptr, r.process_id)              \
    X(swapchain,      "SwapChainAddress", "",                text,     presentmon, nullptr, na)                        \
    X(runtime,        "Runtime",        "PresentRuntime",    text,     presentmon, nullptr, r.runtime)                 \
    X(sync_interval,  "SyncInterval",   "",                  swap_interval, presentmon, nullptr, sync_interval(r))     \
    X(present_flags,  "PresentFlags",   "",                  text,     presentmon, nullptr, na)                        \
    X(allows_tearing, "AllowsTearing",  "",                  flag,     presentmon, nullptr, na)                        \
    X(present_mode,   "PresentMode",    "",                  text,     presentmon, nullptr, "Unknown")                 \
    X(dropped,        "Dropped",        "",                  flag,     presentmon, nullptr, dropped(r))                \
    X(time_s,         "TimeInSeconds",  "CPUStartTime|CPUStartTimeInMs:ms|TimeInMs:ms|elapsed:ns",                     \
                                                             seconds,  presentmon, nullptr, r.time_ns)                 \
    X(frame_ms,       "MsBetweenPresents", "FrameTime|MsBetweenAppStart",                                              \
                                                             ms,       presentmon, &FrameTiming::interval, r.frame_ns) \
    X(display_change_ms, "MsBetweenDisplayChange", "DisplayedTime", ms, presentmon, nullptr, or_na(r.x.between_display_change)) \
    X(in_present_ms,  "MsInPresentAPI", "",                  ms,       presentmon, nullptr, in_present(r))             \
    X(until_render_complete_ms, "MsUntilRenderComplete", "", ms_signed, presentmon, nullptr, or_na(r.x.until_render_complete)) \
    X(until_displayed_ms, "MsUntilDisplayed", "",            ms_signed, presentmon, nullptr, or_na(r.x.until_displayed)) \
    /* pacer's own columns */                                                                                          \
    X(frame_index,    "Frame",          "",                  count,    pacer, &FrameTiming::index,     r.t.index)      \
    X(busy_ms,        "MsCPUBusy",      "CPUBusy|CpuActive", ms,       pacer, &FrameTiming::work,      when_interval(r, r.t.work)) \
    X(wait_ms,        "MsCPUWait",      "CPUWait",           ms,       pacer, nullptr,                 when_interval(r, r.t.interval - r.t.work)) \
    X(wait_mode,      "WaitMode",       "",                  text,     pacer, &FrameTiming::mode,      r.t.mode)       \
    X(target_ms,      "MsTargetFrameTime", "",               ms,       pacer, &FrameTiming::period,    r.t.period)     \
    X(lateness_ms,    "MsLateness",     "",                  ms,       pacer, &FrameTiming::lateness,  r.t.lateness)   \
    X(sleep_ms,       "MsSleep",        "",                  ms,       pacer, &FrameTiming::slept,     r.t.slept)      \
    X(spin_ms,        "MsSpin",         "",                  ms,       pacer, &FrameTiming::spun,      r.t.spun)       \
    X(oversleep_ms,   "MsOversleep",    "",                  ms,       pacer, &FrameTiming::oversleep, r.t.oversleep)  \
    X(margin_ms,      "MsMargin",       "",                  ms,       pacer, &FrameTiming::margin,    r.t.margin)     \
    X(skipped,        "Skipped",        "",                  count,    pacer, &FrameTiming::skipped,   r.t.skipped)    \
    X(missed,         "Missed",         "",                  flag,     pacer, &FrameTiming::missed,    r.t.missed)     \
    X(pacing_source,  "PacingSource",   "",                  text,     pacer, &FrameTiming::source,    pacing_source(r)) \
    X(wake_interval_ms, "MsBetweenWakes", "",                ms,       pacer, nullptr,                 when_interval(r, r.t.interval)) \
    X(sync_mode,      "SyncMode",       "",                  text,     pacer, &FrameTiming::sync,      r.t.sync)       \
    X(cadence,        "Cadence",        "",                  count,    pacer, &FrameTiming::cadence,   r.t.cadence)    \
    X(cadence_hz,     "CadenceHz",      "",                  hz,       pacer, &FrameTiming::cadence_hz, millihertz(r.t.cadence_hz)) \
    X(cadence_reason, "CadenceReason",  "",                  text,     pacer, &FrameTiming::cadence_reason, r.t.cadence_reason) \
    X(display_delta_ms, "MsDisplayDelta", "",                ms,       pacer, &FrameTiming::display_dt, r.t.display_dt) \
    X(past_spin_bound, "PastSpinBound", "",                  flag,     pacer, &FrameTiming::past_spin_bound, r.t.past_spin_bound) \
    X(pc_latency_ms,  "MsPCLatency",    "PCLatency",         ms,       pacer, nullptr,                 latency(r))     \
    /* read from other tools' files, never written */                                                                 \
    X(fps,            "fps",            "",                  hz,       other, nullptr, na)                             \
    X(gpu_busy_ms,    "GPUBusy",        "MsGPUBusy|MsGPUActive|GpuActive", ms,   other, nullptr, na)                             \
    X(input_to_photon_ms, "MsAllInputToPhotonLatency",                                                                 \
                      "AllInputToPhotonLatency|MsClickToPhotonLatency|ClickToPhotonLatency", ms, other, nullptr, na)
// clang-format on

// How a column's values are written, and which values the reader accepts (it refuses the others
// with the file, line and column: tools/lib/capture_reader.hpp).
enum class CaptureUnit {
    text,           // a name or an address, as it is ("NA": not measured)
    id,             // a process id: a whole number < 2^32
    flag,           // 0 or 1
    count,          // a whole number >= 0: a frame index, skipped slots, a refresh divisor
    swap_interval,  // the swap call's vblank count; PresentMon writes -1 for D3D9's "not set"
    seconds,        // a time stamp, s (written with 9 decimals: whole ns)
    ms,             // a duration >= 0, ms (6 decimals: whole ns), at most an hour
    ms_signed,      // ms from the present call, negative when the event came first (PresentMon)
    hz,             // a rate >= 0 (3 decimals)
};

// Where a column comes from.
enum class CaptureOrigin {
    presentmon,  // PresentMon's classic (1.x) header: pacer writes these first, in this order
    pacer,       // pacer's own, written after PresentMon's
    other,       // another tool's (PresentMon 2.x, MangoHud, FrameView): read, never written
};

struct CaptureColumn {
    const char* name;     // as pacer writes it
    const char* aliases;  // other tools' names, '|' between them; "Name:ms" when in another unit
    CaptureUnit unit;
    CaptureOrigin origin;
};

// Every column of the table, in its order.
enum class CaptureColumnId {
#define PACER_CAPTURE_COLUMN_ID(member, name, aliases, unit, origin, timing, value) member,
    PACER_CAPTURE_COLUMNS(PACER_CAPTURE_COLUMN_ID)
#undef PACER_CAPTURE_COLUMN_ID
};

inline constexpr CaptureColumn kCaptureColumns[] = {
#define PACER_CAPTURE_COLUMN_ROW(member, name, aliases, unit, origin, timing, value) \
    {name, aliases, CaptureUnit::unit, CaptureOrigin::origin},
    PACER_CAPTURE_COLUMNS(PACER_CAPTURE_COLUMN_ROW)
#undef PACER_CAPTURE_COLUMN_ROW
};
inline constexpr std::size_t kCaptureColumnCount = sizeof kCaptureColumns / sizeof kCaptureColumns[0];

constexpr const CaptureColumn& capture_column(CaptureColumnId id) noexcept {
    return kCaptureColumns[static_cast<std::size_t>(id)];
}

// "text", "ms", ... (the enumerator's name).
constexpr const char* to_string(CaptureUnit u) noexcept {
    switch (u) {
        case CaptureUnit::text: return "text";
        case CaptureUnit::id: return "id";
        case CaptureUnit::flag: return "flag";
        case CaptureUnit::count: return "count";
        case CaptureUnit::swap_interval: return "swap_interval";
        case CaptureUnit::seconds: return "seconds";
        case CaptureUnit::ms: return "ms";
        case CaptureUnit::ms_signed: return "ms_signed";
        case CaptureUnit::hz: return "hz";
    }
    return "?";
}

constexpr const char* to_string(CaptureOrigin o) noexcept {
    switch (o) {
        case CaptureOrigin::presentmon: return "presentmon";
        case CaptureOrigin::pacer: return "pacer";
        case CaptureOrigin::other: return "other";
    }
    return "?";
}

}  // namespace pacer
