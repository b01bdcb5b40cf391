// pacer/sdl2.hpp in a real SDL2 window, OpenGL and SDL_Renderer, run under Xvfb (tests/CMakeLists.txt
// registers it with xvfb-run). Xvfb has no vblank: Debian 12's Mesa refuses every GL swap interval,
// SDL reports a refresh rate of 0, and SDL 2.26's renderer answers SDL_RenderSetVSync(r, 1) with
// success while it only sleeps to a timer. The checks are what holds there on a loaded machine:
// every present reached the pacer with what SDL really did, the interval the pacer asked for was
// asked of SDL, a refusal (or SDL's timer stand-in) is reported as -1, and auto mode ends up pacing
// with its own hybrid wait. No timing bounds: only the order of the times each present carries.
#include <gtest/gtest.h>

#include <pacer/sdl2.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "pacer/frame_pacer.hpp"

namespace {

constexpr int kFrames = 120;

// SDL video, once for the whole program.
class SdlVideo : public ::testing::Environment {
public:
    void SetUp() override {
        ASSERT_EQ(SDL_Init(SDL_INIT_VIDEO), 0) << "SDL_Init: " << SDL_GetError() << " (run under xvfb-run)";
    }
    void TearDown() override { SDL_Quit(); }
};
[[maybe_unused]] const auto* const kVideo = ::testing::AddGlobalTestEnvironment(new SdlVideo);

struct WindowDeleter {
    void operator()(SDL_Window* w) const noexcept { SDL_DestroyWindow(w); }
};

pacer::PacerConfig auto_config(double hz) {
    pacer::PacerConfig c;
    c.target_hz = hz;
    c.mode = pacer::WaitMode::automatic;
    return c;
}

bool hybrid_fallback(pacer::VsyncReason r) {
    using R = pacer::VsyncReason;
    return r == R::auto_bad_refresh || r == R::auto_no_divisor || r == R::auto_refused || r == R::auto_not_blocking ||
           r == R::auto_other_rate || r == R::auto_irregular || r == R::auto_lost || r == R::auto_missing;
}

// What a run saw, frame by frame.
struct RunLog {
    int asked_one = 0;           // frames on which the pacer asked for interval 1
    int refused_one = 0;         // ... and SDL's answer was reported as -1
    bool saw_fallback = false;   // auto mode said why it paces with hybrid sleep
    bool saw_refused = false;    // ... because the interval was refused
    pacer::VsyncReason last_code = pacer::VsyncReason::off;
};

// kFrames paced frames: wait, draw, present through the adapter. Checks every present.
template <class Presenter, class Draw>
RunLog run_frames(pacer::FramePacer& fp, Presenter& p, Draw&& draw) {
    RunLog run;
    const std::uint64_t before = p.presents();
    pacer::clock::time_point previous_end{};
    for (int i = 0; i < kFrames; ++i) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) p.handle_event(e);
        fp.wait();
        draw();
        const int want = fp.desired_swap_interval();
        const pacer::PresentInfo info = p.present(fp);
        // The interval the pacer asked for was asked of SDL; in effect is that, or -1 (refused).
        EXPECT_EQ(p.requested_interval(), want) << "frame " << i;
        EXPECT_TRUE(p.swap_interval() == want || p.swap_interval() == -1)
            << "frame " << i << ": asked " << want << ", in effect " << p.swap_interval();
        // What was reported is what the presenter says, timed in order on the pacer's clock.
        EXPECT_EQ(info.swap_interval, p.swap_interval());
        EXPECT_EQ(info.refresh_hz, p.refresh_hz());
        EXPECT_LE(info.begin, info.end);
        EXPECT_LE(previous_end, info.begin) << "frame " << i;
        EXPECT_LE(info.end, fp.now());
        previous_end = info.end;
        if (want == 1) {
            ++run.asked_one;
            if (p.swap_interval() == -1) ++run.refused_one;
        }
        const pacer::VsyncStatus& s = fp.status().vsync;
        if (hybrid_fallback(s.code)) run.saw_fallback = true;
        if (s.code == pacer::VsyncReason::auto_refused) run.saw_refused = true;
        run.last_code = s.code;
    }
    EXPECT_EQ(p.presents() - before, static_cast<std::uint64_t>(kFrames));
    // The presents reached the pacer: its detector saw their intervals, and it knows the refresh
    // rate they carried.
    const pacer::VsyncStatus& s = fp.status().vsync;
    EXPECT_GT(s.locked_streak + (s.code != pacer::VsyncReason::auto_waiting ? 1 : 0), 0);
    EXPECT_EQ(s.refresh_hz, p.refresh_hz());
    if (p.refresh_hz() == 0) {
        // The documented unknown case: refresh unknown, and auto mode says so (also when the driver
        // refused the interval as well: Mesa under Xvfb refuses even 0), pacing with hybrid sleep,
        // vsync off.
        EXPECT_EQ(s.code, pacer::VsyncReason::auto_bad_refresh) << s.reason << " (in effect " << p.swap_interval() << ")";
    } else {
        EXPECT_NE(s.code, pacer::VsyncReason::auto_waiting);
    }
    // Xvfb has no vsync: auto mode paces with hybrid sleep, vsync off, and says why.
    EXPECT_TRUE(run.saw_fallback) << "last reason: " << s.reason;
    EXPECT_FALSE(s.in_use) << s.reason;
    EXPECT_FALSE(s.detected) << s.reason;
    return run;
}

// ---- SDL_Renderer -------------------------------------------------------------------------------

struct RendererWindow {
    std::unique_ptr<SDL_Window, WindowDeleter> window;
    SDL_Renderer* renderer = nullptr;
    RendererWindow() : window(SDL_CreateWindow("pacer sdl2 test", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                               320, 240, SDL_WINDOW_SHOWN)) {
        if (window) renderer = SDL_CreateRenderer(window.get(), -1, 0);
    }
    ~RendererWindow() {
        if (renderer != nullptr) SDL_DestroyRenderer(renderer);
    }
    void draw(int frame) const {
        SDL_SetRenderDrawColor(renderer, static_cast<Uint8>(frame * 2), 40, 80, 255);
        SDL_RenderClear(renderer);
    }
};

TEST(Sdl2RendererPresenter, AutoModeWithTheDisplaysOwnRefresh) {
    RendererWindow w;
    ASSERT_NE(w.renderer, nullptr) << SDL_GetError();
    pacer::FramePacer fp(auto_config(60.0));
    pacer::sdl2::RendererPresenter p(w.renderer);  // the window comes from the renderer
    EXPECT_EQ(p.window(), w.window.get());
    int frame = 0;
    run_frames(fp, p, [&] { w.draw(frame++); });
    EXPECT_EQ(p.refresh_hz(), pacer::sdl2::display_refresh_hz(w.window.get()));
    // The pacer asked for vsync off (no usable refresh rate, or none at all under Xvfb), and SDL
    // took it: the renderer's vsync flag is off.
    if (p.refresh_hz() == 0) {
        EXPECT_EQ(p.requested_interval(), 0);
        EXPECT_EQ(p.swap_interval(), 0);
        SDL_RendererInfo info{};
        ASSERT_EQ(SDL_GetRendererInfo(w.renderer, &info), 0);
        EXPECT_EQ(info.flags & SDL_RENDERER_PRESENTVSYNC, 0u);
    }
}

TEST(Sdl2RendererPresenter, SdlsSimulatedVsyncIsReportedRefused) {
    RendererWindow w;
    ASSERT_NE(w.renderer, nullptr) << SDL_GetError();
    pacer::FramePacer fp(auto_config(60.0));
    pacer::sdl2::RendererPresenter p(w.renderer, w.window.get());
    p.set_refresh_hz(60.0);  // as if the display said 60 Hz: auto mode probes vsync
    int frame = 0;
    const RunLog run = run_frames(fp, p, [&] { w.draw(frame++); });
    EXPECT_EQ(p.refresh_hz(), 60.0);
    EXPECT_EQ(fp.status().vsync.refresh_hz, 60.0);
    // Auto mode asked for vsync; under Xvfb SDL_RenderSetVSync(r, 1) "succeeds" with a timer
    // (or a software renderer that has none): reported as refused, every time it was asked.
    ASSERT_GT(run.asked_one, 0) << "auto mode never asked for vsync at 60 Hz";
    EXPECT_EQ(run.refused_one, run.asked_one);
    EXPECT_TRUE(run.saw_refused);
    // The timer stand-in was switched off, and the pacer's later request for vsync off was taken.
    SDL_RendererInfo info{};
    ASSERT_EQ(SDL_GetRendererInfo(w.renderer, &info), 0);
    EXPECT_EQ(info.flags & SDL_RENDERER_PRESENTVSYNC, 0u) << "renderer " << info.name;
    EXPECT_EQ(fp.desired_swap_interval(), 0);
    EXPECT_EQ(p.swap_interval(), 0);
}

TEST(Sdl2RendererPresenter, SetVsyncReportsWhatSdlDoes) {
    RendererWindow w;
    ASSERT_NE(w.renderer, nullptr) << SDL_GetError();
    using pacer::sdl2::RendererPresenter;
    EXPECT_EQ(RendererPresenter::set_vsync(w.renderer, 0), 0);
    EXPECT_EQ(RendererPresenter::set_vsync(w.renderer, 2), -1);   // SDL2's renderer: 0 or 1 only
    EXPECT_EQ(RendererPresenter::set_vsync(w.renderer, -1), -1);
    EXPECT_EQ(RendererPresenter::set_vsync(nullptr, 0), -1);
    EXPECT_EQ(RendererPresenter::set_vsync(w.renderer, 1), -1);   // Xvfb: no real vsync
}

TEST(Sdl2RendererPresenter, GameChosenIntervalAndRefreshOverride) {
    RendererWindow w;
    ASSERT_NE(w.renderer, nullptr) << SDL_GetError();
    pacer::PacerConfig c;
    c.target_hz = 100.0;  // hybrid mode: the pacer asks for vsync off, the game may want it on
    pacer::FramePacer fp(c);
    pacer::sdl2::RendererPresenter p(w.renderer);
    EXPECT_EQ(p.requested_interval(), -1);  // nothing asked before the first present
    EXPECT_EQ(p.swap_interval(), -1);
    p.set_refresh_hz(75.0);
    fp.wait();
    p.present(fp, 1);
    EXPECT_EQ(p.requested_interval(), 1);
    EXPECT_EQ(p.swap_interval(), -1);  // Xvfb: refused (SDL's timer stand-in is not vsync)
    EXPECT_EQ(p.refresh_hz(), 75.0);
    EXPECT_EQ(fp.status().vsync.refresh_hz, 75.0);
    EXPECT_EQ(p.last_present().refresh_hz, 75.0);
    // Back to SDL's figure at the next present.
    p.set_refresh_hz(0);
    fp.wait();
    p.present(fp);
    EXPECT_EQ(p.requested_interval(), 0);
    EXPECT_EQ(p.swap_interval(), 0);
    EXPECT_EQ(p.refresh_hz(), pacer::sdl2::display_refresh_hz(w.window.get()));
    EXPECT_EQ(p.presents(), 2u);
}

// ---- OpenGL -------------------------------------------------------------------------------------

struct GlWindow {
    std::unique_ptr<SDL_Window, WindowDeleter> window;
    SDL_GLContext context = nullptr;
    GlWindow() : window(SDL_CreateWindow("pacer sdl2 gl test", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 320,
                                         240, SDL_WINDOW_SHOWN | SDL_WINDOW_OPENGL)) {
        if (window) context = SDL_GL_CreateContext(window.get());
    }
    ~GlWindow() {
        if (context != nullptr) SDL_GL_DeleteContext(context);
    }
};

TEST(Sdl2GlPresenter, AutoModeWithTheDisplaysOwnRefresh) {
    GlWindow w;
    ASSERT_NE(w.context, nullptr) << SDL_GetError();
    pacer::FramePacer fp(auto_config(60.0));
    pacer::sdl2::GlPresenter p(w.window.get());
    run_frames(fp, p, [] {});
    EXPECT_EQ(p.refresh_hz(), pacer::sdl2::display_refresh_hz(w.window.get()));
    if (p.refresh_hz() == 0) {
        EXPECT_EQ(p.requested_interval(), 0);
    }
}

TEST(Sdl2GlPresenter, RefusedSwapIntervalFallsBackToHybrid) {
    GlWindow w;
    ASSERT_NE(w.context, nullptr) << SDL_GetError();
    pacer::FramePacer fp(auto_config(60.0));
    pacer::sdl2::GlPresenter p(w.window.get());
    p.set_refresh_hz(60.0);
    const RunLog run = run_frames(fp, p, [] {});
    // Auto mode asked for interval 1; Mesa under Xvfb refuses it, and the pacer said so.
    ASSERT_GT(run.asked_one, 0);
    EXPECT_EQ(run.refused_one, run.asked_one);
    EXPECT_TRUE(run.saw_refused);
    EXPECT_EQ(fp.desired_swap_interval(), 0);
}

// The GL presenter driven from a render thread (the context current there), a frame behind the
// pacing thread: its presents reach the pacer named by frame, and the pacer decides vsync on them
// as in a single-thread loop (Xvfb: no vsync, so auto mode falls back and says why).
TEST(Sdl2GlPresenter, ARenderThreadPresentsFramesBehindThePacingThread) {
    GlWindow w;
    ASSERT_NE(w.context, nullptr) << SDL_GetError();
    ASSERT_EQ(SDL_GL_MakeCurrent(w.window.get(), nullptr), 0) << SDL_GetError();
    pacer::FramePacer fp(auto_config(60.0));
    pacer::sdl2::GlPresenter p(w.window.get());
    std::atomic<std::uint64_t> handed{0};
    std::atomic<bool> done{false};
    std::atomic<int> presented{0};
    std::thread render([&] {
        // SDL keeps per-thread state (the current context, the error text) that it frees for a
        // thread of its own only; this one gives it back itself.
        struct TlsCleanup {
            ~TlsCleanup() { SDL_TLSCleanup(); }
        } cleanup;
        if (SDL_GL_MakeCurrent(w.window.get(), w.context) != 0) return;
        std::uint64_t last = 0;
        while (!done.load()) {
            const std::uint64_t f = handed.load();
            if (f == last) {
                SDL_Delay(1);
                continue;
            }
            last = f;
            fp.before_present(f);
            const pacer::PresentInfo info = p.present_frame(fp, f);
            EXPECT_EQ(info.frame, f);
            presented.fetch_add(1);
        }
        SDL_GL_MakeCurrent(w.window.get(), nullptr);
    });
    int named = 0;
    for (int i = 0; i < 150; ++i) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
        }
        const pacer::FrameTiming t = fp.wait();
        named += t.latency_frame != 0 && t.latency.count() > 0 ? 1 : 0;
        handed.store(t.frame);
    }
    done.store(true);
    render.join();
    ASSERT_EQ(SDL_GL_MakeCurrent(w.window.get(), w.context), 0) << SDL_GetError();
    fp.wait();  // the last reports
    const pacer::PacerStatus s = fp.status();
    EXPECT_GT(presented.load(), 100);
    EXPECT_EQ(s.presents.submitted, static_cast<std::uint64_t>(presented.load()));
    EXPECT_EQ(s.reports_lost, 0u);
    EXPECT_GT(named, 100) << "latency figures for the frames the render thread presented";
    EXPECT_GE(s.frames_in_flight, 0);
    EXPECT_LE(s.frames_in_flight, 2);
    EXPECT_TRUE(hybrid_fallback(s.vsync.code) || s.vsync.code == pacer::VsyncReason::auto_probing) << s.vsync.reason;
}

TEST(Sdl2Adapter, NoWindowHasNoRefreshRate) {
    EXPECT_EQ(pacer::sdl2::display_refresh_hz(nullptr), 0.0);
}

}  // namespace
