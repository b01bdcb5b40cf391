#include <cstdio>
#include <pacer/pacer.hpp>

int main() {
    pacer::FramePacer fp({.target_hz = 60.0});
    pacer::FrameStats stats;
    for (int frame = 0; frame < 60; ++frame) {  // one second of frames
        pacer::FrameTiming t = fp.wait();       // blocks until this frame's deadline
        stats.add(t);
        // update(t.display_dt); render(); present();
    }
    pacer::StatsSummary s = stats.summarize();
    std::printf("%zu frame times, p50 %.2f ms, p99 %.2f ms\n", s.frames, pacer::to_ms(s.interval.p50),
                pacer::to_ms(s.interval.p99));
    return 0;
}
