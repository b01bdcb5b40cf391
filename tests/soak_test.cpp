// 10^9 frames in virtual time at 1, 60 and 10000 Hz with suspends of days: the deadline of every
// frame is the exact grid slot (anchor + index * 1e9 / hz, in integers) within 2 ns, deadlines
// only grow (no wrap) and no frame wakes before its deadline. An exact OS (sleeps end on the
// requested nanosecond), so the only thing under test is the deadline arithmetic over slot
// counts far past the million-frame test in frame_pacer_test.cpp. 30-40 ns per frame in
// RelWithDebInfo on a loaded 2-core VM, 30-60 s per rate: labelled slow (the sanitizer builds
// leave it out).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "pacer/pacer.hpp"

using namespace std::chrono_literals;

namespace {

std::int64_t at(pacer::clock::time_point t) { return pacer::clock::to_ns(t); }

constexpr std::int64_t kDay = 24LL * 3600 * 1'000'000'000;

// floor(index * 1e9 / hz) kept as whole + remainder / hz, stepped without division in the
// common case (one slot per frame). Exact in 64 bits while index * 1e9 < 2^64 (index < 1.8e10).
struct ExactGrid {
    std::uint64_t hz, whole_step, rem_step;
    std::uint64_t whole = 0, rem = 0;
    explicit ExactGrid(std::uint64_t rate) : hz(rate), whole_step(1'000'000'000 / rate), rem_step(1'000'000'000 % rate) {}
    void set(std::uint64_t index) {
        const std::uint64_t num = index * 1'000'000'000ull;
        whole = num / hz;
        rem = num % hz;
    }
    void step() {
        whole += whole_step;
        rem += rem_step;
        if (rem >= hz) {
            rem -= hz;
            ++whole;
        }
    }
};

void soak(std::uint64_t hz, std::uint64_t frames) {
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns}, 1, pacer::clock::from_ns(1'000));
    // Sleep mode: in an exact OS the wait is one sleep to the deadline, so a frame costs the
    // pacer's bookkeeping only.
    pacer::FramePacer fp({.target_hz = static_cast<double>(hz), .mode = pacer::WaitMode::sleep}, &os);
    const pacer::FrameTiming first = fp.wait();
    const std::int64_t anchor = at(first.deadline);
    // Suspends of 1, 2.5 and 3 days a quarter, half and three quarters in: 6.5 days, 5.6e9 slots
    // at 10 kHz. The odd 123457 ns puts each wake-up between two slots, so the frame after it is
    // late at every rate.
    const std::uint64_t jump_at[] = {frames / 4, frames / 2, 3 * frames / 4};
    const std::int64_t jump_by[] = {kDay + 123'457, 5 * kDay / 2 + 123'457, 3 * kDay + 123'457};
    int next_jump = 0;

    ExactGrid grid(hz);
    std::uint64_t prev_index = first.index;
    std::int64_t prev_deadline = anchor, worst = 0;
    std::uint64_t late = 0;
    for (std::uint64_t f = 1; f < frames; ++f) {
        if (next_jump < 3 && f == jump_at[next_jump]) os.jump(std::chrono::nanoseconds(jump_by[next_jump++]));
        const pacer::FrameTiming t = fp.wait();
        const std::int64_t deadline = at(t.deadline), wake = at(t.wake);
        if (t.index == prev_index + 1) {
            grid.step();
        } else {
            // Skipped slots: the index keeps the grid's spacing.
            if (t.index <= prev_index || t.index - prev_index != std::uint64_t{t.skipped} + 1) {
                ADD_FAILURE() << hz << " Hz frame " << f << ": index " << t.index << " after " << prev_index
                              << " with " << t.skipped << " skipped";
                return;
            }
            grid.set(t.index);
        }
        const std::int64_t err = deadline - (anchor + static_cast<std::int64_t>(grid.whole));
        if (err > 2 || err < -2 || deadline <= prev_deadline || wake < deadline) {
            ADD_FAILURE() << hz << " Hz frame " << f << " (index " << t.index << "): deadline " << deadline
                          << " is " << err << " ns off the grid (after " << prev_deadline << "), wake "
                          << wake;
            return;
        }
        worst = std::max(worst, std::abs(err));
        late += wake != deadline;
        prev_index = t.index;
        prev_deadline = deadline;
    }
    EXPECT_EQ(next_jump, 3);
    EXPECT_LE(worst, 2) << hz << " Hz";
    // Only the frame right after each suspend is late (catch_up serves it at once).
    EXPECT_EQ(late, 3u) << hz << " Hz";
    EXPECT_LT(prev_index, 18'000'000'000u) << "ExactGrid's 64-bit product would overflow";
    std::printf("[ soak ] %llu Hz: %llu frames, last index %llu, worst deadline error %lld ns\n",
                static_cast<unsigned long long>(hz), static_cast<unsigned long long>(frames),
                static_cast<unsigned long long>(prev_index), static_cast<long long>(worst));
}

constexpr std::uint64_t kFrames = 1'000'000'000;

TEST(Soak, BillionFramesAt1HzWithSuspends) { soak(1, kFrames); }
TEST(Soak, BillionFramesAt60HzWithSuspends) { soak(60, kFrames); }
TEST(Soak, BillionFramesAt10kHzWithSuspends) { soak(10'000, kFrames); }

}  // namespace
