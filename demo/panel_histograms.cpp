// The histograms of frame intervals and of deadline lateness.
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
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    const ImVec2 size(half, ImGui::GetContentRegionAvail().y - 2 * ImGui::GetTextLineHeightWithSpacing());

    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::BeginGroup();
    ImGui::Text("Frame intervals: %zu frames, p99 %.2f ms", m.frames, m.interval_ms.p99);
    histogram("##intervals", s.interval_bins.data(), Session::kIntervalBins, size, 0.5f, kTargetLine, "target",
              s.interval_hi_ms, 1);
    ImGui::EndGroup();

    ImGui::SameLine();
    ImGui::BeginGroup();
    if (s.replaying() && !s.replay().has_lateness())
        ImGui::TextColored(kGrey, "Deadline lateness: not in this file");
    else
        ImGui::Text("Deadline lateness (wake - deadline): p99 %.3f ms", m.lateness_ms.p99);
    const double tol = ms(s.pacer().config().miss_tolerance);
    char label[48];
    std::snprintf(label, sizeof label, "miss > %.2f ms", tol);
    const float mark = s.lateness_hi_ms > 0 ? static_cast<float>(tol / s.lateness_hi_ms) : -1.0f;
    histogram("##lateness", s.lateness_bins.data(), Session::kLatenessBins, size, mark, kDoubleLine, label,
              s.lateness_hi_ms, 2);
    ImGui::EndGroup();
    ImGui::PopStyleColor();
    ImGui::End();
}

}  // namespace pacer_demo
