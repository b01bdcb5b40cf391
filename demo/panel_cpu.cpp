// CPU: the process, the pacing thread, the machine, and the demo's own UI cost.
#include <algorithm>
#include <thread>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

float cpu_getter(void* data, int i) {
    const auto* r = static_cast<const Ring<Session::kCpuSamples>*>(data);
    return r->last(r->count, static_cast<std::size_t>(i));
}

}  // namespace

void cpu_panel(Session& s, const UiCost& cost, float x, float y, float w, float h) {
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
    ImGui::TextColored(cost.total.avg < 1.0 ? kGreen : kRed,
                       "Demo UI %.2f + GL draw %.2f = %.2f ms CPU/frame", cost.imgui.avg, cost.draw.avg,
                       cost.total.avg);
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::TextColored(kGrey, "peak %.2f; swap %.2f ms wall; %d vertices", cost.total.last_peak,
                       cost.swap.avg, io.MetricsRenderVertices);
    ImGui::TextColored(kGrey, "other threads (GL rasteriser, load) %.2f ms CPU/frame", cost.others.avg);
    ImGui::End();
}

}  // namespace pacer_demo
