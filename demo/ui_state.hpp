// demo/ui_state.hpp - what the windowed demo keeps between frames besides the Session: the values
// the controls edit, and the measured cost of the UI itself.
#pragma once

#include <algorithm>
#include <iterator>
#include <string>

#include "options.hpp"
#include "pacer/status.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/names.hpp"

namespace pacer_demo {

class Session;

// The controls list modes and late policies in the order of the library's name tables.
inline constexpr int kModeCount = static_cast<int>(std::size(pacer::kWaitModeNames));
inline constexpr int kPolicyCount = static_cast<int>(std::size(pacer::kLatePolicyNames));
inline constexpr int kSyncCount = static_cast<int>(std::size(pacer::kSyncModeNames));
inline constexpr int kCadenceCount = static_cast<int>(std::size(pacer::kCadenceModeNames));
inline constexpr int kPriorityCount = static_cast<int>(std::size(pacer::kThreadPriorityNames));

// What the controls edit before it is applied; refused values stay here and the status line says
// why, so the user sees both the value and the library's verdict.
struct UiState {
    double any_hz = 60.0;
    int mode = 2;
    int policy = 0;
    int max_catch_up = 1;
    int sync = 0;                  // index in pacer::kSyncModeNames
    double max_late_share = 0.01;  // just_in_time's budget of late frames
    bool display_lock = true;
    bool match_display = false;
    int cadence = 0;               // index in pacer::kCadenceModeNames
    int priority = 0;              // index in pacer::kThreadPriorityNames
    bool follow_mouse = false;     // the motion-test box follows the mouse instead of the simulation
    double late_cost_ms = 10, half_life = 500, initial_us = 1000, min_us = 20, max_spin_us = 4000;
    double raised_spin_share = 0.25;  // WaiterConfig::raised_spin_share (a slider)
    double sim_hz = 60.0;
    int max_steps = 8;
    bool interpolate = true;
    bool show_raw = true;
    float work_ms = 1.0f, jitter_ms = 0.5f;
    int load = 0;
    bool coarse = false;
    int coarse_ms = 4;
    bool vsync = false;        // manual vsync request (sleep, spin and hybrid modes)
    bool render_thread = false;  // draw and present on a render thread (window.cpp)
    char capture_path[256] = "capture.csv";
    char replay_path[256] = "capture.csv";  // the file the Replay button loads
    std::string message;       // last refusal (red) or confirmation
    bool message_error = false;

    // The controls start where the command line and the session's pacer are.
    UiState(const Options& o, Session& s);
    // Shows the library's verdict under the controls: its message, or ok_text.
    void report(const pacer::Status& s, const std::string& ok_text);
};

// CPU time of the UI: ImGui NewFrame .. Render + the GL draw calls, per frame, averaged over the
// same 250 ms windows as the statistics.
// imgui = ImGui NewFrame .. Render (building the UI), draw = glClear + RenderDrawData (with
// Mesa's llvmpipe the vertex stage of the "GPU" runs here too), swap = SDL_GL_SwapWindow (wall),
// others = CPU of the process's other threads from NewFrame to the end of the swap: with a
// software GL (Xvfb) that is the rasteriser, i.e. the GPU's work done by the CPU (it also counts
// the busy threads of the load control when they run).
struct UiCost {
    struct Acc {
        double sum = 0, peak = 0, avg = 0, last_peak = 0, run_sum = 0;
        void add(double v) { sum += v; peak = std::max(peak, v); run_sum += v; }
        void roll(int n) { avg = sum / n; last_peak = peak; sum = peak = 0; }
    };
    Acc imgui, draw, total, swap, others;  // CPU ms, except swap (wall ms)
    int n = 0;
    long long run_n = 0;
    void add(double imgui_ms, double draw_ms, double swap_ms, double others_ms) {
        others.add(others_ms);
        imgui.add(imgui_ms);
        draw.add(draw_ms);
        total.add(imgui_ms + draw_ms);
        swap.add(swap_ms);
        ++n;
        ++run_n;
    }
    void roll() {
        if (n == 0) return;
        for (Acc* a : {&imgui, &draw, &total, &swap, &others}) a->roll(n);
        n = 0;
    }
    double run_avg(const Acc& a) const { return run_n ? a.run_sum / static_cast<double>(run_n) : 0.0; }
};

}  // namespace pacer_demo
