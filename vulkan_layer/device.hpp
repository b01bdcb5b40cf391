// A device the layer wraps: the next layer's functions, the present feedback enabled on it, and
// its swapchains. Also what the layer adds to vkCreateDevice for that feedback.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "pacer/vulkan.hpp"
#include "swapchain.hpp"

namespace pacer_layer {

// The instance functions that tell what a physical device offers.
struct Features {
    PFN_vkEnumerateDeviceExtensionProperties enumerate = nullptr;
    PFN_vkGetPhysicalDeviceFeatures2 features2 = nullptr;  // Vulkan 1.1, or VK_KHR_get_physical_device_properties2
};
Features instance_features(VkInstance instance, PFN_vkGetInstanceProcAddr gipa, const VkInstanceCreateInfo* ci);

// The app's VkDeviceCreateInfo with the feedback extensions the device offers added (added false:
// nothing to add, use the app's). Points into itself: filled in place, never copied.
struct FeedbackRequest {
    FeedbackRequest() = default;
    FeedbackRequest(const FeedbackRequest&) = delete;
    FeedbackRequest& operator=(const FeedbackRequest&) = delete;
    bool added = false;
    VkDeviceCreateInfo ci{};
    std::vector<const char*> extensions;
    VkPhysicalDevicePresentIdFeaturesKHR id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, nullptr, VK_TRUE};
    VkPhysicalDevicePresentWaitFeaturesKHR wait{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR, nullptr,
                                                VK_TRUE};
};
// VK_GOOGLE_display_timing where offered, else VK_KHR_present_id + VK_KHR_present_wait where
// offered and their features supported; nothing the app enabled already is added twice.
void plan_feedback(VkPhysicalDevice pd, const Features& f, const VkDeviceCreateInfo* app, FeedbackRequest& out);

class Device {
public:
    // enabled: the create info the device was made with (what it has enabled).
    Device(VkDevice handle, PFN_vkGetDeviceProcAddr gdpa, const VkDeviceCreateInfo& enabled);

    PFN_vkGetDeviceProcAddr gdpa = nullptr;
    PFN_vkDestroyDevice destroy = nullptr;
    PFN_vkCreateSwapchainKHR create_swapchain = nullptr;
    PFN_vkDestroySwapchainKHR destroy_swapchain = nullptr;
    pacer::vk::Dispatch dispatch{};

    std::shared_ptr<Pacing> take_pacing(VkSwapchainKHR old);  // nullptr: none to take over
    void add(VkSwapchainKHR handle, std::shared_ptr<Swapchain> s);
    void remove(VkSwapchainKHR handle);
    void forget_swapchains();
    VkResult present(VkQueue queue, const VkPresentInfoKHR& info);

private:
    std::mutex m_;
    std::unordered_map<VkSwapchainKHR, std::shared_ptr<Swapchain>> swapchains_;
};

}  // namespace pacer_layer
