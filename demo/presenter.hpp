// demo/presenter.hpp - the swap: the interval asked of the driver, and each present reported to
// the pacer, which decides whether vsync really paces the frames (pacer/vsync.hpp).
//
// One report path for every way a frame reaches the screen: the window's SDL_GL_SwapWindow, and
// --fake-vsync's stand-in display (window and headless), so what the pacer sees of a fake
// display is exactly what it would see of a real one.
#pragma once

#include <cstdint>
#include <string>

#include "pacer/frame_pacer.hpp"

namespace pacer_demo {

// How a frame is shown.
class Swap {
public:
    virtual ~Swap() = default;
    // Asks for a swap interval (0 = vsync off); false if refused, with the driver's reason.
    virtual bool set_interval(int interval, std::string* why) = 0;
    virtual void swap() = 0;
};

// --fake-vsync HZ: a display whose vblanks are the ticks of a steady HZ clock (tick k at
// start + k / HZ s on the OS monotonic clock, no drift). With a swap interval N >= 1, swap()
// blocks in clock_nanosleep(TIMER_ABSTIME) (the pacer's OS sleep) until the first tick after
// the call that is at least N ticks after the previous swap's, as a vsync'd FIFO swap with one
// frame in flight does; with interval 0 it returns at once. Every interval is accepted. It wraps
// the real swap (the window's, asked for interval 0 so that only the fake clock blocks), or none
// (headless). A rate <= 0 makes it the inner swap alone.
class FakeVsync final : public Swap {
public:
    FakeVsync(double hz, Swap* inner);
    bool set_interval(int interval, std::string* why) override;
    void swap() override;
    double hz() const noexcept { return hz_; }

private:
    std::int64_t tick(std::int64_t k) const noexcept;
    std::int64_t ticks_until(std::int64_t t) const noexcept;  // index of the first tick > t

    double hz_;
    Swap* inner_;
    int interval_ = 0;
    bool inner_set_ = false;
    std::int64_t start_ns_;
    std::int64_t last_ = 0;  // tick of the last blocking swap
};

// In vsync and auto modes the pacer chooses the swap interval; in the other modes the user's
// checkbox does.
struct Presenter {
    int requested = 0;       // the interval last asked for
    int in_effect = -2;      // what the driver accepted; -1 refused, -2 never set
    double refresh_hz = 0;   // reported with each present
    std::uint64_t next_id = 1;  // the next present's id (PresentInfo::id: its feedback's key)
    const char* vblank_source = "swap";  // where the display's vblanks come from (vblank_source.hpp)
    std::string vblank_flags = "not given";  // ... its flags in words

    // Sets the interval (the pacer's in vsync and auto `mode`, else the manual choice), swaps and
    // reports the present of `frame` (0: the frame last waited for); returns the report. From a
    // render thread too: it reads nothing of the pacer but its desired swap interval.
    pacer::PresentInfo present(Swap& swap, pacer::FramePacer& fp, pacer::WaitMode mode, bool manual_vsync,
                               std::uint64_t frame = 0);
};

}  // namespace pacer_demo
