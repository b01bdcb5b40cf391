// Test helper: the shorthands the virtual-time tests share (one copy, so that pacer_tests also
// compiles as unity batches, where every file's anonymous namespace is one): times in ns, an
// instant of pacer::clock and back, and the exact OS models of SimulatedOs.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/sim.hpp"

namespace pacer_test {

inline constexpr std::int64_t kMs = 1'000'000;      // ns
inline constexpr std::int64_t kS = 1'000'000'000;   // ns
inline constexpr std::chrono::nanoseconds k60{16'666'667};  // 1e9 / 60, rounded

// The instant t after pacer::clock's epoch, and an instant as ns since that epoch.
inline pacer::clock::time_point at(std::chrono::nanoseconds t) { return pacer::clock::time_point(t); }
inline std::int64_t ns_of(pacer::clock::time_point t) { return pacer::clock::to_ns(t); }

// An exact OS: sleeps end on the requested nanosecond and cost no CPU; spinning moves 1 ns at a
// time; the priority calls (the default, automatic, raises at the first wait) take no time.
inline pacer::SimModel exact() {
    using namespace std::chrono_literals;
    return {.granularity = 0ns, .jitter_mean = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns, .priority_call = 0ns};
}

// An OS without scheduler noise: sleeps end on the requested nanosecond; a spin's relax() and a
// sleep cost what SimModel's defaults say.
inline pacer::SimModel noiseless() {
    using namespace std::chrono_literals;
    pacer::SimModel m;
    m.granularity = 0ns;
    m.jitter_mean = 0ns;
    return m;
}

}  // namespace pacer_test
