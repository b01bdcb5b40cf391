// The histograms of frame intervals and of deadline lateness.
#include <cfloat>
#include <cstdio>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

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

}  // namespace pacer_demo
