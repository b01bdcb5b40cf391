// DeadlineGrid (pacer/grid.hpp) on its own: exact deadlines, the late policies as a pure
// function of the grid, the time and the policy, and frame indices across restarts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include "pacer/grid.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using pacer::DeadlineGrid;
using pacer::GridSlot;
using pacer::LatePolicy;
using pacer::clock;

using pacer_test::at;

TEST(DeadlineGrid, DeadlinesAreExactForAnySlotCount) {
    DeadlineGrid g;
    g.set_rate(144.0);
    g.start(at(1s));
    EXPECT_EQ(g.period(), 6'944'444ns);  // 1e9 / 144 = 6'944'444.44, rounded
    // 10^6 frames at 144 Hz: 1e15 / 144 ns = 6'944'444'444'444.4 ns after the anchor.
    EXPECT_EQ(g.deadline_of(1'000'000) - at(1s), 6'944'444'444'444ns);
    // 2^33 slots, beyond 32 bits (a week at 10 kHz is 6e9): no overflow; the period's fraction
    // is rounded to 2^-33 ns, so the error stays within k x 2^-33 ns (1 ns here).
    DeadlineGrid fast;
    fast.set_rate(7000.0);  // 142'857.142857 ns: a fraction in every period
    fast.start(at(0s));
    const std::uint64_t k = std::uint64_t{1} << 33;
    const long double exact = static_cast<long double>(k) * 1e9L / 7000.0L;
    EXPECT_NEAR(static_cast<double>(clock::to_ns(fast.deadline_of(k))), static_cast<double>(exact), 1.0);
}

TEST(DeadlineGrid, OnTimeTheNextSlotIsTheNextDeadline) {
    DeadlineGrid g;
    g.set_rate(100.0);
    EXPECT_EQ(g.start(at(1s)), 0u);
    const GridSlot s = g.next_slot(at(1s + 3ms), LatePolicy::catch_up, 1);
    EXPECT_EQ(s.index, 1u);
    EXPECT_EQ(s.deadline, at(1s + 10ms));
    EXPECT_EQ(s.skipped, 0u);
    // Pure: asking again gives the same slot until it is taken.
    EXPECT_EQ(g.next_slot(at(1s + 3ms), LatePolicy::catch_up, 1).deadline, s.deadline);
    g.take(s);
    EXPECT_EQ(g.index(), 1u);
    EXPECT_EQ(g.last_deadline(), at(1s + 10ms));
    EXPECT_EQ(g.next_slot(at(1s + 12ms), LatePolicy::catch_up, 1).deadline, at(1s + 20ms));
}

// Ready 2.5 periods after the next deadline (slots 1, 2 and 3 have passed):
//   catch_up with max 1: slots 1 and 2 skipped, slot 3 (passed) served at once;
//   catch_up with max 3: nothing skipped, slot 1 at once (the next frames catch up);
//   skip: all three skipped, slot 4 waited for; resync: a new grid at the late frame.
TEST(DeadlineGrid, LatePoliciesPickTheSlot) {
    DeadlineGrid g;
    g.set_rate(100.0);
    g.start(at(0s));
    const clock::time_point late = at(10ms + 25ms);
    GridSlot s = g.next_slot(late, LatePolicy::catch_up, 1);
    EXPECT_EQ(s.skipped, 2u);
    EXPECT_EQ(s.index, 3u);
    EXPECT_EQ(s.deadline, at(30ms));
    s = g.next_slot(late, LatePolicy::catch_up, 3);
    EXPECT_EQ(s.skipped, 0u);
    EXPECT_EQ(s.deadline, at(10ms));
    s = g.next_slot(late, LatePolicy::skip, 1);
    EXPECT_EQ(s.skipped, 3u);
    EXPECT_EQ(s.index, 4u);
    EXPECT_EQ(s.deadline, at(40ms));
    s = g.next_slot(late, LatePolicy::resync, 1);
    EXPECT_TRUE(s.restart);
    EXPECT_EQ(s.index, 1u);
    EXPECT_EQ(s.deadline, late);
    g.take(s);
    EXPECT_EQ(g.next_slot(late, LatePolicy::resync, 1).deadline, late + 10ms);  // the new grid
    EXPECT_EQ(g.next_slot(late, LatePolicy::resync, 1).index, 2u);
}

// Exactly on a deadline counts as that slot's time having come.
TEST(DeadlineGrid, ADeadlineReachedExactlyIsPassed) {
    DeadlineGrid g;
    g.set_rate(100.0);
    g.start(at(0s));
    EXPECT_EQ(g.next_slot(at(20ms), LatePolicy::catch_up, 1).skipped, 1u);
    EXPECT_EQ(g.next_slot(at(20ms) - 1ns, LatePolicy::catch_up, 1).skipped, 0u);
}

TEST(DeadlineGrid, ARateChangeRestartsAtTheLastDeadline) {
    DeadlineGrid g;
    g.set_rate(100.0);
    g.start(at(0s));
    g.take(g.next_slot(at(5ms), LatePolicy::catch_up, 1));  // slot 1 at 10 ms
    g.set_rate(50.0);
    const GridSlot s = g.next_slot(at(12ms), LatePolicy::catch_up, 1);
    EXPECT_EQ(s.deadline, at(30ms)) << "one new period after the last deadline";
    EXPECT_EQ(s.index, 2u) << "indices continue";
}

TEST(DeadlineGrid, IndicesContinueAcrossStopAndOffGridSlots) {
    DeadlineGrid g;
    g.set_rate(100.0);
    g.start(at(0s));
    g.take(g.next_slot(at(1ms), LatePolicy::catch_up, 1));  // index 1
    const GridSlot swap = g.after(at(27ms));                // the swap paced it
    EXPECT_EQ(swap.index, 2u);
    EXPECT_EQ(swap.deadline, at(27ms));
    g.take(swap);
    g.restart_at(at(27ms));  // leaving the swap's pacing: slot 0 at the last wake
    EXPECT_EQ(g.next_slot(at(28ms), LatePolicy::catch_up, 1).deadline, at(37ms));
    EXPECT_EQ(g.next_slot(at(28ms), LatePolicy::catch_up, 1).index, 3u);
    g.stop();
    EXPECT_FALSE(g.started());
    EXPECT_EQ(g.start(at(1s)), 3u) << "one past the last slot of the old grid";
}

}  // namespace
