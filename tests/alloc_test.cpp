// wait() and the frame markers, FrameStats::add/summarize/histogram and FixedStep::advance allocate nothing per frame;
// nor does the C API's frame loop.
// This executable replaces the global operator new to count every heap allocation.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "c_api/c_api_internal.hpp"  // pacer::capi::create: a C pacer on a SimulatedOs
#include "pacer/pacer.h"
#include "pacer/pacer.hpp"
#include "sim_run.hpp"

using namespace std::chrono_literals;

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
    pacer::SimulatedOs os({.granularity = 500us, .jitter_mean = 20us, .preempt_probability = 0.01});
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
        os.advance(2ms);
        const pacer::FrameTiming t = fp.wait();
        stats.add(t);
        (void)sim.advance(t.interval);
        if (i % 100 == 0) {
            (void)stats.summarize();
            (void)stats.histogram(pacer::FrameMetric::interval, std::chrono::nanoseconds(0), std::chrono::milliseconds(14), bins);
            (void)stats.series_ms(pacer::FrameMetric::lateness, series);
            (void)cpu.sample();
        }
    }
    EXPECT_EQ(g_allocs.load() - before, 0);
}

// The cadence governor switching (down and back up) and the display delta: no allocation either.
TEST(Allocations, NoneWithTheCadenceGovernorSwitching) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 500us, .jitter_mean = 20us});
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
        os.advance(std::chrono::nanoseconds((i / 300) % 2 == 0 ? 22'000'000 : 5'000'000));
    }
    EXPECT_EQ(g_allocs.load() - before, 0);
    EXPECT_GE(fp.status().cadence.switches, 4u);
}

TEST(Allocations, NoneWithTheFrameMarkersInEverySyncMode) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 500us, .jitter_mean = 20us, .preempt_probability = 0.01});
    pacer::FramePacer fp({.target_hz = 144.0, .mode = pacer::WaitMode::vsync}, &os);
    pacer::FrameStats stats(1024);
    const pacer::SyncMode modes[] = {pacer::SyncMode::frame_start, pacer::SyncMode::present,
                                     pacer::SyncMode::just_in_time};
    auto frame = [&](int i) {
        stats.add(fp.wait());
        fp.mark_input();
        os.advance(std::chrono::nanoseconds(2'000'000 + (i % 7) * 100'000));
        fp.before_present();
        pacer::PresentInfo p;
        p.begin = fp.now();
        os.advance(50us);
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
// per frame, including the flushes, presentation feedback and a write error (/dev/full) on the
// frame path.
#if defined(__linux__)
TEST(Allocations, NoneInCaptureAdd) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 500us, .jitter_mean = 20us});
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
            os.advance(2ms);
            const pacer::FrameTiming t = fp.wait();
            if (i % 2 == 0) {
                cap.add(t, x);
            } else {  // with a present: its own frame time, in-present time and swap interval,
                      // and the feedback of the one before (rows wait for it)
                pacer::CaptureExtras p;
                p.present = pacer::PresentInfo{t.wake, t.wake + std::chrono::microseconds(300), 1, 144.0};
                p.present->id = static_cast<std::uint64_t>(i);
                cap.add(t, p);
                pacer::PresentInfo f;
                f.id = static_cast<std::uint64_t>(i - 2);
                f.outcome = i % 10 == 1 ? pacer::PresentOutcome::discarded : pacer::PresentOutcome::shown;
                f.displayed = t.wake;
                cap.feedback(f);
            }
        }
        EXPECT_EQ(g_allocs.load() - before, 0) << target;
        EXPECT_EQ(cap.failed(), std::string(target) == "/dev/full");
    }
}
#endif

// The C API's frame loop (pacer/pacer.h): wait, the setters given the values in force, status,
// capture rows (to /dev/full too: the error path), statistics and the CPU meter.
#if defined(__linux__)
TEST(Allocations, NoneInTheCApiFrameLoop) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 500us, .jitter_mean = 20us});
    pacer_config config = pacer_config_default();
    config.target_hz = 144.0;
    pacer_frame_pacer* p = pacer::capi::create(&config, &os);
    ASSERT_NE(p, nullptr);
    pacer_stats* stats = pacer_stats_create(1024);
    pacer_cpu_meter* cpu = pacer_cpu_meter_create();
    for (const char* target : {"/dev/null", "/dev/full"}) {
        pacer_capture* cap = pacer_capture_open(target, nullptr);
        ASSERT_NE(cap, nullptr) << pacer_last_error();
        pacer_frame_timing t;
        pacer_status status;
        pacer_stats_summary summary;
        pacer_cpu_usage usage;
        pacer_capture_status cs;
        std::array<float, 64> bins{};
        pacer_wait(p, &t);  // warm-up
        pacer_capture_add(cap, &t, nullptr);
        const long before = g_allocs.load();
        for (int i = 0; i < 3000; ++i) {
            os.advance(2ms);
            pacer_wait(p, &t);
            pacer_set_target_hz(p, 144.0);
            pacer_get_status(p, &status);
            pacer_capture_extras extras = pacer_capture_extras_default();
            pacer_present present{};
            present.begin_ns = t.wake_ns + 1'000'000;
            present.end_ns = present.begin_ns + 300'000;
            present.swap_interval = 0;
            present.ok = 1;
            extras.present = i % 2 ? &present : nullptr;
            pacer_report_present(p, &present);
            pacer_capture_add(cap, &t, &extras);
            pacer_stats_add(stats, &t);
            pacer_capture_get_status(cap, &cs);
            if (i % 100 == 0) {
                pacer_stats_summarize(stats, &summary);
                pacer_stats_histogram(stats, PACER_METRIC_INTERVAL, 0.0, 14.0, bins.data(), bins.size(), nullptr);
                pacer_cpu_meter_sample(cpu, &usage);
            }
        }
        // After a write error, the first pacer_capture_get_status copies the message: once.
        const bool full = std::string(target) == "/dev/full";
        EXPECT_EQ(g_allocs.load() - before, full ? 1 : 0) << target;
        EXPECT_EQ(cs.failed, full ? 1 : 0);
        (void)pacer_capture_close(cap);
    }
    pacer_cpu_meter_destroy(cpu);
    pacer_stats_destroy(stats);
    pacer_destroy(p);
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
