// A C++17 engine: no designated initializers, so the config structs are filled field by field.
// Paces 20 frames at 200 Hz and checks what wait() reported; exit 0 when the frames came out right.
#include <pacer/pacer.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

int main() {
    pacer::set_log_function(nullptr);
    pacer::PacerConfig config;
    config.target_hz = 200.0;
    config.late_policy = pacer::LatePolicy::skip;
    config.waiter.max_spin = std::chrono::milliseconds(2);
    pacer::FramePacer pacer(config);
    pacer::FixedStepConfig step_config;
    step_config.step_hz = 100.0;
    pacer::FixedStep sim(step_config);
    pacer::FrameStats stats(64);

    bool ok = true;
    pacer::FrameTiming previous{};
    for (int frame = 0; frame < 20; ++frame) {
        const pacer::FrameTiming t = pacer.wait();
        stats.add(t);
        (void)sim.advance(t.interval);
        ok = ok && t.wake >= t.deadline && t.period == std::chrono::nanoseconds(5'000'000);
        if (frame > 0) ok = ok && t.index > previous.index && t.interval == t.wake - previous.wake;
        previous = t;
    }
    // The statistics take any contiguous range (pacer::Span): here a std::vector.
    std::vector<float> intervals(8);
    ok = ok && stats.series_ms(pacer::FrameMetric::interval, intervals) == intervals.size();
    const std::vector<double> sorted = {1.0, 2.0, 3.0};
    ok = ok && pacer::percentile_sorted(sorted, 0.5) == 2.0;
    const pacer::WaitResult slept = pacer::sleep_for(std::chrono::microseconds(500));
    ok = ok && slept.lateness >= std::chrono::nanoseconds(0);

    std::printf("consumer_cxx17: C++%ld, frame %llu, %s\n", static_cast<long>(__cplusplus),
                static_cast<unsigned long long>(previous.index), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
