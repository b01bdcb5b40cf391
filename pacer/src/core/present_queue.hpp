// The present thread's reports on their way to the pacing thread: a fixed ring, one producer (the
// present thread) and one consumer (the pacing thread, at its next wait()). Private to the library.
//
// Neither side blocks or allocates: push() fails when the ring is full (the pacing thread has not
// waited for kCapacity reports: stopped, or far behind), and the caller counts the loss. The slots
// are handed over by the two indices alone (release on publish, acquire on read), the way
// a single-producer single-consumer ring needs no lock.
#pragma once

#include <atomic>
#include <cstdint>

#include "pacer/frame_timing.hpp"
#include "pacer/present.hpp"

namespace pacer::detail {

struct PresentEvent {
    enum class Kind : std::uint8_t { before_present, present, vblank };
    Kind kind = Kind::present;
    std::uint64_t newest = 0;     // the newest frame the pacing thread had started at the call
    clock::time_point call{};     // before_present: when it was called
    std::uint64_t frame = 0;      // before_present: the frame it presents
    PresentInfo present{};
    VblankInfo vblank{};
    // before_present in present sync: the wait the present thread made (FramePacer's manual:
    // present sync with a render thread); period 0: none.
    FrameTiming waited{};
    clock::time_point aim{};  // the display time that wait was for
    bool aim_locked = false;  // ... a vblank
};

class PresentQueue {
public:
    static constexpr std::uint32_t kCapacity = 64;  // a power of two

    bool push(const PresentEvent& e) noexcept {  // the producer
        const std::uint32_t head = head_.load(std::memory_order_relaxed);
        if (head - tail_.load(std::memory_order_acquire) == kCapacity) return false;
        ring_[head % kCapacity] = e;
        head_.store(head + 1, std::memory_order_release);
        return true;
    }

    template <class F>
    int drain(F&& f) noexcept {  // the consumer: f(event) for each, oldest first
        std::uint32_t tail = tail_.load(std::memory_order_relaxed);
        const std::uint32_t head = head_.load(std::memory_order_acquire);
        int n = 0;
        for (; tail != head; ++tail, ++n) {
            f(ring_[tail % kCapacity]);
            tail_.store(tail + 1, std::memory_order_release);
        }
        return n;
    }

private:
    PresentEvent ring_[kCapacity];
    alignas(64) std::atomic<std::uint32_t> head_{0};
    alignas(64) std::atomic<std::uint32_t> tail_{0};
};

}  // namespace pacer::detail
