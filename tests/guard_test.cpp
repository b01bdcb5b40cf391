// The real-time guard's rules (pacer/guard.hpp) on a simulated thread: a watcher samples it every
// 12.5 ms, as the Linux watchdog does; the thread's frames are scripted (CPU per frame, sleep).
// tests/priority/ checks the guard on the real kernel (guard_check.cpp).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "pacer/guard.hpp"

namespace {

using namespace std::chrono_literals;
using ns = std::chrono::nanoseconds;

// A thread that paces frames: each computes `work` (CPU) then sleeps the rest of its period, or
// goes straight on when the work overran it. Sampled every `tick` into a RealtimeGuard.
class Thread {
public:
    explicit Thread(ns period, pacer::GuardConfig c = {}) : period_(period), guard_(c, sample()) {}

    ns period_;
    ns wall_{0}, cpu_{0}, cpu_at_sleep_{0};
    std::uint64_t sleeps_ = 0;
    ns tick_ = 12'500'000ns, next_tick_ = 12'500'000ns;
    // The run queue the watcher reads: the threads runnable besides it, on `cpus_` CPUs; a
    // function of the wall time (a scripted load), or -1 (unknown).
    std::function<int(ns)> runnable_ = [](ns) { return -1; };
    int cpus_ = 2;
    pacer::RealtimeGuard guard_;  // after what sample() reads
    int put_backs = 0, raises = 0, stand_downs = 0;
    std::uint64_t sleeps_at_raise = 0;
    ns raised_cpu{0}, put_back_cpu{0};  // the thread's CPU while raised, and while put back

    ns carry_{0};  // the kernel's RLIMIT_RTTIME count carried in (no sleep in a real-time class yet)
    pacer::GuardSample sample() const {
        const ns counted = sleeps_ % 2 == 0 ? carry_ + cpu_ - cpu_at_sleep_ : carry_;
        return {wall_, cpu_, cpu_at_sleep_, sleeps_, period_, counted, runnable_(wall_), cpus_};
    }

    // Runs (computes) for d of wall time, sampling on the way.
    void compute(ns d) { pass(d, true); }
    void sleep(ns d) {
        cpu_at_sleep_ = cpu_;
        ++sleeps_;
        pass(d, false);
        ++sleeps_;
    }
    // One frame: work, then the sleep to the period's end (none when the work overran it).
    void frame(ns work) {
        compute(work);
        if (work < period_) sleep(period_ - work);
    }

private:
    void pass(ns d, bool running) {
        while (d > 0ns) {
            const ns step = std::min(d, next_tick_ - wall_);
            wall_ += step;
            if (running) {
                cpu_ += step;
                (guard_.raised() ? raised_cpu : put_back_cpu) += step;
            }
            d -= step;
            if (wall_ == next_tick_) {
                next_tick_ += tick_;
                switch (guard_.observe(sample())) {
                case pacer::GuardStep::put_back: ++put_backs; break;
                case pacer::GuardStep::raise_again:
                    ++raises;
                    sleeps_at_raise = sleeps_;
                    break;
                case pacer::GuardStep::stand_down: ++stand_downs; break;
                case pacer::GuardStep::none: break;
                }
            }
        }
    }
};

constexpr ns kHz60{16'666'667};
constexpr ns kHz144{6'944'444};

TEST(RealtimeGuard, FramesWithinTheBudgetAreNeverPutBack) {
    for (const ns period : {kHz60, kHz144, ns(1'000'000)}) {
        Thread t(period);
        const ns work = period * 8 / 10;  // 80 % of each period: heavy, and within the 90 % share
        while (t.wall_ < 20s) t.frame(work);
        EXPECT_EQ(t.put_backs, 0) << period.count() << ": " << t.guard_.reason();
        EXPECT_TRUE(t.guard_.raised());
    }
}

// A frame that computes 500 ms (a level load) is put back once it has run the bound, 50 ms, and
// before the next sample after it: well under RLIMIT_RTTIME's 200 ms.
TEST(RealtimeGuard, AFrameThatDoesNotComeBackIsPutBackAtTheOneFrameBound) {
    Thread t(kHz60);
    for (int i = 0; i < 120; ++i) t.frame(5ms);
    const ns before = t.raised_cpu;
    t.compute(500ms);
    EXPECT_EQ(t.put_backs, 1);
    EXPECT_FALSE(t.guard_.raised());
    const ns raised_in_the_long_frame = t.raised_cpu - before;
    EXPECT_GE(raised_in_the_long_frame, 50ms);
    EXPECT_LE(raised_in_the_long_frame, 50ms + t.tick_);
    EXPECT_NE(std::string(t.guard_.reason()).find("without sleeping"), std::string::npos) << t.guard_.reason();

    // Back to light frames: raised again once 2 s have passed without a broken rule (the share's
    // window still holds the long frame for 0.5 s after it), while asleep.
    const ns back = t.wall_;
    while (t.raises == 0 && t.wall_ < back + 10s) t.frame(5ms);
    EXPECT_EQ(t.raises, 1);
    EXPECT_GE(t.wall_ - back, 2s);
    EXPECT_LE(t.wall_ - back, 2s + 500ms + 2 * kHz60);
    EXPECT_NE(std::string(t.guard_.reason()).find("raised the thread again"), std::string::npos) << t.guard_.reason();
    EXPECT_EQ(t.sleeps_at_raise % 2, 1u) << "raised while it slept";
}

// A loop whose work is 120 % of the period never sleeps: put back at the one-frame bound, and kept
// back as long as it computes like that.
TEST(RealtimeGuard, ALoopThatNeverSleepsStaysPutBack) {
    Thread t(kHz144);
    while (t.wall_ < 20s) t.frame(kHz144 * 12 / 10);
    EXPECT_EQ(t.put_backs, 1);
    EXPECT_EQ(t.raises, 0);
    EXPECT_LE(t.raised_cpu, 50ms + t.tick_);
}

// Frames that compute 95 % of the period and sleep the rest: the share rule puts them back within
// about a window, and they stay back.
TEST(RealtimeGuard, FramesOverTheShareArePutBack) {
    Thread t(kHz60);
    while (t.wall_ < 10s) t.frame(kHz60 * 95 / 100);
    EXPECT_EQ(t.put_backs, 1);
    EXPECT_EQ(t.raises, 0);
    EXPECT_LE(t.raised_cpu, 600ms);
    EXPECT_NE(std::string(t.guard_.reason()).find("of the 16.7 ms period"), std::string::npos) << t.guard_.reason();
}

// Long frames that come back now and then: each put-back soon after a raise doubles the calm run
// asked for, up to max_calm, so the thread does not flap; a long raised run starts from calm again.
TEST(RealtimeGuard, RepeatedPutBacksAskForLongerCalmRuns) {
    Thread t(kHz60);
    ns previous{0};
    for (int spike = 0; spike < 8; ++spike) {
        t.compute(100ms);  // a hitch: put back
        ASSERT_EQ(t.put_backs, spike + 1);
        const ns expected = std::min<ns>(2s * (1 << spike), 64s);
        EXPECT_EQ(t.guard_.calm_needed(), expected) << spike;
        EXPECT_GE(t.guard_.calm_needed(), previous);
        previous = t.guard_.calm_needed();
        const ns back = t.wall_;
        while (!t.guard_.raised()) t.frame(5ms);
        EXPECT_GE(t.wall_ - back, expected);
    }
    const ns start = t.wall_;  // a long calm run, raised
    while (t.wall_ < start + 70s) t.frame(5ms);
    ASSERT_TRUE(t.guard_.raised());
    t.compute(100ms);
    EXPECT_EQ(t.guard_.calm_needed(), 2s) << "after 70 s raised without a put-back";
}

// A thread raised again before it slept in a real-time class carries the kernel's RLIMIT_RTTIME
// count on: put back when that count reaches rt_limit (half the soft limit), though its frames are
// light; without a limit, no such rule.
TEST(RealtimeGuard, TheKernelsCountCarriedInIsBounded) {
    pacer::GuardConfig c;
    c.rt_limit = 100ms;
    Thread t(kHz60, c);
    t.carry_ = 97ms;  // and 5 ms frames: over 100 ms late in a frame, seen by a sample within a few
    for (int i = 0; i < 60 && t.put_backs == 0; ++i) t.frame(5ms);
    EXPECT_EQ(t.put_backs, 1);
    EXPECT_NE(std::string(t.guard_.reason()).find("RLIMIT_RTTIME count reached"), std::string::npos)
        << t.guard_.reason();

    Thread unlimited(kHz60);
    unlimited.carry_ = 97ms;
    for (int i = 0; i < 600; ++i) unlimited.frame(5ms);
    EXPECT_EQ(unlimited.put_backs, 0) << unlimited.guard_.reason();
}

// An idle thread (a paused game: one long sleep) and a thread whose period is not known yet break
// no rule.
TEST(RealtimeGuard, IdleAndUnknownPeriodBreakNothing) {
    Thread unknown(ns(0));  // the share rule waits for a period; 90 % busy frames of 20 ms
    for (int i = 0; i < 500; ++i) {
        unknown.compute(18ms);
        unknown.sleep(2ms);
    }
    EXPECT_EQ(unknown.put_backs, 0) << unknown.guard_.reason();
    Thread idle(kHz60);
    idle.sleep(30s);
    EXPECT_EQ(idle.put_backs, 0);
    EXPECT_TRUE(idle.guard_.raised());
}

// automatic's stand-down (GuardConfig::stand_down): on a machine with a CPU to spare the real-time
// class is put back after `quiet` (2 s), without a warning or a longer calm run; when every CPU is
// taken for `contended` (0.25 s) it is raised again, at a sleep; when the load goes, it stands
// down again.
pacer::GuardConfig standing_down() {
    pacer::GuardConfig c;
    c.stand_down = true;
    return c;
}
// A quiet desktop: now and then one other thread runs (one look in four), never two.
int quiet(ns wall) { return (wall.count() / 12'500'000) % 4 == 0 ? 1 : 0; }

TEST(RealtimeGuard, StandsDownWithACpuToSpareAndRisesWhenEveryCpuIsTaken) {
    Thread t(kHz144, standing_down());
    t.runnable_ = [](ns w) { return w < 5s || w >= 15s ? quiet(w) : 2; };  // two busy threads 5-15 s
    while (t.wall_ < 2s - 20ms) t.frame(1ms);
    EXPECT_EQ(t.stand_downs, 0) << "not before 2 s of looks";
    while (t.wall_ < 2500ms) t.frame(1ms);
    EXPECT_EQ(t.stand_downs, 1);
    EXPECT_FALSE(t.guard_.raised());
    EXPECT_TRUE(t.guard_.stood_down());
    EXPECT_EQ(t.guard_.put_backs(), 0u) << "standing down breaks no rule";
    EXPECT_NE(std::string(t.guard_.reason()).find("stood down"), std::string::npos) << t.guard_.reason();

    while (t.wall_ < 5s) t.frame(1ms);
    EXPECT_EQ(t.raises, 0);
    while (t.raises == 0 && t.wall_ < 6s) t.frame(1ms);
    EXPECT_EQ(t.raises, 1);
    EXPECT_GE(t.wall_, 5s + 250ms);
    EXPECT_LE(t.wall_, 5s + 250ms + 2 * t.tick_ + kHz144) << "raised within the contended span";
    EXPECT_EQ(t.sleeps_at_raise % 2, 1u) << "raised while it slept";
    EXPECT_NE(std::string(t.guard_.reason()).find("no look found a CPU to spare"), std::string::npos)
        << t.guard_.reason();

    while (t.wall_ < 15s) t.frame(1ms);
    EXPECT_EQ(t.stand_downs, 1) << "kept while every CPU is taken";
    EXPECT_TRUE(t.guard_.raised());
    while (t.wall_ < 18s) t.frame(1ms);
    EXPECT_EQ(t.stand_downs, 2) << "stood down again once the load went";
    EXPECT_EQ(t.put_backs, 0);
}

// What keeps the class: thread (stand_down off), one CPU, a run queue it cannot read, a machine
// always busy.
TEST(RealtimeGuard, KeptWithoutStandingDownOneCpuAnUnknownOrABusyRunQueue) {
    struct Case {
        const char* what;
        bool stand_down;
        int cpus;
        std::function<int(ns)> runnable;
    };
    const Case cases[] = {
        {"thread: no stand-down", false, 2, [](ns) { return 0; }},
        {"one CPU", true, 1, [](ns) { return 0; }},
        {"unknown run queue", true, 2, [](ns) { return -1; }},
        {"a busy thread on two CPUs", true, 2, [](ns w) { return 1 + quiet(w); }},
        {"seven busy threads on eight CPUs", true, 8, [](ns) { return 7; }},
    };
    for (const Case& c : cases) {
        pacer::GuardConfig g;
        g.stand_down = c.stand_down;
        Thread t(kHz60, g);
        t.cpus_ = c.cpus;
        t.runnable_ = c.runnable;
        while (t.wall_ < 20s) t.frame(4ms);
        EXPECT_EQ(t.stand_downs, 0) << c.what;
        EXPECT_TRUE(t.guard_.raised()) << c.what;
    }
    // Six on eight leave one to spare besides the thread's own: stood down.
    Thread t(kHz60, standing_down());
    t.cpus_ = 8;
    t.runnable_ = [](ns) { return 6; };
    while (t.wall_ < 3s) t.frame(4ms);
    EXPECT_EQ(t.stand_downs, 1);
}

// Put back by a rule while standing down is on: after the calm run it is raised only when the
// machine is contended, and the rule's put-back is counted (a warning) where standing down is not.
TEST(RealtimeGuard, APutBackByARuleIsRaisedAgainOnlyWhenContended) {
    Thread t(kHz60, standing_down());
    t.runnable_ = [](ns w) { return w < 8s ? 2 : w < 12s ? quiet(w) : 2; };
    for (int i = 0; i < 60; ++i) t.frame(5ms);
    t.compute(500ms);  // a level load
    EXPECT_EQ(t.put_backs, 1);
    EXPECT_FALSE(t.guard_.stood_down());
    while (t.wall_ < 8s) t.frame(5ms);
    EXPECT_EQ(t.raises, 1) << "contended: raised after the calm run";
    while (t.wall_ < 12s) t.frame(5ms);
    EXPECT_EQ(t.stand_downs, 1);
    while (t.wall_ < 13s) t.frame(5ms);
    EXPECT_EQ(t.raises, 2);
    EXPECT_EQ(t.guard_.put_backs(), 1u);
}

// A load that comes and goes each second: the class follows it at most once per quiet span
// (RealtimeKit grants at most 25 raises in 20 s to a user by default).
TEST(RealtimeGuard, ALoadThatComesAndGoesRaisesAtMostOncePerQuietSpan) {
    Thread t(kHz144, standing_down());
    t.runnable_ = [](ns w) { return (w.count() / 1'000'000'000) % 2 == 0 ? 2 : 0; };
    while (t.wall_ < 60s) t.frame(1ms);
    EXPECT_LE(t.raises, 30);
    EXPECT_LE(t.stand_downs, 31);
    EXPECT_EQ(t.put_backs, 0);
}

}  // namespace
