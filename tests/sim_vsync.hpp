// A simulated display for FramePacer tests in virtual time: vblanks on a grid, and a swap that
// blocks until the next one (vsync on, interval 1). The pacer sees the vblanks only through the
// swap's returns: no displayed time is reported.
#pragma once

#include <cmath>
#include <cstdint>

#include "pacer/pacer.hpp"

namespace pacer_test {

// Vblanks at phase0 + n x period, n whole (period in ns, not rounded: a display clock off by
// some ppm keeps its fraction).
struct SimVblanks {
    std::int64_t phase0 = 0;
    double period = 0;
    std::int64_t after(std::int64_t t) const {  // the first vblank after t
        const double n = std::floor(static_cast<double>(t - phase0) / period) + 1;
        return phase0 + static_cast<std::int64_t>(std::llround(n * period));
    }
};

// The frame's present: before_present(), the swap blocks until the first vblank after now, then
// report_present() with the call's begin and end at refresh_hz. Returns the vblank it showed on.
inline std::int64_t present_blocking(pacer::SimulatedOs& os, pacer::FramePacer& fp, const SimVblanks& vblanks,
                                     double refresh_hz) {
    fp.before_present();
    pacer::PresentInfo p;
    p.begin = fp.now();
    const std::int64_t shown = vblanks.after(pacer::clock::to_ns(os.now()));
    os.block_until(pacer::clock::from_ns(shown));
    p.end = fp.now();
    p.swap_interval = 1;
    p.refresh_hz = refresh_hz;
    fp.report_present(p);
    return shown;
}

}  // namespace pacer_test
