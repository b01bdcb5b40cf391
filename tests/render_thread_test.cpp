// A render thread presenting a frame or two behind the thread that paces: presents that name their
// frame (PresentInfo::frame, before_present(frame)). In virtual time the pacing thread itself
// makes the render thread's calls, in the order a render thread would, so every figure is exact;
// tests/thread_contract_test.cpp runs them from real threads.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "pacer/pacer.hpp"
#include "sim_time.hpp"

using namespace std::chrono_literals;

namespace {

using pacer::clock;

using pacer_test::exact;

constexpr std::int64_t kPeriod = 16'666'667;  // 60 Hz

struct Presented {
    std::uint64_t frame = 0;
    std::int64_t wake = 0;  // the frame's start
};

// One render-thread present of `frame`: before_present, 1 ms of present call, reported with a
// displayed time 5 ms after the call's return.
void present(pacer::SimulatedOs& os, pacer::FramePacer& fp, std::uint64_t frame) {
    fp.before_present(frame);
    const clock::time_point b = os.now();
    os.advance(1ms);
    pacer::PresentInfo p{b, os.now(), 0, 60.0, true, os.now() + 5ms};
    p.frame = frame;
    fp.report_present(p);
}

// Frame N's present one frame later: after wait() N+1, the game thread's 4 ms of work on N+1 ran
// beside the render thread's 3 ms on N, then N's present. Each frame's figures arrive at the wait
// after its present: latency_frame is the frame two back, and its latency runs from that frame's
// input mark to its displayed time.
TEST(RenderThread, APresentOneFrameBehindGoesToItsOwnFrame) {
    pacer::SimulatedOs os(exact(), 1, clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::sleep}, &os);
    std::vector<std::int64_t> input(200, 0), shown(200, 0);
    std::vector<pacer::FrameTiming> timings;
    for (int i = 0; i < 120; ++i) {
        const pacer::FrameTiming t = fp.wait();
        timings.push_back(t);
        EXPECT_EQ(t.frame, static_cast<std::uint64_t>(i + 1));
        fp.mark_input();
        input[t.frame] = clock::to_ns(os.now());
        os.advance(3ms);
        if (t.frame > 1) {  // the render thread presents the previous frame
            present(os, fp, t.frame - 1);
            shown[t.frame - 1] = clock::to_ns(os.now()) + 5'000'000;
        }
        os.advance(1ms);
    }
    for (std::size_t i = 3; i < timings.size(); ++i) {
        const pacer::FrameTiming& t = timings[i];
        ASSERT_EQ(t.latency_frame, t.frame - 2) << "frame " << t.frame;
        EXPECT_EQ(t.latency.count(), shown[t.latency_frame] - input[t.latency_frame]) << "frame " << t.frame;
        EXPECT_TRUE(t.latency_measured);
        // The previous frame's input was a whole period before its present: more than a period.
        EXPECT_GT(t.latency.count(), kPeriod);
    }
    const pacer::PacerStatus s = fp.status();
    EXPECT_EQ(s.frames_in_flight, 1);
    EXPECT_EQ(s.presents.submitted, 119u);
    EXPECT_EQ(s.reports_lost, 0u);
}

// Reports two frames late, out of order, and lost. Every frame is closed once: when its present
// came, or, without one, when 3 newer frames are open (zero figures); none is closed twice or
// given another frame's present.
TEST(RenderThread, LateOutOfOrderAndLostReportsCloseEachFrameOnce) {
    pacer::SimulatedOs os(exact(), 1, clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::sleep}, &os);
    std::deque<std::uint64_t> pending;
    std::vector<int> closed(400, 0), presented(400, 0);
    std::vector<std::int64_t> input(400, 0);
    for (int i = 0; i < 300; ++i) {
        const pacer::FrameTiming t = fp.wait();
        if (t.latency_frame != 0) {
            ++closed[t.latency_frame];
            if (t.latency.count() > 0) {
                EXPECT_EQ(presented[t.latency_frame], 1) << "figures for a frame never presented: " << t.latency_frame;
                // Each frame's latency starts at its own input mark, which the presents below put
                // 2-3 periods before the displayed time: a mix-up of frames shows outside that.
                EXPECT_GT(t.latency.count(), 2 * kPeriod - 2'000'000) << t.latency_frame;
                EXPECT_LT(t.latency.count(), 4 * kPeriod) << t.latency_frame;
            }
        }
        fp.mark_input();
        input[t.frame] = clock::to_ns(os.now());
        pending.push_back(t.frame);
        os.advance(2ms);
        // Two frames behind; every 7th frame's report is lost; every 5th pair comes swapped.
        if (pending.size() > 2) {
            std::uint64_t a = pending.front();
            pending.pop_front();
            std::uint64_t b = 0;
            if (a % 5 == 0 && pending.size() > 2) {
                b = pending.front();
                pending.pop_front();
                std::swap(a, b);
            }
            for (std::uint64_t f : {a, b}) {
                if (f == 0) continue;
                if (f % 7 == 0) continue;  // lost
                present(os, fp, f);
                presented[f] = 1;
            }
        }
        os.advance(1ms);
    }
    // Latency figures: one FrameTiming names a frame; when two close at once, the newer one. So
    // no frame is named twice, and most are named.
    int named = 0;
    for (std::size_t f = 1; f < 280; ++f) {
        EXPECT_LE(closed[f], 1) << "frame " << f << " closed twice";
        named += closed[f];
    }
    EXPECT_GT(named, 200);
    const pacer::PacerStatus s = fp.status();
    EXPECT_GE(s.frames_in_flight, 2);
    EXPECT_LE(s.frames_in_flight, 3);
}

// A single-thread loop that names its frames (the one just waited for) closes each frame at the
// next wait() as before: frames in flight 0, figures for the previous frame.
TEST(RenderThread, ASingleThreadLoopNamingItsFramesIsUnchanged) {
    pacer::SimulatedOs os(exact(), 1, clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::sleep}, &os);
    for (int i = 0; i < 60; ++i) {
        const pacer::FrameTiming t = fp.wait();
        if (i > 1) {
            EXPECT_EQ(t.latency_frame, t.frame - 1);
            EXPECT_EQ(t.latency, 3ms + 1ms + 5ms);  // from the wake: no input mark
        }
        os.advance(3ms);
        present(os, fp, t.frame);
    }
    EXPECT_EQ(fp.status().frames_in_flight, 0);
}

// just_in_time with the render thread a frame behind: the frame's work runs from the game
// thread's wake to the render thread's present call, 20 ms here at 60 Hz. The lead learns that
// whole span, so that the presents still make their display targets; learning from the game
// thread's 5 ms alone would have shown nearly every frame late.
TEST(RenderThread, JustInTimeLearnsTheWholePipelinesWork) {
    pacer::SimulatedOs os(exact(), 1, clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::sleep, .sync = pacer::SyncMode::just_in_time},
                         &os);
    int late = 0, judged = 0;
    std::uint64_t behind = 0;
    for (int i = 0; i < 600; ++i) {
        const pacer::FrameTiming t = fp.wait();
        if (i >= 300 && t.latency_frame != 0) {
            ++judged;
            late += t.shown_late ? 1 : 0;
        }
        os.advance(5ms);  // the game thread's work on t.frame
        if (behind != 0) {
            // The render thread's work on the previous frame ended 15 ms after that frame's wake:
            // its present comes now, shown at the first grid time after the call.
            fp.before_present(behind);
            const clock::time_point b = os.now();
            os.advance(500us);
            const std::int64_t end = clock::to_ns(os.now());
            const std::int64_t grid = clock::to_ns(t.display_target) - kPeriod;
            std::int64_t shown = grid;
            while (shown < end) shown += kPeriod;
            pacer::PresentInfo p{b, os.now(), 0, 60.0, true, clock::from_ns(shown)};
            p.frame = behind;
            fp.report_present(p);
        }
        behind = t.frame;
    }
    ASSERT_GT(judged, 250);
    EXPECT_GT(fp.status().lead.lead.count(), kPeriod) << "the lead covers the render thread's frame too";
    EXPECT_LE(late, judged / 20) << late << " of " << judged << " shown late";
}

// Present sync with the present a frame behind (here the pacing thread's own pipelined present;
// a present thread runs the same wait, tests/thread_contract_test.cpp): before_present(frame)
// waits for the next present slot, so presents stay on the grid however the work jitters (2-6 ms
// here), one per period, wait() returns at once once the present side waits, and the FrameTiming
// describes the present side's wait.
TEST(RenderThread, PresentSyncWaitsOnThePresentSide) {
    pacer::SimulatedOs os(exact(), 1, clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::hybrid, .sync = pacer::SyncMode::present}, &os);
    std::vector<std::int64_t> begins;
    std::uint64_t behind = 0;
    std::uint64_t x = 3;
    int at_once = 0;
    for (int i = 0; i < 300; ++i) {
        const clock::time_point before = os.now();
        const pacer::FrameTiming t = fp.wait();
        if (i > 10) {
            EXPECT_EQ(t.sync, pacer::SyncMode::present);
            EXPECT_GT((t.slept + t.spun).count(), 0) << "the present side's wait, described";
            at_once += os.now() - before < 10us ? 1 : 0;
        }
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        os.advance(std::chrono::microseconds(2000 + static_cast<std::int64_t>((x >> 33) % 4000)));
        if (behind != 0) {
            fp.before_present(behind);
            const clock::time_point b = os.now();
            begins.push_back(clock::to_ns(b));
            os.advance(300us);
            pacer::PresentInfo p{b, os.now(), 0, 60.0, true};
            p.frame = behind;
            fp.report_present(p);
        }
        behind = t.frame;
    }
    ASSERT_GT(begins.size(), 250u);
    for (std::size_t i = 20; i < begins.size(); ++i)
        ASSERT_NEAR(static_cast<double>(begins[i] - begins[i - 1]), static_cast<double>(kPeriod), 20'000.0) << i;
    EXPECT_EQ(at_once, 289) << "wait() returns at once: the present side waits";
    EXPECT_EQ(fp.status().missed, 0u);
}

}  // namespace
