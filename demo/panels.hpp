// demo/panels.hpp - the windowed demo's panels (Dear ImGui), each a fixed window at (x, y), w x h.
// Call between ImGui::NewFrame and ImGui::Render.
#pragma once

#include "options.hpp"
#include "presenter.hpp"
#include "session.hpp"
#include "ui_state.hpp"

namespace pacer_demo {

// What is measured.
// The frame-time graph; under it, why the frames cannot hold the rate when they cost more than the
// period (overrun_text, with the swap's wall time from `cost`).
void frame_time_panel(Session& s, const UiCost& cost, float x, float y, float w, float h);
void histogram_panel(Session& s, float x, float y, float w, float h);   // intervals and lateness
void stats_panel(Session& s, UiState& ui, float x, float y, float w, float h);  // percentiles, capture
void cpu_panel(Session& s, const UiCost& cost, float x, float y, float w, float h);
void motion_panel(Session& s, UiState& ui, float x, float y, float w, float h);  // the fixed-step box
// The display: refresh, vblank lock, phase error, cadence, VRR, presents against the vblanks.
void display_panel(Session& s, const Presenter& p, const Options& o, float x, float y, float w, float h);
void status_panel(Session& s, const Presenter& p, float x, float y, float w, float h);
// What the user changes.
void controls_panel(Session& s, UiState& ui, float x, float y, float w, float h);

// Every panel, tiling a display of width x height: controls over status on the left, what is
// measured on the right, top to bottom.
void draw_panels(Session& s, UiState& ui, const UiCost& cost, const Presenter& p, const Options& o, float width,
                 float height);

// The panels' look, on the current ImGui context: a compact layout that fits 1280 x 800, and
// borders instead of filled frames (every filled pixel costs CPU under a software GL).
void style_panels();

}  // namespace pacer_demo
