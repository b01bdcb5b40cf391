// LatenessEstimator: the quantile it reports, and how fast it forgets.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "pacer/estimator.hpp"

namespace {

using std::chrono::nanoseconds;

using pacer::LatenessEstimator;

TEST(LatenessEstimator, EmptyIsZero) {
    LatenessEstimator e;
    EXPECT_EQ(e.quantile(0.99).count(), 0);
    EXPECT_EQ(e.count(), 0);
}

TEST(LatenessEstimator, QuantilesOfAUniformSampleAreWithinOneBin) {
    LatenessEstimator e(1e6);  // effectively no forgetting
    for (int rep = 0; rep < 10; ++rep)
        for (int us = 1; us <= 1000; ++us) e.add(nanoseconds(us * 1000));
    // One bin is 2^(1/8) = 9 % wide; interpolation inside the bin does better than that.
    for (double p : {0.5, 0.9, 0.99, 0.995}) {
        const double want = 1000.0 * 1000.0 * p;
        EXPECT_NEAR(static_cast<double>(e.quantile(p).count()), want, want * 0.05) << "p = " << p;
    }
}

TEST(LatenessEstimator, HeavyTailMovesTheHighQuantileNotTheMedian) {
    LatenessEstimator e(1e6);
    for (int i = 0; i < 990; ++i) e.add(nanoseconds(50'000));     // 50 us
    for (int i = 0; i < 10; ++i) e.add(nanoseconds(5'000'000));   // 1 % at 5 ms
    EXPECT_NEAR(static_cast<double>(e.quantile(0.5).count()), 50'000.0, 5'000.0);
    EXPECT_GT(e.quantile(0.995).count(), 4'000'000);
}

TEST(LatenessEstimator, ReactsWithinAFewSamplesWhenTheMachineGetsWorse) {
    LatenessEstimator e(500);
    for (int i = 0; i < 5000; ++i) e.add(nanoseconds(60'000));
    EXPECT_LT(e.quantile(0.995).count(), 70'000);
    int n = 0;
    while (e.quantile(0.995).count() < 900'000 && n < 1000) {
        e.add(nanoseconds(1'000'000));
        ++n;
    }
    // 0.5 % of the decayed weight must be new: about 3 samples.
    EXPECT_LE(n, 5);
}

TEST(LatenessEstimator, ForgetsABadSpellAfterSomeHalfLives) {
    const double half_life = 500;
    LatenessEstimator e(half_life);
    for (int i = 0; i < 5000; ++i) e.add(nanoseconds(1'000'000));
    int n = 0;
    while (e.quantile(0.995).count() > 100'000 && n < 100'000) {
        e.add(nanoseconds(60'000));
        ++n;
    }
    // The old samples' share must fall below 0.5 %: log2(200) = 7.6 half-lives.
    EXPECT_GT(n, 6 * half_life);
    EXPECT_LT(n, 9 * half_life);
}

TEST(LatenessEstimator, SurvivesVeryLongRuns) {
    LatenessEstimator e(8);  // fastest growth of the sample weight: forces many rescales
    for (int i = 0; i < 200'000; ++i) e.add(nanoseconds(100'000 + (i % 7) * 1000));
    const auto q = e.quantile(0.5).count();
    EXPECT_GT(q, 90'000);
    EXPECT_LT(q, 115'000);
}

TEST(LatenessEstimator, NegativeAndHugeSamplesAreClamped) {
    LatenessEstimator e;
    e.add(nanoseconds(-5));
    EXPECT_LT(e.quantile(0.5).count(), 1000);
    e.reset();
    e.add(nanoseconds(std::int64_t{1} << 60));
    EXPECT_GE(e.quantile(0.5).count(), 200'000'000);  // overflow bin: reported at its lower edge
}

}  // namespace
