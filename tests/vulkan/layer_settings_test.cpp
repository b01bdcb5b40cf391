// The Vulkan layer's settings (inject/settings.hpp) read from a fake environment: the
// defaults a launch line without them gets, each variable's words, and a bad value turning the
// layer off with the variable named.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "frames.hpp"
#include "pacer/waiter.hpp"
#include "settings.hpp"

namespace {

std::map<std::string, std::string> g_env;

const char* fake_getenv(const char* name) {
    const auto it = g_env.find(name);
    return it == g_env.end() ? nullptr : it->second.c_str();
}

pacer_layer::Settings read(std::map<std::string, std::string> env) {
    g_env = std::move(env);
    return pacer_layer::read_settings(&fake_getenv);
}

TEST(LayerSettings, DefaultsPaceNothingBeforeThePresentWithTheOsSleep) {
    const pacer_layer::Settings s = read({});
    EXPECT_TRUE(s.on);
    EXPECT_EQ(s.hz, 0.0);  // capture only
    EXPECT_TRUE(s.before);  // flat presents (docs/gl.md#the-default-placement)
    EXPECT_TRUE(s.sleep_only);  // PACER_WAIT=sleep: about MangoHud's CPU (docs/vulkan.md)
    EXPECT_EQ(s.priority, pacer::ThreadPriority::automatic);
    EXPECT_TRUE(s.capture.empty());
    EXPECT_EQ(s.log, pacer::LogLevel::warn);
}

TEST(LayerSettings, EachVariableTakesItsWords) {
    pacer_layer::Settings s = read({{"PACER_HZ", "144"}, {"PACER_PLACEMENT", "before"}, {"PACER_WAIT", "hybrid"},
                                    {"PACER_PRIORITY", "thread"}, {"PACER_CAPTURE", "/tmp/x.csv"},
                                    {"PACER_LOG", "debug"}});
    EXPECT_TRUE(s.on) << s.error;
    EXPECT_EQ(s.hz, 144.0);
    EXPECT_TRUE(s.before);
    EXPECT_FALSE(s.sleep_only);
    EXPECT_EQ(s.priority, pacer::ThreadPriority::thread);
    EXPECT_EQ(s.capture, "/tmp/x.csv");
    EXPECT_EQ(s.log, pacer::LogLevel::debug);
    s = read({{"PACER_PLACEMENT", "after"}, {"PACER_WAIT", "sleep"}});
    EXPECT_TRUE(s.on) << s.error;
    EXPECT_FALSE(s.before);
    EXPECT_TRUE(s.sleep_only);
    s = read({{"PACER_HZ", ""}, {"PACER_WAIT", ""}, {"PACER_PLACEMENT", ""}});  // empty: unset
    EXPECT_TRUE(s.sleep_only);
    EXPECT_TRUE(s.before);
}

TEST(LayerSettings, ABadValueTurnsTheLayerOffAndNamesTheVariable) {
    for (const auto& [var, value] : std::map<std::string, std::string>{{"PACER_HZ", "nan"},
                                                                       {"PACER_HZ", "-1"},
                                                                       {"PACER_WAIT", "spin"},
                                                                       {"PACER_PLACEMENT", "middle"},
                                                                       {"PACER_PRIORITY", "realtime"},
                                                                       {"PACER_LOG", "loud"}}) {
        const pacer_layer::Settings s = read({{var, value}});
        EXPECT_FALSE(s.on) << var << "=" << value;
        EXPECT_NE(s.error.find(var + "=\"" + value + "\""), std::string::npos) << s.error;
        EXPECT_NE(s.error.find("pacer is off, the program runs unpaced"), std::string::npos) << s.error;
    }
}

TEST(LayerSettings, LaterCapturesAreNumberedBeforeTheExtension) {
    EXPECT_EQ(pacer_layer::capture_path("dir/game.csv", 1), "dir/game.csv");
    EXPECT_EQ(pacer_layer::capture_path("dir/game.csv", 2), "dir/game-2.csv");
    EXPECT_EQ(pacer_layer::capture_path("dir.v2/game", 3), "dir.v2/game-3");
}

}  // namespace

// PACER_WAIT=sleep: a late wake-up weighs a 32nd of the period, kept under the waiter's floor
// (1 ms) (pacer/waiter.hpp: the lean spin over the dense spread); hybrid keeps the library's cost.
TEST(LayerSettings, SleepWeighsALateWakeUpAt1Of32OfThePeriod) {
    pacer_layer::Settings s = read({{"PACER_HZ", "60"}});
    ASSERT_TRUE(s.sleep_only);
    EXPECT_EQ(pacer_layer::pacer_config(s).waiter.late_cost.count(), 520'833);
    s.hz = 144;
    EXPECT_EQ(pacer_layer::pacer_config(s).waiter.late_cost.count(), 217'013);
    s.hz = 0;  // capture only: the 60 Hz config
    EXPECT_EQ(pacer_layer::pacer_config(s).waiter.late_cost.count(), 520'833);
    s.hz = 20;  // a 32nd of 50 ms would reach the floor: kept under it
    EXPECT_EQ(pacer_layer::pacer_config(s).waiter.late_cost.count(), 999'000);
    EXPECT_LT(pacer_layer::pacer_config(s).waiter.late_cost, pacer::HybridWaiter::kFloorLateCost);
    s = read({{"PACER_HZ", "60"}, {"PACER_WAIT", "hybrid"}});
    EXPECT_EQ(pacer_layer::pacer_config(s).waiter.late_cost, pacer::WaiterConfig{}.late_cost);
}
