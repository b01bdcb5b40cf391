// Bad configuration is refused with a message that names the field, at configuration time.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "pacer/pacer.hpp"
#include "sim_run.hpp"

namespace {

using namespace std::chrono_literals;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Config, DefaultsAreValid) {
    EXPECT_TRUE(pacer::validate(pacer::PacerConfig{}).ok());
    EXPECT_TRUE(pacer::validate(pacer::WaiterConfig{}).ok());
    EXPECT_TRUE(pacer::validate(pacer::FixedStepConfig{}).ok());
}

TEST(Config, BadRatesAreRefusedWithTheValueInTheMessage) {
    for (double hz : {0.0, -60.0, kNaN, kInf, -kInf, 10'000.5, 1e300}) {
        pacer::PacerConfig c;
        c.target_hz = hz;
        const pacer::Status s = pacer::validate(c);
        ASSERT_FALSE(s.ok()) << hz;
        EXPECT_NE(s.message().find("target_hz"), std::string::npos) << s.message();
        EXPECT_THROW(pacer::FramePacer fp(c), pacer::ConfigError);
    }
    pacer::PacerConfig edge;
    edge.target_hz = 10'000.0;
    EXPECT_TRUE(pacer::validate(edge).ok());
    edge.target_hz = 0.001;  // one frame every 1000 s is odd but well defined
    EXPECT_TRUE(pacer::validate(edge).ok());
}

TEST(Config, ThrownMessageIsTheStatusMessage) {
    try {
        pacer::FramePacer fp({.target_hz = kNaN});
        FAIL() << "no exception";
    } catch (const pacer::ConfigError& e) {
        EXPECT_STREQ(e.what(), "target_hz = nan: must be a finite number in (0, 10000]");
    }
}

TEST(Config, BadCadenceSettingsAreRefusedAndKeepTheOldOnes) {
    pacer::PacerConfig c;
    c.cadence = static_cast<pacer::CadenceMode>(7);
    EXPECT_EQ(pacer::validate(c).message(), "cadence = 7: not a CadenceMode");
    c.cadence = pacer::CadenceMode::automatic;
    c.governor.dwell = 61s;
    EXPECT_EQ(pacer::validate(c).message(), "governor.dwell = 61000000000 ns: must be in [0, 60 s]");
    EXPECT_THROW(pacer::FramePacer fp(c), pacer::ConfigError);
    c.governor.dwell = 2s;
    pacer::SimulatedOs os;
    pacer::FramePacer fp(c, &os);
    pacer::PacerConfig bad = c;
    bad.governor.headroom = 0;
    pacer::set_log_function(nullptr);
    EXPECT_EQ(fp.set_config(bad).message(), "governor.headroom = 0: must be in (0, fit = 0.95)");
    pacer::set_log_function(pacer::log_to_stderr);
    EXPECT_EQ(fp.config().governor.headroom, 0.8);
    EXPECT_EQ(fp.config().governor.dwell, 2s);
    bool parsed = false;
    pacer::CadenceMode m = pacer::CadenceMode::fixed;
    parsed = pacer::parse_cadence_mode("auto", &m);
    EXPECT_TRUE(parsed);
    EXPECT_EQ(m, pacer::CadenceMode::automatic);
    EXPECT_FALSE(pacer::parse_cadence_mode("sometimes", &m));
}

TEST(Config, BadWaiterSettingsAreRefused) {
    auto bad = [](pacer::WaiterConfig w) { return !pacer::validate(w).ok(); };
    EXPECT_TRUE(bad({.max_spin = -1ns}));
    EXPECT_TRUE(bad({.max_spin = 2s}));
    EXPECT_TRUE(bad({.late_cost = -1ns}));
    EXPECT_TRUE(bad({.late_cost = 2s}));
    EXPECT_FALSE(bad({.late_cost = 0ns}));
    EXPECT_TRUE(bad({.half_life = 0}));
    EXPECT_TRUE(bad({.half_life = kInf}));
    EXPECT_TRUE(bad({.initial_margin = -5ns}));
    EXPECT_TRUE(bad({.min_margin = 5ms, .max_spin = 1ms}));
    EXPECT_FALSE(bad({.min_margin = 0ns, .max_spin = 0ns}));  // "never spin" is allowed
    EXPECT_THROW(pacer::HybridWaiter w({.max_spin = -1ns}), pacer::ConfigError);
    pacer::PacerConfig c;
    c.waiter.max_spin = -1ms;
    EXPECT_NE(pacer::validate(c).message().find("max_spin"), std::string::npos);
}

TEST(Config, BadPolicySettingsAreRefused) {
    pacer::PacerConfig c;
    c.max_catch_up = -1;
    EXPECT_FALSE(pacer::validate(c).ok());
    c.max_catch_up = 1;
    c.miss_tolerance = -1ns;
    EXPECT_FALSE(pacer::validate(c).ok());
    c.miss_tolerance = 0ns;
    c.mode = static_cast<pacer::WaitMode>(42);
    EXPECT_FALSE(pacer::validate(c).ok());
    c.mode = pacer::WaitMode::hybrid;
    c.late_policy = static_cast<pacer::LatePolicy>(-3);
    EXPECT_FALSE(pacer::validate(c).ok());
}

TEST(Config, BadFixedStepSettingsAreRefused) {
    auto bad = [](pacer::FixedStepConfig f) { return !pacer::validate(f).ok(); };
    EXPECT_TRUE(bad({.step_hz = 0}));
    EXPECT_TRUE(bad({.step_hz = -30}));
    EXPECT_TRUE(bad({.step_hz = kNaN}));
    EXPECT_TRUE(bad({.step_hz = kInf}));
    EXPECT_TRUE(bad({.max_steps = 0}));
    EXPECT_TRUE(bad({.max_frame_delta = 0ns}));
    EXPECT_TRUE(bad({.step_hz = 10, .max_frame_delta = 50ms}));  // clamp below one step
    EXPECT_TRUE(bad({.snap_period = -1ns}));
    EXPECT_TRUE(bad({.snap_period = 16ms, .snap_tolerance = 5ms}));
    EXPECT_THROW(pacer::FixedStep f({.step_hz = 0}), pacer::ConfigError);
}

TEST(Config, RuntimeSettersKeepTheOldSettingsOnError) {
    pacer::SimulatedOs os;
    pacer::FramePacer fp({.target_hz = 60}, &os);
    EXPECT_FALSE(fp.set_target_hz(0).ok());
    EXPECT_FALSE(fp.set_target_hz(kNaN).ok());
    EXPECT_FALSE(pacer_test::change(fp, [](pacer::PacerConfig& c) { c.max_catch_up = -2; }).ok());
    EXPECT_EQ(fp.config().target_hz, 60);
    fp.wait();
    const pacer::FrameTiming t = fp.wait();
    EXPECT_NEAR(static_cast<double>(t.interval.count()), 16'666'667.0, 2'000.0);

    pacer::FixedStep fs;
    EXPECT_FALSE(fs.set_config({.step_hz = -1}).ok());
    EXPECT_EQ(fs.config().step_hz, 60.0);
}

TEST(Config, ModeAndPolicyNamesRoundTrip) {
    for (auto m : {pacer::WaitMode::sleep, pacer::WaitMode::spin, pacer::WaitMode::hybrid}) {
        pacer::WaitMode back{};
        ASSERT_TRUE(pacer::parse_wait_mode(pacer::to_string(m), &back));
        EXPECT_EQ(back, m);
    }
    for (auto p : {pacer::LatePolicy::catch_up, pacer::LatePolicy::skip, pacer::LatePolicy::resync}) {
        pacer::LatePolicy back{};
        ASSERT_TRUE(pacer::parse_late_policy(pacer::to_string(p), &back));
        EXPECT_EQ(back, p);
    }
    pacer::WaitMode m = pacer::WaitMode::spin;
    EXPECT_FALSE(pacer::parse_wait_mode("Hybrid", &m));
    EXPECT_FALSE(pacer::parse_wait_mode(nullptr, &m));
    EXPECT_EQ(m, pacer::WaitMode::spin);
}

}  // namespace
