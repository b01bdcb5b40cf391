// The C API's shared parts (c_api_internal.hpp): the thread's last error, the exception guard, and
// the conversions between pacer/pacer.h's structs and the C++ ones.
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "c_api/c_api_internal.hpp"
#include "pacer/display.hpp"
#include "pacer/log.hpp"
#include "pacer/stats.hpp"
#include "pacer/vsync.hpp"

// The C enums are the C++ enums' values: conversions are plain casts, checked here once.
static_assert(PACER_MODE_SLEEP == static_cast<int>(pacer::WaitMode::sleep) &&
              PACER_MODE_SPIN == static_cast<int>(pacer::WaitMode::spin) &&
              PACER_MODE_HYBRID == static_cast<int>(pacer::WaitMode::hybrid) &&
              PACER_MODE_VSYNC == static_cast<int>(pacer::WaitMode::vsync) &&
              PACER_MODE_AUTO == static_cast<int>(pacer::WaitMode::automatic));
static_assert(PACER_PRIORITY_NORMAL == static_cast<int>(pacer::ThreadPriority::normal) &&
              PACER_PRIORITY_WAIT == static_cast<int>(pacer::ThreadPriority::wait) &&
              PACER_PRIORITY_THREAD == static_cast<int>(pacer::ThreadPriority::thread) &&
              PACER_PRIORITY_HIGH == static_cast<int>(pacer::ThreadPriority::high) &&
              PACER_PRIORITY_AUTOMATIC == static_cast<int>(pacer::ThreadPriority::automatic));
static_assert(PACER_PRIORITY_LEVER_NONE == static_cast<int>(pacer::PriorityLever::none) &&
              PACER_PRIORITY_LEVER_WEIGHT == static_cast<int>(pacer::PriorityLever::weight) &&
              PACER_PRIORITY_LEVER_REALTIME == static_cast<int>(pacer::PriorityLever::realtime));
static_assert(PACER_PRIORITY_BY_NONE == static_cast<int>(pacer::PriorityGrantor::none) &&
              PACER_PRIORITY_BY_OS == static_cast<int>(pacer::PriorityGrantor::os) &&
              PACER_PRIORITY_BY_REALTIMEKIT == static_cast<int>(pacer::PriorityGrantor::realtimekit) &&
              PACER_PRIORITY_BY_PORTAL == static_cast<int>(pacer::PriorityGrantor::portal) &&
              PACER_PRIORITY_BY_HOST == static_cast<int>(pacer::PriorityGrantor::host));
static_assert(PACER_LATE_CATCH_UP == static_cast<int>(pacer::LatePolicy::catch_up) &&
              PACER_LATE_SKIP == static_cast<int>(pacer::LatePolicy::skip) &&
              PACER_LATE_RESYNC == static_cast<int>(pacer::LatePolicy::resync));
static_assert(PACER_SYNC_FRAME_START == static_cast<int>(pacer::SyncMode::frame_start) &&
              PACER_SYNC_PRESENT == static_cast<int>(pacer::SyncMode::present) &&
              PACER_SYNC_JUST_IN_TIME == static_cast<int>(pacer::SyncMode::just_in_time));
static_assert(PACER_SOURCE_SLEEP == static_cast<int>(pacer::PacingSource::sleep) &&
              PACER_SOURCE_SPIN == static_cast<int>(pacer::PacingSource::spin) &&
              PACER_SOURCE_HYBRID == static_cast<int>(pacer::PacingSource::hybrid) &&
              PACER_SOURCE_VSYNC == static_cast<int>(pacer::PacingSource::vsync));
static_assert(PACER_CADENCE_FIXED == static_cast<int>(pacer::CadenceMode::fixed) &&
              PACER_CADENCE_AUTO == static_cast<int>(pacer::CadenceMode::automatic));
static_assert(PACER_CADENCE_REASON_FIXED == static_cast<int>(pacer::CadenceReason::fixed) &&
              PACER_CADENCE_REASON_LEARNING == static_cast<int>(pacer::CadenceReason::learning) &&
              PACER_CADENCE_REASON_FITS == static_cast<int>(pacer::CadenceReason::fits) &&
              PACER_CADENCE_REASON_STEADY == static_cast<int>(pacer::CadenceReason::steady) &&
              PACER_CADENCE_REASON_OVERRUN == static_cast<int>(pacer::CadenceReason::overrun) &&
              PACER_CADENCE_REASON_HEADROOM == static_cast<int>(pacer::CadenceReason::headroom) &&
              PACER_CADENCE_REASON_DWELL == static_cast<int>(pacer::CadenceReason::dwell) &&
              PACER_CADENCE_REASON_SLOWEST == static_cast<int>(pacer::CadenceReason::slowest) &&
              PACER_CADENCE_REASON_REBASED == static_cast<int>(pacer::CadenceReason::rebased) &&
              PACER_CADENCE_REASON_VRR == static_cast<int>(pacer::CadenceReason::vrr));
static_assert(PACER_DISPLAY_UNKNOWN == static_cast<int>(pacer::DisplayState::unknown) &&
              PACER_DISPLAY_LOCKING == static_cast<int>(pacer::DisplayState::locking) &&
              PACER_DISPLAY_LOCKED == static_cast<int>(pacer::DisplayState::locked) &&
              PACER_DISPLAY_VRR == static_cast<int>(pacer::DisplayState::vrr) &&
              PACER_DISPLAY_LOST == static_cast<int>(pacer::DisplayState::lost) &&
              PACER_DISPLAY_UNSYNCED == static_cast<int>(pacer::DisplayState::unsynced));
static_assert(PACER_PRESENT_SHOWN == static_cast<int>(pacer::PresentOutcome::shown) &&
              PACER_PRESENT_SKIPPED == static_cast<int>(pacer::PresentOutcome::skipped) &&
              PACER_PRESENT_DISCARDED == static_cast<int>(pacer::PresentOutcome::discarded));
static_assert(PACER_VSYNC_OFF == static_cast<int>(pacer::VsyncReason::off) &&
              PACER_VSYNC_VERIFIED == static_cast<int>(pacer::VsyncReason::vsync_verified) &&
              PACER_VSYNC_UNVERIFIED == static_cast<int>(pacer::VsyncReason::vsync_unverified) &&
              PACER_VSYNC_NOT_SHOWN == static_cast<int>(pacer::VsyncReason::vsync_not_shown) &&
              PACER_VSYNC_AUTO_WAITING == static_cast<int>(pacer::VsyncReason::auto_waiting) &&
              PACER_VSYNC_AUTO_BAD_REFRESH == static_cast<int>(pacer::VsyncReason::auto_bad_refresh) &&
              PACER_VSYNC_AUTO_NO_DIVISOR == static_cast<int>(pacer::VsyncReason::auto_no_divisor) &&
              PACER_VSYNC_AUTO_PROBING == static_cast<int>(pacer::VsyncReason::auto_probing) &&
              PACER_VSYNC_AUTO_REFUSED == static_cast<int>(pacer::VsyncReason::auto_refused) &&
              PACER_VSYNC_AUTO_NOT_BLOCKING == static_cast<int>(pacer::VsyncReason::auto_not_blocking) &&
              PACER_VSYNC_AUTO_OTHER_RATE == static_cast<int>(pacer::VsyncReason::auto_other_rate) &&
              PACER_VSYNC_AUTO_IRREGULAR == static_cast<int>(pacer::VsyncReason::auto_irregular) &&
              PACER_VSYNC_AUTO_VERIFIED == static_cast<int>(pacer::VsyncReason::auto_verified) &&
              PACER_VSYNC_AUTO_LOST == static_cast<int>(pacer::VsyncReason::auto_lost) &&
              PACER_VSYNC_AUTO_MISSING == static_cast<int>(pacer::VsyncReason::auto_missing));
static_assert(PACER_METRIC_INTERVAL == static_cast<int>(pacer::FrameMetric::interval) &&
              PACER_METRIC_LATENESS == static_cast<int>(pacer::FrameMetric::lateness) &&
              PACER_METRIC_WORK == static_cast<int>(pacer::FrameMetric::work) &&
              PACER_METRIC_SLEPT == static_cast<int>(pacer::FrameMetric::slept) &&
              PACER_METRIC_SPUN == static_cast<int>(pacer::FrameMetric::spun) &&
              PACER_METRIC_LATENCY == static_cast<int>(pacer::FrameMetric::latency));
static_assert(PACER_LOG_DEBUG == static_cast<int>(pacer::LogLevel::debug) &&
              PACER_LOG_INFO == static_cast<int>(pacer::LogLevel::info) &&
              PACER_LOG_WARN == static_cast<int>(pacer::LogLevel::warn) &&
              PACER_LOG_ERROR == static_cast<int>(pacer::LogLevel::error) &&
              PACER_LOG_OFF == static_cast<int>(pacer::LogLevel::off));

namespace pacer::capi {

namespace {

// A fixed buffer, not a std::string: reporting std::bad_alloc must not allocate.
thread_local char t_last_error[512] = "";

}  // namespace

int fail(int code, const char* message) noexcept {
    std::snprintf(t_last_error, sizeof t_last_error, "%s", message ? message : "");
    return code;
}

int null_argument(const char* function, const char* what) noexcept {
    char text[160];
    std::snprintf(text, sizeof text, "%s: %s is NULL", function, what);
    return fail(PACER_ERROR_INVALID_ARGUMENT, text);
}

int exception_code() noexcept {
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return fail(PACER_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::length_error&) {  // a size beyond what a container can hold
        return fail(PACER_ERROR_OUT_OF_MEMORY, "out of memory (a size beyond what can be allocated)");
    } catch (const ConfigError& e) {
        return fail(PACER_ERROR_INVALID_ARGUMENT, e.what());
    } catch (const std::exception& e) {
        return fail(PACER_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(PACER_ERROR_INTERNAL, "unknown exception");
    }
}

const char* last_error() noexcept { return t_last_error; }

PacerConfig to_cpp(const pacer_config& c) noexcept {
    PacerConfig config;
    config.target_hz = c.target_hz;
    config.mode = static_cast<WaitMode>(c.mode);
    config.late_policy = static_cast<LatePolicy>(c.late_policy);
    config.max_catch_up = c.max_catch_up;
    config.miss_tolerance = dur(c.miss_tolerance_ns);
    config.background_hz = c.background_hz;
    config.sync = static_cast<SyncMode>(c.sync);
    config.max_late_share = c.max_late_share;
    config.cadence = static_cast<CadenceMode>(c.cadence);
    config.display_lock = c.display_lock != 0;
    config.match_display = c.match_display != 0;
    config.waiter.late_cost = dur(c.waiter.late_cost_ns);
    config.waiter.half_life = c.waiter.half_life;
    config.waiter.initial_margin = dur(c.waiter.initial_margin_ns);
    config.waiter.min_margin = dur(c.waiter.min_margin_ns);
    config.waiter.max_spin = dur(c.waiter.max_spin_ns);
    config.waiter.priority.mode = static_cast<ThreadPriority>(c.waiter.priority);
    config.waiter.priority.realtime_priority = c.waiter.realtime_priority;
    config.waiter.priority.round_robin = c.waiter.round_robin != 0;
    config.waiter.priority.nice = c.waiter.nice;
    config.waiter.raised_spin_share = c.waiter.raised_spin_share;
    config.governor.min_hz = c.governor.min_hz;
    config.governor.dwell = dur(c.governor.dwell_ns);
    config.governor.quantile = c.governor.quantile;
    config.governor.fit = c.governor.fit;
    config.governor.headroom = c.governor.headroom;
    return config;
}

pacer_config to_c(const PacerConfig& d) noexcept {
    pacer_config c{};
    c.target_hz = d.target_hz;
    c.mode = static_cast<int>(d.mode);
    c.late_policy = static_cast<int>(d.late_policy);
    c.max_catch_up = d.max_catch_up;
    c.miss_tolerance_ns = ns(d.miss_tolerance);
    c.background_hz = d.background_hz;
    c.sync = static_cast<int>(d.sync);
    c.max_late_share = d.max_late_share;
    c.cadence = static_cast<int>(d.cadence);
    c.display_lock = d.display_lock ? 1 : 0;
    c.match_display = d.match_display ? 1 : 0;
    c.waiter.late_cost_ns = ns(d.waiter.late_cost);
    c.waiter.half_life = d.waiter.half_life;
    c.waiter.initial_margin_ns = ns(d.waiter.initial_margin);
    c.waiter.min_margin_ns = ns(d.waiter.min_margin);
    c.waiter.max_spin_ns = ns(d.waiter.max_spin);
    c.waiter.priority = static_cast<int>(d.waiter.priority.mode);
    c.waiter.realtime_priority = d.waiter.priority.realtime_priority;
    c.waiter.round_robin = d.waiter.priority.round_robin ? 1 : 0;
    c.waiter.nice = d.waiter.priority.nice;
    c.waiter.raised_spin_share = d.waiter.raised_spin_share;
    c.governor.min_hz = d.governor.min_hz;
    c.governor.dwell_ns = ns(d.governor.dwell);
    c.governor.quantile = d.governor.quantile;
    c.governor.fit = d.governor.fit;
    c.governor.headroom = d.governor.headroom;
    return c;
}

pacer_frame_timing to_c(const FrameTiming& t) noexcept {
    pacer_frame_timing c{};
    c.index = t.index;
    c.deadline_ns = clock::to_ns(t.deadline);
    c.wake_ns = clock::to_ns(t.wake);
    c.lateness_ns = ns(t.lateness);
    c.interval_ns = ns(t.interval);
    c.work_ns = ns(t.work);
    c.period_ns = ns(t.period);
    c.slept_ns = ns(t.slept);
    c.spun_ns = ns(t.spun);
    c.oversleep_ns = ns(t.oversleep);
    c.margin_ns = ns(t.margin);
    c.skipped = t.skipped;
    c.missed = t.missed ? 1 : 0;
    c.mode = static_cast<int>(t.mode);
    c.source = static_cast<int>(t.source);
    c.background = t.background ? 1 : 0;
    c.sync = static_cast<int>(t.sync);
    c.latency_ns = ns(t.latency);
    c.input_to_present_ns = ns(t.input_to_present);
    c.latency_measured = t.latency_measured ? 1 : 0;
    c.shown_late = t.shown_late ? 1 : 0;
    c.cadence = t.cadence;
    c.cadence_hz = t.cadence_hz;
    c.cadence_reason = static_cast<int>(t.cadence_reason);
    c.display_dt_ns = ns(t.display_dt);
    c.display_locked = t.display_locked ? 1 : 0;
    c.display_target_ns = clock::to_ns(t.display_target);
    c.display_target_msc = t.display_target_msc;
    c.has_display_target_msc = t.has_display_target_msc ? 1 : 0;
    c.presents_shown = t.presents_shown;
    c.presents_dropped = t.presents_dropped;
    c.present_feedback = t.present_feedback ? 1 : 0;
    c.frame = t.frame;
    c.latency_frame = t.latency_frame;
    return c;
}

FrameTiming to_cpp(const pacer_frame_timing& c) noexcept {
    FrameTiming t;
    t.index = c.index;
    t.deadline = clock::from_ns(c.deadline_ns);
    t.wake = clock::from_ns(c.wake_ns);
    t.lateness = dur(c.lateness_ns);
    t.interval = dur(c.interval_ns);
    t.work = dur(c.work_ns);
    t.period = dur(c.period_ns);
    t.slept = dur(c.slept_ns);
    t.spun = dur(c.spun_ns);
    t.oversleep = dur(c.oversleep_ns);
    t.margin = dur(c.margin_ns);
    t.skipped = c.skipped;
    t.missed = c.missed != 0;
    t.mode = static_cast<WaitMode>(c.mode);
    t.source = static_cast<PacingSource>(c.source);
    t.background = c.background != 0;
    t.sync = static_cast<SyncMode>(c.sync);
    t.latency = dur(c.latency_ns);
    t.input_to_present = dur(c.input_to_present_ns);
    t.latency_measured = c.latency_measured != 0;
    t.shown_late = c.shown_late != 0;
    t.cadence = c.cadence;
    t.cadence_hz = c.cadence_hz;
    t.cadence_reason = static_cast<CadenceReason>(c.cadence_reason);
    t.display_dt = dur(c.display_dt_ns);
    t.display_locked = c.display_locked != 0;
    t.display_target = clock::from_ns(c.display_target_ns);
    t.display_target_msc = c.display_target_msc;
    t.has_display_target_msc = c.has_display_target_msc != 0;
    t.presents_shown = c.presents_shown;
    t.presents_dropped = c.presents_dropped;
    t.present_feedback = c.present_feedback != 0;
    t.frame = c.frame;
    t.latency_frame = c.latency_frame;
    return t;
}

PresentInfo to_cpp(const pacer_present& p) noexcept {
    PresentInfo info;
    info.begin = clock::from_ns(p.begin_ns);
    info.end = clock::from_ns(p.end_ns);
    info.swap_interval = p.swap_interval;
    info.refresh_hz = p.refresh_hz;
    info.ok = p.ok != 0;
    if (p.displayed_ns != 0) info.displayed = clock::from_ns(p.displayed_ns);
    info.id = p.id;
    info.outcome = p.outcome >= PACER_PRESENT_UNKNOWN && p.outcome <= PACER_PRESENT_DISCARDED
                       ? static_cast<PresentOutcome>(p.outcome)
                       : PresentOutcome::unknown;
    info.msc = p.msc;
    info.has_msc = p.has_msc != 0;
    info.flags.known = (p.flags & PACER_PRESENT_FLAGS_KNOWN) != 0;
    info.flags.vsync = (p.flags & PACER_PRESENT_FLAG_VSYNC) != 0;
    info.flags.hw_clock = (p.flags & PACER_PRESENT_FLAG_HW_CLOCK) != 0;
    info.flags.hw_completion = (p.flags & PACER_PRESENT_FLAG_HW_COMPLETION) != 0;
    info.flags.zero_copy = (p.flags & PACER_PRESENT_FLAG_ZERO_COPY) != 0;
    info.frame = p.frame;
    return info;
}

int check_timing(const pacer_frame_timing& t, const char* function) noexcept {
    struct Choice {
        const char* field;
        int value;
        bool named;
    };
    const Choice choices[] = {
        {"mode", t.mode, is_named(kWaitModeNames, static_cast<WaitMode>(t.mode))},
        {"source", t.source, is_named(kPacingSourceNames, static_cast<PacingSource>(t.source))},
        {"sync", t.sync, is_named(kSyncModeNames, static_cast<SyncMode>(t.sync))},
        {"cadence_reason", t.cadence_reason,
         is_named(kCadenceReasonNames, static_cast<CadenceReason>(t.cadence_reason))},
    };
    for (const Choice& c : choices) {
        if (c.named) continue;
        char text[160];
        std::snprintf(text, sizeof text, "%s: timing->%s = %d: not a pacer_%s value", function, c.field,
                      c.value, c.field);
        return fail(PACER_ERROR_INVALID_ARGUMENT, text);
    }
    return PACER_OK;
}

}  // namespace pacer::capi
