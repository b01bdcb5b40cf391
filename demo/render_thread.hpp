// demo/render_thread.hpp - --render-thread: each frame's draw and present on a second thread, a
// frame behind the pacing thread, as an engine's render thread runs.
//
// The pacing (game) thread builds a frame and hands it over through a one-slot queue: it waits
// while the render thread has not taken the frame before, as an engine's game thread waits on its
// render thread. The render thread runs the job (draw, present, report the present to the pacer
// with the frame's id: pacer/frame_pacer.hpp, "Thread roles") and leaves what it measured in a
// list the game thread takes each frame, so that the session (statistics, capture, panels) is
// touched by the game thread alone.
//
//   RenderThread r;
//   r.start(on_start, on_stop);         // on_start runs on the render thread first (a GL context)
//   r.submit({frame, [=] { return draw_and_present(frame); }});  // waits while the slot is full
//   for (const RenderThread::Done& d : r.take_done()) record(d);
//   r.stop();                           // the last job runs, then on_stop, then the join
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pacer/present.hpp"

namespace pacer_demo {

class RenderThread {
public:
    // One present, as the render thread made it.
    struct Done {
        std::uint64_t frame = 0;     // the frame presented (FrameTiming::frame)
        pacer::PresentInfo present;  // its call, as reported (id, interval in effect, refresh)
        std::vector<pacer::PresentInfo> feedback;  // presentation feedback that arrived after it
        double draw_ms = 0;          // the render thread's CPU for the draw
        int requested = 0;           // the swap interval asked for
        std::string vblank_flags;    // the vblank source's flags in words
        int screenshot = 0;          // 1 taken, -1 failed (screenshot_error), 0 none
        std::string screenshot_error;
        std::shared_ptr<void> keep;  // released by the game thread (take_done's caller)
    };
    struct Job {
        std::uint64_t frame = 0;
        std::function<Done()> run;
    };

    RenderThread() = default;
    ~RenderThread() { stop(); }
    RenderThread(const RenderThread&) = delete;
    RenderThread& operator=(const RenderThread&) = delete;

    bool running() const noexcept { return thread_.joinable(); }
    void start(std::function<void()> on_start, std::function<void()> on_stop);
    void submit(Job job);              // waits while the render thread has not taken the last one
    std::vector<Done> take_done();     // what finished since the last call, in order
    void stop();                       // runs the job handed over, then joins

private:
    void run(const std::function<void()>& on_start, const std::function<void()>& on_stop);

    std::thread thread_;
    std::mutex m_;
    std::condition_variable cv_;
    std::optional<Job> slot_;
    bool stop_ = false;
    std::vector<Done> done_;
};

}  // namespace pacer_demo
