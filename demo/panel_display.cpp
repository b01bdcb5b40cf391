// The display as the pacer sees it: refresh and where it comes from, the vblank fit (lock state,
// phase error, skew), the cadence, VRR, and the presents drawn against the predicted vblanks.
#include <algorithm>
#include <cstdio>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

ImVec4 state_colour(pacer::DisplayState st) {
    switch (st) {
        case pacer::DisplayState::locked: return kGreen;
        case pacer::DisplayState::lost: return kRed;
        default: return kGrey;
    }
}

// Where the refresh the host reports comes from.
const char* refresh_source(const Options& o) {
    if (o.refresh_hz > 0) return "--refresh-hz";
    if (o.fake_vsync_hz > 0) return "--fake-vsync";
    return "reported by SDL";
}

struct OffsetView {
    const Session* s;
    std::size_t n;
};
float offset_getter(void* data, int i) {
    const auto* v = static_cast<const OffsetView*>(data);
    return v->s->vblank_offset_ms.last(v->n, static_cast<std::size_t>(i));
}

// Refresh: reported (and by whom), what the fit says, what the swap shows.
void refresh_line(const pacer::PacerStatus& st, const Presenter& p, const Options& o) {
    const pacer::DisplayStatus& d = st.display;
    if (p.refresh_hz > 0)
        ImGui::Text("Refresh %.2f Hz (%s),", p.refresh_hz, refresh_source(o));
    else
        ImGui::Text("Refresh not reported,");
    ImGui::SameLine();
    if (d.refresh_hz > 0)
        ImGui::Text("fit %.3f Hz (%+.0f ppm)", d.refresh_hz, d.skew_ppm);
    else
        ImGui::TextColored(kGrey, "not fitted");
    if (const double swap_hz = st.vsync.swap_hz; swap_hz > 0) {
        ImGui::SameLine();
        ImGui::TextColored(kGrey, "swap %.2f Hz", swap_hz);
    }
}

// Where the vblanks come from and what its feedback says: its flags, frames shown against submitted.
void source_line(const pacer::PacerStatus& st, const Presenter& p) {
    ImGui::Text("Vblanks from %s,", p.vblank_source);
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "flags: %s", p.vblank_flags.c_str());
    if (!st.presents.feedback) {
        ImGui::TextColored(kGrey, "Shown frames unknown (no presentation feedback), %llu submitted",
                           static_cast<unsigned long long>(st.presents.submitted));
        return;
    }
    ImGui::Text("Shown %llu of %llu submitted, %llu dropped; shown at %.2f Hz",
                static_cast<unsigned long long>(st.presents.shown), static_cast<unsigned long long>(st.presents.submitted),
                static_cast<unsigned long long>(st.presents.dropped), st.display.shown_hz);
}

// The fit: state and reason, the display's kind, the fit's figures.
void fit_lines(const pacer::DisplayStatus& d) {
    ImGui::TextColored(state_colour(d.state), "%s:", pacer::to_string(d.state));
    ImGui::SameLine(0, 4);
    ImGui::TextColored(kGrey, "%s", d.reason);
    if (d.state == pacer::DisplayState::vrr)
        ImGui::Text("VRR, presents at %.1f-%.1f Hz", d.vrr_min_hz, d.vrr_max_hz);
    else if (d.state == pacer::DisplayState::unsynced)
        ImGui::Text("No vblank grid: frames shown on the compositor's timer");
    else if (d.state == pacer::DisplayState::locked)
        ImGui::Text("Fixed refresh, %.4f ms", pacer::to_ms(d.period));
    else
        ImGui::TextColored(kGrey, "Fixed or VRR: not known");
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "%llu vblanks, %llu locks, residual %.3f ms",
                       static_cast<unsigned long long>(d.vblanks), static_cast<unsigned long long>(d.locks),
                       pacer::to_ms(d.residual));
}

// The cadence in force and why; the lock setting, whether this frame's wait used the fit, and
// how far the recent presents returned from the predicted vblanks.
void cadence_lines(const Session& s, const pacer::PacerConfig& c, const pacer::FrameTiming& t) {
    ImGui::Text("Cadence %s: 1 frame per %u, %.2f Hz", pacer::to_string(c.cadence), t.cadence, t.cadence_hz);
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "%s", c.match_display ? "target = refresh" : "target as set");
    ImGui::Text("Lock %s%s;", c.display_lock ? "on" : "off", t.display_locked ? ", wait on the fit" : "");
    ImGui::SameLine();
    if (s.phase_p50_ms() >= 0)
        ImGui::Text("phase error p50 %.3f ms, p99 %.3f ms", s.phase_p50_ms(), s.phase_p99_ms());
    else
        ImGui::TextColored(kGrey, "phase error: no vblank predicted yet");
}

// Presents against the vblanks: each present's offset from the nearest predicted vblank, on a
// scale of one period (the vblank in the middle).
void vblank_plot(const Session& s, const pacer::DisplayStatus& d) {
    const double period_ms = pacer::to_ms(d.period);
    const std::size_t n = std::min(Session::kPhaseFrames, s.vblank_offset_ms.count);  // the phase-error presents
    const ImVec2 size(ImGui::GetContentRegionAvail().x,
                      std::max(24.0f, ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing()));
    const float half = period_ms > 0 ? static_cast<float>(period_ms / 2) : 8.0f;
    OffsetView view{&s, n};
    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::PlotLines("##vblank_offsets", offset_getter, &view, static_cast<int>(n), 0, nullptr, -half, half, size);
    ImGui::PopStyleColor();
    outline_item();
    const ImVec2 pad = ImGui::GetStyle().FramePadding;
    ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    lo.x += pad.x;
    lo.y += pad.y;
    hi.x -= pad.x;
    hi.y -= pad.y;
    plot_marker(lo, hi, 0.5f, kTargetLine, "predicted vblank");
    ImGui::TextColored(kGrey, "present - nearest predicted vblank, %zu presents, +-%.2f ms", n,
                       static_cast<double>(half));
}

}  // namespace

void display_panel(Session& s, const Presenter& p, const Options& o, float x, float y, float w, float h) {
    panel("Display", x, y, w, h);
    pacer::FramePacer& fp = s.pacer();
    const pacer::PacerStatus st = fp.status();
    const pacer::DisplayStatus& d = st.display;
    refresh_line(st, p, o);
    source_line(st, p);
    fit_lines(d);
    cadence_lines(s, fp.config(), s.timing());
    vblank_plot(s, d);
    ImGui::End();
}

}  // namespace pacer_demo
