// demo/vblank_source.hpp - where the display's vblanks come from (--vblank-source).
//
//   x11-present   X11's Present extension on a connection of its own: each vblank's counter and
//                 time (pacer/x11_present.hpp); on Xvfb -fakescreenfps N a real N Hz clock
//   wayland       the compositor's wp_presentation feedback on the window's surface: each frame
//                 shown (time, counter, flags) or discarded (pacer/wayland_presentation.hpp)
//   swap          the swap's own return (verified to wait for a vblank: pacer/vsync.hpp)
//   none          no vblanks: the display lock is off
//   auto          x11-present on X11, wayland on Wayland, else swap
// A source the window system or this build lacks falls back to swap, saying why.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "pacer/capture.hpp"
#include "pacer/frame_pacer.hpp"

struct SDL_Window;

namespace pacer_demo {

class VblankFeed {
public:
    VblankFeed();
    ~VblankFeed();
    VblankFeed(const VblankFeed&) = delete;
    VblankFeed& operator=(const VblankFeed&) = delete;

    // Opens the source `wanted` names for the window (auto: what its window system offers).
    void open(SDL_Window* window, const std::string& wanted);
    const char* name() const noexcept { return name_; }
    // The source's flags in words ("vsync, hardware clock"; "none: a compositor's own timer").
    std::string flags() const;
    // Around each swap: the present's id (wayland asks for its feedback), then what arrived,
    // reported to the pacer and to the capture (which writes Dropped and the displayed times of
    // the rows it is for). Call after_swap once the frame's row is recorded.
    void before_swap(std::uint64_t id);
    void after_swap(pacer::FramePacer& fp, pacer::CaptureWriter& capture);
    // The same with the capture's feedback handed to `feedback` (--render-thread: the game thread
    // gives it to the capture once the row is recorded).
    void after_swap(pacer::FramePacer& fp, const std::function<void(const pacer::PresentInfo&)>& feedback);

private:
    struct Sources;
    std::unique_ptr<Sources> s_;
    const char* name_ = "swap";
    pacer::PresentFlags flags_{};
};

}  // namespace pacer_demo
