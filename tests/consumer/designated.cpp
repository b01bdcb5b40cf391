// The public config structs filled the way a user writes them: C++20 designated initializers that
// name only what they change. Compiled (not run) with the host's -Wall -Wextra -Werror: GCC's
// -Wmissing-field-initializers (in -Wextra) flags every member such an initializer leaves out
// that has no default member initializer, so each public struct must give every member one.
#include <pacer/pacer.hpp>

#include <chrono>
#include <string>

using namespace std::chrono_literals;

int consumer_designated(const std::string& path);

int consumer_designated(const std::string& path) {
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 20us});
    pacer::FramePacer pacer({.target_hz = 144.0, .mode = pacer::WaitMode::hybrid,
                             .waiter = {.min_margin = 50us, .max_spin = 2ms}},
                            &os);
    pacer::FixedStep sim({.step_hz = 120.0, .snap_period = pacer.status().period});
    pacer::CaptureWriter cap;
    if (pacer::Status st = cap.open(path, {.application = "game"}); !st) return 1;
    if (pacer::Status st = cap.open(path, {.application = "game", .config = pacer.config()}); !st)
        return 1;

    const pacer::clock::time_point t0 = pacer.now();
    pacer::FrameTiming t = pacer.wait();
    cap.add(t, {.in_present = 1ms, .sync_interval = 1});
    cap.add(t, {.pacing_source = "swap"});
    pacer.report_present({.begin = t0, .end = pacer.now(), .swap_interval = 1, .refresh_hz = 144.0});
    pacer.report_present({t0, pacer.now(), 1, 144.0});  // README's form
    // A host that times its swap with steady_clock converts.
    const auto s0 = std::chrono::steady_clock::now();
    pacer.report_present({pacer::clock::from_steady(s0), pacer::clock::from_steady(std::chrono::steady_clock::now()),
                          1, 144.0});
    return sim.advance(t.interval).steps >= 0 && cap.close() ? 0 : 1;
}
