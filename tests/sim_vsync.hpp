// Simulated displays for FramePacer tests in virtual time, seen only through the swap's returns
// (no displayed time is reported):
//   SimVblanks, present_blocking  vblanks on a grid and a swap that blocks until the next one
//                                 (vsync on, interval 1)
//   SimPresenter, run_host,       a swap that honours (or ignores, or refuses) the interval the
//   VsyncHost                     pacer asks for, and the host's loop around it
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

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

// A display with a vblank every 1/refresh s and a swap that, when the driver honours the
// interval, blocks until the first vblank at least `interval` vblanks after the previous flip.
class SimPresenter {
public:
    SimPresenter(pacer::SimulatedOs& os, double refresh_hz) : os_(os), refresh_hz_(refresh_hz) {}

    bool honours = true;        // false: the driver ignores the swap interval (never blocks)
    bool accepts = true;        // false: SetSwapInterval fails for anything but 0
    bool fails = false;         // the swap call reports failure
    std::optional<double> reported_hz;  // what the host reports as refresh, if not the real one
    // Non-empty: a compositor repainting on its own clock, these gaps (ns) apart in turn; a swap
    // with an interval blocks until its next repaint, whatever the refresh.
    std::vector<std::int64_t> repaint_gaps;

    // What the host's SDL_GL_SetSwapInterval would do; returns the interval in effect.
    int set_interval(int n) {
        if (n != 0 && !accepts) return -1;
        interval_ = n;
        return n;
    }

    pacer::PresentInfo present(int in_effect) {
        using namespace std::chrono_literals;
        using tp = pacer::clock::time_point;
        const std::int64_t b = pacer::clock::to_ns(os_.now());
        const double t = 1e9 / refresh_hz_;
        if (honours && interval_ > 0 && !repaint_gaps.empty()) {
            while (next_repaint_ <= b) next_repaint_ += repaint_gaps[gap_++ % repaint_gaps.size()];
            os_.jump(std::chrono::nanoseconds(next_repaint_ - b));
        } else if (honours && interval_ > 0) {
            auto idx = static_cast<std::int64_t>(std::ceil(static_cast<double>(b) / t));
            if (last_flip_ >= 0) idx = std::max(idx, last_flip_ + interval_);
            last_flip_ = idx;
            os_.jump(std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(static_cast<double>(idx) * t)) - b));
        } else {
            os_.advance(300us);  // a copy to the front buffer, no wait
            last_flip_ = -1;
        }
        return {tp(std::chrono::nanoseconds(b)), tp(std::chrono::nanoseconds(pacer::clock::to_ns(os_.now()))), in_effect,
                reported_hz.value_or(refresh_hz_), !fails};
    }

private:
    pacer::SimulatedOs& os_;
    double refresh_hz_;
    int interval_ = 0;
    std::int64_t last_flip_ = -1;
    std::int64_t next_repaint_ = 0;
    std::size_t gap_ = 0;
};

// A frame of the host's loop: what wait() returned, and the vsync status after its present.
struct VsyncFrame {
    pacer::FrameTiming t;
    pacer::VsyncStatus vs;
};

// The host's loop, `frames` times: before(i) when given, wait, work_ns(i) of work, set the swap
// interval the pacer asks for (when it changed), present, report.
inline std::vector<VsyncFrame> run_host(pacer::SimulatedOs& os, pacer::FramePacer& fp, SimPresenter& pr, int frames,
                                        const std::function<std::int64_t(int)>& work_ns,
                                        const std::function<void(int)>& before = {}) {
    std::vector<VsyncFrame> out;
    int in_effect = 0;
    for (int i = 0; i < frames; ++i) {
        if (before) before(i);
        const pacer::FrameTiming t = fp.wait();
        os.advance(std::chrono::nanoseconds(work_ns(i)));
        const int want = fp.desired_swap_interval();
        if (want != in_effect) in_effect = pr.set_interval(want);
        fp.report_present(pr.present(in_effect));
        out.push_back({t, fp.status().vsync});
    }
    return out;
}

// A pacer on a simulated OS and a SimPresenter on that OS, built in that order.
struct VsyncHost {
    VsyncHost(const pacer::SimModel& model, const pacer::PacerConfig& config, double refresh_hz)
        : os(model), fp(config, &os), pr(os, refresh_hz) {}

    std::vector<VsyncFrame> run(int frames, const std::function<std::int64_t(int)>& work_ns,
                                const std::function<void(int)>& before = {}) {
        return run_host(os, fp, pr, frames, work_ns, before);
    }

    pacer::SimulatedOs os;
    pacer::FramePacer fp;
    SimPresenter pr;
};

}  // namespace pacer_test
