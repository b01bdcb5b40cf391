// demo/wayland_seat.hpp - will SDL2 survive this Wayland compositor?
//
// SDL 2.26's Wayland video driver crashes inside SDL_Init when the compositor offers no input seat
// (wl_seat): weston's headless backend is one such compositor. So before SDL_Init the demo asks
// the compositor itself, and runs headless with the reason instead of crashing.
#pragma once

#include <string>

namespace pacer_demo {

// True when SDL would not use Wayland (no WAYLAND_DISPLAY, or SDL_VIDEODRIVER names another
// driver), when the demo was built without libwayland-client, or when the compositor lists a
// wl_seat. False with *why set when the compositor has none (or cannot be reached).
bool wayland_seat_ok(std::string* why);

}  // namespace pacer_demo
