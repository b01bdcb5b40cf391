// Placeholder headless demo: paces a loop and prints a summary. The SDL2 + ImGui demo replaces it.
#include <cstdio>
#include <cstdlib>

#include "pacer/pacer.hpp"

int main(int argc, char** argv) {
    double hz = argc > 1 ? std::atof(argv[1]) : 60.0;
    pacer::PacerConfig cfg;
    cfg.target_hz = hz;
    if (pacer::Status s = pacer::validate(cfg); !s) {
        std::fprintf(stderr, "pacer_demo: %s\n", s.message().c_str());
        return 2;
    }
    pacer::FramePacer fp(cfg);
    pacer::FrameStats stats;
    pacer::CpuMeter cpu;
    for (int i = 0; i < static_cast<int>(hz * 3); ++i) stats.add(fp.wait());
    const pacer::StatsSummary s = stats.summarize();
    const pacer::CpuUsage u = cpu.sample();
    std::printf("frames %zu  avg %.2f fps  p99 lateness %.3f ms  thread CPU %.1f %%\n", s.frames,
                s.avg_fps, s.lateness_ms.p99, u.thread_pct);
    return 0;
}
