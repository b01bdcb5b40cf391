#include "panels.hpp"

#include <algorithm>

#include <imgui.h>

namespace pacer_demo {

void draw_panels(Session& s, UiState& ui, const UiCost& cost, const Presenter& p, const Options& o, float width,
                 float height) {
    const float lw = std::min(330.0f, width * 0.3f), rw = width - lw, hw = rw * 0.5f;
    const float hc = std::max(height * 0.6f, height - 200.0f);
    const float h1 = height * 0.25f, h2 = height * 0.22f, h3 = height * 0.28f, h4 = height - h1 - h2 - h3;
    const float mw = rw * 0.45f;  // the motion test beside the display
    controls_panel(s, ui, 0, 0, lw, hc);
    status_panel(s, p, 0, hc, lw, height - hc);
    frame_time_panel(s, cost, lw, 0, rw, h1);
    histogram_panel(s, lw, h1, rw, h2);
    stats_panel(s, ui, lw, h1 + h2, hw, h3);
    cpu_panel(s, cost, lw + hw, h1 + h2, rw - hw, h3);
    display_panel(s, p, o, lw + mw, h1 + h2 + h3, rw - mw, h4);
    motion_panel(s, ui, lw, h1 + h2 + h3, mw, h4);
}

void style_panels() {
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0;
    style.ItemSpacing.y = 3.0f;  // a compact layout: everything fits 1280 x 800 without scrolling
    style.FramePadding.y = 2.0f;
    // The big plots get a border instead of a filled frame: under Xvfb every filled pixel is
    // shaded by the CPU (see NoBackground in panel()).
    style.Colors[ImGuiCol_Border] = ImVec4(0.35f, 0.37f, 0.45f, 0.8f);
    style.Colors[ImGuiCol_PlotLines] = ImVec4(0.95f, 0.95f, 0.98f, 1.0f);
}

}  // namespace pacer_demo
