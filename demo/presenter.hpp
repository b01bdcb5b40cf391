// demo/presenter.hpp - the swap: the interval asked of the driver, and each present reported to
// the pacer, which decides whether vsync really paces the frames (pacer/vsync.hpp).
#pragma once

#include "options.hpp"
#include "pacer/frame_pacer.hpp"

struct SDL_Window;

namespace pacer_demo {

// The display's refresh rate: --refresh-hz if given, else what SDL reports (0 = unknown; SDL
// reports 0 under Xvfb).
double display_refresh_hz(SDL_Window* win, const Options& o);

// In vsync and auto modes the pacer chooses the swap interval; in the other modes the user's
// checkbox does.
struct Presenter {
    int requested = 0;       // the interval last asked for
    int in_effect = -2;      // what the driver accepted; -1 refused, -2 never set
    double refresh_hz = 0;

    void present(SDL_Window* win, pacer::FramePacer& fp, bool manual_vsync);
};

}  // namespace pacer_demo
