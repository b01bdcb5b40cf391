// The C API (pacer/pacer.h): the pacer, its settings and status, the clock, sleeps, version and
// log. Each function translates its arguments, calls the C++ API and turns every failure,
// exceptions included, into a return code and the thread's last error (c_api_common.cpp).
// Captures are in c_api_capture.cpp, statistics in c_api_stats.cpp.
#include <cstdio>
#include <cstring>
#include <mutex>

#include "c_api/c_api_internal.hpp"
#include "pacer/log.hpp"
#include "pacer/version.hpp"
#include "pacer/waiter.hpp"

namespace pacer::capi {

namespace {

int status_code(const Status& s) noexcept {
    return s ? PACER_OK : fail(PACER_ERROR_INVALID_ARGUMENT, s.message().c_str());
}

// The config in force with change applied, through FramePacer::set_config: the one path of every
// run-time change, which does nothing when the result is the config in force.
template <class Change>
int change_config(pacer_frame_pacer* fp, const char* function, Change change) noexcept {
    if (!fp) return null_argument(function, "the pacer");
    return guarded([&] {
        PacerConfig c = fp->impl.config();
        change(c);
        return status_code(fp->impl.set_config(c));
    });
}

// The status structs, field by field (pacer_get_status).
void fill(pacer_priority_status& out, const PriorityStatus& s) noexcept {
    out.asked = static_cast<int>(s.asked);
    out.granted = s.granted ? 1 : 0;
    out.refused = s.refused ? 1 : 0;
    out.raised_now = s.raised_now ? 1 : 0;
    out.raises = s.raises;
    static_assert(sizeof out.in_force == sizeof s.in_force && sizeof out.reason == sizeof s.reason &&
                  sizeof out.guard == sizeof s.guard);
    std::memcpy(out.in_force, s.in_force, sizeof out.in_force);
    std::memcpy(out.reason, s.reason, sizeof out.reason);
    out.pending = s.pending ? 1 : 0;
    out.lever = static_cast<int>(s.lever);
    out.by = static_cast<int>(s.by);
    out.demotions = s.demotions;
    std::memcpy(out.guard, s.guard, sizeof out.guard);
}

void fill(pacer_vsync_status& out, const VsyncStatus& s) noexcept {
    out.requested = s.requested ? 1 : 0;
    out.detected = s.detected ? 1 : 0;
    out.in_use = s.in_use ? 1 : 0;
    out.swap_interval = s.swap_interval;
    out.refresh_hz = s.refresh_hz;
    out.swap_hz = s.swap_hz;
    out.code = static_cast<int>(s.code);
    out.reason = s.reason;
}

void fill(pacer_display_status& out, const DisplayStatus& s) noexcept {
    out.state = static_cast<int>(s.state);
    out.reason = s.reason;
    out.refresh_hz = s.refresh_hz;
    out.reported_hz = s.reported_hz;
    out.skew_ppm = s.skew_ppm;
    out.period_ns = ns(s.period);
    out.vblank_ns = clock::to_ns(s.vblank);
    out.residual_ns = ns(s.residual);
    out.vblanks = s.vblanks;
    out.locks = s.locks;
    out.vrr_min_hz = s.vrr_min_hz;
    out.vrr_max_hz = s.vrr_max_hz;
    out.shown_hz = s.shown_hz;
    out.by_counter = s.by_counter ? 1 : 0;
}

void fill(pacer_cadence_status& out, const CadenceStatus& s) noexcept {
    out.divisor = s.divisor;
    out.hz = s.hz;
    out.base_ns = ns(s.base);
    out.cost_ns = ns(s.cost);
    out.switches = s.switches;
    out.code = static_cast<int>(s.code);
    out.reason = s.reason;
}

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

void to_c_sink(LogLevel level, const char* message, void* user) {
    const CSink* sink = static_cast<const CSink*>(user);
    sink->fn(static_cast<int>(level), message, sink->user);
}

}  // namespace

pacer_frame_pacer* create(const pacer_config* config, TimeSource* ts) noexcept {
    pacer_frame_pacer* created = nullptr;
    (void)guarded([&] {
        const PacerConfig c = config ? to_cpp(*config) : PacerConfig{};
        created = new pacer_frame_pacer{FramePacer(c, ts)};
        return PACER_OK;
    });
    return created;
}

}  // namespace pacer::capi

using namespace pacer::capi;

extern "C" {

pacer_config pacer_config_default(void) { return to_c(pacer::PacerConfig{}); }

pacer_frame_pacer* pacer_create(const pacer_config* config) { return create(config, nullptr); }

void pacer_destroy(pacer_frame_pacer* fp) { delete fp; }

int pacer_wait(pacer_frame_pacer* fp, pacer_frame_timing* timing) {
    if (!fp) {
        if (timing) *timing = pacer_frame_timing{};
        return null_argument("pacer_wait", "the pacer");
    }
    const pacer::FrameTiming t = fp->impl.wait();
    if (timing) *timing = to_c(t);
    return PACER_OK;
}

int pacer_get_config(const pacer_frame_pacer* fp, pacer_config* out) {
    if (!fp) return null_argument("pacer_get_config", "the pacer");
    if (!out) return null_argument("pacer_get_config", "out");
    *out = to_c(fp->impl.config());
    return PACER_OK;
}

int pacer_set_config(pacer_frame_pacer* fp, const pacer_config* config) {
    if (fp && !config) return null_argument("pacer_set_config", "config");
    return change_config(fp, "pacer_set_config", [&](pacer::PacerConfig& c) { c = to_cpp(*config); });
}

int pacer_set_target_hz(pacer_frame_pacer* fp, double target_hz) {
    return change_config(fp, "pacer_set_target_hz", [&](pacer::PacerConfig& c) { c.target_hz = target_hz; });
}

int pacer_set_mode(pacer_frame_pacer* fp, int mode) {
    return change_config(fp, "pacer_set_mode",
                         [&](pacer::PacerConfig& c) { c.mode = static_cast<pacer::WaitMode>(mode); });
}

int pacer_set_late_policy(pacer_frame_pacer* fp, int late_policy, int max_catch_up) {
    return change_config(fp, "pacer_set_late_policy", [&](pacer::PacerConfig& c) {
        c.late_policy = static_cast<pacer::LatePolicy>(late_policy);
        c.max_catch_up = max_catch_up;
    });
}

int pacer_set_sync(pacer_frame_pacer* fp, int sync) {
    return change_config(fp, "pacer_set_sync",
                         [&](pacer::PacerConfig& c) { c.sync = static_cast<pacer::SyncMode>(sync); });
}

int pacer_set_background(pacer_frame_pacer* fp, int on) {
    if (!fp) return null_argument("pacer_set_background", "the pacer");
    fp->impl.set_background(on != 0);
    return PACER_OK;
}

int pacer_mark_input(pacer_frame_pacer* fp) {
    if (!fp) return null_argument("pacer_mark_input", "the pacer");
    fp->impl.mark_input();
    return PACER_OK;
}

int pacer_before_present(pacer_frame_pacer* fp) {
    if (!fp) return null_argument("pacer_before_present", "the pacer");
    fp->impl.before_present();
    return PACER_OK;
}

int pacer_before_present_frame(pacer_frame_pacer* fp, uint64_t frame) {
    if (!fp) return null_argument("pacer_before_present_frame", "the pacer");
    fp->impl.before_present(frame);
    return PACER_OK;
}

int pacer_report_present(pacer_frame_pacer* fp, const pacer_present* present) {
    if (!fp) return null_argument("pacer_report_present", "the pacer");
    if (!present) return null_argument("pacer_report_present", "the present");
    fp->impl.report_present(to_cpp(*present));
    return PACER_OK;
}

int pacer_desired_swap_interval(const pacer_frame_pacer* fp) {
    if (!fp) return null_argument("pacer_desired_swap_interval", "the pacer");
    return fp->impl.desired_swap_interval();
}

int pacer_report_vblank(pacer_frame_pacer* fp, int64_t vblank_ns) {
    if (!fp) return null_argument("pacer_report_vblank", "the pacer");
    fp->impl.report_vblank(pacer::clock::from_ns(vblank_ns));
    return PACER_OK;
}

int pacer_reset(pacer_frame_pacer* fp) {
    if (!fp) return null_argument("pacer_reset", "the pacer");
    fp->impl.reset();
    return PACER_OK;
}

int pacer_end_pacing(pacer_frame_pacer* fp) {
    if (!fp) return null_argument("pacer_end_pacing", "the pacer");
    fp->impl.end_pacing();
    return PACER_OK;
}

int pacer_get_status(const pacer_frame_pacer* fp, pacer_status* out) {
    if (!fp) return null_argument("pacer_get_status", "the pacer");
    if (!out) return null_argument("pacer_get_status", "out");
    const pacer::PacerStatus s = fp->impl.status();
    *out = pacer_status{};
    out->period_ns = s.period.count();
    out->background = s.background ? 1 : 0;
    out->frames = s.frames;
    out->missed = s.missed;
    out->waiter.margin_ns = s.waiter.margin.count();
    out->waiter.spin_cap_ns = s.waiter.spin_cap.count();
    out->waiter.preempted_spins = s.waiter.preempted_spins;
    fill(out->waiter.priority, s.waiter.priority);
    out->waiter.spin_bound_ns = s.waiter.spin_bound.count();
    out->waiter.wakeups_past_bound = s.waiter.wakeups_past_bound;
    fill(out->vsync, s.vsync);
    fill(out->display, s.display);
    fill(out->cadence, s.cadence);
    out->frames_in_flight = s.frames_in_flight;
    out->reports_lost = s.reports_lost;
    return PACER_OK;
}

int64_t pacer_now_ns(void) { return pacer::clock::to_ns(pacer::clock::now()); }

int64_t pacer_sleep_until_ns(int64_t deadline_ns) {
    return pacer::sleep_until(pacer::clock::from_ns(deadline_ns)).lateness.count();
}

int64_t pacer_sleep_for_ns(int64_t duration_ns) {
    return pacer::sleep_for(std::chrono::nanoseconds(duration_ns)).lateness.count();
}

int pacer_set_sleep_priority(int priority, int realtime_priority) {
    pacer::PriorityConfig c;
    c.mode = static_cast<pacer::ThreadPriority>(priority);
    c.realtime_priority = realtime_priority;  // nice: its default, -15
    return status_code(pacer::set_sleep_priority(c));
}

int pacer_sleep_priority(pacer_priority_status* out) {
    if (!out) return null_argument("pacer_sleep_priority", "out");
    fill(*out, pacer::sleep_priority());
    return PACER_OK;
}

int pacer_probe_priority(int realtime_priority, int round_robin, pacer_priority_status* out) {
    return pacer_probe_priority_mode(PACER_PRIORITY_WAIT, realtime_priority, round_robin, -15, out);
}

int pacer_probe_priority_mode(int priority, int realtime_priority, int round_robin, int nice,
                              pacer_priority_status* out) {
    if (!out) return null_argument("pacer_probe_priority_mode", "out");
    pacer::WaiterConfig w;
    w.priority = {static_cast<pacer::ThreadPriority>(priority), realtime_priority, round_robin != 0, nice};
    if (const pacer::Status s = pacer::validate(w); !s) return status_code(s);
    const pacer::PriorityGrant g = pacer::probe_priority(w.priority);
    pacer::PriorityStatus st;
    st.asked = w.priority.mode;
    st.granted = g.granted;
    st.refused = !g.granted;
    st.raises = g.granted ? 1 : 0;
    st.pending = g.pending;
    st.lever = g.granted ? g.lever : pacer::PriorityLever::none;
    st.by = g.granted ? g.by : pacer::PriorityGrantor::none;
    st.demotions = g.demotions;
    std::snprintf(st.in_force, sizeof st.in_force, "%s", g.granted ? g.in_force : "normal");
    std::snprintf(st.reason, sizeof st.reason, "%s", g.reason);
    std::snprintf(st.guard, sizeof st.guard, "%s", g.guard);
    fill(*out, st);
    return PACER_OK;
}

const char* pacer_version(void) { return pacer::kVersion; }

const char* pacer_last_error(void) { return last_error(); }

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
        std::snprintf(text, sizeof text, "log level = %d: must be in [%d, %d] (pacer_log_severity)", level,
                      PACER_LOG_DEBUG, PACER_LOG_OFF);
        return fail(PACER_ERROR_INVALID_ARGUMENT, text);
    }
    pacer::set_log_level(static_cast<pacer::LogLevel>(level));
    return PACER_OK;
}

int pacer_log_level(void) { return static_cast<int>(pacer::log_level()); }

}  // extern "C"
