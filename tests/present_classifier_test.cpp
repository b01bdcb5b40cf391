// PresentClassifier (pacer/present_classifier.hpp) on its own, against a fixed vblank grid: the
// window, synchronised presents, when a present waited, when its frame is shown, and what it
// tells the display's fit.
#include <gtest/gtest.h>

#include <chrono>

#include "pacer/present_classifier.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using pacer::PresentClassifier;
using pacer::PresentInfo;
using pacer::PresentVerdict;
using pacer::VblankSource;
using pacer::clock;

using pacer_test::at;

// Vblanks every `period` from t = 0.
class VblankGrid final : public pacer::VblankModel {
public:
    VblankGrid(std::chrono::nanoseconds period, bool known, bool predicted)
        : period_(period), known_(known), predicted_(predicted) {}
    bool known() const noexcept override { return known_; }
    bool predicted() const noexcept override { return predicted_; }
    std::chrono::nanoseconds period() const noexcept override { return period_; }
    clock::time_point next_after(clock::time_point t) const noexcept override {
        return at((t.time_since_epoch() / period_ + 1) * period_);
    }

private:
    std::chrono::nanoseconds period_;
    bool known_, predicted_;
};

using pacer_test::k60;
const VblankGrid kPredicted(k60, true, true);

PresentInfo present(std::chrono::nanoseconds begin, std::chrono::nanoseconds end, int interval = 1) {
    PresentInfo p;
    p.begin = at(begin);
    p.end = at(end);
    p.swap_interval = interval;
    p.refresh_hz = 60;
    return p;
}

TEST(PresentClassifier, WindowFromThePeriod) {
    // 60 Hz: 3 % is 500 us early; a quarter (4.17 ms) capped at 2 ms late.
    EXPECT_EQ(PresentClassifier::window(k60).early, 500'000ns);
    EXPECT_EQ(PresentClassifier::window(k60).late, 2ms);
    // 144 Hz: 3 % (208 us) raised to 250 us; a quarter, 1.736 ms.
    EXPECT_EQ(PresentClassifier::window(6'944'444ns).early, 250us);
    EXPECT_EQ(PresentClassifier::window(6'944'444ns).late, 1'736'111ns);
    // 1 kHz: a quarter (250 us) never below `early`.
    EXPECT_EQ(PresentClassifier::window(1ms).late, 250us);
}

TEST(PresentClassifier, SynchronisedAndDisplayedTimes) {
    PresentInfo p = present(10ms, 11ms, 1);
    EXPECT_TRUE(PresentClassifier::synchronised(p, false));
    p.swap_interval = 0;
    EXPECT_FALSE(PresentClassifier::synchronised(p, true));
    p.swap_interval = -1;  // unknown: synchronised while the swap paces
    EXPECT_TRUE(PresentClassifier::synchronised(p, true));
    EXPECT_FALSE(PresentClassifier::synchronised(p, false));
    p.displayed = at(9ms);  // before the call: no time
    EXPECT_EQ(PresentClassifier::displayed_time(p), clock::time_point{});
    p.displayed = at(11ms + 1s + 1ns);  // more than a second after the return
    EXPECT_EQ(PresentClassifier::displayed_time(p), clock::time_point{});
    p.displayed = at(11ms + 1s);
    EXPECT_EQ(PresentClassifier::displayed_time(p), at(11ms + 1s));
}

TEST(PresentClassifier, ACallThatBlockedAQuarterRefreshWaited) {
    const PresentVerdict v = PresentClassifier::classify(present(28ms, 33'400'000ns), false, kPredicted, true);
    EXPECT_TRUE(v.waited);
    EXPECT_EQ(v.shown, at(33'400'000ns));
    EXPECT_EQ(v.observation, VblankSource::swap_return);
    EXPECT_EQ(v.vblank, at(33'400'000ns));
}

TEST(PresentClassifier, AReturnInsideTheWindowWaitedForTheVblankItSpanned) {
    const std::chrono::nanoseconds v1 = 2 * k60;  // 33'333'334 ns
    // 1.5 ms after the vblank (late, within 2 ms): waited; shown at the vblank.
    PresentVerdict v = PresentClassifier::classify(present(v1 - 1ms, v1 + 1'500us), false, kPredicted, true);
    EXPECT_TRUE(v.waited);
    EXPECT_EQ(v.shown, at(v1));
    EXPECT_EQ(v.observation, VblankSource::swap_return);
    // 0.4 ms before a predicted vblank (early, within 0.5 ms): the prediction's error; waited.
    v = PresentClassifier::classify(present(v1 - 3ms, v1 - 400us), false, kPredicted, true);
    EXPECT_TRUE(v.waited);
    EXPECT_EQ(v.shown, at(v1 - 400us));
    // 2.5 ms after: it did not wait; shown at the next vblank; no vblank for the fit.
    v = PresentClassifier::classify(present(v1 - 1ms, v1 + 2'500us), false, kPredicted, true);
    EXPECT_FALSE(v.waited);
    EXPECT_TRUE(v.shown_known);
    EXPECT_EQ(v.shown, at(v1 + k60));
    EXPECT_EQ(v.observation, VblankSource::none);
    // A call that began after the vblank did not span it.
    v = PresentClassifier::classify(present(v1 + 100us, v1 + 1ms), false, kPredicted, true);
    EXPECT_FALSE(v.waited);
}

// Without predicted vblanks (the last observed one, often a late return) the window is [0, early].
TEST(PresentClassifier, TheLastObservedVblankHasNoEarlySlack) {
    const VblankGrid last_seen(k60, true, false);
    const std::chrono::nanoseconds v1 = 2 * k60;
    EXPECT_FALSE(PresentClassifier::classify(present(v1 - 3ms, v1 - 400us), false, last_seen, true).waited);
    EXPECT_TRUE(PresentClassifier::classify(present(v1 - 1ms, v1 + 400us), false, last_seen, true).waited);
    EXPECT_FALSE(PresentClassifier::classify(present(v1 - 1ms, v1 + 1ms), false, last_seen, true).waited);
}

TEST(PresentClassifier, DisplayedTimesAreVblanksOnlyWhenSynchronised) {
    PresentInfo p = present(10ms, 11ms, 1);
    p.displayed = at(2 * k60);
    PresentVerdict v = PresentClassifier::classify(p, false, kPredicted, true);
    EXPECT_EQ(v.observation, VblankSource::displayed);
    EXPECT_EQ(v.vblank, at(2 * k60));
    p.swap_interval = 0;  // torn: its displayed time is when it was torn in
    v = PresentClassifier::classify(p, false, kPredicted, true);
    EXPECT_EQ(v.observation, VblankSource::none);
    EXPECT_EQ(v.displayed, at(2 * k60)) << "still the frame's displayed time, for latency";
    EXPECT_FALSE(v.shown_known);
}

TEST(PresentClassifier, AFailedOrUnknownPresentSaysNothing) {
    PresentInfo p = present(28ms, 33'400'000ns);
    p.ok = false;
    PresentVerdict v = PresentClassifier::classify(p, false, kPredicted, true);
    EXPECT_FALSE(v.waited);
    EXPECT_EQ(v.observation, VblankSource::none);
    const VblankGrid unknown(k60, false, true);
    v = PresentClassifier::classify(present(2 * k60 - 1ms, 2 * k60 + 1ms), false, unknown, true);
    EXPECT_FALSE(v.waited);
    EXPECT_FALSE(v.shown_known);
}

}  // namespace
