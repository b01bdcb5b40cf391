// One swapchain the layer paces: its FramePacer and capture (kept across a recreation: a swapchain
// created with oldSwapchain takes them over), its pacer::vk::SwapchainPacer, and the present-wait
// feedback thread where the device has VK_KHR_present_wait.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "pacer/capture.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/vulkan.hpp"
#include "frames.hpp"

namespace pacer_layer {

// What survives a recreation: the pacer, its grid and what it learned, and the capture file.
struct Pacing {
    std::unique_ptr<pacer::FramePacer> fp;  // never waits when settings.hz is 0 (capture only)
    std::mutex capture_m;  // capture and capturing: the presenting thread, and the layer's stop thread
    pacer::CaptureWriter capture;
    bool capturing = false;
    Settings settings;                      // PACER_*: the rate (hz 0: capture only), placement, wait
    pacer::FrameTiming timing{};            // the frame's wait, for its capture row
    bool has_timing = false;
    std::thread::id thread{};               // the thread that presents (and paces) now
    std::uint64_t frames = 0;
    pacer::clock::time_point last_begin{};  // capture without a wait: the previous present
};

class Swapchain {
public:
    // pacing: taken over from the old swapchain, or new (nullptr: make one from the settings).
    Swapchain(const Settings& s, std::shared_ptr<Pacing> pacing, const pacer::vk::Dispatch& d, VkDevice device,
              VkSwapchainKHR handle, VkPresentModeKHR mode);
    ~Swapchain();  // stops the feedback thread
    Swapchain(const Swapchain&) = delete;
    Swapchain& operator=(const Swapchain&) = delete;

    std::mutex& mutex() { return m_; }
    bool active() const { return pacing_ != nullptr && sp_ != nullptr; }
    pacer::vk::SwapchainPacer* pacer() { return active() ? sp_.get() : nullptr; }
    std::shared_ptr<Pacing> give_up_pacing();  // to the swapchain that replaces this one

    // With m_ held, on the presenting thread. begin: the frame's wait before the present (the
    // first swapchain of a present only: waits = true); end: after it.
    void begin(bool waits);
    void end(bool waited);

private:
    void take_thread();
    void stop_feedback();
    void start_feedback();
    void run_feedback();

    std::mutex m_;
    std::shared_ptr<Pacing> pacing_;
    std::unique_ptr<pacer::vk::SwapchainPacer> sp_;
    std::thread feedback_;
    std::atomic<bool> stop_{false};
};

// A new Pacing from the settings, its capture the n-th of the process; nullptr when the settings
// cannot be honoured (a capture path that cannot be written: said on stderr).
std::shared_ptr<Pacing> make_pacing(const Settings& s, int capture_number);

}  // namespace pacer_layer
