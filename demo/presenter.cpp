#include "presenter.hpp"

#include <SDL.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>

namespace pacer_demo {

double display_refresh_hz(SDL_Window* win, const Options& o) {
    if (o.refresh_hz > 0) return o.refresh_hz;
    SDL_DisplayMode dm{};
    if (SDL_GetWindowDisplayMode(win, &dm) == 0 && dm.refresh_rate > 0) return dm.refresh_rate;
    return 0.0;
}

void Presenter::present(SDL_Window* win, pacer::FramePacer& fp, bool manual_vsync) {
    const pacer::WaitMode m = fp.config().mode;
    const int want = m == pacer::WaitMode::vsync || m == pacer::WaitMode::automatic
                         ? fp.desired_swap_interval()
                         : (manual_vsync ? 1 : 0);
    if (want != requested || in_effect == -2) {
        requested = want;
        if (SDL_GL_SetSwapInterval(want) == 0) {
            in_effect = want;
        } else {
            in_effect = -1;
            spdlog::warn("swap interval {} refused by the driver: {}", want, SDL_GetError());
        }
    }
    const pacer::clock::time_point b = fp.now();
    SDL_GL_SwapWindow(win);
    fp.report_present({b, fp.now(), in_effect, refresh_hz, true});
}

}  // namespace pacer_demo
