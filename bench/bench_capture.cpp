// What capturing adds to a frame: CaptureWriter::add() (formatting one row into the buffer and,
// at 144 Hz every 64 rows, one write of them), amortised. The target is < 1 us per frame.
//
//   ./build-release/bench/bench_capture
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "pacer/pacer.hpp"

using namespace std::chrono_literals;

namespace {

std::vector<pacer::FrameTiming> simulate_frames(int n) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 30us, .preempt_probability = 0.02});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    std::vector<pacer::FrameTiming> out;
    for (int i = 0; i < n; ++i) {
        os.advance(std::chrono::nanoseconds(2'000'000 + (i % 7) * 300'000));
        out.push_back(fp.wait());
    }
    return out;
}

// 4096 frames of a simulated pacer, made once: Google Benchmark calls each benchmark several times
// while it sizes the iterations, and the simulation took 0.3 s each time.
const std::vector<pacer::FrameTiming>& frames4096() {
    static const std::vector<pacer::FrameTiming> frames = simulate_frames(4096);
    return frames;
}

void run(benchmark::State& state, const std::string& path) {
    const auto& frames = frames4096();
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.write_stats = false;
    if (!cap.open(path, o).ok()) {
        state.SkipWithError("cannot open the capture file");
        return;
    }
    // The 4096 frames over and over, each pass later by their span: time only moves forward, as
    // in a game, so the writes come as they would (every 64 rows at 144 Hz).
    const auto span = frames[4095].wake - frames[0].wake + frames[1].interval;
    std::size_t i = 0;
    for (auto _ : state) {
        pacer::FrameTiming t = frames[i & 4095];
        t.wake += span * static_cast<std::int64_t>(i >> 12);
        cap.add(t);
        ++i;
    }
    (void)cap.close();
    state.SetItemsProcessed(state.iterations());
}

// The OS write goes nowhere: formatting + buffer management + the write system call.
#if defined(_WIN32)
void BM_CaptureAdd_DevNull(benchmark::State& state) { run(state, "NUL"); }
#else
void BM_CaptureAdd_DevNull(benchmark::State& state) { run(state, "/dev/null"); }
#endif
BENCHMARK(BM_CaptureAdd_DevNull);

// A real file in the temp directory (page cache; the disk is not waited for).
void BM_CaptureAdd_File(benchmark::State& state) {
    const auto p = std::filesystem::temp_directory_path() / "pacer_bench_capture.csv";
    run(state, p.string());
    std::filesystem::remove(p);
}
BENCHMARK(BM_CaptureAdd_File);

// Frame timing only, for scale: the FrameStats::add the demo does per frame anyway.
void BM_FrameStatsAdd(benchmark::State& state) {
    const auto& frames = frames4096();
    pacer::FrameStats stats(4096);
    std::size_t i = 0;
    for (auto _ : state) stats.add(frames[i++ & 4095]);
}
BENCHMARK(BM_FrameStatsAdd);

}  // namespace

BENCHMARK_MAIN();
