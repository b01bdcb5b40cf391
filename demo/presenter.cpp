#include "presenter.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "pacer/time_source.hpp"

namespace pacer_demo {

FakeVsync::FakeVsync(double hz, Swap* inner)
    : hz_(hz), inner_(inner), start_ns_(pacer::clock::to_ns(pacer::system_time_source().now())) {}

std::int64_t FakeVsync::tick(std::int64_t k) const noexcept {
    return start_ns_ + static_cast<std::int64_t>(std::floor(static_cast<long double>(k) * 1e9L / hz_));
}

std::int64_t FakeVsync::ticks_until(std::int64_t t) const noexcept {
    auto k = static_cast<std::int64_t>(static_cast<long double>(t - start_ns_) * hz_ / 1e9L);
    while (k > 0 && tick(k) > t) --k;  // rounding either way
    while (tick(k) <= t) ++k;
    return k;
}

bool FakeVsync::set_interval(int interval, std::string* /*why*/) {
    interval_ = std::max(0, interval);
    if (inner_ != nullptr && !inner_set_) {
        // Only the fake clock should block. Mesa under Xvfb refuses every interval, and its swap
        // never blocks anyway: say so once, quietly.
        std::string why;
        if (!inner_->set_interval(0, &why))
            spdlog::info("--fake-vsync: the driver did not take swap interval 0 ({}); if its swap waits for "
                         "vblank, that adds to the fake one",
                         why);
        inner_set_ = true;
    }
    return true;
}

void FakeVsync::swap() {
    if (inner_ != nullptr) inner_->swap();
    pacer::TimeSource& os = pacer::system_time_source();
    if (interval_ == 0 || hz_ <= 0) return;
    const std::int64_t k = std::max(ticks_until(pacer::clock::to_ns(os.now())), last_ + interval_);
    os.sleep_until(pacer::clock::from_ns(tick(k)));
    last_ = k;
}

pacer::PresentInfo Presenter::present(Swap& swap, pacer::FramePacer& fp, pacer::WaitMode m, bool manual_vsync,
                                     std::uint64_t frame) {
    const int want = m == pacer::WaitMode::vsync || m == pacer::WaitMode::automatic
                         ? fp.desired_swap_interval()
                         : (manual_vsync ? 1 : 0);
    if (want != requested || in_effect == -2) {
        requested = want;
        std::string why;
        if (swap.set_interval(want, &why)) {
            in_effect = want;
        } else {
            in_effect = -1;
            spdlog::warn("swap interval {} refused by the driver: {}", want, why);
        }
    }
    const pacer::clock::time_point b = fp.now();
    swap.swap();
    pacer::PresentInfo p{b, fp.now(), in_effect, refresh_hz, true};
    p.id = next_id++;
    p.frame = frame;
    fp.report_present(p);
    return p;
}

}  // namespace pacer_demo
