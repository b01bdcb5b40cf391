// wait() and the frame markers, FrameStats::add/summarize/histogram and FixedStep::advance allocate nothing per frame.
// This executable replaces the global operator new to count every heap allocation.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "pacer/pacer.hpp"
#include "sim_run.hpp"

namespace {
std::atomic<long> g_allocs{0};
}

void* operator new(std::size_t n) {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

TEST(Allocations, NoneInTheFrameLoop) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity_ns = 500'000, .jitter_mean_ns = 20'000, .preempt_probability = 0.01});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    pacer::FrameStats stats(1024);
    pacer::FixedStep sim({.step_hz = 120.0});
    pacer::CpuMeter cpu(&os);
    std::array<float, 64> bins{};
    std::array<float, 256> series{};
    for (int i = 0; i < 50; ++i) stats.add(fp.wait());  // warm-up (thread_local init etc.)
    (void)stats.summarize();

    const long before = g_allocs.load();
    for (int i = 0; i < 5000; ++i) {
        os.advance(2'000'000);
        const pacer::FrameTiming t = fp.wait();
        stats.add(t);
        (void)sim.advance(t.interval);
        if (i % 100 == 0) {
            (void)stats.summarize();
            (void)stats.histogram(pacer::FrameMetric::interval, 0.0, 14.0, bins);
            (void)stats.series(pacer::FrameMetric::lateness, series);
            (void)cpu.sample();
        }
    }
    EXPECT_EQ(g_allocs.load() - before, 0);
}

// The cadence governor switching (down and back up) and the display delta: no allocation either.
TEST(Allocations, NoneWithTheCadenceGovernorSwitching) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity_ns = 500'000, .jitter_mean_ns = 20'000});
    pacer::PacerConfig c;
    c.target_hz = 60.0;
    c.cadence = pacer::CadenceMode::automatic;
    c.governor.dwell = std::chrono::milliseconds(100);
    pacer::FramePacer fp(c, &os);
    for (int i = 0; i < 50; ++i) fp.wait();
    const long before = g_allocs.load();
    for (int i = 0; i < 3000; ++i) {
        const pacer::FrameTiming t = fp.wait();
        (void)t.display_dt;
        os.advance((i / 300) % 2 == 0 ? 22'000'000 : 5'000'000);
    }
    EXPECT_EQ(g_allocs.load() - before, 0);
    EXPECT_GE(fp.status().cadence.switches, 4u);
}

TEST(Allocations, NoneWithTheFrameMarkersInEverySyncMode) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity_ns = 500'000, .jitter_mean_ns = 20'000, .preempt_probability = 0.01});
    pacer::FramePacer fp({.target_hz = 144.0, .mode = pacer::WaitMode::vsync}, &os);
    pacer::FrameStats stats(1024);
    const pacer::SyncMode modes[] = {pacer::SyncMode::frame_start, pacer::SyncMode::present,
                                     pacer::SyncMode::just_in_time};
    auto frame = [&](int i) {
        stats.add(fp.wait());
        fp.mark_input();
        os.advance(2'000'000 + (i % 7) * 100'000);
        fp.before_present();
        pacer::PresentInfo p;
        p.begin = fp.now();
        os.advance(50'000);
        p.end = fp.now();
        p.swap_interval = 1;
        p.refresh_hz = 144.0;
        p.displayed = p.end + std::chrono::microseconds(1000);
        fp.report_present(p);
    };
    for (int i = 0; i < 50; ++i) frame(i);  // warm-up
    (void)stats.summarize();
    const long before = g_allocs.load();
    for (int i = 0; i < 3000; ++i) {
        if (i % 1000 == 0) (void)pacer_test::change(fp, [&](pacer::PacerConfig& c) { c.sync = modes[i / 1000]; });
        frame(i);
        if (i % 100 == 0) (void)stats.summarize();
    }
    EXPECT_EQ(g_allocs.load() - before, 0);
}

TEST(Allocations, NoneInTheRealClockWait) {
    pacer::set_log_function(nullptr);
    pacer::FramePacer fp({.target_hz = 1000.0});
    fp.wait();
    const long before = g_allocs.load();
    for (int i = 0; i < 50; ++i) fp.wait();
    (void)pacer::sleep_for(std::chrono::microseconds(100));
    EXPECT_EQ(g_allocs.load() - before, 0);
}

// CaptureWriter::add formats into the buffer open() allocated and writes it when full: nothing
// per frame, including the flushes and a write error (/dev/full) on the frame path.
#if defined(__linux__)
TEST(Allocations, NoneInCaptureAdd) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity_ns = 500'000, .jitter_mean_ns = 20'000});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    for (const char* target : {"/dev/null", "/dev/full"}) {
        pacer::CaptureWriter cap;
        pacer::CaptureOptions o;
        o.buffer_bytes = 8192;  // the smallest (clamped to kMinBuffer): a write every 64 rows
        ASSERT_TRUE(cap.open(target, o).ok());
        pacer::CaptureExtras x;
        x.in_present = std::chrono::microseconds(100);
        x.pacing_source = "vsync";
        cap.add(fp.wait());  // warm-up
        const long before = g_allocs.load();
        for (int i = 0; i < 5000; ++i) {
            os.advance(2'000'000);
            const pacer::FrameTiming t = fp.wait();
            if (i % 2 == 0) {
                cap.add(t, x);
            } else {  // with a present: its own frame time, in-present time and swap interval
                pacer::CaptureExtras p;
                p.present = pacer::PresentInfo{t.wake, t.wake + std::chrono::microseconds(300), 1, 144.0};
                cap.add(t, p);
            }
        }
        EXPECT_EQ(g_allocs.load() - before, 0) << target;
        EXPECT_EQ(cap.failed(), std::string(target) == "/dev/full");
    }
}
#endif

TEST(Allocations, TheCounterCountsAtAll) {
    // A counter that never moves would make the tests above meaningless.
    static int* volatile sink;  // volatile: the compiler may not elide this new/delete pair
    const long before = g_allocs.load();
    sink = new int(5);
    delete sink;
    EXPECT_EQ(g_allocs.load() - before, 1);
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
