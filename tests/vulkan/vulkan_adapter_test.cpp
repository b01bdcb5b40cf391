// pacer::vk (pacer/vulkan.hpp) against a fake dispatch table in virtual time: the device's present
// runs on a SimulatedDisplay (FIFO, 60 Hz), its present-wait and display-timing answers come from
// that display's truth. The paths a real device would take and lavapipe cannot show: present
// wait, VK_GOOGLE_display_timing, the present call timed alone, and VK_ERROR_OUT_OF_DATE_KHR.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "pacer/frame_pacer.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"
#include "pacer/vulkan.hpp"
#include "../sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using pacer::clock;
using pacer_test::exact;
using pacer_test::ns_of;

// The device behind the fake dispatch table: one at a time (the table holds plain functions).
struct FakeDevice {
    FakeDevice(pacer::SimulatedOs& o, pacer::SimulatedDisplay& d) : os(o), display(d) { current = this; }
    ~FakeDevice() { current = nullptr; }

    pacer::SimulatedOs& os;
    pacer::SimulatedDisplay& display;
    std::map<std::uint64_t, std::int64_t> shown_at;  // present id (ours or GOOGLE's) -> displayed ns
    std::vector<std::uint64_t> ids_seen;              // VkPresentIdKHR ids of swapchain 0, in order
    std::vector<std::uint32_t> google_ids_seen;       // VkPresentTimeGOOGLE ids of swapchain 0
    int id_structs = 0, time_structs = 0;             // in the last present's chain
    std::vector<VkResult> per_swapchain;              // results to give each swapchain (empty: success)
    VkResult call_result = VK_SUCCESS;
    std::vector<std::pair<std::uint32_t, std::int64_t>> unreported;  // GOOGLE: not yet read back

    static inline FakeDevice* current = nullptr;

    static VkResult VKAPI_CALL queue_present(VkQueue, const VkPresentInfoKHR* info) {
        FakeDevice& f = *current;
        f.id_structs = f.time_structs = 0;
        const VkPresentIdKHR* ids = nullptr;
        const VkPresentTimesInfoGOOGLE* times = nullptr;
        for (auto* b = static_cast<const VkBaseInStructure*>(info->pNext); b != nullptr; b = b->pNext) {
            if (b->sType == VK_STRUCTURE_TYPE_PRESENT_ID_KHR) {
                ++f.id_structs;
                ids = reinterpret_cast<const VkPresentIdKHR*>(b);
            }
            if (b->sType == VK_STRUCTURE_TYPE_PRESENT_TIMES_INFO_GOOGLE) {
                ++f.time_structs;
                times = reinterpret_cast<const VkPresentTimesInfoGOOGLE*>(b);
            }
        }
        const VkResult first = f.per_swapchain.empty() ? f.call_result : f.per_swapchain[0];
        if (first == VK_ERROR_OUT_OF_DATE_KHR) {  // nothing presented
            if (info->pResults != nullptr)
                for (std::uint32_t i = 0; i < info->swapchainCount; ++i) info->pResults[i] = first;
            return first;
        }
        const pacer::PresentResult r = f.display.present(1);
        const std::int64_t shown = ns_of(r.displayed);
        if (ids != nullptr && ids->pPresentIds[0] != 0) {
            f.ids_seen.push_back(ids->pPresentIds[0]);
            f.shown_at[ids->pPresentIds[0]] = shown;
        }
        if (times != nullptr) {
            f.google_ids_seen.push_back(times->pTimes[0].presentID);
            f.unreported.emplace_back(times->pTimes[0].presentID, shown);
            f.shown_at[times->pTimes[0].presentID] = shown;
        }
        VkResult worst = VK_SUCCESS;
        for (std::uint32_t i = 0; i < info->swapchainCount; ++i) {
            const VkResult ri = i < f.per_swapchain.size() ? f.per_swapchain[i] : f.call_result;
            if (info->pResults != nullptr) info->pResults[i] = ri;
            if (ri < 0 || (worst >= 0 && ri != VK_SUCCESS)) worst = ri;
        }
        return worst;
    }

    static VkResult VKAPI_CALL wait_for_present(VkDevice, VkSwapchainKHR, std::uint64_t id, std::uint64_t timeout) {
        FakeDevice& f = *current;
        auto it = f.shown_at.find(id);
        if (it == f.shown_at.end()) return VK_TIMEOUT;
        const std::int64_t now = ns_of(f.os.now());
        if (it->second > now) {
            if (static_cast<std::int64_t>(timeout) < it->second - now) return VK_TIMEOUT;
            f.os.block_until(clock::from_ns(it->second));
        }
        return VK_SUCCESS;
    }

    static VkResult VKAPI_CALL past_timing(VkDevice, VkSwapchainKHR, std::uint32_t* count,
                                           VkPastPresentationTimingGOOGLE* out) {
        FakeDevice& f = *current;
        const std::int64_t now = ns_of(f.os.now());
        std::uint32_t n = 0;
        auto it = f.unreported.begin();
        while (it != f.unreported.end() && it->second <= now) {
            if (out != nullptr && n < *count) {
                out[n] = VkPastPresentationTimingGOOGLE{it->first, 0, static_cast<std::uint64_t>(it->second), 0, 0};
                it = f.unreported.erase(it);
            } else {
                ++it;
            }
            ++n;
        }
        if (out == nullptr) {
            *count = n;
            return VK_SUCCESS;
        }
        const bool more = n > *count;
        if (!more) *count = n;
        return more ? VK_INCOMPLETE : VK_SUCCESS;
    }

    static VkResult VKAPI_CALL refresh_cycle(VkDevice, VkSwapchainKHR, VkRefreshCycleDurationGOOGLE* rc) {
        rc->refreshDuration = 16'666'667;
        return VK_SUCCESS;
    }
};

const auto kSwapchain = reinterpret_cast<VkSwapchainKHR>(std::uintptr_t{0x51});
const auto kSwapchain2 = reinterpret_cast<VkSwapchainKHR>(std::uintptr_t{0x52});
const auto kDevice = reinterpret_cast<VkDevice>(std::uintptr_t{0xd0});
const auto kQueue = reinterpret_cast<VkQueue>(std::uintptr_t{0xe0});

pacer::vk::Dispatch plain() {
    pacer::vk::Dispatch d;
    d.queue_present = &FakeDevice::queue_present;
    return d;
}
pacer::vk::Dispatch with_present_wait() {
    pacer::vk::Dispatch d = plain();
    d.present_id = true;
    d.wait_for_present = &FakeDevice::wait_for_present;
    return d;
}
pacer::vk::Dispatch with_display_timing() {
    pacer::vk::Dispatch d = plain();
    d.past_timing = &FakeDevice::past_timing;
    d.refresh_cycle = &FakeDevice::refresh_cycle;
    return d;
}

VkPresentInfoKHR present_info(const VkSwapchainKHR* swapchains, std::uint32_t n, const std::uint32_t* images) {
    VkPresentInfoKHR info{};
    info.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR;
    info.swapchainCount = n;
    info.pSwapchains = swapchains;
    info.pImageIndices = images;
    return info;
}

// A 60 Hz FIFO display, a 60 Hz pacer on the same virtual clock, and the fake device.
struct Rig {
    explicit Rig(pacer::PacerConfig c = {}) : display(os, {.refresh_hz = 60, .queue_depth = 2}), fp(c, &os), dev(os, display) {}
    pacer::SimulatedOs os{exact()};
    pacer::SimulatedDisplay display;
    pacer::FramePacer fp;
    FakeDevice dev;
};

void zero_offset(pacer::vk::SwapchainPacer& sp) {
    pacer::ClockOffset zero;
    zero.valid = true;
    sp.set_clock_offset(zero);  // the fake's times are the virtual clock's
}

// Paced at 60 Hz: each interval within 0.1 ms of a 60 Hz period (the display lock places the waits
// on the vblanks fitted from the presents, not on the grid), and on average within 0.1 % of it
// (present-wait stamps come late by up to a frame here: the fit of them is off by 0.05 %).
void expect_60hz(const std::vector<std::int64_t>& wakes, std::size_t from) {
    ASSERT_GT(wakes.size(), from + 10);
    for (std::size_t i = from; i < wakes.size(); ++i)
        EXPECT_NEAR(static_cast<double>(wakes[i] - wakes[i - 1]), 16'666'667.0, 100'000.0) << i;
    const double mean = static_cast<double>(wakes.back() - wakes[from - 1]) / static_cast<double>(wakes.size() - from);
    EXPECT_NEAR(mean, 1e9 / 60, 16'667.0);
}

struct Collected {
    std::vector<pacer::PresentInfo> reports;
    static void add(void* self, const pacer::PresentInfo& f) { static_cast<Collected*>(self)->reports.push_back(f); }
};

TEST(VulkanAdapter, WithoutFeedbackItTimesThePresentCallOnly) {
    Rig rig;
    pacer::vk::SwapchainPacer sp(rig.fp, plain(), kDevice, kSwapchain, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(sp.feedback(), pacer::vk::Feedback::none);
    EXPECT_STREQ(pacer::vk::to_string(sp.feedback()), "none");
    const std::uint32_t image = 0;
    const VkPresentInfoKHR info = present_info(&kSwapchain, 1, &image);
    std::vector<std::int64_t> wakes;
    for (int i = 0; i < 120; ++i) {
        wakes.push_back(ns_of(rig.fp.wait().wake));
        rig.os.advance(2ms);
        ASSERT_EQ(sp.present(kQueue, info), VK_SUCCESS);
        EXPECT_EQ(rig.dev.id_structs + rig.dev.time_structs, 0);  // nothing added to the chain
    }
    const pacer::PresentInfo& p = sp.last_present();
    EXPECT_EQ(p.swap_interval, 1);  // FIFO
    EXPECT_EQ(p.id, 0u);
    EXPECT_TRUE(p.ok);
    EXPECT_GE(p.end, p.begin);
    const pacer::PacerStatus st = rig.fp.status();
    EXPECT_EQ(st.presents.submitted, 120u);
    EXPECT_FALSE(st.presents.feedback);
    EXPECT_EQ(sp.feedback_reports(), 0u);
    expect_60hz(wakes, 61);  // the last second

    pacer::vk::SwapchainPacer mailbox(rig.fp, plain(), kDevice, kSwapchain, VK_PRESENT_MODE_MAILBOX_KHR);
    rig.fp.wait();
    mailbox.present(kQueue, info);
    EXPECT_EQ(mailbox.last_present().swap_interval, 0);
    EXPECT_EQ(pacer::vk::swap_interval_of(VK_PRESENT_MODE_FIFO_RELAXED_KHR), 1);
    EXPECT_EQ(pacer::vk::swap_interval_of(VK_PRESENT_MODE_IMMEDIATE_KHR), 0);
    EXPECT_EQ(pacer::vk::swap_interval_of(VK_PRESENT_MODE_SHARED_DEMAND_REFRESH_KHR), -1);
}

TEST(VulkanAdapter, DisplayTimingReportsEachPresentsDisplayedTimeById) {
    Rig rig;
    pacer::vk::SwapchainPacer sp(rig.fp, with_display_timing(), kDevice, kSwapchain, VK_PRESENT_MODE_FIFO_KHR);
    zero_offset(sp);
    Collected got;
    sp.on_feedback(&Collected::add, &got);
    EXPECT_EQ(sp.feedback(), pacer::vk::Feedback::display_timing);
    const std::uint32_t image = 0;
    const VkPresentInfoKHR info = present_info(&kSwapchain, 1, &image);
    for (int i = 0; i < 180; ++i) {
        rig.fp.wait();
        rig.os.advance(3ms);
        ASSERT_EQ(sp.present(kQueue, info), VK_SUCCESS);
        EXPECT_EQ(rig.dev.time_structs, 1);
        EXPECT_EQ(rig.dev.id_structs, 0);
    }
    EXPECT_DOUBLE_EQ(sp.refresh_hz(), 1e9 / 16'666'667);
    EXPECT_DOUBLE_EQ(sp.last_present().refresh_hz, sp.refresh_hz());
    // Ids 1, 2, 3, ... on the chain; each shown present reported once, at the device's time.
    ASSERT_EQ(rig.dev.google_ids_seen.size(), 180u);
    for (std::size_t i = 0; i < rig.dev.google_ids_seen.size(); ++i) EXPECT_EQ(rig.dev.google_ids_seen[i], i + 1);
    ASSERT_GE(got.reports.size(), 175u);
    for (const pacer::PresentInfo& f : got.reports) {
        EXPECT_EQ(f.outcome, pacer::PresentOutcome::shown);
        EXPECT_EQ(ns_of(f.displayed), rig.dev.shown_at.at(f.id)) << f.id;
    }
    const pacer::PacerStatus st = rig.fp.status();
    EXPECT_TRUE(st.presents.feedback);
    EXPECT_EQ(st.presents.shown, got.reports.size());
    // The displayed times are vblanks of the 60 Hz display: its fit locks onto them.
    EXPECT_EQ(st.display.state, pacer::DisplayState::locked);
    EXPECT_NEAR(st.display.refresh_hz, 60.0, 0.01);
}

TEST(VulkanAdapter, PresentWaitStampsEachIdWhenTheWaitReturns) {
    Rig rig;
    pacer::vk::SwapchainPacer sp(rig.fp, with_present_wait(), kDevice, kSwapchain, VK_PRESENT_MODE_FIFO_KHR);
    Collected got;
    sp.on_feedback(&Collected::add, &got);
    EXPECT_EQ(sp.feedback(), pacer::vk::Feedback::present_wait);
    EXPECT_FALSE(sp.wait_feedback(0ns));  // nothing presented yet
    const std::uint32_t image = 0;
    const VkPresentInfoKHR info = present_info(&kSwapchain, 1, &image);
    for (int i = 0; i < 120; ++i) {
        rig.fp.wait();
        rig.os.advance(3ms);
        ASSERT_EQ(sp.present(kQueue, info), VK_SUCCESS);
        EXPECT_EQ(rig.dev.id_structs, 1);
        // The feedback thread's step, here on the same thread: every id already shown.
        while (sp.wait_feedback(0ns)) {
        }
    }
    ASSERT_EQ(rig.dev.ids_seen.size(), 120u);
    for (std::size_t i = 0; i < rig.dev.ids_seen.size(); ++i) EXPECT_EQ(rig.dev.ids_seen[i], i + 1);
    EXPECT_LE(sp.pending(), 3u);  // the FIFO's queue: presented, not yet shown
    ASSERT_GE(got.reports.size(), 110u);
    for (const pacer::PresentInfo& f : got.reports) {
        // Stamped when the wait returned: never before the device showed it, within a frame after.
        const std::int64_t shown = rig.dev.shown_at.at(f.id);
        EXPECT_GE(ns_of(f.displayed), shown) << f.id;
        EXPECT_LE(ns_of(f.displayed), shown + 17 * pacer_test::kMs) << f.id;
    }
    EXPECT_EQ(rig.fp.status().presents.shown, got.reports.size());

    // A blocking wait (the layer's thread waits with a timeout) returns at the displayed time.
    rig.fp.wait();
    sp.present(kQueue, info);
    while (sp.pending() > 1) ASSERT_TRUE(sp.wait_feedback(100ms));
    ASSERT_TRUE(sp.wait_feedback(100ms));
    EXPECT_EQ(ns_of(rig.os.now()), rig.dev.shown_at.at(121));
}

TEST(VulkanAdapter, OutOfDatePassesThroughAndPacingGoesOn) {
    Rig rig;
    pacer::vk::SwapchainPacer sp(rig.fp, with_present_wait(), kDevice, kSwapchain, VK_PRESENT_MODE_FIFO_KHR);
    const std::uint32_t image = 0;
    const VkPresentInfoKHR info = present_info(&kSwapchain, 1, &image);
    std::vector<std::int64_t> wakes;
    for (int i = 0; i < 120; ++i) {
        wakes.push_back(ns_of(rig.fp.wait().wake));
        rig.os.advance(2ms);
        rig.dev.call_result = i == 50 ? VK_ERROR_OUT_OF_DATE_KHR : i == 51 ? VK_SUBOPTIMAL_KHR : VK_SUCCESS;
        const VkResult r = sp.present(kQueue, info);
        EXPECT_EQ(r, rig.dev.call_result) << i;  // untouched
        EXPECT_EQ(sp.last_present().ok, i != 50) << i;
        while (sp.wait_feedback(0ns)) {
        }
    }
    EXPECT_EQ(rig.fp.status().presents.submitted, 120u);
    // The failed present's id never reached the device; no feedback waits for it.
    EXPECT_EQ(rig.dev.ids_seen.size(), 119u);
    EXPECT_FALSE(sp.stopped());
    expect_60hz(wakes, 45);  // held through it (frame 50)
}

TEST(VulkanAdapter, TheHostsOwnIdsAreUsedAndNotAddedTwice) {
    Rig rig;
    pacer::vk::SwapchainPacer sp(rig.fp, with_present_wait(), kDevice, kSwapchain, VK_PRESENT_MODE_FIFO_KHR);
    const std::uint32_t image = 0;
    for (std::uint64_t host_id = 100; host_id < 110; ++host_id) {
        VkPresentIdKHR mine{VK_STRUCTURE_TYPE_PRESENT_ID_KHR, nullptr, 1, &host_id};
        VkPresentInfoKHR info = present_info(&kSwapchain, 1, &image);
        info.pNext = &mine;
        rig.fp.wait();
        sp.present(kQueue, info);
        EXPECT_EQ(rig.dev.id_structs, 1);
        EXPECT_EQ(sp.last_present().id, host_id);
        EXPECT_EQ(info.pNext, &mine);  // the host's chain untouched
    }
    ASSERT_EQ(rig.dev.ids_seen.size(), 10u);
    EXPECT_EQ(rig.dev.ids_seen.front(), 100u);
    // Without the host's structure again: ours carry on above the host's.
    const VkPresentInfoKHR info = present_info(&kSwapchain, 1, &image);
    rig.fp.wait();
    sp.present(kQueue, info);
    EXPECT_EQ(rig.dev.ids_seen.back(), 110u);
}

TEST(VulkanAdapter, SeveralSwapchainsInOnePresentWaitOnce) {
    // Swapchain 0's pacer at 60 Hz, swapchain 1's at 30 Hz, both in present sync (they would wait
    // in before_present): one wait per present, the first swapchain's, so the loop runs at 60 Hz.
    pacer::PacerConfig c60;
    c60.sync = pacer::SyncMode::present;
    pacer::PacerConfig c30 = c60;
    c30.target_hz = 30;
    Rig rig(c60);
    pacer::FramePacer fp30(c30, &rig.os);
    pacer::vk::SwapchainPacer a(rig.fp, plain(), kDevice, kSwapchain, VK_PRESENT_MODE_FIFO_KHR);
    pacer::vk::SwapchainPacer b(fp30, plain(), kDevice, kSwapchain2, VK_PRESENT_MODE_MAILBOX_KHR);
    pacer::vk::SwapchainPacer* pacers[] = {&a, &b};
    const VkSwapchainKHR both[] = {kSwapchain, kSwapchain2};
    const std::uint32_t images[] = {0, 0};
    const VkPresentInfoKHR info = present_info(both, 2, images);
    rig.dev.per_swapchain = {VK_SUCCESS, VK_ERROR_OUT_OF_DATE_KHR};
    const std::int64_t t0 = ns_of(rig.os.now());
    for (int i = 0; i < 121; ++i) {
        rig.fp.wait();
        rig.os.advance(1ms);
        EXPECT_EQ(pacer::vk::queue_present(&FakeDevice::queue_present, kQueue, info, pacers), VK_ERROR_OUT_OF_DATE_KHR);
    }
    // 120 periods of 60 Hz after the first present (plus its 1 ms of work), not of 30 Hz.
    EXPECT_NEAR(static_cast<double>(ns_of(rig.os.now()) - t0), 2e9, 20e6);
    EXPECT_TRUE(a.last_present().ok);   // each swapchain's own result
    EXPECT_FALSE(b.last_present().ok);
    EXPECT_EQ(b.last_present().swap_interval, 0);
    EXPECT_EQ(rig.fp.status().presents.submitted, 121u);
    EXPECT_EQ(fp30.status().presents.submitted, 121u);
}

}  // namespace
