// demo/ui_common.hpp - what the windowed demo's panels share: colours, the fixed panel frame and the
// markers drawn over plots. Call between ImGui::NewFrame and ImGui::Render.
#pragma once


#include <imgui.h>

namespace pacer_demo {

inline const ImVec4 kRed(1.0f, 0.38f, 0.35f, 1.0f);
inline const ImVec4 kGreen(0.45f, 0.85f, 0.45f, 1.0f);
inline const ImVec4 kGrey(0.62f, 0.62f, 0.66f, 1.0f);
inline const ImU32 kTargetLine = IM_COL32(90, 220, 90, 220);
inline const ImU32 kDoubleLine = IM_COL32(255, 150, 40, 220);

// Begins a fixed window at (x, y), w x h; the caller ends it with ImGui::End().
void panel(const char* name, float x, float y, float w, float h);
void section(const char* title);  // a separator and a grey title
void outline_item();              // a border around the last item: the plots have no filled frame

// A labelled line across a plot whose inner rectangle is lo..hi, at `frac` of its height (from the
// bottom) or of its width (from the left); nothing outside [0, 1].
void plot_marker(const ImVec2& lo, const ImVec2& hi, float frac, ImU32 col, const char* label);
void vertical_marker(const ImVec2& lo, const ImVec2& hi, float frac, ImU32 col, const char* label);

}  // namespace pacer_demo
