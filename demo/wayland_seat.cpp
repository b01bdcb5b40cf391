#include "wayland_seat.hpp"

#include <cstdlib>
#include <cstring>

#if defined(PACER_DEMO_HAVE_WAYLAND)
#include <wayland-client.h>
#endif

namespace pacer_demo {

#if defined(PACER_DEMO_HAVE_WAYLAND)
namespace {
void on_global(void* data, wl_registry*, std::uint32_t, const char* interface, std::uint32_t) {
    if (std::strcmp(interface, "wl_seat") == 0) *static_cast<bool*>(data) = true;
}
void on_global_remove(void*, wl_registry*, std::uint32_t) {}
}  // namespace

bool wayland_seat_ok(std::string* why) {
    const char* driver = std::getenv("SDL_VIDEODRIVER");
    // SDL 2.26 tries X11 first unless told "wayland"; with a DISPLAY it would not reach Wayland.
    const bool wayland = driver ? std::strcmp(driver, "wayland") == 0
                                : std::getenv("WAYLAND_DISPLAY") != nullptr && std::getenv("DISPLAY") == nullptr;
    if (!wayland) return true;
    wl_display* d = wl_display_connect(nullptr);
    if (d == nullptr) {
        *why = "cannot connect to the Wayland compositor (WAYLAND_DISPLAY, XDG_RUNTIME_DIR)";
        return false;
    }
    bool seat = false;
    static const wl_registry_listener listener = {on_global, on_global_remove};
    wl_registry* r = wl_display_get_registry(d);
    wl_registry_add_listener(r, &listener, &seat);
    const bool ok = wl_display_roundtrip(d) >= 0;
    wl_registry_destroy(r);
    wl_display_disconnect(d);
    if (!ok) {
        *why = "the Wayland compositor did not answer";
        return false;
    }
    if (!seat) {
        *why = "the Wayland compositor offers no input seat (wl_seat), on which SDL 2's Wayland "
               "driver crashes (a headless compositor?)";
        return false;
    }
    return true;
}
#else
bool wayland_seat_ok(std::string*) { return true; }
#endif

}  // namespace pacer_demo
