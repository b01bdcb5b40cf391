// demo/busy_threads.hpp - background load: N threads that spin until told to stop (seed 001's
// "busy threads" test). They compete with the pacing thread for the machine's cores.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace pacer_demo {

class BusyThreads {
public:
    BusyThreads() = default;
    ~BusyThreads() { set_count(0); }
    BusyThreads(const BusyThreads&) = delete;
    BusyThreads& operator=(const BusyThreads&) = delete;

    // Stops and joins the running threads, then starts n new ones (n <= 0: none).
    void set_count(int n);
    int count() const noexcept { return static_cast<int>(threads_.size()); }

private:
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

}  // namespace pacer_demo
