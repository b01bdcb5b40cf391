// The histograms of frame intervals, of deadline lateness and of latency (input to shown).
#include <cfloat>
#include <cstdio>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

// The bars of one histogram, size wide and high, a labelled marker at `mark` of its width (none
// outside [0, 1]) and its axis, 0 to `hi_ms` ms.
void histogram(const char* id, const float* bins, int count, ImVec2 size, float mark, ImU32 col, const char* label,
               double hi_ms, int decimals) {
    ImGui::PlotHistogram(id, bins, count, 0, nullptr, 0.0f, FLT_MAX, size);
    outline_item();
    vertical_marker(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), mark, col, label);
    ImGui::TextColored(kGrey, "0 ms");
    ImGui::SameLine(size.x - 60);
    ImGui::TextColored(kGrey, "%.*f ms+", decimals, hi_ms);
}

}  // namespace

void histogram_panel(Session& s, float x, float y, float w, float h) {
    panel("Histograms (binned by FrameStats::histogram, 4x per second)", x, y, w, h);
    const pacer::StatsSummary& m = s.summary();
    const float third = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
    const ImVec2 size(third, ImGui::GetContentRegionAvail().y - 2 * ImGui::GetTextLineHeightWithSpacing());

    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::BeginGroup();
    ImGui::Text("Frame intervals: %zu frames, p99 %.2f ms", m.frames, pacer::to_ms(m.interval.p99));
    histogram("##intervals", s.interval_bins.data(), Session::kIntervalBins, size, 0.5f, kTargetLine, "target",
              s.interval_hi_ms, 1);
    ImGui::EndGroup();

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (s.replaying() && !s.replay().has_lateness())
        ImGui::TextColored(kGrey, "Deadline lateness: not in this file");
    else
        ImGui::Text("Lateness (wake - deadline): p99 %.3f ms", pacer::to_ms(m.lateness.p99));
    const double tol = pacer::to_ms(s.pacer().config().miss_tolerance);
    char label[48];
    std::snprintf(label, sizeof label, "miss > %.2f ms", tol);
    const float mark = s.lateness_hi_ms > 0 ? static_cast<float>(tol / s.lateness_hi_ms) : -1.0f;
    histogram("##lateness", s.lateness_bins.data(), Session::kLatenessBins, size, mark, kDoubleLine, label,
              s.lateness_hi_ms, 2);
    ImGui::EndGroup();

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (m.latency_frames == 0)
        ImGui::TextColored(kGrey, "Latency (input to shown): no presents yet");
    else
        ImGui::Text("Latency (input to shown): p99 %.1f ms", pacer::to_ms(m.latency.p99));
    // The marker: one target period, what a frame_start loop with vsync adds on top of its work.
    const double target_ms = pacer::to_ms(s.target_period());
    histogram("##latency", s.latency_bins.data(), Session::kLatencyBins, size,
              s.latency_hi_ms > 0 ? static_cast<float>(target_ms / s.latency_hi_ms) : -1.0f, kTargetLine,
              "1 period", s.latency_hi_ms, 1);
    ImGui::EndGroup();
    ImGui::PopStyleColor();
    ImGui::End();
}

}  // namespace pacer_demo
