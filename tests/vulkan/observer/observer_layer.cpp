// VK_LAYER_pacer_observer: the independent witness of tools/dev/vk_compare.py (./dev vkbench).
//
// A Vulkan layer that paces nothing. Placed last in VK_INSTANCE_LAYERS it sits right above the
// driver, below MangoHud's implicit layer and below the pacer layer, so it sees each
// vkQueuePresentKHR as the driver gets it, whichever limiter held it back above. For every
// present it appends one line to the file named by PACER_OBSERVER_FILE:
//
//   <entry ns> <return ns> <process CPU ns> <VkResult>
//
// the CLOCK_MONOTONIC time the present reached this layer, the time the driver returned it, and
// the process's CPU time then (CLOCK_PROCESS_CPUTIME_ID: every thread of the app, the driver's
// and the layers' included), so the harness computes the app's CPU over exactly the frames it
// judges. A first line "# pacer_observer pid <pid>" names the process. Lines are buffered and
// written at 256 KiB, when a device or instance is destroyed and at exit.
//
// Without PACER_OBSERVER_FILE the layer passes everything through and records nothing. It
// exports only vkNegotiateLoaderLayerInterfaceVersion (-fvisibility=hidden), uses only the Vulkan headers'
// layer interface and the C library, and is a test tool: it is not installed.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#define OBSERVER_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using DispatchKey = void*;
DispatchKey key_of(const void* handle) { return *static_cast<void* const*>(handle); }

struct InstanceData {
    PFN_vkGetInstanceProcAddr next_gipa = nullptr;
    PFN_vkDestroyInstance destroy = nullptr;
};
struct DeviceData {
    PFN_vkGetDeviceProcAddr next_gdpa = nullptr;
    PFN_vkDestroyDevice destroy = nullptr;
    PFN_vkQueuePresentKHR present = nullptr;
};

std::mutex g_mutex;  // the maps and the record buffer
std::unordered_map<DispatchKey, InstanceData> g_instances;
std::unordered_map<DispatchKey, DeviceData> g_devices;  // a queue's key is its device's

struct Recorder {
    int fd = -1;
    bool opened = false;
    std::string buffer;

    void open_once() {  // under g_mutex
        if (opened) return;
        opened = true;
        const char* path = std::getenv("PACER_OBSERVER_FILE");
        if (path == nullptr || *path == '\0') return;
        fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) {
            std::fprintf(stderr, "pacer_observer: cannot open %s\n", path);
            return;
        }
        buffer.reserve(512 * 1024);
        char head[64];
        std::snprintf(head, sizeof head, "# pacer_observer pid %ld\n", static_cast<long>(::getpid()));
        buffer += head;
        std::atexit([] {
            std::lock_guard<std::mutex> lock(g_mutex);
            recorder().flush();
        });
    }
    void flush() {  // under g_mutex
        size_t done = 0;
        while (fd >= 0 && done < buffer.size()) {
            ssize_t n = ::write(fd, buffer.data() + done, buffer.size() - done);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        buffer.clear();
    }
    static Recorder& recorder() {
        static Recorder* r = new Recorder;  // never destroyed: the atexit flush may run late
        return *r;
    }
};

int64_t now_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

template <class Info, class LinkInfo>
Info* find_link(const void* next, VkStructureType type) {
    auto* info = static_cast<Info*>(const_cast<void*>(next));
    while (info != nullptr && !(info->sType == type && info->function == VK_LAYER_LINK_INFO))
        info = static_cast<Info*>(const_cast<void*>(info->pNext));
    return info;
}

VKAPI_ATTR VkResult VKAPI_CALL observer_CreateInstance(const VkInstanceCreateInfo* create_info,
                                                       const VkAllocationCallbacks* allocator,
                                                       VkInstance* instance) {
    auto* link = find_link<VkLayerInstanceCreateInfo, VkLayerInstanceLink>(
        create_info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    auto create = reinterpret_cast<PFN_vkCreateInstance>(next_gipa(nullptr, "vkCreateInstance"));
    if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult result = create(create_info, allocator, instance);
    if (result != VK_SUCCESS) return result;
    InstanceData data;
    data.next_gipa = next_gipa;
    data.destroy = reinterpret_cast<PFN_vkDestroyInstance>(next_gipa(*instance, "vkDestroyInstance"));
    std::lock_guard<std::mutex> lock(g_mutex);
    g_instances[key_of(*instance)] = data;
    Recorder::recorder().open_once();
    return result;
}

VKAPI_ATTR void VKAPI_CALL observer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks* allocator) {
    PFN_vkDestroyInstance destroy = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_instances.find(key_of(instance));
        if (it == g_instances.end()) return;
        destroy = it->second.destroy;
        g_instances.erase(it);
        Recorder::recorder().flush();
    }
    if (destroy != nullptr) destroy(instance, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL observer_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo* create_info,
                                                     const VkAllocationCallbacks* allocator, VkDevice* device) {
    auto* link = find_link<VkLayerDeviceCreateInfo, VkLayerDeviceLink>(
        create_info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    auto create = reinterpret_cast<PFN_vkCreateDevice>(next_gipa(nullptr, "vkCreateDevice"));
    if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult result = create(physical, create_info, allocator, device);
    if (result != VK_SUCCESS) return result;
    DeviceData data;
    data.next_gdpa = next_gdpa;
    data.destroy = reinterpret_cast<PFN_vkDestroyDevice>(next_gdpa(*device, "vkDestroyDevice"));
    data.present = reinterpret_cast<PFN_vkQueuePresentKHR>(next_gdpa(*device, "vkQueuePresentKHR"));
    std::lock_guard<std::mutex> lock(g_mutex);
    g_devices[key_of(*device)] = data;
    return result;
}

VKAPI_ATTR void VKAPI_CALL observer_DestroyDevice(VkDevice device, const VkAllocationCallbacks* allocator) {
    PFN_vkDestroyDevice destroy = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_devices.find(key_of(device));
        if (it == g_devices.end()) return;
        destroy = it->second.destroy;
        g_devices.erase(it);
        Recorder::recorder().flush();
    }
    if (destroy != nullptr) destroy(device, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL observer_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR* info) {
    const int64_t entry = now_ns(CLOCK_MONOTONIC);
    PFN_vkQueuePresentKHR present = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_devices.find(key_of(queue));
        if (it != g_devices.end()) present = it->second.present;
    }
    if (present == nullptr) return VK_ERROR_DEVICE_LOST;
    VkResult result = present(queue, info);
    const int64_t back = now_ns(CLOCK_MONOTONIC);
    const int64_t cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    char line[96];
    int n = std::snprintf(line, sizeof line, "%lld %lld %lld %d\n", static_cast<long long>(entry),
                          static_cast<long long>(back), static_cast<long long>(cpu), static_cast<int>(result));
    std::lock_guard<std::mutex> lock(g_mutex);
    Recorder& r = Recorder::recorder();
    if (r.fd >= 0 && n > 0) {
        r.buffer.append(line, static_cast<size_t>(n));
        if (r.buffer.size() >= 256 * 1024) r.flush();
    }
    return result;
}

PFN_vkVoidFunction intercepted(const char* name) {
#define OBSERVER_HOOK(fn) \
    if (std::strcmp(name, "vk" #fn) == 0) return reinterpret_cast<PFN_vkVoidFunction>(observer_##fn)
    OBSERVER_HOOK(CreateInstance);
    OBSERVER_HOOK(DestroyInstance);
    OBSERVER_HOOK(CreateDevice);
    OBSERVER_HOOK(DestroyDevice);
    OBSERVER_HOOK(QueuePresentKHR);
#undef OBSERVER_HOOK
    return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL observer_GetDeviceProcAddr(VkDevice device, const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL observer_GetInstanceProcAddr(VkInstance instance,
                                                                                       const char* name) {
    if (std::strcmp(name, "vkGetInstanceProcAddr") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(observer_GetInstanceProcAddr);
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(observer_GetDeviceProcAddr);
    if (PFN_vkVoidFunction f = intercepted(name)) return f;
    if (instance == VK_NULL_HANDLE) return nullptr;
    PFN_vkGetInstanceProcAddr next = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_instances.find(key_of(instance));
        if (it != g_instances.end()) next = it->second.next_gipa;
    }
    return next != nullptr ? next(instance, name) : nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL observer_GetDeviceProcAddr(VkDevice device, const char* name) {
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(observer_GetDeviceProcAddr);
    if (std::strcmp(name, "vkQueuePresentKHR") == 0 || std::strcmp(name, "vkDestroyDevice") == 0)
        return intercepted(name);
    PFN_vkGetDeviceProcAddr next = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_devices.find(key_of(device));
        if (it != g_devices.end()) next = it->second.next_gdpa;
    }
    return next != nullptr ? next(device, name) : nullptr;
}

}  // namespace

// The one exported symbol: the loader asks it for the two ProcAddr functions (interface 2).
OBSERVER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
    if (v == nullptr || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
    if (v->loaderLayerInterfaceVersion > 2) v->loaderLayerInterfaceVersion = 2;
    if (v->loaderLayerInterfaceVersion >= 2) {
        v->pfnGetInstanceProcAddr = observer_GetInstanceProcAddr;
        v->pfnGetDeviceProcAddr = observer_GetDeviceProcAddr;
        v->pfnGetPhysicalDeviceProcAddr = nullptr;
    }
    return VK_SUCCESS;
}
