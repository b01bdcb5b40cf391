#include "busy_threads.hpp"

#include <cstdint>

namespace pacer_demo {

void BusyThreads::set_count(int n) {
    if (n == count()) return;
    stop_.store(true, std::memory_order_relaxed);
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    stop_.store(false, std::memory_order_relaxed);
    for (int i = 0; i < n; ++i) {
        threads_.emplace_back([this] {
            // Pure ALU work; the volatile sink keeps the loop from being optimised away.
            volatile std::uint64_t sink = 0;
            std::uint64_t x = 88172645463325252ull;
            while (!stop_.load(std::memory_order_relaxed)) {
                for (int k = 0; k < 4096; ++k) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                }
                sink = x;
            }
            (void)sink;
        });
    }
}

}  // namespace pacer_demo
