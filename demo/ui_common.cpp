#include "ui_common.hpp"

namespace pacer_demo {

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

void outline_item() {
    ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                        ImGui::GetColorU32(ImGuiCol_Border));
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

}  // namespace pacer_demo
