// A render thread for the thread-role tests (pacer/frame_pacer.hpp): presents each frame the
// pacing thread hands it, with the caller's present function, until stopped. hand() replaces the
// frame waiting to be taken (a render thread that falls behind skips frames), or, with
// wait_taken, first waits until the render thread took the one before: an engine's one-slot
// hand-over, whose back-pressure paces the pacing thread by the render thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <utility>

namespace pacer_test {

class PresentThread {
public:
    explicit PresentThread(std::function<void(std::uint64_t frame)> present)
        : present_(std::move(present)), thread_([this] { run(); }) {}
    ~PresentThread() { stop(); }
    PresentThread(const PresentThread&) = delete;
    PresentThread& operator=(const PresentThread&) = delete;

    void hand(std::uint64_t frame, bool wait_taken = false) {
        if (wait_taken)
            while (taken_.load() != handed_.load() && !done_.load()) std::this_thread::yield();
        handed_.store(frame);
    }
    void stop() {
        done_.store(true);
        if (thread_.joinable()) thread_.join();
    }
    int presented() const { return presented_.load(); }

private:
    void run() {
        while (!done_.load()) {
            const std::uint64_t f = handed_.load();
            if (f == taken_.load()) {
                std::this_thread::yield();
                continue;
            }
            taken_.store(f);
            present_(f);
            presented_.fetch_add(1);
        }
    }

    std::function<void(std::uint64_t)> present_;
    std::atomic<std::uint64_t> handed_{0}, taken_{0};
    std::atomic<bool> done_{false};
    std::atomic<int> presented_{0};
    std::thread thread_;  // last: starts once the rest is made
};

}  // namespace pacer_test
