// A minimal engine loop against the installed or add_subdirectory'd pacer: the README's
// embedding examples, each run for a few frames at 200 Hz. Exit 0 when the frames came out right.
#include <pacer/pacer.hpp>

#include <chrono>
#include <cstdio>
#include <string_view>

static_assert(std::string_view(pacer::kVersion) == PACER_PACKAGE_VERSION,
              "pacer::kVersion differs from the version of the CMake package");

namespace {
struct World {
    int steps = 0;
    void step(double) { ++steps; }
} world;
double last_alpha = -1;
void render(double alpha) { last_alpha = alpha; }
int ticks = 0;
double elapsed_s = 0;
void update() { ++ticks; }
void update(double dt) { elapsed_s += dt; }
void draw_and_present() {}
}  // namespace

int main() {
    pacer::set_log_function(nullptr);
    // --- README "Embedding", at 200 Hz and for 20 frames ---
    pacer::FramePacer pacer({.target_hz = 200.0});
    pacer::FixedStep sim({.step_hz = 120.0, .snap_period = pacer.status().period});
    pacer::FrameStats stats;
    pacer::FrameTiming t{};
    for (int frame = 0; frame < 20; ++frame) {
        t = pacer.wait();
        stats.add(t);
        auto a = sim.advance(t.interval);
        for (int i = 0; i < a.steps; ++i) world.step(sim.step_seconds());
        render(a.alpha);
    }
    // ---
    bool ok = t.index >= 19 && t.wake >= t.deadline && stats.size() == 19 && world.steps > 0 &&
              last_alpha >= 0 && last_alpha < 1;

    // --- README: a frame-locked game, and variable delta time ---
    {
        pacer::FramePacer locked({.target_hz = 200.0});
        for (int frame = 0; frame < 10; ++frame) {
            locked.wait();
            update();
            draw_and_present();
        }
        pacer::FramePacer variable({.target_hz = 200.0});
        for (int frame = 0; frame < 10; ++frame) {
            pacer::FrameTiming ft = variable.wait();
            update(std::chrono::duration<double>(ft.interval).count());
            draw_and_present();
        }
    }
    // ---
    ok = ok && ticks == 10 && elapsed_s >= 9 * 0.005 - 1e-9;
    std::printf("consumer: pacer %s, frame %llu, %d steps, %s\n", pacer::kVersion,
                static_cast<unsigned long long>(t.index), world.steps, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
