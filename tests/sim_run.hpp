// Test helper: runs a FramePacer in virtual time and collects what a user would look at.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "pacer/pacer.hpp"

namespace pacer_test {

struct RunResult {
    std::vector<double> lateness_us;  // sorted
    double spin_share = 0;            // spin time / wall time
    double sleep_share = 0;
    double cpu_share = 0;             // virtual CPU / wall time
    std::uint64_t missed = 0;
    std::int64_t final_margin_ns = 0;

    double lateness_q(double p) const {
        return pacer::percentile_sorted(std::span<const double>(lateness_us), p);
    }
};

// Changes one setting of fp's config (set_config with a copy).
template <class Edit>
pacer::Status change(pacer::FramePacer& fp, Edit edit) {
    pacer::PacerConfig c = fp.config();
    edit(c);
    return fp.set_config(c);
}

// Paces `frames` frames at hz with `work_ns` of simulated work per frame.
inline RunResult run_pacer(pacer::SimulatedOs& os, pacer::FramePacer& fp, int frames,
                           std::int64_t work_ns) {
    RunResult r;
    r.lateness_us.reserve(static_cast<std::size_t>(frames));
    fp.wait();  // anchor
    const std::int64_t t0 = pacer::clock::to_ns(os.now());
    const std::int64_t cpu0 = os.cpu_times().thread.count();
    std::int64_t spun = 0, slept = 0;
    const std::uint64_t missed0 = fp.status().missed;
    for (int i = 0; i < frames; ++i) {
        os.advance(std::chrono::nanoseconds(work_ns));
        const pacer::FrameTiming t = fp.wait();
        r.lateness_us.push_back(static_cast<double>(t.lateness.count()) / 1000.0);
        spun += t.spun.count();
        slept += t.slept.count();
    }
    const double wall = static_cast<double>(pacer::clock::to_ns(os.now()) - t0);
    r.spin_share = static_cast<double>(spun) / wall;
    r.sleep_share = static_cast<double>(slept) / wall;
    r.cpu_share = static_cast<double>(os.cpu_times().thread.count() - cpu0) / wall;
    r.missed = fp.status().missed - missed0;
    r.final_margin_ns = fp.status().waiter.margin.count();
    std::sort(r.lateness_us.begin(), r.lateness_us.end());
    return r;
}

}  // namespace pacer_test
