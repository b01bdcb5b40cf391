#include "render_thread.hpp"

#include <utility>

namespace pacer_demo {

void RenderThread::start(std::function<void()> on_start, std::function<void()> on_stop) {
    if (running()) return;
    stop_ = false;
    thread_ = std::thread([this, a = std::move(on_start), b = std::move(on_stop)] { run(a, b); });
}

void RenderThread::submit(Job job) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return !slot_.has_value(); });
    slot_ = std::move(job);
    cv_.notify_all();
}

std::vector<RenderThread::Done> RenderThread::take_done() {
    std::vector<Done> out;
    std::lock_guard<std::mutex> lock(m_);
    out.swap(done_);
    return out;
}

void RenderThread::stop() {
    if (!running()) return;
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
        cv_.notify_all();
    }
    thread_.join();
}

void RenderThread::run(const std::function<void()>& on_start, const std::function<void()>& on_stop) {
    if (on_start) on_start();
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(m_);
            cv_.wait(lock, [this] { return slot_.has_value() || stop_; });
            if (!slot_) break;  // stopping, nothing handed over
            job = std::move(*slot_);
            slot_.reset();
            cv_.notify_all();  // the game thread may hand over the next frame
        }
        Done d = job.run();
        d.frame = job.frame;
        std::lock_guard<std::mutex> lock(m_);
        done_.push_back(std::move(d));
    }
    if (on_stop) on_stop();
}

}  // namespace pacer_demo
