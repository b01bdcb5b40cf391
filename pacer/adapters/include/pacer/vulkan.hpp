// pacer/vulkan.hpp - present through Vulkan and tell the pacer how each present went, with the
// displayed times the device gives (optional target pacer::vulkan; Debian: libvulkan-dev).
//
//   vk::Dispatch          the device functions the adapter calls: vkQueuePresentKHR, and where the
//                         device enabled them vkWaitForPresentKHR, vkGetPastPresentationTimingGOOGLE,
//                         vkGetRefreshCycleDurationGOOGLE (the host's pointers: no libvulkan link)
//   vk::SwapchainPacer    one per swapchain: its present mode, its present ids, its feedback
//     present(queue, info, frame)   vkQueuePresentKHR of a present that shows this swapchain only
//     wait_feedback(timeout)        present wait only: one step of the feedback thread
//     feedback()                    which feedback it gets: Feedback below
//   vk::queue_present     one vkQueuePresentKHR of several swapchains, each with its pacer
//   vk::Feedback          present_wait, display_timing, or none (the present call timed only)
//
//   pacer::vk::Dispatch d;
//   d.queue_present = reinterpret_cast<PFN_vkQueuePresentKHR>(vkGetDeviceProcAddr(device, "vkQueuePresentKHR"));
//   pacer::vk::SwapchainPacer sp(fp, d, device, swapchain, VK_PRESENT_MODE_FIFO_KHR);
//   while (running) {
//       fp.wait(); update(); record_and_submit();
//       VkResult r = sp.present(queue, present_info);   // replaces vkQueuePresentKHR
//       if (r == VK_ERROR_OUT_OF_DATE_KHR) recreate_swapchain();  // a new SwapchainPacer with it
//   }
//
// The rule. A present goes through the adapter as it would go to vkQueuePresentKHR, and comes back
// with the driver's VkResult untouched: VK_SUBOPTIMAL_KHR, VK_ERROR_OUT_OF_DATE_KHR and every
// error are the host's to act on, as without pacer. Each present
//   1. calls FramePacer::before_present(frame) (present sync waits there; frame: the frame it
//      shows, FrameTiming::frame, 0 the one last waited for: the render-thread rules of
//      pacer/frame_pacer.hpp apply: call it on the pacing thread or the one present thread);
//   2. adds, for each paced swapchain, a present id (VK_KHR_present_id, when Dispatch::present_id)
//      or a VkPresentTimeGOOGLE (VK_GOOGLE_display_timing, when Dispatch::past_timing) to the
//      present's pNext chain, unless the host's chain has that structure already: then the
//      host's ids are the ones used (the host's chain is never changed: a copy of the
//      VkPresentInfoKHR heads a new chain that ends in the host's);
//   3. calls vkQueuePresentKHR, timed with FramePacer::now() just before and after;
//   4. reports it: FramePacer::report_present with the swapchain's swap interval (present mode
//      FIFO or FIFO_RELAXED: 1; IMMEDIATE or MAILBOX: 0; another: -1, unknown), the refresh rate
//      (from vkGetRefreshCycleDurationGOOGLE where enabled, else 0: unknown), the present id, and
//      ok false when the swapchain's own result was an error (VK_ERROR_OUT_OF_DATE_KHR: the frame
//      was not shown; the pacer goes on pacing);
//   5. reports the feedback that has come back since the last present, by id (PresentInfo::id,
//      outcome shown, displayed), below.
// A present of several swapchains at once (queue_present) waits in before_present() once: in the
// pacer of the first swapchain that has one.
//
// Feedback: what the device tells of a present after it was made.
//   display_timing  VK_GOOGLE_display_timing: vkGetPastPresentationTimingGOOGLE, read at each
//                   present, gives each earlier present's actualPresentTime (CLOCK_MONOTONIC ns on
//                   Linux, converted to pacer::clock with an offset measured in-process,
//                   pacer/clock_offset.hpp, again every second). The displayed time is the
//                   driver's. The refresh comes from vkGetRefreshCycleDurationGOOGLE (every 2 s).
//   present_wait    VK_KHR_present_id + VK_KHR_present_wait: vkWaitForPresentKHR returns once a
//                   present id was shown, and says nothing of when. A feedback thread (the
//                   host's: the Vulkan layer starts one per swapchain) calls wait_feedback() in a
//                   loop: it waits for the oldest id not yet seen and stamps its return with
//                   FramePacer::now(). That stamp is the displayed time, late by the thread's
//                   wake-up (tens of microseconds idle, more on a loaded machine): an upper
//                   bound, noisy upwards. The spec lets vkWaitForPresentKHR run beside every
//                   other call on the swapchain but its destruction: stop that thread before
//                   vkDestroySwapchainKHR. The stamps wait in a small locked queue (16) until the
//                   next present reports them, on the present thread, as the pacer's rules ask.
//   none            no feedback: the present call's begin and end are all the pacer learns, and
//                   the vsync verdict rests on them (pacer/vsync.hpp). lavapipe and most X11 and
//                   Wayland drivers without those extensions give this.
// VK_EXT_present_timing is not in the Vulkan headers this adapter was written against (1.3.239,
// Debian 12): there is no code for it; a device that offers only it is timed as `none`.
//
// Why the feedback matters: displayed times let the pacer fit the display's vblanks (display lock,
// just-in-time targets; pacer/display.hpp) and count frames shown and dropped; without them it
// paces on its own grid and the present call's times.
//
// Not verified on a device: lavapipe (the only Vulkan driver the tests run on) exposes neither
// extension, so the present_wait and display_timing paths have run only against the fake dispatch
// table of tests/vulkan/vulkan_adapter_test.cpp, in virtual time.
//
// Header-only: it compiles in the host against the host's Vulkan headers, and calls only the
// function pointers it is given (the host's, or the next layer's). Thread safety: present() and
// queue_present() on one thread at a time per swapchain (Vulkan's own rule for the swapchain);
// wait_feedback() from one other thread.
#pragma once

#include <vulkan/vulkan.h>

#include <time.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "pacer/clock.hpp"
#include "pacer/clock_offset.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/present.hpp"

namespace pacer::vk {

// The device functions the adapter calls. queue_present is required; the others only where the
// device was created with their extension (a null pointer: not enabled).
struct Dispatch {
    PFN_vkQueuePresentKHR queue_present = nullptr;
    bool present_id = false;                                // VK_KHR_present_id enabled
    PFN_vkWaitForPresentKHR wait_for_present = nullptr;     // VK_KHR_present_wait (needs present_id)
    PFN_vkGetPastPresentationTimingGOOGLE past_timing = nullptr;    // VK_GOOGLE_display_timing
    PFN_vkGetRefreshCycleDurationGOOGLE refresh_cycle = nullptr;    // VK_GOOGLE_display_timing
};

enum class Feedback {
    none,            // the present call timed only
    present_wait,    // VK_KHR_present_id + VK_KHR_present_wait: displayed = the wait's return
    display_timing,  // VK_GOOGLE_display_timing: displayed = actualPresentTime
};
inline const char* to_string(Feedback f) noexcept {
    switch (f) {
        case Feedback::present_wait: return "present_wait";
        case Feedback::display_timing: return "display_timing";
        default: return "none";
    }
}

// The swap interval a present mode gives: FIFO and FIFO_RELAXED 1, IMMEDIATE and MAILBOX 0.
inline int swap_interval_of(VkPresentModeKHR mode) noexcept {
    switch (mode) {
        case VK_PRESENT_MODE_FIFO_KHR:
        case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return 1;
        case VK_PRESENT_MODE_IMMEDIATE_KHR:
        case VK_PRESENT_MODE_MAILBOX_KHR: return 0;
        default: return -1;
    }
}

// CLOCK_MONOTONIC as a duration since its epoch (VK_GOOGLE_display_timing's clock on Linux).
inline std::chrono::nanoseconds monotonic_now() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

class SwapchainPacer;

namespace detail {
// The structure of type `s` in a pNext chain, or nullptr.
inline const void* find_in_chain(const void* next, VkStructureType s) noexcept {
    for (auto* b = static_cast<const VkBaseInStructure*>(next); b != nullptr; b = b->pNext)
        if (b->sType == s) return b;
    return nullptr;
}
}  // namespace detail

class SwapchainPacer {
public:
    static constexpr std::size_t kQueued = 16;  // present-wait ids and stamps kept at most

    SwapchainPacer(FramePacer& fp, const Dispatch& d, VkDevice device, VkSwapchainKHR swapchain,
                   VkPresentModeKHR mode) noexcept
        : fp_(&fp), d_(d), device_(device), swapchain_(swapchain), interval_(swap_interval_of(mode)) {
        if (d_.past_timing != nullptr) {
            feedback_ = Feedback::display_timing;
        } else if (d_.present_id && d_.wait_for_present != nullptr) {
            feedback_ = Feedback::present_wait;
        }
        calibrate();
    }
    SwapchainPacer(const SwapchainPacer&) = delete;
    SwapchainPacer& operator=(const SwapchainPacer&) = delete;

    Feedback feedback() const noexcept { return feedback_; }
    VkSwapchainKHR swapchain() const noexcept { return swapchain_; }
    FramePacer& pacer() const noexcept { return *fp_.load(std::memory_order_acquire); }
    // Reports to another pacer from the next present on (a host that replaced its FramePacer).
    void rebind(FramePacer& fp) noexcept { fp_.store(&fp, std::memory_order_release); }
    int swap_interval() const noexcept { return interval_; }
    double refresh_hz() const noexcept { return refresh_hz_; }
    // The PresentInfo of the last present, as reported.
    const PresentInfo& last_present() const noexcept { return last_; }
    // Feedback reports made so far (each present shown; also given to on_feedback, below).
    std::uint64_t feedback_reports() const noexcept { return reports_; }
    // Present-wait stamps that found the queue full and were dropped.
    std::uint64_t feedback_lost() const noexcept { return lost_; }
    // Where CLOCK_MONOTONIC (display timing's clock) sits against the pacer's: measured at
    // construction and every second; a host on another clock (a test) sets its own, and then
    // it is kept.
    void set_clock_offset(const ClockOffset& offset) noexcept {
        offset_ = offset;
        fixed_offset_ = true;
    }
    // Called with each feedback report as it goes to the pacer (a capture's feedback(), say).
    void on_feedback(void (*fn)(void* user, const PresentInfo& f), void* user) noexcept {
        on_feedback_ = fn;
        on_feedback_user_ = user;
    }

    // vkQueuePresentKHR of `info`, whose swapchains are this one only (several: queue_present).
    VkResult present(VkQueue queue, const VkPresentInfoKHR& info, std::uint64_t frame = 0) noexcept;

    // Present wait: waits up to `timeout` for the oldest present id not yet seen; true when it
    // was shown (its stamp queued for the next present). False with nothing to wait for, on a
    // timeout, and for good once the swapchain is out of date or lost (stopped() then true).
    bool wait_feedback(std::chrono::nanoseconds timeout) noexcept {
        std::uint64_t id = 0;
        {
            std::lock_guard<std::mutex> lock(m_);
            if (stopped_ || ids_n_ == 0) return false;
            id = ids_[ids_first_];
        }
        const auto ns = static_cast<std::uint64_t>(timeout.count() < 0 ? 0 : timeout.count());
        const VkResult r = d_.wait_for_present(device_, swapchain_, id, ns);
        const clock::time_point t = pacer().now();
        std::lock_guard<std::mutex> lock(m_);
        if (r == VK_TIMEOUT) return false;
        ids_first_ = (ids_first_ + 1) % kQueued;
        --ids_n_;
        if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {  // out of date, surface lost, device lost
            stopped_ = true;
            return false;
        }
        if (stamps_n_ == kQueued) {
            ++lost_;
            return false;
        }
        stamps_[(stamps_first_ + stamps_n_++) % kQueued] = {id, t};
        return true;
    }
    bool stopped() const noexcept {
        std::lock_guard<std::mutex> lock(m_);
        return stopped_;
    }
    // Present wait: the ids presented and not yet waited for.
    std::size_t pending() const noexcept {
        std::lock_guard<std::mutex> lock(m_);
        return ids_n_;
    }

    // The pieces queue_present() calls, for a host that presents by other means.
    // The id a present of this swapchain carries: the host's own (host_id, kept as it is), or
    // one after the highest seen (host_id 0).
    std::uint64_t take_id(std::uint64_t host_id) noexcept {
        if (host_id == 0) return ++serial_;
        if (host_id > serial_) serial_ = host_id;
        return host_id;
    }
    // Reports a present made [begin, end] with this swapchain's `result` and id (0: none).
    void after_present(VkResult result, clock::time_point begin, clock::time_point end, std::uint64_t id,
                       std::uint64_t frame) noexcept {
        refresh_due(end);
        PresentInfo p;
        p.begin = begin;
        p.end = end;
        p.swap_interval = interval_;
        p.refresh_hz = refresh_hz_;
        p.ok = result >= 0;
        p.id = feedback_ == Feedback::none ? 0 : id;
        p.frame = frame;
        pacer().report_present(p);
        last_ = p;
        if (p.ok && feedback_ == Feedback::present_wait && id != 0) queue_id(id);
        report_feedback();
    }

private:
    void calibrate() noexcept {
        if (fixed_offset_) return;
        offset_ = measure_offset([] { return clock::now(); }, [] { return monotonic_now(); });
        calibrated_at_ = clock::now();
    }
    void refresh_due(clock::time_point now) noexcept {
        if (d_.refresh_cycle == nullptr || (refresh_read_ && now - refresh_at_ < std::chrono::seconds(2))) return;
        refresh_read_ = true;
        refresh_at_ = now;
        VkRefreshCycleDurationGOOGLE rc{};
        if (d_.refresh_cycle(device_, swapchain_, &rc) == VK_SUCCESS && rc.refreshDuration > 0)
            refresh_hz_ = 1e9 / static_cast<double>(rc.refreshDuration);
    }
    void queue_id(std::uint64_t id) noexcept {
        std::lock_guard<std::mutex> lock(m_);
        if (ids_n_ == kQueued) {  // the feedback thread fell behind: forget the oldest
            ids_first_ = (ids_first_ + 1) % kQueued;
            --ids_n_;
            ++lost_;
        }
        ids_[(ids_first_ + ids_n_++) % kQueued] = id;
    }
    void report(std::uint64_t id, clock::time_point displayed) noexcept {
        PresentInfo f;
        f.id = id;
        f.outcome = PresentOutcome::shown;
        f.displayed = displayed;
        pacer().report_present(f);
        ++reports_;
        if (on_feedback_ != nullptr) on_feedback_(on_feedback_user_, f);
    }
    void report_feedback() noexcept {
        if (feedback_ == Feedback::display_timing) {
            report_past_timing();
            return;
        }
        if (feedback_ != Feedback::present_wait) return;
        std::array<Stamp, kQueued> got{};
        std::size_t n = 0;
        {
            std::lock_guard<std::mutex> lock(m_);
            for (; n < stamps_n_; ++n) got[n] = stamps_[(stamps_first_ + n) % kQueued];
            stamps_first_ = (stamps_first_ + n) % kQueued;
            stamps_n_ = 0;
        }
        for (std::size_t i = 0; i < n; ++i) report(got[i].id, got[i].t);
    }
    void report_past_timing() noexcept {
        if (!fixed_offset_ && clock::now() - calibrated_at_ > std::chrono::seconds(1)) calibrate();
        std::array<VkPastPresentationTimingGOOGLE, kQueued> past{};
        for (;;) {  // a driver keeps a bounded history: read it all, kQueued at a time
            auto n = static_cast<std::uint32_t>(past.size());
            const VkResult r = d_.past_timing(device_, swapchain_, &n, past.data());
            if (r != VK_SUCCESS && r != VK_INCOMPLETE) return;
            for (std::uint32_t i = 0; i < n; ++i) {
                const auto t = std::chrono::nanoseconds(static_cast<std::int64_t>(past[i].actualPresentTime));
                report(past[i].presentID, offset_.to_pacer(t));
            }
            if (r == VK_SUCCESS || n == 0) return;
        }
    }

    struct Stamp {
        std::uint64_t id = 0;
        clock::time_point t{};
    };

    std::atomic<FramePacer*> fp_;
    Dispatch d_;
    VkDevice device_;
    VkSwapchainKHR swapchain_;
    int interval_ = -1;
    Feedback feedback_ = Feedback::none;
    double refresh_hz_ = 0;
    bool refresh_read_ = false;
    clock::time_point refresh_at_{};
    ClockOffset offset_{};
    bool fixed_offset_ = false;
    clock::time_point calibrated_at_{};
    std::uint64_t serial_ = 0;
    PresentInfo last_{};
    std::uint64_t reports_ = 0;
    void (*on_feedback_)(void*, const PresentInfo&) = nullptr;
    void* on_feedback_user_ = nullptr;
    // Present wait, shared with the feedback thread under m_.
    mutable std::mutex m_;
    std::array<std::uint64_t, kQueued> ids_{};
    std::size_t ids_first_ = 0, ids_n_ = 0;
    std::array<Stamp, kQueued> stamps_{};
    std::size_t stamps_first_ = 0, stamps_n_ = 0;
    std::uint64_t lost_ = 0;
    bool stopped_ = false;
};

// One vkQueuePresentKHR of info.swapchainCount swapchains; pacers[i] is swapchain i's pacer or
// nullptr (presented, not paced). The first pacer given waits in before_present(frame); every
// paced swapchain gets its present id or present time added to the chain (unless the host's chain
// has that structure: the host's ids are then used) and its report. Returns the driver's VkResult
// untouched, and each swapchain's result in info.pResults where the host gave that array.
// A present of more than kMaxSwapchains swapchains is paced and timed without ids.
inline constexpr std::uint32_t kMaxSwapchains = 8;

namespace detail {
struct Chain {
    std::array<std::uint64_t, kMaxSwapchains> ids{};
    std::array<VkPresentTimeGOOGLE, kMaxSwapchains> times{};
    std::array<VkResult, kMaxSwapchains> results{};
    VkPresentIdKHR id_info{VK_STRUCTURE_TYPE_PRESENT_ID_KHR, nullptr, 0, nullptr};
    VkPresentTimesInfoGOOGLE time_info{VK_STRUCTURE_TYPE_PRESENT_TIMES_INFO_GOOGLE, nullptr, 0, nullptr};
};

// Each paced swapchain's id (0: none) in c.ids, and `mine` heading the structures that carry them.
inline void add_ids(VkPresentInfoKHR& mine, SwapchainPacer* const* pacers, Chain& c) noexcept {
    const std::uint32_t n = mine.swapchainCount;
    const auto* host_ids = static_cast<const VkPresentIdKHR*>(find_in_chain(mine.pNext, VK_STRUCTURE_TYPE_PRESENT_ID_KHR));
    const auto* host_times = static_cast<const VkPresentTimesInfoGOOGLE*>(
        find_in_chain(mine.pNext, VK_STRUCTURE_TYPE_PRESENT_TIMES_INFO_GOOGLE));
    bool want_ids = false, want_times = false;
    for (std::uint32_t i = 0; i < n; ++i) {
        c.times[i] = VkPresentTimeGOOGLE{0, 0};
        if (pacers[i] == nullptr || pacers[i]->feedback() == Feedback::none) continue;
        if (pacers[i]->feedback() == Feedback::present_wait) {
            want_ids = true;
            const bool has = host_ids != nullptr && host_ids->pPresentIds != nullptr && i < host_ids->swapchainCount;
            c.ids[i] = host_ids != nullptr ? (has ? pacers[i]->take_id(host_ids->pPresentIds[i]) : 0) : pacers[i]->take_id(0);
        } else {
            want_times = true;
            const bool has = host_times != nullptr && host_times->pTimes != nullptr && i < host_times->swapchainCount;
            c.ids[i] = host_times != nullptr ? (has ? host_times->pTimes[i].presentID : 0) : pacers[i]->take_id(0);
            c.times[i].presentID = static_cast<std::uint32_t>(c.ids[i]);
        }
    }
    if (want_ids && host_ids == nullptr) {
        c.id_info = {VK_STRUCTURE_TYPE_PRESENT_ID_KHR, mine.pNext, n, c.ids.data()};
        mine.pNext = &c.id_info;
    }
    if (want_times && host_times == nullptr) {
        c.time_info = {VK_STRUCTURE_TYPE_PRESENT_TIMES_INFO_GOOGLE, mine.pNext, n, c.times.data()};
        mine.pNext = &c.time_info;
    }
}
}  // namespace detail

inline VkResult queue_present(PFN_vkQueuePresentKHR call, VkQueue queue, const VkPresentInfoKHR& info,
                              SwapchainPacer* const* pacers, std::uint64_t frame = 0) noexcept {
    const std::uint32_t n = info.swapchainCount;
    SwapchainPacer* first = nullptr;
    for (std::uint32_t i = 0; i < n && first == nullptr; ++i) first = pacers[i];
    if (first == nullptr) return call(queue, &info);
    first->pacer().before_present(frame);

    // A copy of the host's present that heads our own structures; the host's chain follows.
    VkPresentInfoKHR mine = info;
    detail::Chain c;
    const bool fits = n <= kMaxSwapchains;
    if (fits) {
        detail::add_ids(mine, pacers, c);
        // Our own results array, marked unwritten: a driver that fails the whole call may leave
        // it so. What the driver wrote is copied to the host's array, if it has one.
        c.results.fill(VK_RESULT_MAX_ENUM);
        mine.pResults = c.results.data();
    }
    const clock::time_point begin = first->pacer().now();
    const VkResult r = call(queue, &mine);
    const clock::time_point end = first->pacer().now();
    for (std::uint32_t i = 0; i < n; ++i) {
        VkResult own = r;  // unwritten, or more swapchains than kMaxSwapchains: the call's result
        if (fits && c.results[i] != VK_RESULT_MAX_ENUM) {
            own = c.results[i];
            if (info.pResults != nullptr) info.pResults[i] = own;
        }
        if (pacers[i] != nullptr) pacers[i]->after_present(own, begin, end, fits ? c.ids[i] : 0, frame);
    }
    return r;
}

inline VkResult SwapchainPacer::present(VkQueue queue, const VkPresentInfoKHR& info, std::uint64_t frame) noexcept {
    std::array<SwapchainPacer*, 1> one{this};
    if (info.swapchainCount != 1) return d_.queue_present(queue, &info);  // not this call's shape
    return queue_present(d_.queue_present, queue, info, one.data(), frame);
}

}  // namespace pacer::vk
