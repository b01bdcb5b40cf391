// A small Vulkan program that embeds pacer through pacer/vulkan.hpp and churns swapchains on
// lavapipe: two SDL2 windows, two threads, each creating, presenting, recreating (oldSwapchain)
// and destroying swapchains, then one swapchain handed from one thread to the other. Run with the
// layer loaded too (tests/vulkan/churn_test.sh), it exercises the layer's several swapchains,
// recreation, threads that present, and a thread that takes a swapchain over.
//
// Each present goes through pacer::vk::SwapchainPacer with the thread's own 60 Hz FramePacer; the
// program checks that every present reached its pacer and that no present failed but for
// VK_ERROR_OUT_OF_DATE_KHR / VK_SUBOPTIMAL_KHR, and prints one line per phase. Exit 0: all well.
#include <SDL.h>
#include <SDL_vulkan.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "pacer/frame_pacer.hpp"
#include "pacer/vulkan.hpp"

namespace {

int failures = 0;
std::mutex out_mutex;

void check(bool ok, const char* what) {
    if (ok) return;
    std::lock_guard<std::mutex> lock(out_mutex);
    std::fprintf(stderr, "FAIL: %s\n", what);
    ++failures;
}

struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice pd = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::mutex queue_mutex;  // the queue is shared by the threads: Vulkan asks for external sync
    pacer::vk::Dispatch dispatch;
};

VkSwapchainKHR make_swapchain(Gpu& g, VkSurfaceKHR surface, VkSwapchainKHR old) {
    VkSurfaceCapabilitiesKHR caps{};
    vkGetPhysicalDeviceSurfaceCapabilitiesKHR(g.pd, surface, &caps);
    std::uint32_t n = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(g.pd, surface, &n, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(n);
    vkGetPhysicalDeviceSurfaceFormatsKHR(g.pd, surface, &n, formats.data());
    VkSwapchainCreateInfoKHR ci{};
    ci.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR;
    ci.surface = surface;
    ci.minImageCount = caps.minImageCount + 1;
    if (caps.maxImageCount != 0 && ci.minImageCount > caps.maxImageCount) ci.minImageCount = caps.maxImageCount;
    ci.imageFormat = formats.at(0).format;
    ci.imageColorSpace = formats.at(0).colorSpace;
    ci.imageExtent = caps.currentExtent.width == 0xFFFFFFFFu ? VkExtent2D{160, 120} : caps.currentExtent;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = caps.currentTransform;
    ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    ci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    ci.clipped = VK_TRUE;
    ci.oldSwapchain = old;
    VkSwapchainKHR sc = VK_NULL_HANDLE;
    check(vkCreateSwapchainKHR(g.device, &ci, nullptr, &sc) == VK_SUCCESS, "vkCreateSwapchainKHR");
    return sc;
}

// `frames` presents of `sc`, paced by fp, each through the adapter. Nothing is drawn: the image
// is acquired (its fence waited for) and presented as it is.
void present_frames(Gpu& g, pacer::FramePacer& fp, VkSwapchainKHR sc, int frames) {
    pacer::vk::SwapchainPacer sp(fp, g.dispatch, g.device, sc, VK_PRESENT_MODE_FIFO_KHR);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, 0};
    VkFence fence = VK_NULL_HANDLE;
    vkCreateFence(g.device, &fci, nullptr, &fence);
    const std::uint64_t before = fp.status().presents.submitted;
    int presented = 0;
    for (int i = 0; i < frames; ++i) {
        fp.wait();
        std::uint32_t image = 0;
        const VkResult a = vkAcquireNextImageKHR(g.device, sc, UINT64_MAX, VK_NULL_HANDLE, fence, &image);
        if (a != VK_SUCCESS && a != VK_SUBOPTIMAL_KHR) {
            check(a == VK_ERROR_OUT_OF_DATE_KHR, "vkAcquireNextImageKHR");
            continue;
        }
        vkWaitForFences(g.device, 1, &fence, VK_TRUE, UINT64_MAX);
        vkResetFences(g.device, 1, &fence);
        VkPresentInfoKHR info{};
        info.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR;
        info.swapchainCount = 1;
        info.pSwapchains = &sc;
        info.pImageIndices = &image;
        VkResult r;
        {
            std::lock_guard<std::mutex> lock(g.queue_mutex);
            r = sp.present(g.queue, info);
        }
        check(r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR || r == VK_ERROR_OUT_OF_DATE_KHR, "vkQueuePresentKHR");
        ++presented;
    }
    vkDeviceWaitIdle(g.device);
    vkDestroyFence(g.device, fence, nullptr);
    check(fp.status().presents.submitted - before == static_cast<std::uint64_t>(presented),
          "every present reached the pacer");
    check(sp.feedback() == pacer::vk::Feedback::none || sp.feedback_reports() > 0, "feedback, where enabled");
}

bool init(Gpu& g, SDL_Window* window) {
    unsigned n = 0;
    SDL_Vulkan_GetInstanceExtensions(window, &n, nullptr);
    std::vector<const char*> ext(n);
    SDL_Vulkan_GetInstanceExtensions(window, &n, ext.data());
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "swapchain_churn", 1, "pacer", 1,
                          VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    ici.enabledExtensionCount = n;
    ici.ppEnabledExtensionNames = ext.data();
    if (vkCreateInstance(&ici, nullptr, &g.instance) != VK_SUCCESS) return false;
    std::uint32_t count = 1;
    if (vkEnumeratePhysicalDevices(g.instance, &count, &g.pd) < 0 || count == 0) return false;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, 0, 1, &priority};
    const char* dev_ext[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    VkDeviceCreateInfo dci{};
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &q;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = dev_ext;
    if (vkCreateDevice(g.pd, &dci, nullptr, &g.device) != VK_SUCCESS) return false;
    vkGetDeviceQueue(g.device, 0, 0, &g.queue);
    // Through vkGetDeviceProcAddr, as an engine does: with the layer loaded, its present.
    g.dispatch.queue_present =
        reinterpret_cast<PFN_vkQueuePresentKHR>(vkGetDeviceProcAddr(g.device, "vkQueuePresentKHR"));
    return g.dispatch.queue_present != nullptr;
}

VkSurfaceKHR surface_of(Gpu& g, SDL_Window* w) {
    VkSurfaceKHR s = VK_NULL_HANDLE;
    check(SDL_Vulkan_CreateSurface(w, g.instance, &s) == SDL_TRUE, "SDL_Vulkan_CreateSurface");
    VkBool32 ok = VK_FALSE;
    vkGetPhysicalDeviceSurfaceSupportKHR(g.pd, 0, s, &ok);
    check(ok == VK_TRUE, "queue family 0 presents to the window");
    return s;
}

}  // namespace

int main() {
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        std::fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Window* w1 = SDL_CreateWindow("churn 1", 0, 0, 160, 120, SDL_WINDOW_VULKAN);
    SDL_Window* w2 = SDL_CreateWindow("churn 2", 200, 0, 160, 120, SDL_WINDOW_VULKAN);
    Gpu g;
    if (w1 == nullptr || w2 == nullptr || !init(g, w1)) {
        std::fprintf(stderr, "no Vulkan window: %s\n", SDL_GetError());
        return 1;
    }
    VkSurfaceKHR s1 = surface_of(g, w1), s2 = surface_of(g, w2);
    pacer::PacerConfig c;
    c.target_hz = 60;
    VkSwapchainKHR handed = VK_NULL_HANDLE;

    // Phase 1: two threads at once, each its own window and pacer.
    std::thread a([&] {
        pacer::FramePacer fp(c);
        VkSwapchainKHR sc = make_swapchain(g, s1, VK_NULL_HANDLE);
        present_frames(g, fp, sc, 30);
        VkSwapchainKHR again = make_swapchain(g, s1, sc);  // as on a resize
        vkDestroySwapchainKHR(g.device, sc, nullptr);
        present_frames(g, fp, again, 30);
        handed = again;
    });
    std::thread b([&] {
        pacer::FramePacer fp(c);
        for (int round = 0; round < 2; ++round) {  // destroyed, then made anew without oldSwapchain
            VkSwapchainKHR sc = make_swapchain(g, s2, VK_NULL_HANDLE);
            present_frames(g, fp, sc, 30);
            vkDestroySwapchainKHR(g.device, sc, nullptr);
        }
    });
    a.join();
    b.join();
    std::printf("phase 1: two threads, 4 swapchains (one recreated), 120 presents\n");

    // Phase 2: thread a's swapchain presented by another thread.
    std::thread c2([&] {
        pacer::FramePacer fp(c);
        present_frames(g, fp, handed, 30);
    });
    c2.join();
    vkDestroySwapchainKHR(g.device, handed, nullptr);
    std::printf("phase 2: a swapchain taken over by another thread, 30 presents\n");

    vkDestroySurfaceKHR(g.instance, s1, nullptr);
    vkDestroySurfaceKHR(g.instance, s2, nullptr);
    vkDestroyDevice(g.device, nullptr);
    vkDestroyInstance(g.instance, nullptr);
    SDL_DestroyWindow(w1);
    SDL_DestroyWindow(w2);
    SDL_Quit();
    std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
