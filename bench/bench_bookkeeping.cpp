// Microbenchmarks of what wait() and the statistics cost besides sleeping and spinning.
// A SimulatedOs with an exact clock makes every wait return at once, so what is timed is the
// bookkeeping: clock reads through the TimeSource, the grid arithmetic, the margin query, the
// FrameTiming. The real-clock case adds the cost of real clock reads (vDSO). The display's fit
// (DisplayTracker::add) is timed per present once locked, amortized over many presents.
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>

#include "pacer/pacer.hpp"

using namespace std::chrono_literals;

namespace {

// Every deadline has already passed (the grid is behind), so wait() never sleeps or spins.
void BM_WaitBookkeeping_Virtual(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns});
    pacer::FramePacer fp({.target_hz = 10'000.0, .max_catch_up = 1000}, &os);
    fp.wait();
    for (auto _ : state) {
        os.jump(100us);  // one period passes: the next deadline is due right now
        benchmark::DoNotOptimize(fp.wait());
    }
}
BENCHMARK(BM_WaitBookkeeping_Virtual);

// The real OS clock, but sleep and spin are no-ops and every deadline is already due: the
// clock is skewed forward by one period before each wait. Times real clock reads + bookkeeping.
class DueRealClock final : public pacer::TimeSource {
public:
    std::chrono::nanoseconds skew{0};
    pacer::clock::time_point now() noexcept override { return real_.now() + skew; }
    void sleep_until(pacer::clock::time_point) noexcept override {}
    void relax() noexcept override {}
    pacer::CpuTimes cpu_times() noexcept override { return {}; }
    const char* sleep_primitive() const noexcept override { return "none"; }

private:
    pacer::TimeSource& real_ = pacer::system_time_source();
};

void BM_WaitBookkeeping_RealClock(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    DueRealClock clock;
    pacer::FramePacer fp({.target_hz = 10'000.0, .max_catch_up = 1000}, &clock);
    fp.wait();
    for (auto _ : state) {
        clock.skew += std::chrono::nanoseconds(100'000);
        benchmark::DoNotOptimize(fp.wait());
    }
}
BENCHMARK(BM_WaitBookkeeping_RealClock);

// Thread roles (pacer/frame_pacer.hpp): a pacing thread waits in a loop on DueRealClock (every
// wait returns at once, so it drains the present thread's ring as fast as it can), while the
// benchmark's thread is the present thread or a status reader.
class PacingThread {
public:
    PacingThread() : thread_([this] { run(); }) {
        while (!started_.load()) std::this_thread::yield();
    }
    ~PacingThread() {
        stop_.store(true);
        thread_.join();
    }
    pacer::FramePacer& pacer() { return *fp_; }

private:
    void run() {
        DueRealClock clock;
        pacer::FramePacer fp({.target_hz = 10'000.0, .max_catch_up = 1000}, &clock);
        fp_ = &fp;
        fp.wait();
        started_.store(true);
        while (!stop_.load()) {
            clock.skew += std::chrono::nanoseconds(100'000);
            benchmark::DoNotOptimize(fp.wait());
        }
        fp_ = nullptr;
    }
    std::atomic<bool> started_{false}, stop_{false};
    pacer::FramePacer* fp_ = nullptr;
    std::thread thread_;
};

// The present thread's report_present(): a clock read, a copy into the ring (dropped and counted
// when full: the pacing thread drains it at every wait here).
void BM_PresentThread_ReportPresent(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    PacingThread pacing;
    pacer::PresentInfo p;
    p.begin = p.end = pacer::clock::now();
    for (auto _ : state) {
        ++p.frame;
        pacing.pacer().report_present(p);
    }
    state.counters["lost"] = static_cast<double>(pacing.pacer().status().reports_lost);
}
BENCHMARK(BM_PresentThread_ReportPresent);

void BM_PresentThread_BeforePresent(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    PacingThread pacing;
    std::uint64_t frame = 0;
    for (auto _ : state) pacing.pacer().before_present(++frame);
}
BENCHMARK(BM_PresentThread_BeforePresent);

// status() from another thread: the copy the pacing thread made at its last wait(), under a lock
// the pacing thread only tries.
void BM_StatusFromAnotherThread(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    PacingThread pacing;
    for (auto _ : state) benchmark::DoNotOptimize(pacing.pacer().status());
}
BENCHMARK(BM_StatusFromAnotherThread);

// wait() once another thread reads status(): each wait() makes the copy too.
void BM_WaitBookkeeping_StatusCopies(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    DueRealClock clock;
    pacer::FramePacer fp({.target_hz = 10'000.0, .max_catch_up = 1000}, &clock);
    fp.wait();
    std::thread([&] { benchmark::DoNotOptimize(fp.status()); }).join();
    for (auto _ : state) {
        clock.skew += std::chrono::nanoseconds(100'000);
        benchmark::DoNotOptimize(fp.wait());
    }
}
BENCHMARK(BM_WaitBookkeeping_StatusCopies);

void BM_MarginQuery(benchmark::State& state) {
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 30us});
    pacer::HybridWaiter w({}, &os);
    for (int i = 0; i < 1000; ++i) w.wait_until(pacer::clock::from_ns(pacer::clock::to_ns(os.now()) + 5'000'000));
    for (auto _ : state) benchmark::DoNotOptimize(w.margin());
}
BENCHMARK(BM_MarginQuery);

void BM_StatsAdd(benchmark::State& state) {
    pacer::FrameStats stats(4096);
    pacer::FrameTiming t;
    t.interval = std::chrono::nanoseconds(16'666'667);
    for (auto _ : state) {
        stats.add(t);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_StatsAdd);

void BM_StatsSummarize4096(benchmark::State& state) {
    pacer::FrameStats stats(4096);
    pacer::SimulatedOs os({}, 5);
    for (int i = 0; i < 4096; ++i) {
        pacer::FrameTiming t;
        t.interval = std::chrono::nanoseconds(16'000'000 + static_cast<std::int64_t>(os.uniform() * 1e6));
        stats.add(t);
    }
    for (auto _ : state) benchmark::DoNotOptimize(stats.summarize());
}
BENCHMARK(BM_StatsSummarize4096);

void BM_Histogram4096x64(benchmark::State& state) {
    pacer::FrameStats stats(4096);
    pacer::FrameTiming t;
    for (int i = 0; i < 4096; ++i) {
        t.interval = std::chrono::nanoseconds(16'000'000 + i * 100);
        stats.add(t);
    }
    std::array<float, 64> bins{};
    for (auto _ : state) benchmark::DoNotOptimize(stats.histogram(pacer::FrameMetric::interval, std::chrono::nanoseconds(0), pacer::from_ms(33.3), bins));
}
BENCHMARK(BM_Histogram4096x64);

// One present's vblank per iteration into a locked DisplayTracker, on a display 50 ppm fast:
// displayed times with +-50 us uniform report noise, or swap returns late by 30 us typically
// (exponential) and 0.5-2 ms one time in five (the cases of tests/display_test.cpp). The noise
// comes from a table of 1024 draws made before timing; the clock moves on one period a present.
void BM_DisplayAdd(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    const double hz = static_cast<double>(state.range(0));
    const bool swap = state.range(1) != 0;
    const auto source = swap ? pacer::VblankSource::swap_return : pacer::VblankSource::displayed;
    pacer::SimulatedOs rng({}, 3);
    std::array<std::int64_t, 1024> noise{};
    for (std::int64_t& n : noise) {
        const double late = rng.uniform() < 0.2 ? 500'000 + rng.uniform() * 1'500'000 : -30'000 * std::log(1 - rng.uniform());
        n = std::llround(swap ? late : (rng.uniform() * 2 - 1) * 50'000);
    }
    const double period = 1e9 / hz / (1 + 50e-6);
    pacer::DisplayTracker d;
    std::int64_t n = 0;
    auto present = [&] {
        const std::int64_t t = 1'000'000'000 + std::llround(static_cast<double>(n) * period) + noise[n % noise.size()];
        ++n;
        d.add(pacer::clock::from_ns(t), hz, source);
    };
    while (n < 2 * pacer::DisplayTracker::kWindow) present();  // locked, the window full
    std::int64_t unlocked = 0;
    for (auto _ : state) {
        present();
        unlocked += d.locked() ? 0 : 1;
    }
    // Presents after which the tracker was not locked: 0, else this did not time the locked path.
    state.counters["unlocked"] = static_cast<double>(unlocked);
}
BENCHMARK(BM_DisplayAdd)->ArgNames({"hz", "swap"})->Args({60, 0})->Args({144, 0})->Args({60, 1})->Args({144, 1});

}  // namespace

BENCHMARK_MAIN();
