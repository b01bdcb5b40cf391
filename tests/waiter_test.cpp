// HybridWaiter in virtual time: each mode does what it says, and the hybrid mode is accurate and
// cheap across scheduler periods from 0.05 to 10 ms (the robustness test of "Making an accurate Sleep() function", with bounds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pacer/pacer.hpp"
#include "sim_run.hpp"

namespace {

using namespace std::chrono_literals;

// A waiter at the thread's own class: these tests are about what a normal thread meets (the
// default, automatic, raises it: tests/priority_test.cpp).
pacer::WaiterConfig own_class() { return {.priority = {pacer::ThreadPriority::normal}}; }

pacer::WaitResult wait_ns(pacer::HybridWaiter& w, std::int64_t deadline_ns,
                          pacer::WaitMode mode = pacer::WaitMode::hybrid) {
    return w.wait_until(pacer::clock::from_ns(deadline_ns), mode);
}

TEST(HybridWaiter, SpinModeNeverSleepsAndOvershootsLessThanOneRelax) {
    pacer::SimulatedOs os({.granularity = 1ms, .relax_time = 100ns});
    pacer::HybridWaiter w({}, &os);
    for (int i = 0; i < 100; ++i) {
        const std::int64_t d = pacer::clock::to_ns(os.now()) + 1'000'000 + i * 37;
        const pacer::WaitResult r = wait_ns(w, d, pacer::WaitMode::spin);
        ASSERT_FALSE(r.os_slept);
        ASSERT_EQ(r.slept, 0ns);
        ASSERT_GE(pacer::clock::to_ns(os.now()), d);
        ASSERT_LT(r.lateness, 100ns);
        ASSERT_EQ(pacer::clock::to_ns(r.end), pacer::clock::to_ns(os.now()));
    }
    EXPECT_EQ(os.sleeps(), 0);
}

TEST(HybridWaiter, SleepModeNeverSpinsAndReportsTheOversleep) {
    pacer::SimulatedOs os({.granularity = 1ms, .tick_aligned = true}, 1, pacer::clock::from_ns(0));
    pacer::HybridWaiter w({}, &os);
    const pacer::WaitResult r = wait_ns(w, 2'500'000, pacer::WaitMode::sleep);
    EXPECT_TRUE(r.os_slept);
    EXPECT_EQ(r.spun, 0ns);
    EXPECT_EQ(r.slept, 3ms);
    EXPECT_EQ(r.oversleep, 500us);
    EXPECT_EQ(r.lateness, 500us);
    EXPECT_EQ(os.relaxes(), 0);
}

TEST(HybridWaiter, DeadlineInThePastReturnsAtOnce) {
    pacer::SimulatedOs os({}, 1, pacer::clock::from_ns(10'000'000));
    pacer::HybridWaiter w(own_class(), &os);
    for (auto mode : {pacer::WaitMode::sleep, pacer::WaitMode::spin, pacer::WaitMode::hybrid}) {
        const pacer::WaitResult r = wait_ns(w, 5'000'000, mode);
        EXPECT_EQ(r.slept + r.spun, 0ns);
        EXPECT_EQ(r.lateness, 5ms);
    }
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 10'000'000);
}

TEST(HybridWaiter, HybridSleepsToTheMarginThenSpins) {
    // A perfect OS with 30 us jitter: after learning, the waiter sleeps most of a 10 ms wait.
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 30us});
    pacer::HybridWaiter w({}, &os);
    pacer::WaitResult r;
    for (int i = 0; i < 2000; ++i) r = wait_ns(w, pacer::clock::to_ns(os.now()) + 10'000'000);
    EXPECT_TRUE(r.os_slept);
    EXPECT_GT(r.slept, 9ms);
    EXPECT_LE(r.spun, r.margin);
    // The least-cost margin of an exponential oversleep with mean t is t x ln(late_cost / t):
    // 30 us x ln(10 ms / 30 us) = 174 us, plus min_margin 20 us.
    EXPECT_GT(w.margin(), 150us);
    EXPECT_LT(w.margin(), 215us);
}

TEST(HybridWaiter, StartsFromTheInitialMarginUntilItHasMeasured) {
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 0ns});
    pacer::HybridWaiter w({.initial_margin = 2ms}, &os);
    EXPECT_EQ(w.margin(), 2ms);
    for (int i = 0; i < 16; ++i) wait_ns(w, pacer::clock::to_ns(os.now()) + 5'000'000);
    EXPECT_LT(w.margin(), 100us);  // learned: this OS is exact
}

TEST(HybridWaiter, SpinPerWaitIsCapped) {
    // A 15.6 ms tick, like Windows without timeBeginPeriod: the waiter must not spin whole frames.
    pacer::SimulatedOs os({.granularity = 15600us, .tick_aligned = true});
    pacer::HybridWaiter w({.max_spin = 3ms}, &os);
    for (int i = 0; i < 500; ++i) {
        const pacer::WaitResult r = wait_ns(w, pacer::clock::to_ns(os.now()) + 16'666'667);
        ASSERT_LE(r.spun, 3ms + 100ns);
    }
    EXPECT_LE(w.margin(), 3ms);
}

TEST(HybridWaiter, ReadaptsWhenTheMachineChanges) {
    pacer::SimModel quiet{.granularity = 0ns, .jitter_mean = 20us};
    pacer::SimModel busy{.granularity = 2ms, .jitter_mean = 50us};
    pacer::SimulatedOs os(quiet);
    pacer::HybridWaiter w({}, &os);
    auto run = [&](int n) {
        for (int i = 0; i < n; ++i) wait_ns(w, pacer::clock::to_ns(os.now()) + 8'000'000);
    };
    run(3000);
    const auto m_quiet = w.margin();
    EXPECT_LT(m_quiet, 150us);
    // A worse machine (wake-ups spread over a 2 ms tick), spins never preempted: the floor covers
    // the tick once its late wake-ups weigh kFloorSamples (6), not at the first few, which could
    // be a passing burst (the quantile alone reacted after 4).
    os.set_model(busy);
    int waits = 0;
    while (w.margin() < 1500us && waits < 1000) {
        run(1);
        ++waits;
    }
    std::printf("margin above 1.5 ms after %d waits on the worse machine\n", waits);
    EXPECT_GE(waits, 6) << "a few late wake-ups moved the margin";
    EXPECT_LE(waits, 30) << "must react to a worse machine within a few waits";
    run(3000);
    os.set_model(quiet);
    run(5000);  // 10 half-lives
    EXPECT_LT(w.margin(), m_quiet * 3 / 2) << "must forget the busy spell";
}

// A busy machine: wake-ups up to 2 ms late with 2 % preemptions (the margin would like ~3.5 ms),
// and a spin that lasts more than 1 ms loses the CPU for a 3 ms time slice.
pacer::SimModel busy_machine() {
    return {.granularity = 2ms, .jitter_mean = 20us, .preempt_probability = 0.02,
            .spin_preempt_probability = 0.002, .spin_preempt_after = 1ms, .spin_preempt = 3ms};
}

TEST(HybridWaiter, PreemptedSpinsShrinkTheCapAndCalmSpinsRestoreIt) {
    const pacer::SimModel busy = busy_machine();
    pacer::SimulatedOs os(busy);
    pacer::FramePacer fp({.target_hz = 60.0, .waiter = own_class()}, &os);
    const pacer_test::RunResult r = pacer_test::run_pacer(os, fp, 3000, 4'000'000);
    const pacer::WaiterStatus w = fp.status().waiter;
    EXPECT_GT(w.preempted_spins, 0);
    EXPECT_LE(w.spin_cap, 2ms) << "long spins get preempted: the cap must come down";
    double mean = 0;
    for (double v : r.lateness_us) mean += v;
    mean /= static_cast<double>(r.lateness_us.size());
    std::printf("guarded: cap %.0f us, spin %.2f %%, lateness mean %.0f us p50 %.0f p90 %.0f p99 %.0f us\n",
                static_cast<double>(w.spin_cap.count()) / 1e3, 100 * r.spin_share, mean, r.lateness_q(0.5),
                r.lateness_q(0.9), r.lateness_q(0.99));
    // With the guard switched off (cap fixed at 4 ms) this model gives: spin 23.7 %, lateness
    // mean 1258 us, p50 1260 us, p90 2085 us (the long spins are the ones preempted for 3 ms).
    // Guarded: spin 1.6 %, mean 300 us, p50 27 us, p90 859 us. Bounds with room to spare:
    EXPECT_LT(r.spin_share, 0.05);
    EXPECT_LT(mean, 600.0);
    EXPECT_LT(r.lateness_q(0.9), 1500.0);

    // The machine calms down: the cap grows back to max_spin.
    pacer::SimModel calm = busy;
    calm.spin_preempt_probability = 0;
    os.set_model(calm);
    pacer_test::run_pacer(os, fp, 1000, 4'000'000);
    EXPECT_EQ(fp.status().waiter.spin_cap, 4ms);
}

TEST(HybridWaiter, WhatTheCapLearnedSurvivesASettingsChange) {
    // The machine of the test above shrinks the cap; a rate change (which re-applies the waiter's
    // settings) must not put it back to 4 ms: the machine did not get calmer.
    const pacer::SimModel busy = busy_machine();
    pacer::SimulatedOs os(busy);
    pacer::FramePacer fp({.target_hz = 60.0, .waiter = own_class()}, &os);
    pacer_test::run_pacer(os, fp, 3000, 4'000'000);
    const std::chrono::nanoseconds shrunk = fp.status().waiter.spin_cap;
    ASSERT_LT(shrunk, 4ms);
    ASSERT_TRUE(fp.set_target_hz(50.0));
    fp.wait();
    EXPECT_LE(fp.status().waiter.spin_cap, shrunk) << "a rate change restored the spin cap";

    // The waiter's own door: same max_spin keeps the cap, a new max_spin starts at it.
    pacer::HybridWaiter w(own_class(), &os);
    pacer::WaiterConfig c = w.config();
    for (int i = 0; i < 2000 && w.spin_cap() == c.max_spin; ++i) wait_ns(w, pacer::clock::to_ns(os.now()) + 16'000'000);
    const std::chrono::nanoseconds cap = w.spin_cap();
    ASSERT_LT(cap, c.max_spin);
    c.late_cost = 5ms;
    ASSERT_TRUE(w.set_config(c));
    EXPECT_EQ(w.spin_cap(), cap);
    c.max_spin = 3ms;
    ASSERT_TRUE(w.set_config(c));
    EXPECT_EQ(w.spin_cap(), 3ms);
}

// --- Oversleeps beyond the spin cap ------------------------------------------------------------

TEST(LatenessEstimator, LeastCostWeighsSpinAgainstLateWakeUps) {
    pacer::LatenessEstimator e(1e6);  // a half-life far beyond the 1000 samples: no visible decay
    EXPECT_EQ(e.least_cost(10ms, 4ms).count(), 0);  // empty
    for (int i = 0; i < 970; ++i) e.add(std::chrono::nanoseconds(10'000));     // 97 % at 10 us
    for (int i = 0; i < 30; ++i) e.add(std::chrono::nanoseconds(1'000'000));   // 3 % at 1 ms
    // 10 us lies in bin [2^(26/8), 2^(27/8)) us = [9.51, 10.37) us, 1 ms in [2^(79/8), 2^(80/8)) us
    // = [955, 1024) us; the candidates are bin edges.
    const auto edge = [](int k) { return static_cast<std::int64_t>(1000.0 * std::exp2(k / 8.0)); };
    // Covering the 1 ms cluster costs about 0.97 x 1 ms of spin per wait; it saves late_cost x 0.03.
    EXPECT_EQ(e.least_cost(10ms, 4ms).count(), edge(27));   // 0.3 ms saved: not worth it
    EXPECT_EQ(e.least_cost(100ms, 4ms).count(), edge(80));  // 3 ms saved: covered
    EXPECT_EQ(e.least_cost(100ms, 900us).count(), edge(27));    // beyond the cap: cannot be covered
    EXPECT_EQ(e.least_cost(10ms, 9us).count(), 0);              // not even the bulk fits under 9 us
    EXPECT_EQ(e.least_cost(0ns, 4ms).count(), 0);           // a late wake-up costs nothing: no spin
}

// A bad spell: 3 % of wake-ups come 4 ms late (another thread holds the CPU), the rest after an
// exponential 20 us; the spin may last 1 ms. The late ones are late whatever the margin: a spin
// up to the cap cannot reach them, so they must not move the margin. Of the rest, the least-cost
// margin covers the tail up to where its density falls below 1 / late_cost: 20 us x ln(10 ms /
// 20 us) = 124 us, plus min_margin 20 us. A 99.5 % quantile of all wake-ups lies in the 4 ms
// cluster: spinning to the cap every frame would cost (1000 - 20) us / 16667 us = 5.9 %.
TEST(HybridWaiter, OversleepsBeyondTheCapDoNotRaiseTheMargin) {
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 20us, .preempt_probability = 0.03,
                           .preempt = 4ms});
    pacer::PacerConfig c{.target_hz = 60.0};
    c.waiter.max_spin = 1ms;
    pacer::FramePacer fp(c, &os);
    const pacer_test::RunResult r = pacer_test::run_pacer(os, fp, 4000, 2'000'000);
    std::printf("bad spell: margin %.0f us, spin %.2f %%, lateness p95 %.2f us p99 %.0f us, missed %llu\n",
                static_cast<double>(r.final_margin_ns) / 1e3, 100 * r.spin_share, r.lateness_q(0.95),
                r.lateness_q(0.99), static_cast<unsigned long long>(r.missed));
    EXPECT_GT(r.final_margin_ns, 100'000);
    EXPECT_LT(r.final_margin_ns, 170'000);
    EXPECT_LT(r.spin_share, 0.015);
    EXPECT_LT(r.lateness_q(0.95), 0.2) << "the wake-ups the spin can catch are still caught";
    EXPECT_LT(r.missed, 4000u * 5 / 100);  // the 3 % cluster and the 0.5 % tail of the rest
}

// late_cost 0 (WaiterConfig: "never spin past min_margin"): neither the cost nor the floor spins
// for the tail, calm spins or not. With the default the floor covers 99.5 % of these wake-ups (a
// margin of about 120 us, every frame on time); with 0 the margin stays at min_margin and the
// wake-ups past it are late, as asked.
TEST(HybridWaiter, LateCostZeroSpinsOnlyMinMargin) {
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 20us, .preempt_probability = 0.03, .preempt = 1500us});
    pacer::PacerConfig c{.target_hz = 60.0};
    c.waiter.late_cost = 0ns;
    pacer::FramePacer fp(c, &os);
    const pacer_test::RunResult r = pacer_test::run_pacer(os, fp, 2000, 2'000'000);
    std::printf("late_cost 0: margin %.0f us, spin %.3f %%, lateness p98 %.0f p99 %.0f us\n",
                static_cast<double>(r.final_margin_ns) / 1e3, 100 * r.spin_share, r.lateness_q(0.98), r.lateness_q(0.99));
    EXPECT_EQ(r.final_margin_ns, c.waiter.min_margin.count());
    EXPECT_LT(r.spin_share, 0.002);
    EXPECT_GT(r.lateness_q(0.99), 20.0) << "the wake-ups past min_margin are left late";
}

// late_cost below 1 ms (kFloorLateCost): the least cost alone, no floor. Wake-ups after an
// exponential 60 us (a virtual machine's spread) and 3 % of them 1.5 ms late: the default
// late_cost's floor covers the cluster (a margin past 1.5 ms, a tenth of every frame spun), while
// 500 us covers the dense part only: 60 us x ln(500 us / 60 us) = 127 us, plus min_margin; the
// spin a frame stays near a tenth of a millisecond, and more than half of the wake-ups are on time.
TEST(HybridWaiter, LateCostBelowTheFloorsCoversTheDenseSpreadOnly) {
    const pacer::SimModel m{.granularity = 0ns, .jitter_mean = 60us, .preempt_probability = 0.03,
                            .preempt = 1500us, .relax_time = 100ns};
    pacer_test::RunResult lean, floored;
    for (const auto late_cost : {500us, 10'000us}) {
        pacer::SimulatedOs os(m);
        pacer::PacerConfig c{.target_hz = 60.0, .waiter = own_class()};
        c.waiter.late_cost = late_cost;
        pacer::FramePacer fp(c, &os);
        (late_cost < 1ms ? lean : floored) = pacer_test::run_pacer(os, fp, 4000, 2'000'000);
    }
    std::printf("late_cost 500 us: margin %.0f us, spin %.2f %%, lateness p50 %.0f p90 %.0f us; 10 ms: margin %.0f us, spin %.2f %%\n",
                static_cast<double>(lean.final_margin_ns) / 1e3, 100 * lean.spin_share, lean.lateness_q(0.5),
                lean.lateness_q(0.9), static_cast<double>(floored.final_margin_ns) / 1e3, 100 * floored.spin_share);
    EXPECT_GT(floored.final_margin_ns, 1'500'000) << "the floor covers the cluster";
    EXPECT_GT(lean.final_margin_ns, 100'000);
    EXPECT_LT(lean.final_margin_ns, 250'000) << "no floor below 1 ms";
    EXPECT_LT(lean.spin_share, 0.15 / 16.667) << "under 0.15 ms of spin a frame";
    EXPECT_GT(floored.spin_share, 5 * lean.spin_share);
    EXPECT_LT(lean.lateness_q(0.5), 1.0) << "the dense part is covered";
}

// A sparse cluster within the cap: 3 % of wake-ups 1.5 ms late. For the cost alone it is not
// worth covering (1.5 ms of spin per frame against 10 ms x 0.03 = 0.3 ms of late wake-ups), but
// while spins are never preempted a pure spin would be on time, and the floor (99.5 % of the
// catchable wake-ups) covers it: 1.5 ms + 20 us x ln(0.03 / 0.005) = 1.54 ms, plus min_margin.
// When long spins do get preempted (here: a spin past 0.5 ms loses the CPU within ~0.1 ms), the
// floor is off and the cost decides; every 512 calm spins the floor is tried again, and the one
// long spin it costs is preempted at once.
TEST(HybridWaiter, ASparseClusterIsCoveredOnlyWhileSpinsAreNotPreempted) {
    pacer::SimModel m{.granularity = 0ns, .jitter_mean = 20us, .preempt_probability = 0.03,
                      .preempt = 1500us, .relax_time = 100ns};
    {
        pacer::SimulatedOs os(m);
        pacer::FramePacer fp({.target_hz = 60.0, .waiter = own_class()}, &os);
        const pacer_test::RunResult r = pacer_test::run_pacer(os, fp, 4000, 2'000'000);
        std::printf("spins never preempted: margin %.0f us, spin %.2f %%, lateness p99 %.2f us\n",
                    static_cast<double>(r.final_margin_ns) / 1e3, 100 * r.spin_share, r.lateness_q(0.99));
        EXPECT_GT(r.final_margin_ns, 1'500'000);
        EXPECT_LT(r.final_margin_ns, 1'700'000);
        EXPECT_LT(r.lateness_q(0.99), 0.2);
    }
    m.spin_preempt_probability = 0.001;
    m.spin_preempt_after = 500us;
    m.spin_preempt = 3ms;
    {
        pacer::SimulatedOs os(m);
        pacer::FramePacer fp({.target_hz = 60.0, .waiter = own_class()}, &os);
        const pacer_test::RunResult r = pacer_test::run_pacer(os, fp, 4000, 2'000'000);
        std::printf("long spins preempted: margin %.0f us, spin %.2f %%, lateness p95 %.2f us p99 %.0f us\n",
                    static_cast<double>(r.final_margin_ns) / 1e3, 100 * r.spin_share, r.lateness_q(0.95),
                    r.lateness_q(0.99));
        EXPECT_GT(fp.status().waiter.preempted_spins, 0);
        EXPECT_LT(r.spin_share, 0.015);
        EXPECT_LT(r.lateness_q(0.95), 0.2) << "the bulk of the wake-ups is still caught";
    }
}

// --- The hand-off: the last microseconds of the spin run in the caller --------------------------

TEST(HybridWaiter, HandoffStopsShortOfTheDeadlineAndFinishWaitCompletesIt) {
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 10us, .relax_time = 100ns});
    pacer::HybridWaiter w({}, &os);
    for (int i = 0; i < 50; ++i) {
        const std::int64_t d = pacer::clock::to_ns(os.now()) + 5'000'000 + i * 13;
        pacer::WaitResult r = w.wait_until_handoff(pacer::clock::from_ns(d));
        const std::int64_t handed = pacer::clock::to_ns(r.end);
        ASSERT_EQ(handed, pacer::clock::to_ns(os.now()));
        ASSERT_LT(handed, d);
        ASSERT_GE(handed, d - pacer::HybridWaiter::kHandoff.count());
        ASSERT_EQ(r.lateness, 0ns);
        const std::chrono::nanoseconds spun = r.spun;
        pacer::finish_wait(os, r, pacer::clock::from_ns(d));
        ASSERT_EQ(pacer::clock::to_ns(r.end), pacer::clock::to_ns(os.now()));
        ASSERT_GE(pacer::clock::to_ns(os.now()), d);
        ASSERT_LT(r.lateness, 100ns);  // one relax
        ASSERT_EQ(r.lateness.count(), pacer::clock::to_ns(os.now()) - d);
        ASSERT_EQ(r.spun - spun, std::chrono::nanoseconds(pacer::clock::to_ns(os.now()) - handed));
    }
    // Sleep mode never hands off, and then finish_wait() does nothing.
    const std::int64_t relaxes = os.relaxes();
    const std::int64_t d = pacer::clock::to_ns(os.now()) + 5'000'000;
    pacer::WaitResult r = w.wait_until_handoff(pacer::clock::from_ns(d), pacer::WaitMode::sleep);
    EXPECT_GE(pacer::clock::to_ns(r.end), d);
    const pacer::WaitResult before = r;
    pacer::finish_wait(os, r, pacer::clock::from_ns(d));
    EXPECT_EQ(os.relaxes(), relaxes);
    EXPECT_EQ(r.end, before.end);
    EXPECT_EQ(r.lateness, before.lateness);
}

TEST(HybridWaiter, FramePacerReportsTheWakeAfterTheHandoff) {
    // What wait() reports is when it returned: the clock after the caller's part of the spin.
    pacer::SimulatedOs os({.granularity = 0ns, .jitter_mean = 30us, .relax_time = 100ns});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    pacer::FrameTiming prev = fp.wait();
    std::int64_t spun = 0, slept = 0;
    const std::int64_t t0 = pacer::clock::to_ns(os.now());
    for (int i = 0; i < 500; ++i) {
        os.advance(1ms);
        const pacer::FrameTiming t = fp.wait();
        ASSERT_EQ(pacer::clock::to_ns(t.wake), pacer::clock::to_ns(os.now()));
        ASSERT_EQ(t.interval, t.wake - prev.wake);
        ASSERT_EQ(t.lateness.count(), std::max<std::int64_t>(0, pacer::clock::to_ns(os.now()) - pacer::clock::to_ns(t.deadline)));
        spun += t.spun.count();
        slept += t.slept.count();
        prev = t;
    }
    // Work, sleep and spin add up to the wall time: the handed-off spin is counted once.
    EXPECT_EQ(500 * 1'000'000 + spun + slept, pacer::clock::to_ns(os.now()) - t0);
}

// --- Seed 000's robustness grid, as bounds ----------------------------------------------------

struct Grid {
    double period_ms;
    friend void PrintTo(const Grid& g, std::ostream* os) { *os << g.period_ms << " ms"; }
};

class SchedulerPeriod : public ::testing::TestWithParam<Grid> {};

TEST_P(SchedulerPeriod, HybridLatenessAndSpinShareStayWithinBounds) {
    const std::int64_t g = static_cast<std::int64_t>(GetParam().period_ms * 1e6);
    // Seed 000's fake sleep: uniform delay up to one period, 2 % preemption of one period each,
    // plus 20 us of exponential wake-up noise.
    pacer::SimulatedOs os({.granularity = std::chrono::nanoseconds(g), .jitter_mean = 20us, .preempt_probability = 0.02});
    pacer::FramePacer fp({.target_hz = 60.0, .waiter = own_class()}, &os);
    const std::int64_t frame_ns = 16'666'667;
    const pacer_test::RunResult r = pacer_test::run_pacer(os, fp, 4000, 4'000'000);
    const double max_spin_ns = 4e6;

    // The margin the model needs: with 2 % preemption, 0.5 % of wake-ups are later than
    // 1.75 periods (+ noise).
    const double needed_ns = 1.75 * static_cast<double>(g) + 20e3 * std::log(200.0);
    std::printf("period %5.2f ms: lateness p50 %.2f us p99 %.2f us max %.0f us, spin %.2f %%, "
                "cpu %.2f %%, margin %.0f us, missed %llu\n",
                GetParam().period_ms, r.lateness_q(0.5), r.lateness_q(0.99), r.lateness_us.back(),
                100 * r.spin_share, 100 * r.cpu_share, static_cast<double>(r.final_margin_ns) / 1e3,
                static_cast<unsigned long long>(r.missed));

    if (needed_ns < 0.9 * max_spin_ns) {
        // The margin fits under the spin cap: frames are on time except the rare wake-up
        // beyond the learned quantile.
        EXPECT_LT(r.lateness_q(0.5), 0.2);   // us: one relax of the simulated spin
        EXPECT_LT(r.lateness_q(0.99), 0.2);
        EXPECT_LE(r.missed, 4000u / 100u);
        // Spin costs about the margin minus the average oversleep per frame; never more than
        // the margin plus noise.
        EXPECT_LT(r.spin_share, (needed_ns * 1.25 + 50e3) / frame_ns);
    } else {
        // Coarser than the cap allows: the spin is capped, lateness is the OS's.
        EXPECT_LE(r.spin_share, max_spin_ns / frame_ns + 0.005);
        EXPECT_LT(r.lateness_q(0.5), static_cast<double>(g) / 1e3);
    }
    // Sleeping must carry most of the wait whenever the OS can be trusted at all.
    EXPECT_GT(r.sleep_share, 1.0 - 4e6 / frame_ns - r.spin_share - 0.3);
}

INSTANTIATE_TEST_SUITE_P(PreciseSleepArticle, SchedulerPeriod,
                         ::testing::Values(Grid{0.05}, Grid{0.1}, Grid{0.25}, Grid{0.5}, Grid{1.0},
                                           Grid{2.0}, Grid{4.0}, Grid{10.0}),
                         [](const auto& param_info) {
                             return "period_us_" + std::to_string(static_cast<int>(param_info.param.period_ms * 1000));
                         });

}  // namespace
