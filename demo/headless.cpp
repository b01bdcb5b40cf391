#include "headless.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "presenter.hpp"
#include "render_thread.hpp"
#include "replay.hpp"
#include "session.hpp"

namespace pacer_demo {

StatusLine::StatusLine(const Session& s) : frames_(s.frames()), t_(s.elapsed_s()) { (void)cpu_.sample(); }

void StatusLine::print(Session& s) {
    const double t = s.elapsed_s();
    const double rate = t > t_ ? static_cast<double>(s.frames() - frames_) / (t - t_) : 0.0;
    frames_ = s.frames();
    t_ = t;
    const pacer::CpuUsage u = cpu_.sample();
    const pacer::StatsSummary& m = s.summary();
    std::printf("t=%.1fs frames=%llu rate=%.1f/s target=%gHz p99_lateness_ms=%.3f missed=%llu "
                "cpu_pct=%.1f machine_pct=%.0f\n",
                t, static_cast<unsigned long long>(s.frames()), rate, s.pacer().config().target_hz,
                pacer::to_ms(m.lateness.p99), static_cast<unsigned long long>(m.missed_total),
                u.valid ? u.process_pct : -1.0, s.machine_pct());
    std::fflush(stdout);
}

namespace {

// " interval_error_p99_ms=X off_100us_share=Y", the end of the summary line: the interval error
// (pacer/stats.hpp) of the frames that have a period, NA for both when none has.
std::string interval_error_fields(const pacer::StatsSummary& m) {
    char p99[32] = "NA", off[32] = "NA", out[96];
    if (m.interval_error_frames > 0) {
        std::snprintf(p99, sizeof p99, "%.3f", pacer::to_ms(m.interval_error.p99));
        std::snprintf(off, sizeof off, "%.4f", m.off_100us_share);
    }
    std::snprintf(out, sizeof out, " interval_error_p99_ms=%s off_100us_share=%s", p99, off);
    return out;
}

// " priority=... priority_in_force=\"...\" ...": the pacing thread's priority in the summary line:
// asked, in force, the lever and who granted it (pacer/modes.hpp's names), whether more is to
// come, the real-time guard's demotions and last step, the raised spin's bound (NA while not
// raised) and the wake-ups past it.
std::string priority_fields(const pacer::WaiterStatus& w) {
    const pacer::PriorityStatus& p = w.priority;
    char bound[32] = "NA";
    if (w.spin_bound.count() > 0) std::snprintf(bound, sizeof bound, "%.3f", pacer::to_ms(w.spin_bound));
    char out[512];
    std::snprintf(out, sizeof out,
                  " priority=%s priority_in_force=\"%s\" priority_lever=%s priority_by=%s priority_pending=%d "
                  "priority_demotions=%llu priority_guard=\"%s\" spin_bound_ms=%s wakeups_past_bound=%lld",
                  pacer::to_string(p.asked), p.in_force, pacer::to_string(p.lever), pacer::to_string(p.by),
                  p.pending ? 1 : 0, static_cast<unsigned long long>(p.demotions), p.guard, bound,
                  static_cast<long long>(w.wakeups_past_bound));
    return out;
}

}  // namespace

void print_summary(Session& s, const char* ui, const char* vblank_source, double swap_ms) {
    const double cpu = s.run_process_pct();
    const pacer::StatsSummary m = s.stats().summarize();  // the window (last 4096 frames)
    const pacer::PacerStatus st = s.pacer().status();
    const pacer::VsyncStatus& vs = st.vsync;
    // Frames that cost more than the period: why, on a line of its own before the summary.
    if (const std::string why = s.replaying() ? std::string() : overrun_text(m, st.rate.hz, vs.in_use, swap_ms);
        !why.empty())
        std::printf("note: %s\n", why.c_str());
    // The display's fitted refresh once locked; frames shown and dropped where presentation
    // feedback says so, else unknown (never the submitted rate).
    char fitted[32] = "NA", shown[32] = "unknown", dropped[32] = "unknown";
    if (st.display.state == pacer::DisplayState::locked) std::snprintf(fitted, sizeof fitted, "%.2f", st.display.refresh_hz);
    if (st.presents.feedback && s.elapsed_s() > 0) {
        std::snprintf(shown, sizeof shown, "%.2f", static_cast<double>(st.presents.shown) / s.elapsed_s());
        std::snprintf(dropped, sizeof dropped, "%llu", static_cast<unsigned long long>(st.presents.dropped));
    }
    // No present reported, no latency (--fake-vsync or the window present): NA without them. The
    // late share also needs to know when frames were shown (session.hpp, shown_late_known).
    const bool lat = m.latency_frames > 0, late_known = shown_late_known(m, vs.in_use);
    char p50[32], p99[32], late[32];
    std::snprintf(p50, sizeof p50, "%.3f", pacer::to_ms(m.latency.p50));
    std::snprintf(p99, sizeof p99, "%.3f", pacer::to_ms(m.latency.p99));
    std::snprintf(late, sizeof late, "%.4f",
                  lat ? static_cast<double>(m.shown_late) / static_cast<double>(m.latency_frames) : 0.0);
    std::printf("summary: frames=%llu seconds=%.2f ui=%s hz=%g mode=%s policy=%s avg_fps=%.2f "
                "p50_interval_ms=%.3f p99_interval_ms=%.3f p99_lateness_ms=%.3f max_lateness_ms=%.3f "
                "missed=%llu stutters=%llu cpu_pct=%.1f frame_cost_ms=%.3f grid_fps=%.2f vsync_requested=%d vsync_detected=%d "
                "vsync_in_use=%d source=%s vsync_reason=\"%s\" swap_hz=%.2f sync=%s latency_p50_ms=%s "
                "latency_p99_ms=%s late_share=%s display_state=%s cadence_hz=%.2f vblank_source=%s fitted_hz=%s "
                "shown_fps=%s dropped=%s%s%s\n",
                static_cast<unsigned long long>(s.frames()), s.elapsed_s(), ui,
                s.pacer().config().target_hz, pacer::to_string(s.pacer().config().mode),
                pacer::to_string(s.pacer().config().late_policy), m.avg_fps, pacer::to_ms(m.interval.p50),
                pacer::to_ms(m.interval.p99), pacer::to_ms(m.lateness.p99), pacer::to_ms(m.lateness.max),
                static_cast<unsigned long long>(m.missed_total),
                static_cast<unsigned long long>(s.stutters()), cpu, frame_cost_ms(m), s.grid_fps(), vs.requested, vs.detected,
                vs.in_use,
                pacer::to_string(s.timing().source), vs.reason, vs.swap_hz,
                pacer::to_string(s.pacer().config().sync), lat ? p50 : "NA", lat ? p99 : "NA", late_known ? late : "NA",
                pacer::to_string(st.display.state), s.timing().cadence_hz, vblank_source, fitted, shown, dropped,
                priority_fields(st.waiter).c_str(), interval_error_fields(m).c_str());
    std::fflush(stdout);
}

namespace {

// --render-thread: the present on a second thread, a frame behind (render_thread.hpp); the
// rows are recorded here once its presents come back.
struct HeadlessRender {
    RenderThread thread;
    std::array<pacer::FrameTiming, 8> handed{};
    std::uint64_t rendered = 0;

    // Records the frames whose presents came back.
    void take_rendered(Session& s, bool fake) {
        for (const RenderThread::Done& d : thread.take_done()) {
            const pacer::FrameTiming& ft = handed[d.frame % handed.size()];
            pacer::CaptureExtras extras;
            if (fake) {
                extras.present = d.present;
                s.note_present(d.present.end);
            }
            if (ft.frame == d.frame) s.record(ft, extras);
            ++rendered;
        }
    }

    // Hands the frame just built to the render thread, which presents it.
    void submit(Session& s, Presenter& presenter, FakeVsync& display, const Options& o, bool fake) {
        const pacer::FrameTiming& ft = s.timing();
        handed[ft.frame % handed.size()] = ft;
        const std::uint64_t frame = ft.frame;
        const pacer::WaitMode mode = s.pacer().config().mode;
        thread.submit({frame, [&s, &presenter, &display, &o, fake, frame, mode] {
                           RenderThread::Done d;
                           s.pacer().before_present(frame);
                           if (fake) d.present = presenter.present(display, s.pacer(), mode, o.vsync, frame);
                           return d;
                       }});
    }

    // The "render_thread: ..." line after the summary.
    void print_line(Session& s) const {
        const pacer::PacerStatus st = s.pacer().status();
        std::printf("render_thread: frames=%llu frames_in_flight=%d reports_lost=%llu\n",
                    static_cast<unsigned long long>(rendered), st.frames_in_flight,
                    static_cast<unsigned long long>(st.reports_lost));
    }
};

// --fake-vsync on the pacing thread: the frame presented to the stand-in display, and recorded.
void present_fake(Session& s, Presenter& presenter, FakeVsync& display, const Options& o) {
    const pacer::clock::time_point w0 = s.pacer().now();
    presenter.present(display, s.pacer(), s.pacer().config().mode, o.vsync);
    s.note_present(s.pacer().now());
    // The capture's MsBetweenPresents runs from present to present, as in the window.
    pacer::CaptureExtras extras;
    extras.present = pacer::PresentInfo{w0, s.pacer().now(), presenter.in_effect, presenter.refresh_hz};
    s.record(extras);
}

}  // namespace

int run_headless(const Options& o) {
    if (!o.replay.empty()) return print_replay_summary(o.replay);  // no loop: the file's figures
    const bool fake = o.fake_vsync_hz > 0;
    if (!fake && (o.mode == pacer::WaitMode::vsync || o.mode == pacer::WaitMode::automatic))
        std::fprintf(stderr, "pacer_demo: headless: no swap to pace with; %s mode paces with hybrid sleep\n",
                     pacer::to_string(o.mode));
    Session s(o);
    // --fake-vsync: frames are presented to the stand-in display, as the window presents them.
    FakeVsync display(o.fake_vsync_hz, nullptr);
    Presenter presenter;
    presenter.refresh_hz = o.refresh_hz > 0 ? o.refresh_hz : o.fake_vsync_hz;
    if (!o.capture.empty()) {
        if (pacer::Status st = s.start_capture(o.capture); !st) {
            std::fprintf(stderr, "pacer_demo: %s\n", st.message().c_str());
            return 1;
        }
    }
    double seconds = o.seconds;
    if (seconds <= 0 && o.frames == 0) seconds = kDefaultHeadlessSeconds;
    double next_status = 1.0;
    StatusLine status(s);
    HeadlessRender render;  // --render-thread
    if (o.render_thread) render.thread.start(nullptr, nullptr);
    for (;;) {
        s.begin_frame();
        if (o.render_thread) render.take_rendered(s, fake);
        s.mark_input();  // no input to read headless: the frame's input sample is here
        s.simulate();
        s.do_work();
        if (o.render_thread) {
            render.submit(s, presenter, display, o, fake);
        } else {
            s.before_present();
            if (fake)
                present_fake(s, presenter, display, o);
            else
                s.record();
        }
        if (s.refresh_due()) s.refresh(false);
        const double t = s.elapsed_s();
        if (t >= next_status) {
            status.print(s);
            next_status += 1.0;
            if (next_status < t) next_status = t + 1.0;  // after a stall, don't print a burst
        }
        if (o.frames != 0 && s.frames() >= o.frames) break;
        if (seconds > 0 && t >= seconds) break;
    }
    if (o.render_thread) {
        render.thread.stop();
        render.take_rendered(s, fake);
    }
    print_summary(s, "headless", "none", -1.0);
    if (o.render_thread) render.print_line(s);
    return finish_capture(s);
}

int finish_capture(Session& s) {
    if (!s.capture().is_open()) return 0;
    const pacer::Status st = s.stop_capture();
    const pacer::CaptureWriter& c = s.capture();
    const std::string stats = pacer::CaptureWriter::stats_path(c.path());
    std::error_code ec;
    std::printf("capture: rows=%llu written=%llu dropped=%llu file=%s stats=%s\n",
                static_cast<unsigned long long>(c.rows()), static_cast<unsigned long long>(c.rows_written()),
                static_cast<unsigned long long>(c.rows_dropped()), c.path().c_str(),
                std::filesystem::is_regular_file(stats, ec) ? stats.c_str() : "none");
    if (!st) {
        std::fprintf(stderr, "pacer_demo: %s\n", st.message().c_str());
        return 1;
    }
    return 0;
}

}  // namespace pacer_demo
