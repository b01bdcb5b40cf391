#include "window.hpp"

#include <SDL.h>
#include <imgui.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <pacer/sdl2.hpp>

#include "gl_window.hpp"
#include "headless.hpp"
#include "panels.hpp"
#include "presenter.hpp"
#include "render_thread.hpp"
#include "vblank_source.hpp"
#include "screenshot.hpp"
#include "session.hpp"
#include "ui_state.hpp"

namespace pacer_demo {

namespace {

constexpr std::uint64_t kWarmupFrames = 30;  // left out of the statistics, see frame()

// The display's refresh rate: --refresh-hz if given, else --fake-vsync's rate, else what SDL
// reports for the display the window is on (0 = unknown; SDL reports 0 under Xvfb).
double display_refresh_hz(SDL_Window* win, const Options& o) {
    if (o.refresh_hz > 0) return o.refresh_hz;
    if (o.fake_vsync_hz > 0) return o.fake_vsync_hz;
    return pacer::sdl2::display_refresh_hz(win);
}

// The window's real swap.
class GlSwap final : public Swap {
public:
    explicit GlSwap(SDL_Window* win) : win_(win) {}
    bool set_interval(int interval, std::string* why) override {
        if (SDL_GL_SetSwapInterval(interval) == 0) return true;
        *why = SDL_GetError();
        return false;
    }
    void swap() override { SDL_GL_SwapWindow(win_); }

private:
    SDL_Window* win_;
};

// The windowed loop: one paced frame per call of frame(), and what it measures on the way.
class FrameLoop {
public:
    FrameLoop(const Options& o, GlWindow& w, Session& s)
        : o_(o), w_(w), s_(s), ui_(o, s), gl_swap_(w.sdl()), fake_(o.fake_vsync_hz, &gl_swap_), status_(s) {
        feed_.open(w.sdl(), o.vblank_source);
    }

    bool frame();  // false once the run is over
    int finish();  // the summary lines; returns the exit code
    // --replay: a file that cannot be read is shown in the panel, and the exit status is 1.
    void start_replay(const std::string& path);

private:
    // CPU of this thread at NewFrame, after ImGui::Render and after the GL draw calls, and of the
    // process at NewFrame: Mesa's llvmpipe rasterises on its own threads.
    struct UiTimes {
        pacer::CpuTimes start;
        std::int64_t built_ns, drawn_ns;
    };
    UiTimes draw_ui();
    void screenshot_if_due();
    void present(const UiTimes& t);
    void print_status(double t);
    // --render-thread (and the panel's toggle): the draw and the present on a second thread.
    void switch_render_thread(bool on);
    void hand_over(const UiTimes& t);
    RenderThread::Done render_frame(const std::shared_ptr<GlWindow::DrawCopy>& copy, std::uint64_t frame,
                                    pacer::WaitMode mode, bool manual_vsync, bool screenshot);
    void take_rendered();

    const Options& o_;
    GlWindow& w_;
    Session& s_;
    UiState ui_;
    UiCost cost_;
    Presenter presenter_;
    VblankFeed feed_;
    GlSwap gl_swap_;
    FakeVsync fake_;  // used with --fake-vsync only
    StatusLine status_;
    double next_status_ = 1.0;
    double presenter_refresh_hz_ = 0;  // handed to the render thread with each frame
    int exit_code_ = 0;
    pacer::TimeSource& os_ = pacer::system_time_source();
    // The render thread's side. While it runs, presenter_, feed_ and the swaps are its own; the
    // game thread keeps the frames' timings until their presents come back, and what the panels
    // show of the presenter (view_).
    RenderThread render_;
    std::array<pacer::FrameTiming, 8> handed_{};
    std::array<double, 8> handed_imgui_ms_{};
    Presenter view_;
    std::uint64_t rendered_ = 0;
    bool used_render_thread_ = false;
};

bool FrameLoop::frame() {
    // 1. Pace: block until this frame's deadline.
    s_.begin_frame();
    // The render thread starts after one frame drawn here (ImGui's GL objects are made then).
    if (ui_.render_thread != render_.running() && (s_.frames() > 1 || !ui_.render_thread))
        switch_render_thread(ui_.render_thread);
    if (render_.running()) take_rendered();
    // The first frames carry window creation, font upload and shader compilation (tens of ms
    // each under Mesa): not what the pacer does. Statistics start after them.
    if (s_.frames() == kWarmupFrames && !s_.replaying()) s_.reset_stats();
    // 2. Input (the pacer times the frame's latency from here).
    s_.mark_input();
    const bool quit = w_.poll_events();
    // Minimized or unfocused: nobody watches, so pace at the background cap (10 Hz, OS sleep).
    s_.pacer().set_background(w_.in_background());
    // 3. Fixed-step simulation, 4. the game's own CPU work.
    s_.simulate();
    s_.do_work();
    if (s_.refresh_due()) {
        s_.refresh(true);
        cost_.roll();
    }
    // 5. UI and draw, measured; 6. present, and tell the pacer how it went (vsync detection).
    // With a render thread, the draw and the present are its own, a frame behind.
    const UiTimes t = draw_ui();
    if (render_.running()) {
        hand_over(t);
    } else {
        screenshot_if_due();
        present(t);
    }
    const double elapsed = s_.elapsed_s();
    print_status(elapsed);
    if (quit) return false;
    if (o_.frames != 0 && s_.frames() >= o_.frames) return false;
    return !(o_.seconds > 0 && elapsed >= o_.seconds);
}

FrameLoop::UiTimes FrameLoop::draw_ui() {
    UiTimes t{os_.cpu_times(), 0, 0};
    w_.new_frame();
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    if (!render_.running()) view_ = presenter_;
    draw_panels(s_, ui_, cost_, view_, o_, d.x, d.y);
    ImGui::Render();
    t.built_ns = os_.cpu_times().thread.count();
    if (!render_.running()) w_.draw();
    t.drawn_ns = os_.cpu_times().thread.count();
    return t;
}

void FrameLoop::switch_render_thread(bool on) {
    if (on) {
        if (!w_.make_current(false)) {
            spdlog::error("render thread not started: the GL context stays here: {}", SDL_GetError());
            ui_.render_thread = false;
            return;
        }
        GlWindow* w = &w_;
        // SDL's per-thread state (the current context, the error text) is freed for SDL's own
        // threads only: this one gives it back when it ends.
        render_.start([w] { w->make_current(true); }, [w] {
            w->make_current(false);
            SDL_TLSCleanup();
        });
        used_render_thread_ = true;
        spdlog::info("render thread on: draw and present a frame behind the pacing thread");
    } else {
        render_.stop();
        take_rendered();
        w_.make_current(true);
        spdlog::info("render thread off");
    }
}

// The frame built here goes to the render thread: a copy of ImGui's draw data and what its
// present needs, read here (the pacer's settings are the pacing thread's).
void FrameLoop::hand_over(const UiTimes& t) {
    if (s_.frames() == 1 || s_.refresh_due()) view_.refresh_hz = display_refresh_hz(w_.sdl(), o_);
    const pacer::FrameTiming& ft = s_.timing();
    const std::size_t slot = static_cast<std::size_t>(ft.frame % handed_.size());
    handed_[slot] = ft;
    handed_imgui_ms_[slot] = static_cast<double>(t.built_ns - t.start.thread.count()) * 1e-6;
    auto copy = std::make_shared<GlWindow::DrawCopy>(ImGui::GetDrawData());
    const pacer::WaitMode mode = s_.pacer().config().mode;
    const bool manual = ui_.vsync, shot = !o_.screenshot.empty() && s_.frames() == o_.screenshot_frame;
    presenter_refresh_hz_ = view_.refresh_hz;
    const std::uint64_t frame = ft.frame;
    render_.submit({frame, [this, copy, frame, mode, manual, shot] {
                        return render_frame(copy, frame, mode, manual, shot);
                    }});
}

// On the render thread: draw, present and report the frame (PresentInfo::frame), and what the
// vblank source said since.
RenderThread::Done FrameLoop::render_frame(const std::shared_ptr<GlWindow::DrawCopy>& copy, std::uint64_t frame,
                                           pacer::WaitMode mode, bool manual_vsync, bool screenshot) {
    RenderThread::Done d;
    const std::int64_t c0 = os_.cpu_times().thread.count();
    w_.draw(*copy);
    d.draw_ms = static_cast<double>(os_.cpu_times().thread.count() - c0) * 1e-6;
    if (screenshot) {
        int fw = 0, fh = 0;
        w_.drawable_size(&fw, &fh);
        d.screenshot = write_screenshot(o_.screenshot, fw, fh, &d.screenshot_error) ? 1 : -1;
    }
    presenter_.refresh_hz = presenter_refresh_hz_;
    s_.pacer().before_present(frame);
    Swap& swap = o_.fake_vsync_hz > 0 ? static_cast<Swap&>(fake_) : gl_swap_;
    feed_.before_swap(presenter_.next_id);
    d.present = presenter_.present(swap, s_.pacer(), mode, manual_vsync, frame);
    feed_.after_swap(s_.pacer(), [&d](const pacer::PresentInfo& f) { d.feedback.push_back(f); });
    d.requested = presenter_.requested;
    d.vblank_flags = feed_.flags();
    d.keep = copy;  // freed on the game thread: ImGui's allocator counts in its context
    return d;
}

// On the game thread: what the render thread presented, into the capture (rows in frame order,
// then the feedback), the phase figures, the cost panel and the panels' view of the presenter.
void FrameLoop::take_rendered() {
    for (RenderThread::Done& d : render_.take_done()) {
        const std::size_t slot = static_cast<std::size_t>(d.frame % handed_.size());
        pacer::CaptureExtras extras;
        extras.present = d.present;
        if (handed_[slot].frame == d.frame) s_.record(handed_[slot], extras);
        for (const pacer::PresentInfo& f : d.feedback) s_.capture_writer().feedback(f);
        s_.note_present(d.present.end);
        view_.in_effect = d.present.swap_interval;
        view_.requested = d.requested;
        view_.vblank_source = feed_.name();
        view_.vblank_flags = d.vblank_flags;
        cost_.add(handed_imgui_ms_[slot], d.draw_ms, pacer::to_ms(d.present.end - d.present.begin), 0.0);
        if (d.screenshot > 0) spdlog::info("screenshot written: {}", o_.screenshot);
        if (d.screenshot < 0) {
            spdlog::error("screenshot failed: {}", d.screenshot_error);
            exit_code_ = 1;
        }
        ++rendered_;
    }
}

void FrameLoop::screenshot_if_due() {
    if (o_.screenshot.empty() || s_.frames() != o_.screenshot_frame) return;
    int fw = 0, fh = 0;
    w_.drawable_size(&fw, &fh);
    std::string err;
    if (write_screenshot(o_.screenshot, fw, fh, &err)) {
        spdlog::info("screenshot written: {} ({}x{})", o_.screenshot, fw, fh);
    } else {
        spdlog::error("screenshot failed: {}", err);
        exit_code_ = 1;
    }
}

void FrameLoop::present(const UiTimes& t) {
    if (s_.frames() == 1 || s_.refresh_due()) presenter_.refresh_hz = display_refresh_hz(w_.sdl(), o_);
    s_.before_present();  // present sync waits here
    const std::int64_t w0 = pacer::clock::to_ns(os_.now());
    Swap& swap = o_.fake_vsync_hz > 0 ? static_cast<Swap&>(fake_) : gl_swap_;
    const std::uint64_t id = presenter_.next_id;
    feed_.before_swap(id);
    presenter_.present(swap, s_.pacer(), s_.pacer().config().mode, ui_.vsync);
    const std::int64_t w1 = pacer::clock::to_ns(os_.now());
    // The capture's MsBetweenPresents runs from present to present, as PresentMon's does. The
    // pacer's clock is the OS clock here (the coarse scheduler only changes the sleep). The row
    // first, then the feedback that arrived (for it or earlier rows).
    pacer::CaptureExtras extras;
    extras.present = pacer::PresentInfo{pacer::clock::from_ns(w0), pacer::clock::from_ns(w1), presenter_.in_effect,
                                        presenter_.refresh_hz};
    extras.present->id = id;
    s_.record(extras);
    feed_.after_swap(s_.pacer(), s_.capture_writer());
    if (s_.frames() == 1 || s_.refresh_due()) {  // the panel's words, not rebuilt every frame
        presenter_.vblank_source = feed_.name();
        presenter_.vblank_flags = feed_.flags();
    }
    s_.note_present(pacer::clock::from_ns(w1));
    const pacer::CpuTimes end = os_.cpu_times();
    const std::int64_t start = t.start.thread.count();
    cost_.add(static_cast<double>(t.built_ns - start) * 1e-6, static_cast<double>(t.drawn_ns - t.built_ns) * 1e-6,
              static_cast<double>(w1 - w0) * 1e-6,
              static_cast<double>((end.process.count() - t.start.process.count()) - (end.thread.count() - start)) * 1e-6);
}

void FrameLoop::start_replay(const std::string& path) {
    const pacer::Status st = s_.start_replay(path);
    ui_.report(st, "replaying " + path);
    if (!st) {
        spdlog::error("{}", st.message());
        exit_code_ = 1;
    }
}

void FrameLoop::print_status(double t) {
    if (t >= next_status_) {  // the same once-a-second line as headless, for logs and tests
        status_.print(s_);
        next_status_ = std::max(next_status_ + 1.0, t);
    }
}

int FrameLoop::finish() {
    if (render_.running()) switch_render_thread(false);  // the last frames' presents and rows
    if (!o_.screenshot.empty() && s_.frames() < o_.screenshot_frame) {
        spdlog::error("screenshot not taken: the demo ended after {} frames, before frame {}", s_.frames(),
                      o_.screenshot_frame);
        exit_code_ = 1;
    }
    print_summary(s_, "window", feed_.name(), cost_.run_avg(cost_.swap));
    if (used_render_thread_) {
        const pacer::PacerStatus st = s_.pacer().status();
        std::printf("render_thread: frames=%llu frames_in_flight=%d reports_lost=%llu\n",
                    static_cast<unsigned long long>(rendered_), st.frames_in_flight,
                    static_cast<unsigned long long>(st.reports_lost));
    }
    if (s_.replaying())
        std::printf("replay: file=%s format=%s frames_shown=%zu of %zu\n", s_.replay().path().c_str(),
                    s_.replay().format().c_str(), s_.replay_position(), s_.replay().size());
    std::printf("ui_cost: frames=%lld imgui_cpu_ms=%.3f draw_cpu_ms=%.3f total_cpu_ms=%.3f "
                "swap_wall_ms=%.3f other_threads_cpu_ms=%.3f\n",
                cost_.run_n, cost_.run_avg(cost_.imgui), cost_.run_avg(cost_.draw), cost_.run_avg(cost_.total),
                cost_.run_avg(cost_.swap), cost_.run_avg(cost_.others));
    if (finish_capture(s_) != 0) exit_code_ = 1;
    return exit_code_;
}

}  // namespace

int run_window(const Options& o, std::string* why) {
    const std::unique_ptr<GlWindow> w = GlWindow::open(why);
    if (!w) return kNoDisplay;
    style_panels();
    Session s(o);
    int exit_code = 0;
    if (!o.capture.empty()) {
        if (pacer::Status st = s.start_capture(o.capture); !st) {
            spdlog::error("{}", st.message());
            exit_code = 1;
        }
    }
    FrameLoop loop(o, *w, s);
    if (!o.replay.empty()) loop.start_replay(o.replay);
    while (loop.frame()) {
    }
    const int code = loop.finish();
    return code != 0 ? code : exit_code;
}

}  // namespace pacer_demo
