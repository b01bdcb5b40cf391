// pacer/clock_offset.hpp - another clock's times on pacer::clock, with the offset measured.
//
//   ClockOffset           source - pacer at one measurement, and its uncertainty
//     to_pacer(t)         a source time (a duration since the source's epoch) on pacer::clock
//   measure_offset(read_pacer, read_source, tries)   the offset from back-to-back reads
//
//   // wp_presentation on weston: clock_id CLOCK_MONOTONIC_RAW; pacer::clock is CLOCK_MONOTONIC.
//   auto raw = [] { timespec ts; clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
//                   return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec); };
//   pacer::ClockOffset off = pacer::measure_offset([] { return pacer::clock::now(); }, raw);
//   auto shown = off.to_pacer(std::chrono::seconds(sec) + std::chrono::nanoseconds(nsec));
//
// Presentation APIs stamp their times on a clock of their own choosing: X11 Present's UST is
// CLOCK_MONOTONIC in microseconds on Linux (pacer::clock, no offset: multiply by 1000); weston's
// wp_presentation clock is CLOCK_MONOTONIC_RAW (far from CLOCK_MONOTONIC on the machine
// measured); Vulkan and DXGI name their time domains. An offset taken for granted is wrong on
// the machine where it matters, so it is measured: `tries` times, pacer's clock, the source
// clock, pacer's clock again; the pair of pacer reads closest together brackets the source read
// best, and the offset is the source read minus their midpoint, uncertain by half their gap.
// A measurement takes microseconds and is uncertain by tens of nanoseconds (measured:
// docs/platforms.md#measured-presentation-sources-and-clocks). Where NTP disciplines the clock,
// CLOCK_MONOTONIC is slewed against CLOCK_MONOTONIC_RAW by up to 500 ppm: measure again each
// second (or per feedback event), never once for good.
//
// Pure: the reads are the caller's callables (any clocks: tests pass fake ones). Thread safety:
// none needed (no state).
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"

namespace pacer {

struct ClockOffset {
    std::chrono::nanoseconds offset{0};       // source time - pacer time, at the same instant
    std::chrono::nanoseconds uncertainty{0};  // +- this much (half the narrowest bracket)
    bool valid = false;                       // measured at least once

    // A source time (a duration since the source clock's epoch) as a pacer::clock time point.
    clock::time_point to_pacer(std::chrono::nanoseconds source_time) const noexcept {
        return clock::time_point(source_time - offset);
    }
};

// ReadPacer: () -> clock::time_point; ReadSource: () -> a std::chrono duration since the source's
// epoch. tries >= 1 (64 by default, a few microseconds).
template <class ReadPacer, class ReadSource>
ClockOffset measure_offset(ReadPacer read_pacer, ReadSource read_source, int tries = 64) {
    ClockOffset best;
    std::chrono::nanoseconds best_gap = std::chrono::nanoseconds::max();
    for (int i = 0; i < (tries < 1 ? 1 : tries); ++i) {
        const clock::time_point a = read_pacer();
        const std::chrono::nanoseconds s = std::chrono::duration_cast<std::chrono::nanoseconds>(read_source());
        const clock::time_point b = read_pacer();
        const std::chrono::nanoseconds gap = b - a;
        if (gap < std::chrono::nanoseconds(0) || gap >= best_gap) continue;
        best_gap = gap;
        best.offset = s - (a + gap / 2).time_since_epoch();
        best.uncertainty = gap / 2 + std::chrono::nanoseconds(gap.count() % 2);
        best.valid = true;
    }
    return best;
}

}  // namespace pacer
