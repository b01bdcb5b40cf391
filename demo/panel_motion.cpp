// The motion test: a box moved by the fixed-step simulation, drawn interpolated or raw, or one that
// follows the mouse, with the age of the input it shows.
#include <algorithm>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

void motion_panel(Session& s, UiState& ui, float x, float y, float w, float h) {
    panel("Motion test", x, y, w, h);
    const pacer::FixedStep::Advance& a = s.advance();
    ImGui::Text("%.0f Hz fixed step: alpha %.2f, %d step%s this frame", s.sim().config().step_hz, a.alpha, a.steps,
                a.steps == 1 ? "" : "s");
    ImGui::Checkbox("interpolate", &ui.interpolate);
    ImGui::SameLine();
    ImGui::Checkbox("raw sim (red)", &ui.show_raw);
    ImGui::SameLine();
    ImGui::Checkbox("follow the mouse", &ui.follow_mouse);
    // The mouse position comes from the events read right after mark_input(): FrameTiming::latency
    // of this frame tells how old that input was when the previous frame reached the screen.
    const pacer::FrameTiming& t = s.timing();
    if (t.latency.count() > 0)
        ImGui::TextColored(t.shown_late ? kRed : kGrey, "input %.2f ms old when shown%s", pacer::to_ms(t.latency),
                           t.shown_late ? " (late)" : "");
    else
        ImGui::TextColored(kGrey, "input age: no present yet");
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
    double pos = ui.interpolate ? mo.at(a.alpha) : mo.x;
    if (ui.follow_mouse && span > 0)
        pos = std::clamp((static_cast<double>(ImGui::GetIO().MousePos.x) - p.x - box * 0.5) / span, 0.0, 1.0);
    const float bx = p.x + static_cast<float>(pos) * span;
    dl->AddRectFilled(ImVec2(bx, p.y + 4), ImVec2(bx + box, p.y + 4 + box), IM_COL32(235, 235, 245, 255));
    ImGui::Dummy(ImVec2(avail.x, track_h));
    ImGui::TextColored(kGrey, "Smooth: paced well. Jumps: stutter. Uneven: judder.");
    ImGui::End();
}

}  // namespace pacer_demo
