#include "window.hpp"

#include <SDL.h>
#include <SDL_opengl.h>  // the platform's GL 1.x header (GL/gl.h, OpenGL/gl.h)
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "headless.hpp"
#include "screenshot.hpp"
#include "session.hpp"

namespace pacer_demo {

namespace {

const ImVec4 kRed(1.0f, 0.38f, 0.35f, 1.0f);
const ImVec4 kGreen(0.45f, 0.85f, 0.45f, 1.0f);
const ImVec4 kGrey(0.62f, 0.62f, 0.66f, 1.0f);
const ImU32 kTargetLine = IM_COL32(90, 220, 90, 220);
const ImU32 kDoubleLine = IM_COL32(255, 150, 40, 220);
constexpr std::uint64_t kWarmupFrames = 30;  // left out of the statistics, see the loop

double ms(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) * 1e-6; }

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

constexpr pacer::WaitMode kModes[] = {pacer::WaitMode::sleep, pacer::WaitMode::spin, pacer::WaitMode::hybrid,
                                      pacer::WaitMode::vsync, pacer::WaitMode::automatic};
constexpr int kModeCount = 5;

// The display's refresh rate: --refresh-hz if given, else what SDL reports (0 = unknown; SDL
// reports 0 under Xvfb).
double display_refresh_hz(SDL_Window* win, const Options& o) {
    if (o.refresh_hz > 0) return o.refresh_hz;
    SDL_DisplayMode dm{};
    if (SDL_GetWindowDisplayMode(win, &dm) == 0 && dm.refresh_rate > 0) return dm.refresh_rate;
    return 0.0;
}

// Sets the swap interval and reports every present to the pacer, which decides whether vsync
// really paces the frames (pacer/vsync.hpp). In vsync and auto modes the pacer chooses the
// interval; in the other modes the user's checkbox does.
struct Presenter {
    int requested = 0;       // the interval last asked for
    int in_effect = -2;      // what the driver accepted; -1 refused, -2 never set
    double refresh_hz = 0;

    void present(SDL_Window* win, pacer::FramePacer& fp, bool manual_vsync) {
        const pacer::WaitMode m = fp.config().mode;
        const int want = m == pacer::WaitMode::vsync || m == pacer::WaitMode::automatic
                             ? fp.desired_swap_interval()
                             : (manual_vsync ? 1 : 0);
        if (want != requested || in_effect == -2) {
            requested = want;
            if (SDL_GL_SetSwapInterval(want) == 0) {
                in_effect = want;
            } else {
                in_effect = -1;
                spdlog::warn("swap interval {} refused by the driver: {}", want, SDL_GetError());
            }
        }
        const pacer::clock::time_point b = fp.now();
        SDL_GL_SwapWindow(win);
        fp.report_present({b, fp.now(), in_effect, refresh_hz, true});
    }
};

// What the controls edit before it is applied; refused values stay here and the status line says
// why, so the user sees both the value and the library's verdict.
struct UiState {
    double any_hz = 60.0;
    int mode = 2;
    int policy = 0;
    int max_catch_up = 1;
    double quantile = 0.995, half_life = 500, initial_us = 1000, min_us = 20, max_spin_us = 4000;
    double sim_hz = 60.0;
    int max_steps = 8;
    bool interpolate = true;
    bool show_raw = true;
    float work_ms = 1.0f, jitter_ms = 0.5f;
    int load = 0;
    bool coarse = false;
    int coarse_ms = 4;
    bool vsync = false;        // manual vsync request (sleep, spin and hybrid modes)
    char capture_path[256] = "capture.csv";
    std::string message;       // last refusal (red) or confirmation
    bool message_error = false;
};

void report(UiState& ui, const pacer::Status& s, const std::string& ok_text) {
    ui.message_error = !s.ok();
    ui.message = s.ok() ? ok_text : s.message();
}

void plot_marker(const ImVec2& lo, const ImVec2& hi, float frac, ImU32 col, const char* label) {
    if (frac < 0 || frac > 1) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float y = hi.y - frac * (hi.y - lo.y);
    dl->AddLine(ImVec2(lo.x, y), ImVec2(hi.x, y), col, 1.5f);
    // The label sits on a small dark box so the graph's line does not run through it.
    const ImVec2 ts = ImGui::CalcTextSize(label);
    const ImVec2 at(hi.x - ts.x - 4, y - ts.y - 1);
    dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + ts.x + 2, at.y + ts.y),
                      ImGui::GetColorU32(ImGuiCol_WindowBg));
    dl->AddText(at, col, label);
}

void vertical_marker(const ImVec2& lo, const ImVec2& hi, float frac, ImU32 col, const char* label) {
    if (frac < 0 || frac > 1) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float x = lo.x + frac * (hi.x - lo.x);
    dl->AddLine(ImVec2(x, lo.y), ImVec2(x, hi.y), col, 1.5f);
    dl->AddText(ImVec2(x + 3, lo.y + 2), col, label);
}

void panel(const char* name, float x, float y, float w, float h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
    // NoBackground: the panels tile the screen and glClear paints their background colour.
    // With Mesa's software rasteriser (Xvfb) filling a window background is the most expensive
    // thing the demo draws: a screenful of blended, textured pixels every frame.
    ImGui::Begin(name, nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoBackground);
}

void section(const char* title) {
    ImGui::Separator();
    ImGui::TextColored(kGrey, "%s", title);
}

// PlotLines reads the newest `n` values of a ring through this, without copying. Frames are
// taken `bucket` at a time and the longest of each is plotted: at most one point per 2 pixels
// (fewer vertices for a software GL) and no spike is lost.
struct FrameView {
    const Session* s;
    std::size_t n;
    std::size_t bucket;
    int points() const { return static_cast<int>((n + bucket - 1) / bucket); }
};
float frame_getter(void* data, int i) {
    const auto* v = static_cast<const FrameView*>(data);
    const std::size_t first = static_cast<std::size_t>(i) * v->bucket;
    const std::size_t end = std::min(v->n, first + v->bucket);
    float worst = 0;
    for (std::size_t k = first; k < end; ++k) worst = std::max(worst, v->s->frame_ms.last(v->n, k));
    return worst;
}

void outline_item() {  // a border around the last item: the plots have no filled frame
    ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                        ImGui::GetColorU32(ImGuiCol_Border));
}
float cpu_getter(void* data, int i) {
    const auto* r = static_cast<const Ring<Session::kCpuSamples>*>(data);
    return r->last(r->count, static_cast<std::size_t>(i));
}

void frame_time_panel(Session& s, float x, float y, float w, float h) {
    panel("Frame times", x, y, w, h);
    const double target = ms(s.pacer().period());
    const double hz = s.pacer().config().target_hz;
    // The last ~6 s of frames, at most the ring.
    const std::size_t shown = std::min<std::size_t>(s.frame_ms.count,
                                  std::clamp<std::size_t>(static_cast<std::size_t>(6.0 * hz), 60,
                                                          Session::kGraphFrames));
    ImGui::Text("Frame interval (wake to wake) of the last %.1f s (%zu frames).  Now %.2f ms.  "
                "Target %.2f ms (%.1f Hz).",
                static_cast<double>(shown) / hz, shown, shown ? static_cast<double>(s.frame_ms.last(shown, shown - 1)) : 0.0,
                target, hz);
    const float top = static_cast<float>(3.0 * target);
    // ImGui 1.86's PlotLines takes no negative ("fill") width: give the sizes explicitly.
    const ImVec2 size(ImGui::GetContentRegionAvail().x,
                      ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing());
    const std::size_t half_px = std::max<std::size_t>(1, static_cast<std::size_t>(size.x / 2));
    FrameView view{&s, shown, std::max<std::size_t>(1, (shown + half_px - 1) / half_px)};
    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::PlotLines("##frametimes", frame_getter, &view, view.points(), 0, nullptr, 0.0f, top, size);
    ImGui::PopStyleColor();
    outline_item();
    const ImVec2 pad = ImGui::GetStyle().FramePadding;
    ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    lo.x += pad.x; lo.y += pad.y; hi.x -= pad.x; hi.y -= pad.y;
    char label[64];
    std::snprintf(label, sizeof label, "target %.2f ms", target);
    plot_marker(lo, hi, 1.0f / 3.0f, kTargetLine, label);
    std::snprintf(label, sizeof label, "2x target %.2f ms", 2 * target);
    plot_marker(lo, hi, 2.0f / 3.0f, kDoubleLine, label);
    ImGui::TextColored(kGrey, "scale 0 .. %.1f ms (3x target); spikes above are clipped. "
                              "A flat line on the green mark is perfect pacing.", static_cast<double>(top));
    ImGui::End();
}

void histogram_panel(Session& s, float x, float y, float w, float h) {
    panel("Histograms (binned by FrameStats::histogram, 4x per second)", x, y, w, h);
    const pacer::StatsSummary& m = s.summary();
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    const float ph = ImGui::GetContentRegionAvail().y - 2 * ImGui::GetTextLineHeightWithSpacing();

    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::BeginGroup();
    ImGui::Text("Frame intervals: %zu frames, p99 %.2f ms", m.frames, m.interval_ms.p99);
    ImGui::PlotHistogram("##intervals", s.interval_bins.data(), Session::kIntervalBins, 0, nullptr, 0.0f,
                         FLT_MAX, ImVec2(half, ph));
    outline_item();
    {
        ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        vertical_marker(lo, hi, 0.5f, kTargetLine, "target");
    }
    ImGui::TextColored(kGrey, "0 ms");
    ImGui::SameLine(half - 60);
    ImGui::TextColored(kGrey, "%.1f ms+", s.interval_hi_ms);
    ImGui::EndGroup();

    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("Deadline lateness (wake - deadline): p99 %.3f ms", m.lateness_ms.p99);
    ImGui::PlotHistogram("##lateness", s.lateness_bins.data(), Session::kLatenessBins, 0, nullptr, 0.0f,
                         FLT_MAX, ImVec2(half, ph));
    outline_item();
    {
        ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        const double tol = ms(s.pacer().config().miss_tolerance);
        char label[48];
        std::snprintf(label, sizeof label, "miss > %.2f ms", tol);
        if (s.lateness_hi_ms > 0)
            vertical_marker(lo, hi, static_cast<float>(tol / s.lateness_hi_ms), kDoubleLine, label);
    }
    ImGui::TextColored(kGrey, "0 ms");
    ImGui::SameLine(half - 60);
    ImGui::TextColored(kGrey, "%.2f ms+", s.lateness_hi_ms);
    ImGui::EndGroup();
    ImGui::PopStyleColor();
    ImGui::End();
}

void stats_panel(Session& s, UiState& ui, float x, float y, float w, float h) {
    panel("Statistics (window of the last 4096 frames)", x, y, w, h);
    const pacer::StatsSummary& m = s.summary();
    if (ImGui::BeginTable("pct", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 76.0f);
        for (const char* c : {"mean", "p50", "p90", "p99", "p99.9", "max"})
            ImGui::TableSetupColumn(c);
        ImGui::TableHeadersRow();
        const auto row = [](const char* name, const pacer::Distribution& d, const char* fmt) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name);
            for (double v : {d.mean, d.p50, d.p90, d.p99, d.p999, d.max}) {
                ImGui::TableNextColumn();
                ImGui::Text(fmt, v);
            }
        };
        row("frame time", m.interval_ms, "%.2f");
        row("lateness", m.lateness_ms, "%.3f");
        ImGui::EndTable();
    }
    ImGui::Text("Average FPS  %.1f      1%% low  %.1f      0.1%% low  %.1f", m.avg_fps, m.low1_fps,
                m.low01_fps);
    const ImVec4 miss_col = m.missed > 0 ? kRed : kGreen;
    ImGui::TextColored(miss_col, "Missed deadlines  %zu in window, %llu since reset (%llu skips)",
                       m.missed, static_cast<unsigned long long>(m.missed_total),
                       static_cast<unsigned long long>(m.skipped_total));
    ImGui::TextColored(s.stutters() > 0 ? kRed : kGreen,
                       "Stutters  %llu  (frame > 2.5x average of previous 20)",
                       static_cast<unsigned long long>(s.stutters()));
    ImGui::TextColored(kGrey, "Missed: woke > %.2f ms after its deadline, or skipped a slot.",
                       ms(s.pacer().config().miss_tolerance));
    ImGui::Separator();
    ImGui::PushItemWidth(w * 0.45f);
    if (!s.capture().is_open()) {
        ImGui::InputText("##capture", ui.capture_path, sizeof ui.capture_path);
        ImGui::SameLine();
        if (ImGui::Button("Start capture"))
            report(ui, s.start_capture(ui.capture_path), std::string("capturing to ") + ui.capture_path);
        ImGui::SameLine();
        ImGui::TextColored(kGrey, "PresentMon CSV");
    } else {
        const pacer::CaptureWriter& c = s.capture();
        if (c.failed())
            ImGui::TextColored(kRed, "%llu rows, %llu lost", static_cast<unsigned long long>(c.rows()),
                               static_cast<unsigned long long>(c.rows_dropped()));
        else
            ImGui::Text("%llu rows to %s", static_cast<unsigned long long>(c.rows()), c.path().c_str());
        ImGui::SameLine();
        if (ImGui::Button("Stop")) {
            const std::string path = c.path();
            report(ui, s.stop_capture(), "wrote " + path + " and " + pacer::CaptureWriter::stats_path(path));
        }
    }

    ImGui::PopItemWidth();
    ImGui::End();
}

void cpu_panel(Session& s, const UiCost& ui, float x, float y, float w, float h) {
    panel("CPU", x, y, w, h);
    const pacer::StatsSummary& m = s.summary();
    const float gw = w * 0.3f, gh = 26.0f;
    const auto graph = [&](const char* id, const Ring<Session::kCpuSamples>& ring, float top) {
        ImGui::SameLine(w - gw - 12);
        ImGui::PlotLines(id, cpu_getter, const_cast<Ring<Session::kCpuSamples>*>(&ring),
                         static_cast<int>(ring.count), 0, nullptr, 0.0f, top, ImVec2(gw, gh));
    };
    const float cores = static_cast<float>(std::max(1u, std::thread::hardware_concurrency()));
    ImGui::Text("Process      %5.1f %%", s.process_pct());
    ImGui::TextColored(kGrey, "  100 %% = one core");
    graph("##proc", s.cpu_process, 100.0f * cores);
    ImGui::Text("Pacing thread %5.1f %%", s.thread_pct());
    ImGui::TextColored(kGrey, "  sleep %.0f %%  spin %.1f %%  work %.0f %%", 100 * m.sleep_share,
                       100 * m.spin_share, 100 * m.work_share);
    graph("##spin", s.share_spin, 100.0f);
    if (s.machine_pct() >= 0) ImGui::Text("Machine      %5.1f %%", s.machine_pct());
    else ImGui::Text("Machine       n/a");
    ImGui::TextColored(kGrey, "  all %d cores, /proc/stat", static_cast<int>(cores));
    graph("##machine", s.cpu_machine, 100.0f);
    ImGui::Separator();
    ImGui::TextColored(ui.total.avg < 1.0 ? kGreen : kRed,
                       "Demo UI %.2f + GL draw %.2f = %.2f ms CPU/frame", ui.imgui.avg, ui.draw.avg,
                       ui.total.avg);
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::TextColored(kGrey, "peak %.2f; swap %.2f ms wall; %d vertices", ui.total.last_peak,
                       ui.swap.avg, io.MetricsRenderVertices);
    ImGui::TextColored(kGrey, "other threads (GL rasteriser, load) %.2f ms CPU/frame", ui.others.avg);
    ImGui::End();
}

void motion_panel(Session& s, UiState& ui, float x, float y, float w, float h) {
    panel("Motion test", x, y, w, h);
    const pacer::FixedStep::Advance& a = s.advance();
    ImGui::Text("Box moved by the %.0f Hz fixed step, drawn at alpha %.2f, %d step%s this frame.",
                s.sim().config().step_hz, a.alpha, a.steps, a.steps == 1 ? "" : "s");
    ImGui::Checkbox("interpolate", &ui.interpolate);
    ImGui::SameLine();
    ImGui::Checkbox("show raw sim position (red)", &ui.show_raw);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float track_h = std::max(20.0f, avail.y - 18.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRect(p, ImVec2(p.x + avail.x, p.y + track_h), IM_COL32(90, 94, 115, 255));
    for (int i = 1; i < 10; ++i) {
        const float gx = p.x + avail.x * static_cast<float>(i) / 10.0f;
        dl->AddLine(ImVec2(gx, p.y), ImVec2(gx, p.y + track_h), IM_COL32(60, 64, 80, 255));
    }
    const float box = std::min(track_h - 8.0f, 40.0f);
    const float span = avail.x - box;
    const Motion& mo = s.motion();
    if (ui.show_raw) {
        const float rx = p.x + static_cast<float>(mo.x) * span;
        dl->AddRect(ImVec2(rx, p.y + 4), ImVec2(rx + box, p.y + 4 + box), IM_COL32(255, 90, 90, 255), 0, 0, 2);
    }
    const double pos = ui.interpolate ? mo.at(a.alpha) : mo.x;
    const float bx = p.x + static_cast<float>(pos) * span;
    dl->AddRectFilled(ImVec2(bx, p.y + 4), ImVec2(bx + box, p.y + 4 + box), IM_COL32(235, 235, 245, 255));
    ImGui::Dummy(ImVec2(avail.x, track_h));
    ImGui::TextColored(kGrey, "Smooth = paced well. Jumps = stutter; uneven speed = judder.");
    ImGui::End();
}

void status_panel(Session& s, const Presenter& p, const Options& o, float x, float y, float w, float h) {
    panel("Status", x, y, w, h);
    pacer::FramePacer& fp = s.pacer();
    const pacer::PacerConfig& c = fp.config();
    const pacer::FrameTiming& t = s.timing();
    ImGui::Text("%s wait, %s, %.2f Hz (%.3f ms)", pacer::to_string(c.mode),
                pacer::to_string(c.late_policy), c.target_hz, ms(fp.period()));
    ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
    ImGui::TextWrapped("%s", fp.time_source().sleep_primitive());
    ImGui::PopStyleColor();
    // The waiter's learned margin (what the next hybrid wait subtracts), also in sleep/spin mode.
    ImGui::Text("Spin margin %.3f ms, from %lld sleeps", ms(fp.waiter().margin()),
                static_cast<long long>(fp.waiter().estimator().count()));
    ImGui::Text("Spin cap %.2f of %.1f ms", ms(fp.waiter().spin_cap()), ms(c.waiter.max_spin));
    if (fp.waiter().preempted_spins() > 0) {
        ImGui::SameLine();
        ImGui::TextColored(fp.waiter().spin_cap() < c.waiter.max_spin ? kRed : kGrey, "(%lld spins preempted)",
                           static_cast<long long>(fp.waiter().preempted_spins()));
    }
    ImGui::Text("Slept %.2f spun %.3f oversleep %.3f", ms(t.slept), ms(t.spun), ms(t.oversleep));
    if (p.refresh_hz > 0)
        ImGui::Text("Display refresh %.2f Hz%s", p.refresh_hz, o.refresh_hz > 0 ? " (--refresh-hz)" : "");
    else
        ImGui::Text("Display refresh rate: unknown");
    const pacer::VsyncStatus vs = fp.vsync_status();
    const bool manual = c.mode != pacer::WaitMode::vsync && c.mode != pacer::WaitMode::automatic;
    ImGui::Text("Vsync requested: %s", p.requested > 0 ? "yes" : "no");
    ImGui::SameLine();
    if (p.in_effect >= 0)
        ImGui::TextColored(kGrey, "(%s, interval %d)", manual ? "by you" : "by the pacer", p.in_effect);
    else
        ImGui::TextColored(kRed, "(interval %d refused)", p.requested);
    ImGui::Text("Detected: %s   In use: %s", vs.detected ? "yes" : "no", vs.in_use ? "yes" : "no");
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "(%d/%d locked)", fp.vsync().detector().locked_streak(), pacer::VsyncDetector::kTrustAfter);
    ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
    ImGui::TextWrapped("%s; this frame paced by %s", vs.reason, pacer::to_string(t.source));
    ImGui::PopStyleColor();
    if (s.coarse_ms() > 0)
        ImGui::TextColored(kRed, "Coarse scheduler injected: %d ms", s.coarse_ms());
    ImGui::End();
}

void controls_panel(Session& s, UiState& ui, float x, float y, float w, float h) {
    panel("Controls", x, y, w, h);
    ImGui::PushItemWidth(w * 0.42f);

    ImGui::TextUnformatted("Target rate");
    for (double hz : {30.0, 60.0, 120.0, 144.0, 240.0}) {
        char b[16];
        std::snprintf(b, sizeof b, "%.0f", hz);
        if (ImGui::Button(b, ImVec2(42, 0))) {
            ui.any_hz = hz;
            report(ui, s.set_rate(hz), std::string("rate ") + b + " Hz");
        }
        ImGui::SameLine();
    }
    ImGui::NewLine();
    if (ImGui::InputDouble("Hz (Enter)", &ui.any_hz, 0, 0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue)) {
        // Events are read once per frame: below 1 Hz the window would stop answering, so the UI
        // refuses what the library would accept (the command line still takes it).
        if (ui.any_hz > 0 && ui.any_hz < 1.0)
            report(ui, pacer::Status::error("the window needs at least 1 Hz to stay responsive"), "");
        else
            report(ui, s.set_rate(ui.any_hz), "rate applied");
    }

    section("Wait mode");
    for (int i = 0; i < kModeCount; ++i) {
        if (ImGui::RadioButton(pacer::to_string(kModes[i]), &ui.mode, i))
            report(ui, s.set_mode(kModes[i]), std::string("mode ") + pacer::to_string(kModes[i]));
        if (i != 2 && i + 1 < kModeCount) ImGui::SameLine();
    }
    const char* policies[] = {"catch_up", "skip", "resync"};
    const pacer::LatePolicy pol[] = {pacer::LatePolicy::catch_up, pacer::LatePolicy::skip,
                                     pacer::LatePolicy::resync};
    bool pol_changed = ImGui::Combo("late policy", &ui.policy, policies, 3);
    pol_changed |= ImGui::InputInt("max catch-up", &ui.max_catch_up, 1, 1, ImGuiInputTextFlags_EnterReturnsTrue);
    if (pol_changed) report(ui, s.set_policy(pol[ui.policy], ui.max_catch_up), "late policy applied");

    section("Hybrid waiter estimator");
    ImGui::InputDouble("quantile", &ui.quantile, 0, 0, "%.4f");
    ImGui::InputDouble("half-life (sleeps)", &ui.half_life, 0, 0, "%.0f");
    ImGui::InputDouble("initial margin us", &ui.initial_us, 0, 0, "%.0f");
    ImGui::InputDouble("min margin us", &ui.min_us, 0, 0, "%.0f");
    ImGui::InputDouble("spin cap us", &ui.max_spin_us, 0, 0, "%.0f");
    if (ImGui::Button("Apply waiter settings")) {
        pacer::WaiterConfig wc;
        const auto ns = [](double us) {
            return std::chrono::nanoseconds(std::isfinite(us) && std::fabs(us) < 1e12
                                                ? static_cast<std::int64_t>(us * 1000.0)
                                                : std::int64_t{-1});
        };
        wc.quantile = ui.quantile;
        wc.half_life = ui.half_life;
        wc.initial_margin = ns(ui.initial_us);
        wc.min_margin = ns(ui.min_us);
        wc.max_spin = ns(ui.max_spin_us);
        report(ui, s.set_waiter(wc), "waiter settings applied");
    }

    section("Fixed-step simulation");
    ImGui::InputDouble("sim Hz", &ui.sim_hz, 0, 0, "%.1f");
    ImGui::InputInt("max steps/frame", &ui.max_steps);
    if (ImGui::Button("Apply simulation"))
        report(ui, s.set_sim(ui.sim_hz, ui.max_steps), "simulation rate applied");

    section("Load");
    bool work = ImGui::SliderFloat("work ms", &ui.work_ms, 0.0f, 20.0f, "%.2f");
    work |= ImGui::SliderFloat("jitter +- ms", &ui.jitter_ms, 0.0f, 10.0f, "%.2f");
    if (work) report(ui, s.set_work(ui.work_ms, ui.jitter_ms), "work applied");
    const int max_threads = std::min(kMaxLoadThreads, 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    if (ImGui::SliderInt("busy threads", &ui.load, 0, max_threads))
        report(ui, s.set_load(ui.load), "busy threads: " + std::to_string(ui.load));
    bool coarse = ImGui::Checkbox("coarse scheduler", &ui.coarse);
    ImGui::SameLine();
    ImGui::PushItemWidth(w * 0.25f);
    coarse |= ImGui::SliderInt("ms", &ui.coarse_ms, 1, 10);
    ImGui::PopItemWidth();
    if (coarse) report(ui, s.set_coarse(ui.coarse ? ui.coarse_ms : 0),
                       ui.coarse ? "fake scheduler period " + std::to_string(ui.coarse_ms) + " ms"
                                 : "real OS sleep");
    // In vsync and auto modes the pacer chooses the swap interval (Presenter below).
    const pacer::WaitMode m = s.pacer().config().mode;
    const bool pacer_owns_vsync = m == pacer::WaitMode::vsync || m == pacer::WaitMode::automatic;
    ImGui::BeginDisabled(pacer_owns_vsync);
    if (ImGui::Checkbox(pacer_owns_vsync ? "vsync (set by the pacer in this mode)" : "vsync (SDL_GL_SetSwapInterval)",
                        &ui.vsync))
        report(ui, {}, std::string("vsync ") + (ui.vsync ? "requested" : "off"));
    ImGui::EndDisabled();

    ImGui::Separator();
    if (ImGui::Button("Reset statistics", ImVec2(-1, 0))) {
        s.reset_stats();
        ui.message_error = false;
        ui.message = "statistics reset";
    }
    if (!ui.message.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ui.message_error ? kRed : kGreen);
        ImGui::TextWrapped("%s%s", ui.message_error ? "Refused: " : "", ui.message.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::PopItemWidth();
    ImGui::TextColored(kGrey, "Esc quits.");
    ImGui::End();
}

}  // namespace

int run_window(const Options& o, std::string* why) {
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        *why = SDL_GetError();
        return kNoDisplay;
    }
    // Without a display SDL 2.26 quietly picks its "offscreen" (EGL pbuffer) or "dummy" driver:
    // nobody would see the window, so that counts as no display unless asked for by name
    // (SDL_VIDEODRIVER=offscreen renders and takes screenshots without an X server).
    const char* driver = SDL_GetCurrentVideoDriver();
    const char* asked = SDL_getenv("SDL_VIDEODRIVER");
    if (driver != nullptr && asked == nullptr &&
        (SDL_strcmp(driver, "offscreen") == 0 || SDL_strcmp(driver, "dummy") == 0)) {
        *why = std::string("SDL found no display, only its '") + driver + "' video driver";
        SDL_Quit();
        return kNoDisplay;
    }
    // OpenGL 3.0 and GLSL 130: what ImGui's OpenGL3 backend defaults to on Linux and what Mesa's
    // llvmpipe gives under Xvfb.
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
    SDL_Window* win = SDL_CreateWindow("pacer demo", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                       1280, 800, SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE);
    if (win == nullptr) {
        *why = SDL_GetError();
        SDL_Quit();
        return kNoDisplay;
    }
    SDL_GLContext gl = SDL_GL_CreateContext(win);
    if (gl == nullptr) {
        *why = std::string("no OpenGL 3.0 context: ") + SDL_GetError();
        SDL_DestroyWindow(win);
        SDL_Quit();
        return kNoDisplay;
    }
    SDL_GL_MakeCurrent(win, gl);

    UiState ui;
    ui.any_hz = o.hz;
    for (int i = 0; i < kModeCount; ++i)
        if (kModes[i] == o.mode) ui.mode = i;
    ui.policy = o.policy == pacer::LatePolicy::catch_up ? 0 : o.policy == pacer::LatePolicy::skip ? 1 : 2;
    ui.sim_hz = o.sim_hz;
    ui.work_ms = static_cast<float>(o.work_ms);
    ui.jitter_ms = static_cast<float>(o.work_jitter_ms);
    ui.load = o.load;
    ui.coarse = o.coarse_ms > 0;
    ui.coarse_ms = o.coarse_ms > 0 ? o.coarse_ms : 4;
    ui.vsync = o.vsync;
    Presenter presenter;

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // fixed layout, nothing to remember
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0;
    style.ItemSpacing.y = 3.0f;  // a compact layout: everything fits 1280 x 800 without scrolling
    style.FramePadding.y = 2.0f;
    // The big plots get a border instead of a filled frame: under Xvfb every filled pixel is
    // shaded by the CPU (see NoBackground in panel()).
    style.Colors[ImGuiCol_Border] = ImVec4(0.35f, 0.37f, 0.45f, 0.8f);
    style.Colors[ImGuiCol_PlotLines] = ImVec4(0.95f, 0.95f, 0.98f, 1.0f);
    ImGui_ImplSDL2_InitForOpenGL(win, gl);
    ImGui_ImplOpenGL3_Init("#version 130");

    int exit_code = 0;
    {
        Session s(o);
        if (!o.capture.empty()) {
            if (pacer::Status st = s.start_capture(o.capture); !st) {
                spdlog::error("{}", st.message());
                exit_code = 1;
            }
        }
        {
            const pacer::WaiterConfig& wc = s.pacer().config().waiter;
            ui.quantile = wc.quantile;
            ui.half_life = wc.half_life;
            ui.initial_us = ms(wc.initial_margin) * 1000;
            ui.min_us = ms(wc.min_margin) * 1000;
            ui.max_spin_us = ms(wc.max_spin) * 1000;
            ui.max_steps = s.sim().config().max_steps;
        }
        UiCost cost;
        pacer::TimeSource& os = pacer::system_time_source();
        bool running = true;
        double next_status = 1.0;
        StatusLine status(s);
        while (running) {
            // 1. Pace: block until this frame's deadline.
            s.begin_frame();
            // The first frames carry window creation, font upload and shader compilation (tens
            // of ms each under Mesa): not what the pacer does. Statistics start after them.
            if (s.frames() == kWarmupFrames) s.reset_stats();
            // 2. Input.
            SDL_Event e;
            while (SDL_PollEvent(&e)) {
                ImGui_ImplSDL2_ProcessEvent(&e);
                if (e.type == SDL_QUIT) running = false;
                if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE) running = false;
                if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE) running = false;
            }
            // 3. Fixed-step simulation, 4. the game's own CPU work.
            s.simulate();
            s.do_work();
            if (s.refresh_due()) {
                s.refresh(true);
                cost.roll();
            }
            // 5. UI and draw, measured: CPU of this thread (and of the process: Mesa's llvmpipe
            // rasterises on its own threads), from NewFrame to the end of the GL draw calls.
            const pacer::CpuTimes t0 = os.cpu_times();
            const std::int64_t c0 = t0.thread_ns;
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplSDL2_NewFrame();
            ImGui::NewFrame();
            const ImVec2 d = io.DisplaySize;
            // Left: controls over status. Right: what is measured, top to bottom.
            const float lw = std::min(330.0f, d.x * 0.3f), rw = d.x - lw, hw = rw * 0.5f;
            const float hc = std::max(d.y * 0.6f, d.y - 228.0f);
            const float h1 = d.y * 0.27f, h2 = d.y * 0.25f, h3 = d.y * 0.28f, h4 = d.y - h1 - h2 - h3;
            controls_panel(s, ui, 0, 0, lw, hc);
            status_panel(s, presenter, o, 0, hc, lw, d.y - hc);
            frame_time_panel(s, lw, 0, rw, h1);
            histogram_panel(s, lw, h1, rw, h2);
            stats_panel(s, ui, lw, h1 + h2, hw, h3);
            cpu_panel(s, cost, lw + hw, h1 + h2, rw - hw, h3);
            motion_panel(s, ui, lw, h1 + h2 + h3, rw, h4);
            ImGui::Render();
            const std::int64_t c1 = os.cpu_times().thread_ns;
            glViewport(0, 0, static_cast<int>(io.DisplaySize.x), static_cast<int>(io.DisplaySize.y));
            const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
            glClearColor(bg.x, bg.y, bg.z, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            const std::int64_t c2 = os.cpu_times().thread_ns;

            if (!o.screenshot.empty() && s.frames() == o.screenshot_frame) {
                int fw = 0, fh = 0;
                SDL_GL_GetDrawableSize(win, &fw, &fh);
                std::string err;
                if (write_screenshot(o.screenshot, fw, fh, &err)) {
                    spdlog::info("screenshot written: {} ({}x{})", o.screenshot, fw, fh);
                } else {
                    spdlog::error("screenshot failed: {}", err);
                    exit_code = 1;
                }
            }
            // 6. Present, and tell the pacer how it went (vsync detection).
            if (s.frames() == 1 || s.refresh_due()) presenter.refresh_hz = display_refresh_hz(win, o);
            const std::int64_t w0 = os.now_ns();
            presenter.present(win, s.pacer(), ui.vsync);
            const std::int64_t w1 = os.now_ns();
            pacer::CaptureExtras extras;
            extras.in_present = std::chrono::nanoseconds(w1 - w0);
            extras.sync_interval = presenter.in_effect;
            s.record(extras);
            const pacer::CpuTimes t3 = os.cpu_times();
            cost.add(static_cast<double>(c1 - c0) * 1e-6, static_cast<double>(c2 - c1) * 1e-6,
                     static_cast<double>(w1 - w0) * 1e-6,
                     static_cast<double>((t3.process_ns - t0.process_ns) - (t3.thread_ns - t0.thread_ns)) * 1e-6);

            const double t = s.elapsed_s();
            if (t >= next_status) {  // the same once-a-second line as headless, for logs and tests
                status.print(s);
                next_status = std::max(next_status + 1.0, t);
            }
            if (o.frames != 0 && s.frames() >= o.frames) running = false;
            if (o.seconds > 0 && t >= o.seconds) running = false;
        }
        if (!o.screenshot.empty() && s.frames() < o.screenshot_frame) {
            spdlog::error("screenshot not taken: the demo ended after {} frames, before frame {}",
                          s.frames(), o.screenshot_frame);
            exit_code = 1;
        }
        print_summary(s, "window");
        std::printf("ui_cost: frames=%lld imgui_cpu_ms=%.3f draw_cpu_ms=%.3f total_cpu_ms=%.3f "
                    "swap_wall_ms=%.3f other_threads_cpu_ms=%.3f\n",
                    cost.run_n, cost.run_avg(cost.imgui), cost.run_avg(cost.draw),
                    cost.run_avg(cost.total), cost.run_avg(cost.swap), cost.run_avg(cost.others));
        if (finish_capture(s) != 0) exit_code = 1;
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    SDL_GL_DeleteContext(gl);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return exit_code;
}

}  // namespace pacer_demo
