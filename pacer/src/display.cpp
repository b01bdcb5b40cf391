#include "pacer/display.hpp"

namespace pacer {

// Interface in progress: the fit is being built.
void DisplayTracker::add(clock::time_point vblank, double reported_hz) noexcept {
    (void)vblank;
    status_.reported_hz = reported_hz;
    ++status_.vblanks;
}

void DisplayTracker::on_frame(clock::time_point now) noexcept { (void)now; }

clock::time_point DisplayTracker::next_vblank(clock::time_point t) const noexcept {
    return t + clock::duration(1);
}

}  // namespace pacer
