// VK_LAYER_pacer_frame_pacing: the loader's entry points, the instance and device records, and
// the calls the layer wraps: vkCreateDevice (to enable present feedback), vkCreateSwapchainKHR,
// vkDestroySwapchainKHR, vkQueuePresentKHR. docs/vulkan.md is the user's manual;
// docs/architecture.md places it.
//
// The records are keyed by the dispatch key (the loader's table pointer, the first word of every
// dispatchable handle: a queue's is its device's, a physical device's its instance's). Every
// entry point catches what it could throw and passes the call through: the layer never takes its
// host down.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "device.hpp"
#include "stop.hpp"
#include "swapchain.hpp"

namespace pacer_layer {
namespace {

void* key(const void* handle) { return *static_cast<void* const*>(handle); }

void log_line(pacer::LogLevel level, const char* message, void*) noexcept {
    std::fprintf(stderr, "pacer layer: %s: %s\n", pacer::to_string(level), message);
}

struct Instance {
    VkInstance handle = VK_NULL_HANDLE;
    PFN_vkGetInstanceProcAddr gipa = nullptr;
    PFN_vkDestroyInstance destroy = nullptr;
    Features features{};
};

struct Layer {
    std::mutex m;
    std::unordered_map<void*, std::unique_ptr<Instance>> instances;
    std::unordered_map<void*, std::shared_ptr<Device>> devices;
    Settings settings;
    int pacings = 0;  // made so far: the n-th capture's number
    std::vector<std::weak_ptr<Pacing>> capturing;  // the captures a stop signal closes
    StopSignals stop;  // last: stopped (its thread joined) before what it closes goes
};

// Made at the first call; destroyed when the loader unloads the layer (dlclose, after the last
// vkDestroyInstance) or at exit, so that nothing of it outlives the library (valgrind checks).
Layer& layer() {
    static Layer l;
    static std::once_flag once;
    std::call_once(once, [] {
        l.settings = read_settings([](const char* name) -> const char* { return std::getenv(name); });
        pacer::set_log_function(&log_line);
        pacer::set_log_level(l.settings.log);
        if (!l.settings.on && l.settings.log <= pacer::LogLevel::error)
            std::fprintf(stderr, "pacer layer: error: %s\n", l.settings.error.c_str());
    });
    return l;
}

Instance* instance_of(const void* handle) {
    Layer& l = layer();
    std::lock_guard<std::mutex> lock(l.m);
    auto it = l.instances.find(key(handle));
    return it == l.instances.end() ? nullptr : it->second.get();
}

// SIGTERM or SIGINT (StopSignals): every capture closed, its sidecar written, before the
// process ends.
void close_every_capture() {
    Layer& l = layer();
    std::vector<std::shared_ptr<Pacing>> all;
    {
        std::lock_guard<std::mutex> lock(l.m);
        for (const auto& w : l.capturing)
            if (auto p = w.lock()) all.push_back(std::move(p));
    }
    for (const auto& p : all) {
        std::lock_guard<std::mutex> lock(p->capture_m);
        if (!p->capturing) continue;
        p->capturing = false;
        (void)p->capture.close();
    }
}

std::shared_ptr<Device> device_of(const void* handle) {
    Layer& l = layer();
    std::lock_guard<std::mutex> lock(l.m);
    auto it = l.devices.find(key(handle));
    return it == l.devices.end() ? nullptr : it->second;
}

template <class Info>
Info* link_info(const void* next, VkStructureType type) {
    for (auto* p = static_cast<const VkBaseInStructure*>(next); p != nullptr; p = p->pNext) {
        auto* info = reinterpret_cast<Info*>(const_cast<VkBaseInStructure*>(p));
        if (p->sType == type && info->function == VK_LAYER_LINK_INFO) return info;
    }
    return nullptr;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
    auto* link = link_info<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer's turn
    auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
    if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult r = create(ci, alloc, out);
    if (r != VK_SUCCESS) return r;
    try {
        auto inst = std::make_unique<Instance>();
        inst->handle = *out;
        inst->gipa = gipa;
        inst->destroy = reinterpret_cast<PFN_vkDestroyInstance>(gipa(*out, "vkDestroyInstance"));
        inst->features = instance_features(*out, gipa, ci);
        Layer& l = layer();
        std::lock_guard<std::mutex> lock(l.m);
        l.instances[key(*out)] = std::move(inst);
    } catch (...) {  // no record: the instance works, unpaced
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* alloc) {
    PFN_vkDestroyInstance destroy = nullptr;
    {
        Layer& l = layer();
        std::lock_guard<std::mutex> lock(l.m);
        auto it = l.instances.find(key(instance));
        if (it == l.instances.end()) return;
        destroy = it->second->destroy;
        l.instances.erase(it);
    }
    if (destroy != nullptr) destroy(instance, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
    auto* link = link_info<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    const PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    Instance* inst = instance_of(pd);
    auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(inst != nullptr ? inst->handle : VK_NULL_HANDLE, "vkCreateDevice"));
    if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    // The feedback extensions the device offers, added to the app's (a copy of its create info).
    FeedbackRequest req;
    try {
        if (inst != nullptr && layer().settings.on) plan_feedback(pd, inst->features, ci, req);
    } catch (...) {
        req.added = false;
    }
    VkResult r = create(pd, req.added ? &req.ci : ci, alloc, out);
    if (r != VK_SUCCESS && req.added) {  // refused with ours: as the app asked
        req.added = false;
        r = create(pd, ci, alloc, out);
    }
    if (r != VK_SUCCESS) return r;
    try {
        auto dev = std::make_shared<Device>(*out, gdpa, req.added ? req.ci : *ci);
        Layer& l = layer();
        std::lock_guard<std::mutex> lock(l.m);
        l.devices[key(*out)] = std::move(dev);
    } catch (...) {
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* alloc) {
    std::shared_ptr<Device> dev;
    {
        Layer& l = layer();
        std::lock_guard<std::mutex> lock(l.m);
        auto it = l.devices.find(key(device));
        if (it == l.devices.end()) return;
        dev = std::move(it->second);
        l.devices.erase(it);
    }
    dev->forget_swapchains();  // their feedback threads stopped, their captures closed
    if (dev->destroy != nullptr) dev->destroy(device, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR* ci,
                                                  const VkAllocationCallbacks* alloc, VkSwapchainKHR* out) {
    std::shared_ptr<Device> dev = device_of(device);
    if (dev == nullptr || dev->create_swapchain == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult r = dev->create_swapchain(device, ci, alloc, out);
    Layer& l = layer();
    if (r != VK_SUCCESS || !l.settings.on) return r;
    try {
        std::shared_ptr<Pacing> pacing = dev->take_pacing(ci->oldSwapchain);
        if (pacing == nullptr) {
            int n = 0;
            {
                std::lock_guard<std::mutex> lock(l.m);
                n = ++l.pacings;
            }
            pacing = make_pacing(l.settings, n);
            if (pacing != nullptr && pacing->capturing) {
                std::lock_guard<std::mutex> lock(l.m);
                l.capturing.erase(std::remove_if(l.capturing.begin(), l.capturing.end(),
                                                 [](const std::weak_ptr<Pacing>& w) { return w.expired(); }),
                                  l.capturing.end());
                l.capturing.push_back(pacing);
                l.stop.watch(&close_every_capture);
            }
        }
        dev->add(*out, std::make_shared<Swapchain>(l.settings, std::move(pacing), dev->dispatch, device, *out,
                                                   ci->presentMode));
    } catch (...) {  // unpaced
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                               const VkAllocationCallbacks* alloc) {
    std::shared_ptr<Device> dev = device_of(device);
    if (dev == nullptr) return;
    dev->remove(swapchain);  // its feedback thread stopped first: no wait may outlive it
    if (dev->destroy_swapchain != nullptr) dev->destroy_swapchain(device, swapchain, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR* info) {
    std::shared_ptr<Device> dev = device_of(queue);
    if (dev == nullptr || dev->dispatch.queue_present == nullptr) return VK_ERROR_DEVICE_LOST;
    return dev->present(queue, *info);
}

PFN_vkVoidFunction device_function(const char* name) {
    static const std::pair<const char*, PFN_vkVoidFunction> kOurs[] = {
        {"vkDestroyDevice", reinterpret_cast<PFN_vkVoidFunction>(&DestroyDevice)},
        {"vkCreateSwapchainKHR", reinterpret_cast<PFN_vkVoidFunction>(&CreateSwapchainKHR)},
        {"vkDestroySwapchainKHR", reinterpret_cast<PFN_vkVoidFunction>(&DestroySwapchainKHR)},
        {"vkQueuePresentKHR", reinterpret_cast<PFN_vkVoidFunction>(&QueuePresentKHR)},
    };
    for (const auto& [n, f] : kOurs)
        if (std::strcmp(n, name) == 0) return f;
    return nullptr;
}

}  // namespace
}  // namespace pacer_layer

using namespace pacer_layer;

extern "C" {

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&vkGetDeviceProcAddr);
    std::shared_ptr<Device> dev = device != VK_NULL_HANDLE ? device_of(device) : nullptr;
    if (dev == nullptr) return nullptr;
    const PFN_vkVoidFunction next = dev->gdpa(device, name);
    if (next == nullptr) return nullptr;  // not enabled on this device: not ours either
    const PFN_vkVoidFunction ours = device_function(name);
    return ours != nullptr ? ours : next;
}

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
    static const std::pair<const char*, PFN_vkVoidFunction> kOurs[] = {
        {"vkGetInstanceProcAddr", reinterpret_cast<PFN_vkVoidFunction>(&vkGetInstanceProcAddr)},
        {"vkGetDeviceProcAddr", reinterpret_cast<PFN_vkVoidFunction>(&vkGetDeviceProcAddr)},
        {"vkCreateInstance", reinterpret_cast<PFN_vkVoidFunction>(&CreateInstance)},
        {"vkDestroyInstance", reinterpret_cast<PFN_vkVoidFunction>(&DestroyInstance)},
        {"vkCreateDevice", reinterpret_cast<PFN_vkVoidFunction>(&CreateDevice)},
    };
    for (const auto& [n, f] : kOurs)
        if (std::strcmp(n, name) == 0) return f;
    if (instance == VK_NULL_HANDLE) return nullptr;
    Instance* inst = instance_of(instance);
    if (inst == nullptr) return nullptr;
    const PFN_vkVoidFunction next = inst->gipa(instance, name);
    const PFN_vkVoidFunction ours = device_function(name);
    return ours != nullptr && next != nullptr ? ours : next;
}

VK_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
    if (v == nullptr || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
    if (v->loaderLayerInterfaceVersion >= 2) {
        v->pfnGetInstanceProcAddr = &vkGetInstanceProcAddr;
        v->pfnGetDeviceProcAddr = &vkGetDeviceProcAddr;
        v->pfnGetPhysicalDeviceProcAddr = nullptr;
        v->loaderLayerInterfaceVersion = 2;
    }
    return VK_SUCCESS;
}

}  // extern "C"
