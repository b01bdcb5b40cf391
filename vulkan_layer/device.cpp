#include "device.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace pacer_layer {
namespace {

bool named(std::uint32_t n, const char* const* names, const char* name) {
    for (std::uint32_t i = 0; i < n; ++i)
        if (names != nullptr && std::strcmp(names[i], name) == 0) return true;
    return false;
}

bool offers(const Features& f, VkPhysicalDevice pd, const char* name) {
    std::uint32_t n = 0;
    if (f.enumerate == nullptr || f.enumerate(pd, nullptr, &n, nullptr) != VK_SUCCESS) return false;
    std::vector<VkExtensionProperties> props(n);
    if (f.enumerate(pd, nullptr, &n, props.data()) < 0) return false;
    for (std::uint32_t i = 0; i < n; ++i)
        if (std::strcmp(props[i].extensionName, name) == 0) return true;
    return false;
}

const void* in_chain(const void* next, VkStructureType s) {
    for (auto* b = static_cast<const VkBaseInStructure*>(next); b != nullptr; b = b->pNext)
        if (b->sType == s) return b;
    return nullptr;
}

bool present_wait_supported(VkPhysicalDevice pd, const Features& f) {
    if (f.features2 == nullptr || !offers(f, pd, VK_KHR_PRESENT_ID_EXTENSION_NAME) ||
        !offers(f, pd, VK_KHR_PRESENT_WAIT_EXTENSION_NAME))
        return false;
    VkPhysicalDevicePresentWaitFeaturesKHR wait{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR, nullptr, 0};
    VkPhysicalDevicePresentIdFeaturesKHR id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, &wait, 0};
    VkPhysicalDeviceFeatures2 all{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &id, {}};
    f.features2(pd, &all);
    return id.presentId == VK_TRUE && wait.presentWait == VK_TRUE;
}

void add_extension(const VkDeviceCreateInfo* app, FeedbackRequest& out, const char* name) {
    if (!named(app->enabledExtensionCount, app->ppEnabledExtensionNames, name)) out.extensions.push_back(name);
}

}  // namespace

Features instance_features(VkInstance instance, PFN_vkGetInstanceProcAddr gipa, const VkInstanceCreateInfo* ci) {
    Features f;
    f.enumerate = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
        gipa(instance, "vkEnumerateDeviceExtensionProperties"));
    const std::uint32_t api = ci->pApplicationInfo != nullptr ? ci->pApplicationInfo->apiVersion : VK_API_VERSION_1_0;
    if (api >= VK_API_VERSION_1_1) {
        f.features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(gipa(instance, "vkGetPhysicalDeviceFeatures2"));
    } else if (named(ci->enabledExtensionCount, ci->ppEnabledExtensionNames,
                     VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) {
        f.features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(gipa(instance, "vkGetPhysicalDeviceFeatures2KHR"));
    }
    return f;
}

void plan_feedback(VkPhysicalDevice pd, const Features& f, const VkDeviceCreateInfo* app, FeedbackRequest& out) {
    out.ci = *app;
    out.extensions.assign(app->ppEnabledExtensionNames, app->ppEnabledExtensionNames + app->enabledExtensionCount);
    const std::size_t had = out.extensions.size();
    if (offers(f, pd, VK_GOOGLE_DISPLAY_TIMING_EXTENSION_NAME)) {
        add_extension(app, out, VK_GOOGLE_DISPLAY_TIMING_EXTENSION_NAME);
    } else if (present_wait_supported(pd, f) &&
               in_chain(app->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR) == nullptr &&
               in_chain(app->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR) == nullptr) {
        // The app's own feature structures are const: ours go first only where it has none.
        add_extension(app, out, VK_KHR_PRESENT_ID_EXTENSION_NAME);
        add_extension(app, out, VK_KHR_PRESENT_WAIT_EXTENSION_NAME);
        out.wait.pNext = const_cast<void*>(app->pNext);
        out.id.pNext = &out.wait;
        out.ci.pNext = &out.id;
        out.added = true;
    }
    out.added = out.added || out.extensions.size() != had;
    out.ci.enabledExtensionCount = static_cast<std::uint32_t>(out.extensions.size());
    out.ci.ppEnabledExtensionNames = out.extensions.data();
}

Device::Device(VkDevice handle, PFN_vkGetDeviceProcAddr next, const VkDeviceCreateInfo& enabled) : gdpa(next) {
    auto get = [&](const char* name) { return gdpa(handle, name); };
    destroy = reinterpret_cast<PFN_vkDestroyDevice>(get("vkDestroyDevice"));
    create_swapchain = reinterpret_cast<PFN_vkCreateSwapchainKHR>(get("vkCreateSwapchainKHR"));
    destroy_swapchain = reinterpret_cast<PFN_vkDestroySwapchainKHR>(get("vkDestroySwapchainKHR"));
    dispatch.queue_present = reinterpret_cast<PFN_vkQueuePresentKHR>(get("vkQueuePresentKHR"));
    const auto has = [&](const char* name) {
        return named(enabled.enabledExtensionCount, enabled.ppEnabledExtensionNames, name);
    };
    if (has(VK_GOOGLE_DISPLAY_TIMING_EXTENSION_NAME)) {
        dispatch.past_timing = reinterpret_cast<PFN_vkGetPastPresentationTimingGOOGLE>(get("vkGetPastPresentationTimingGOOGLE"));
        dispatch.refresh_cycle = reinterpret_cast<PFN_vkGetRefreshCycleDurationGOOGLE>(get("vkGetRefreshCycleDurationGOOGLE"));
        if (dispatch.refresh_cycle == nullptr) dispatch.past_timing = nullptr;
    }
    const auto* id = static_cast<const VkPhysicalDevicePresentIdFeaturesKHR*>(
        in_chain(enabled.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR));
    const auto* wait = static_cast<const VkPhysicalDevicePresentWaitFeaturesKHR*>(
        in_chain(enabled.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR));
    if (has(VK_KHR_PRESENT_ID_EXTENSION_NAME) && has(VK_KHR_PRESENT_WAIT_EXTENSION_NAME) && id != nullptr &&
        wait != nullptr && id->presentId == VK_TRUE && wait->presentWait == VK_TRUE) {
        dispatch.present_id = true;
        dispatch.wait_for_present = reinterpret_cast<PFN_vkWaitForPresentKHR>(get("vkWaitForPresentKHR"));
    }
}

std::shared_ptr<Pacing> Device::take_pacing(VkSwapchainKHR old) {
    if (old == VK_NULL_HANDLE) return nullptr;
    std::shared_ptr<Swapchain> s;
    {
        std::lock_guard<std::mutex> lock(m_);
        auto it = swapchains_.find(old);
        if (it == swapchains_.end()) return nullptr;
        s = it->second;
    }
    std::lock_guard<std::mutex> lock(s->mutex());
    return s->give_up_pacing();
}

void Device::add(VkSwapchainKHR handle, std::shared_ptr<Swapchain> s) {
    std::lock_guard<std::mutex> lock(m_);
    swapchains_[handle] = std::move(s);
}

void Device::remove(VkSwapchainKHR handle) {
    std::shared_ptr<Swapchain> s;
    {
        std::lock_guard<std::mutex> lock(m_);
        auto it = swapchains_.find(handle);
        if (it == swapchains_.end()) return;
        s = std::move(it->second);
        swapchains_.erase(it);
    }
    std::lock_guard<std::mutex> lock(s->mutex());  // a present still running on it ends first
    s->give_up_pacing();  // the feedback thread stopped; the capture closes with the last owner
}

void Device::forget_swapchains() {
    std::unordered_map<VkSwapchainKHR, std::shared_ptr<Swapchain>> all;
    {
        std::lock_guard<std::mutex> lock(m_);
        all.swap(swapchains_);
    }
    for (auto& [h, s] : all) {
        std::lock_guard<std::mutex> lock(s->mutex());
        s->give_up_pacing();
    }
}

// One present of up to kMaxSwapchains swapchains: each paced one locked (in address order, so two
// threads presenting overlapping sets cannot deadlock), the first one waits.
VkResult Device::present(VkQueue queue, const VkPresentInfoKHR& info) {
    const std::uint32_t n = info.swapchainCount;
    if (n == 0 || n > pacer::vk::kMaxSwapchains) return dispatch.queue_present(queue, &info);
    std::array<std::shared_ptr<Swapchain>, pacer::vk::kMaxSwapchains> held{};
    {
        std::lock_guard<std::mutex> lock(m_);
        for (std::uint32_t i = 0; i < n; ++i) {
            auto it = swapchains_.find(info.pSwapchains[i]);
            if (it != swapchains_.end()) held[i] = it->second;
        }
    }
    std::array<Swapchain*, pacer::vk::kMaxSwapchains> order{};
    for (std::uint32_t i = 0; i < n; ++i) order[i] = held[i].get();
    std::sort(order.begin(), order.begin() + n);
    auto* last = std::unique(order.begin(), order.begin() + n);
    std::array<std::unique_lock<std::mutex>, pacer::vk::kMaxSwapchains> locks{};
    for (auto* s = order.begin(); s != last; ++s)
        if (*s != nullptr) locks[static_cast<std::size_t>(s - order.begin())] = std::unique_lock<std::mutex>((*s)->mutex());

    std::array<pacer::vk::SwapchainPacer*, pacer::vk::kMaxSwapchains> pacers{};
    std::uint32_t first = n;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (held[i] == nullptr || !held[i]->active()) continue;
        if (first == n) first = i;
        held[i]->begin(i == first);
        pacers[i] = held[i]->pacer();
    }
    if (first == n) return dispatch.queue_present(queue, &info);
    const VkResult r = pacer::vk::queue_present(dispatch.queue_present, queue, info, pacers.data());
    for (std::uint32_t i = 0; i < n; ++i)
        if (pacers[i] != nullptr) held[i]->end(i == first);
    return r;
}

}  // namespace pacer_layer
