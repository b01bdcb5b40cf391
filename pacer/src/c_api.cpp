// The C API (pacer/pacer.h): each function translates its arguments, calls the C++ API and turns
// every failure, exceptions included, into a return code and the thread's last error. No
// exception may unwind into a C caller: that is undefined behaviour, in practice a crash.
#include "pacer/pacer.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>

#include "pacer/frame_pacer.hpp"
#include "pacer/log.hpp"
#include "pacer/waiter.hpp"

// The C enums are the C++ enums' values: conversions are plain casts, checked here once.
static_assert(PACER_MODE_SLEEP == static_cast<int>(pacer::WaitMode::sleep) &&
              PACER_MODE_SPIN == static_cast<int>(pacer::WaitMode::spin) &&
              PACER_MODE_HYBRID == static_cast<int>(pacer::WaitMode::hybrid) &&
              PACER_MODE_VSYNC == static_cast<int>(pacer::WaitMode::vsync) &&
              PACER_MODE_AUTO == static_cast<int>(pacer::WaitMode::automatic));
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
static_assert(PACER_DISPLAY_UNKNOWN == static_cast<int>(pacer::DisplayState::unknown) &&
                  PACER_DISPLAY_LOCKING == static_cast<int>(pacer::DisplayState::locking) &&
                  PACER_DISPLAY_LOCKED == static_cast<int>(pacer::DisplayState::locked) &&
                  PACER_DISPLAY_VRR == static_cast<int>(pacer::DisplayState::vrr) &&
                  PACER_DISPLAY_LOST == static_cast<int>(pacer::DisplayState::lost),
              "C and C++ display states");
static_assert(PACER_LOG_DEBUG == static_cast<int>(pacer::LogLevel::debug) &&
              PACER_LOG_INFO == static_cast<int>(pacer::LogLevel::info) &&
              PACER_LOG_WARN == static_cast<int>(pacer::LogLevel::warn) &&
              PACER_LOG_ERROR == static_cast<int>(pacer::LogLevel::error) &&
              PACER_LOG_OFF == static_cast<int>(pacer::LogLevel::off));

struct pacer_frame_pacer {
    pacer::FramePacer impl;
};

namespace {

// A fixed buffer, not a std::string: reporting std::bad_alloc must not allocate.
thread_local char t_last_error[512] = "";

int fail(int code, const char* message) noexcept {
    std::snprintf(t_last_error, sizeof t_last_error, "%s", message ? message : "");
    return code;
}

// Runs f (returning an int code) and maps whatever it throws to an error code.
template <class F>
int guarded(F&& f) noexcept {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        return fail(PACER_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const pacer::ConfigError& e) {
        return fail(PACER_ERROR_INVALID_ARGUMENT, e.what());
    } catch (const std::exception& e) {
        return fail(PACER_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(PACER_ERROR_INTERNAL, "unknown exception");
    }
}

int null_pacer(const char* function) noexcept {
    char text[128];
    std::snprintf(text, sizeof text, "%s: the pacer is NULL", function);
    return fail(PACER_ERROR_INVALID_ARGUMENT, text);
}

int status_code(const pacer::Status& s) noexcept {
    return s ? PACER_OK : fail(PACER_ERROR_INVALID_ARGUMENT, s.message().c_str());
}

pacer::PacerConfig to_cpp(const pacer_config& c) noexcept {
    pacer::PacerConfig config;
    config.target_hz = c.target_hz;
    config.mode = static_cast<pacer::WaitMode>(c.mode);
    config.late_policy = static_cast<pacer::LatePolicy>(c.late_policy);
    config.max_catch_up = c.max_catch_up;
    config.miss_tolerance = std::chrono::nanoseconds(c.miss_tolerance_ns);
    config.background_hz = c.background_hz;
    config.sync = static_cast<pacer::SyncMode>(c.sync);
    config.max_late_share = c.max_late_share;
    config.cadence = static_cast<pacer::CadenceMode>(c.cadence);
    config.display_lock = c.display_lock != 0;
    config.match_display = c.match_display != 0;
    return config;
}

std::int64_t ns(std::chrono::nanoseconds d) noexcept { return static_cast<std::int64_t>(d.count()); }

// The C log function and its user pointer, handed to pacer::set_log_function as its user
// pointer. A new sink per pacer_set_log_function: the log calls its function under its own lock,
// so once set_log_function has returned no call can still be using the previous sink, which is
// then freed. g_sink_mutex only orders concurrent pacer_set_log_function calls; it is never taken
// while a line is logged.
struct CSink {
    pacer_log_function fn;
    void* user;
};
std::mutex g_sink_mutex;
CSink* g_sink = nullptr;

void to_c_sink(pacer::LogLevel level, const char* message, void* user) {
    const CSink* sink = static_cast<const CSink*>(user);
    sink->fn(static_cast<int>(level), message, sink->user);
}

}  // namespace

extern "C" {

pacer_config pacer_config_default(void) {
    const pacer::PacerConfig d;
    pacer_config c;
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
    return c;
}

pacer_frame_pacer* pacer_create(const pacer_config* config) {
    pacer_frame_pacer* created = nullptr;
    guarded([&] {
        const pacer_config c = config ? *config : pacer_config_default();
        created = new pacer_frame_pacer{pacer::FramePacer(to_cpp(c))};
        return PACER_OK;
    });
    return created;
}

void pacer_destroy(pacer_frame_pacer* fp) { delete fp; }

int pacer_wait(pacer_frame_pacer* fp, pacer_frame_timing* timing) {
    if (timing) *timing = pacer_frame_timing{};
    if (!fp) return null_pacer("pacer_wait");
    const pacer::FrameTiming t = fp->impl.wait();
    if (timing) {
        timing->index = t.index;
        timing->deadline_ns = pacer::clock::to_ns(t.deadline);
        timing->wake_ns = pacer::clock::to_ns(t.wake);
        timing->lateness_ns = ns(t.lateness);
        timing->interval_ns = ns(t.interval);
        timing->work_ns = ns(t.work);
        timing->period_ns = ns(t.period);
        timing->slept_ns = ns(t.slept);
        timing->spun_ns = ns(t.spun);
        timing->skipped = t.skipped;
        timing->missed = t.missed ? 1 : 0;
        timing->mode = static_cast<int>(t.mode);
        timing->source = static_cast<int>(t.source);
        timing->background = t.background ? 1 : 0;
        timing->sync = static_cast<int>(t.sync);
        timing->latency_ns = ns(t.latency);
        timing->input_to_present_ns = ns(t.input_to_present);
        timing->latency_measured = t.latency_measured ? 1 : 0;
        timing->shown_late = t.shown_late ? 1 : 0;
        timing->cadence = t.cadence;
        timing->cadence_hz = t.cadence_hz;
        timing->display_dt_ns = ns(t.display_dt);
        timing->display_locked = t.display_locked ? 1 : 0;
    }
    return PACER_OK;
}

int pacer_set_target_hz(pacer_frame_pacer* fp, double target_hz) {
    if (!fp) return null_pacer("pacer_set_target_hz");
    return guarded([&] { return status_code(fp->impl.set_target_hz(target_hz)); });
}

int pacer_set_mode(pacer_frame_pacer* fp, int mode) {
    if (!fp) return null_pacer("pacer_set_mode");
    return guarded([&] {
        pacer::PacerConfig c = fp->impl.config();
        c.mode = static_cast<pacer::WaitMode>(mode);
        return status_code(fp->impl.set_config(c));
    });
}

int pacer_set_sync(pacer_frame_pacer* fp, int sync) {
    if (!fp) return null_pacer("pacer_set_sync");
    return guarded([&] {
        pacer::PacerConfig c = fp->impl.config();
        c.sync = static_cast<pacer::SyncMode>(sync);
        return status_code(fp->impl.set_config(c));
    });
}

int pacer_mark_input(pacer_frame_pacer* fp) {
    if (!fp) return null_pacer("pacer_mark_input");
    fp->impl.mark_input();
    return PACER_OK;
}

int pacer_before_present(pacer_frame_pacer* fp) {
    if (!fp) return null_pacer("pacer_before_present");
    fp->impl.before_present();
    return PACER_OK;
}

int pacer_set_background(pacer_frame_pacer* fp, int on) {
    if (!fp) return null_pacer("pacer_set_background");
    fp->impl.set_background(on != 0);
    return PACER_OK;
}

int pacer_set_late_policy(pacer_frame_pacer* fp, int late_policy, int max_catch_up) {
    if (!fp) return null_pacer("pacer_set_late_policy");
    return guarded([&] {
        pacer::PacerConfig c = fp->impl.config();
        c.late_policy = static_cast<pacer::LatePolicy>(late_policy);
        c.max_catch_up = max_catch_up;
        return status_code(fp->impl.set_config(c));
    });
}

int pacer_report_present(pacer_frame_pacer* fp, const pacer_present* present) {
    if (!fp) return null_pacer("pacer_report_present");
    if (!present) return fail(PACER_ERROR_INVALID_ARGUMENT, "pacer_report_present: the present is NULL");
    pacer::PresentInfo p;
    p.begin = pacer::clock::from_ns(present->begin_ns);
    p.end = pacer::clock::from_ns(present->end_ns);
    p.swap_interval = present->swap_interval;
    p.refresh_hz = present->refresh_hz;
    p.ok = present->ok != 0;
    if (present->displayed_ns != 0) p.displayed = pacer::clock::from_ns(present->displayed_ns);
    fp->impl.report_present(p);
    return PACER_OK;
}

int pacer_report_vblank(pacer_frame_pacer* fp, int64_t vblank_ns) {
    if (!fp) return null_pacer("pacer_report_vblank");
    fp->impl.report_vblank(pacer::clock::from_ns(vblank_ns));
    return PACER_OK;
}

int pacer_get_display_status(const pacer_frame_pacer* fp, pacer_display_status* out) {
    if (!fp) return null_pacer("pacer_get_display_status");
    if (!out) return fail(PACER_ERROR_INVALID_ARGUMENT, "pacer_get_display_status: out is NULL");
    const pacer::DisplayStatus s = fp->impl.status().display;
    out->state = static_cast<int>(s.state);
    out->refresh_hz = s.refresh_hz;
    out->reported_hz = s.reported_hz;
    out->skew_ppm = s.skew_ppm;
    out->vblank_ns = pacer::clock::to_ns(s.vblank);
    out->vrr_min_hz = s.vrr_min_hz;
    out->vrr_max_hz = s.vrr_max_hz;
    out->reason = s.reason;
    return PACER_OK;
}

int pacer_desired_swap_interval(const pacer_frame_pacer* fp) {
    if (!fp) return null_pacer("pacer_desired_swap_interval");
    return fp->impl.desired_swap_interval();
}

int64_t pacer_now_ns(void) { return pacer::clock::to_ns(pacer::clock::now()); }

int64_t pacer_sleep_until_ns(int64_t deadline_ns) {
    return ns(pacer::sleep_until(pacer::clock::from_ns(deadline_ns)).lateness);
}

int64_t pacer_sleep_for_ns(int64_t duration_ns) {
    return ns(pacer::sleep_for(std::chrono::nanoseconds(duration_ns)).lateness);
}

const char* pacer_last_error(void) { return t_last_error; }

int pacer_set_log_function(pacer_log_function fn, void* user) {
    return guarded([&] {
        std::lock_guard<std::mutex> lock(g_sink_mutex);
        CSink* sink = nullptr;
        if (fn == pacer_log_to_stderr) {
            pacer::set_log_function(pacer::log_to_stderr);
        } else if (fn) {
            sink = new CSink{fn, user};
            pacer::set_log_function(to_c_sink, sink);
        } else {
            pacer::set_log_function(nullptr);
        }
        delete g_sink;
        g_sink = sink;
        return PACER_OK;
    });
}

void pacer_log_to_stderr(int level, const char* message, void* user) {
    pacer::log_to_stderr(static_cast<pacer::LogLevel>(level), message, user);
}

int pacer_set_log_level(int level) {
    if (level < PACER_LOG_DEBUG || level > PACER_LOG_OFF) {
        char text[96];
        std::snprintf(text, sizeof text, "log level = %d: must be in [%d, %d] (PACER_LOG_*)", level,
                      PACER_LOG_DEBUG, PACER_LOG_OFF);
        return fail(PACER_ERROR_INVALID_ARGUMENT, text);
    }
    pacer::set_log_level(static_cast<pacer::LogLevel>(level));
    return PACER_OK;
}

int pacer_log_level(void) { return static_cast<int>(pacer::log_level()); }

}  // extern "C"
