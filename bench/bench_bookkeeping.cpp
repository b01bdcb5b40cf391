// Microbenchmarks of what wait() and the statistics cost besides sleeping and spinning.
// A SimulatedOs with an exact clock makes every wait return at once, so what is timed is the
// bookkeeping: clock reads through the TimeSource, the grid arithmetic, the margin query, the
// FrameTiming. The real-clock case adds the cost of real clock reads (vDSO).
#include <benchmark/benchmark.h>

#include <array>

#include "pacer/pacer.hpp"

namespace {

// Every deadline has already passed (the grid is behind), so wait() never sleeps or spins.
void BM_WaitBookkeeping_Virtual(benchmark::State& state) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity_ns = 0, .relax_ns = 1, .sleep_cpu_ns = 0});
    pacer::FramePacer fp({.target_hz = 10'000.0, .max_catch_up = 1000}, &os);
    fp.wait();
    for (auto _ : state) {
        os.jump(100'000);  // one period passes: the next deadline is due right now
        benchmark::DoNotOptimize(fp.wait());
    }
}
BENCHMARK(BM_WaitBookkeeping_Virtual);

// The real OS clock, but sleep and spin are no-ops and every deadline is already due: the
// clock is skewed forward by one period before each wait. Times real clock reads + bookkeeping.
class DueRealClock final : public pacer::TimeSource {
public:
    std::int64_t skew = 0;
    std::int64_t now_ns() noexcept override { return real_.now_ns() + skew; }
    void sleep_until_ns(std::int64_t) noexcept override {}
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
        clock.skew += 100'000;
        benchmark::DoNotOptimize(fp.wait());
    }
}
BENCHMARK(BM_WaitBookkeeping_RealClock);

void BM_MarginQuery(benchmark::State& state) {
    pacer::SimulatedOs os({.granularity_ns = 1'000'000, .jitter_mean_ns = 30'000});
    pacer::HybridWaiter w({}, &os);
    for (int i = 0; i < 1000; ++i) w.wait_until(pacer::clock::from_ns(os.now_ns() + 5'000'000));
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
    for (auto _ : state) benchmark::DoNotOptimize(stats.histogram(pacer::FrameMetric::interval, 0, 33.3, bins));
}
BENCHMARK(BM_Histogram4096x64);

}  // namespace

BENCHMARK_MAIN();
