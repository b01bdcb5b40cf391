// The thread priority in words (tools/lib/priority_text.hpp): each state a grant or a waiter's
// status can be in, word for word, as `pacer probe`, `pacer run` and the demo show them.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "priority_text.hpp"

namespace {

using pacer::PriorityGrantor;
using pacer::PriorityLever;

template <std::size_t N>
void put(char (&to)[N], const char* text) {
    std::snprintf(to, N, "%s", text);
}

TEST(PriorityText, GrantorsAndLevers) {
    EXPECT_STREQ(pacer::tools::grantor_words(PriorityGrantor::os), "the OS");
    EXPECT_STREQ(pacer::tools::grantor_words(PriorityGrantor::realtimekit), "RealtimeKit");
    EXPECT_STREQ(pacer::tools::grantor_words(PriorityGrantor::portal), "the Realtime portal");
    EXPECT_STREQ(pacer::tools::grantor_words(PriorityGrantor::host), "the host");
    EXPECT_STREQ(pacer::tools::grantor_words(PriorityGrantor::none), "no one");
    EXPECT_EQ(pacer::tools::lever_and_grantor(PriorityLever::realtime, PriorityGrantor::os), "realtime, by the OS");
    EXPECT_EQ(pacer::tools::lever_and_grantor(PriorityLever::weight, PriorityGrantor::portal),
              "weight, by the Realtime portal");
    EXPECT_EQ(pacer::tools::lever_and_grantor(PriorityLever::none, PriorityGrantor::none), "");
}

TEST(PriorityText, AProbesGrant) {
    pacer::PriorityGrant g;
    g.granted = true;
    g.lever = PriorityLever::realtime;
    g.by = PriorityGrantor::realtimekit;
    put(g.in_force, "SCHED_RR 5 (RealtimeKit, RLIMIT_RTTIME 200 ms)");
    EXPECT_EQ(pacer::tools::grant_text(g), "SCHED_RR 5 (RealtimeKit, RLIMIT_RTTIME 200 ms) granted (realtime, by RealtimeKit)");
    g.pending = true;  // the weight held while a real-time class is asked for
    g.lever = PriorityLever::weight;
    g.by = PriorityGrantor::os;
    put(g.in_force, "nice -15");
    put(g.reason, "asking RealtimeKit or the Realtime portal for a real-time class (SCHED_FIFO 5 refused)");
    EXPECT_EQ(pacer::tools::grant_text(g), "nice -15 granted (weight, by the OS); asking RealtimeKit or the Realtime "
                                           "portal for a real-time class (SCHED_FIFO 5 refused)");
    g.granted = false;
    g.lever = PriorityLever::none;
    g.by = PriorityGrantor::none;
    EXPECT_EQ(pacer::tools::grant_text(g), "the thread's own class for now: asking RealtimeKit or the Realtime portal "
                                           "for a real-time class (SCHED_FIFO 5 refused)");
    g.pending = false;
    put(g.reason, "nice -15 refused: RLIMIT_NICE 0 allows nothing below 0");
    EXPECT_EQ(pacer::tools::grant_text(g), "refused, paces as normal: nice -15 refused: RLIMIT_NICE 0 allows nothing below 0");
}

TEST(PriorityText, AWaitersStatus) {
    pacer::PriorityStatus s;
    s.asked = pacer::ThreadPriority::normal;
    EXPECT_EQ(pacer::tools::priority_text(s), "the thread's own class, never changed");
    s.asked = pacer::ThreadPriority::wait;
    EXPECT_EQ(pacer::tools::priority_text(s), "not yet asked");
    s.asked = pacer::ThreadPriority::automatic;
    s.granted = true;
    s.lever = PriorityLever::realtime;
    s.by = PriorityGrantor::os;
    put(s.in_force, "SCHED_FIFO 5");
    EXPECT_EQ(pacer::tools::priority_text(s), "SCHED_FIFO 5 granted (realtime, by the OS)");
    s.lever = PriorityLever::weight;
    s.by = PriorityGrantor::host;
    put(s.in_force, "nice -10 (the thread's own, kept)");
    EXPECT_EQ(pacer::tools::priority_text(s), "nice -10 (the thread's own, kept) granted (weight, by the host)");
    // Put back by the guard, to be raised again.
    s.granted = false;
    s.pending = true;
    s.lever = PriorityLever::none;
    s.by = PriorityGrantor::none;
    put(s.in_force, "normal");
    put(s.reason, "the real-time guard put the thread back; it raises it again after a calm run");
    EXPECT_EQ(pacer::tools::priority_text(s),
              "the thread's own class for now: the real-time guard put the thread back; it raises it again after a calm run");
    s.pending = false;
    s.refused = true;
    put(s.reason, "SCHED_FIFO 5 refused: RLIMIT_RTPRIO is 0");
    EXPECT_EQ(pacer::tools::priority_text(s), "refused, paces as normal: SCHED_FIFO 5 refused: RLIMIT_RTPRIO is 0");
}

TEST(PriorityText, TheGuard) {
    pacer::PriorityStatus s;
    EXPECT_EQ(pacer::tools::guard_text(s), "");  // never acted
    s.demotions = 1;
    put(s.guard, "put the thread back to its own class: a frame ran 55 ms of CPU without sleeping (its bound: 50 ms)");
    EXPECT_EQ(pacer::tools::guard_text(s), "real-time guard: 1 demotion, last step: put the thread back to its own "
                                           "class: a frame ran 55 ms of CPU without sleeping (its bound: 50 ms)");
    s.demotions = 2;
    put(s.guard, "raised the thread again after 4 s of frames within its budget");
    EXPECT_EQ(pacer::tools::guard_text(s),
              "real-time guard: 2 demotions, last step: raised the thread again after 4 s of frames within its budget");
}

TEST(PriorityText, TheSpinBound) {
    pacer::WaiterStatus w;
    EXPECT_EQ(pacer::tools::spin_bound_text(w, 0.25), "no spin bound (the thread is not raised)");
    w.wakeups_past_bound = 3;
    EXPECT_EQ(pacer::tools::spin_bound_text(w, 0.25),
              "no spin bound (the thread is not raised); 3 wake-ups past it while raised");
    w.spin_bound = std::chrono::nanoseconds(4'166'666);
    EXPECT_EQ(pacer::tools::spin_bound_text(w, 0.25), "spin bound 4.167 ms (0.25 of the period), 3 wake-ups past it");
    w.wakeups_past_bound = 1;
    w.spin_bound = std::chrono::nanoseconds(250'000);
    EXPECT_EQ(pacer::tools::spin_bound_text(w, 0.5), "spin bound 0.250 ms (0.5 of the period), 1 wake-up past it");
}

}  // namespace
