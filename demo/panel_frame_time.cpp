// The frame-time graph: the last seconds of frame intervals against the target.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

// PlotLines reads the newest `n` values of a ring through this, without copying. Frames are
// taken `bucket` at a time and the longest of each is plotted: at most one point per 2 pixels
// (fewer vertices for a software GL) and no spike is lost.
struct FrameView {
    const Session* s;
    std::size_t n;
    std::size_t bucket;
    int points() const { return static_cast<int>((n + bucket - 1) / bucket); }
};
float frame_getter(void* data, int i) {
    const auto* v = static_cast<const FrameView*>(data);
    const std::size_t first = static_cast<std::size_t>(i) * v->bucket;
    const std::size_t end = std::min(v->n, first + v->bucket);
    float worst = 0;
    for (std::size_t k = first; k < end; ++k) worst = std::max(worst, v->s->frame_ms.last(v->n, k));
    return worst;
}

}  // namespace

void frame_time_panel(Session& s, const UiCost& cost, float x, float y, float w, float h) {
    panel("Frame times", x, y, w, h);
    const double target = pacer::to_ms(s.target_period());
    const double hz = target > 0 ? 1000.0 / target : s.pacer().config().target_hz;
    // The last ~6 s of frames, at most the ring.
    const std::size_t shown = std::min<std::size_t>(s.frame_ms.count,
                                  std::clamp<std::size_t>(static_cast<std::size_t>(6.0 * hz), 60,
                                                          Session::kGraphFrames));
    if (s.replaying())
        ImGui::TextColored(kGreen, "Replay of %s (%s): frame %zu of %zu%s",
                           std::filesystem::path(s.replay().path()).filename().string().c_str(),
                           s.replay().format().c_str(), s.replay_position(), s.replay().size(),
                           s.replay().has_target() ? "" : "; target = the file's median frame time");
    ImGui::Text("Frame interval (%s) of the last %.1f s (%zu frames).  Now %.2f ms.  "
                "Target %.2f ms (%.1f Hz).", s.replaying() ? "the file's frame time" : "wake to wake",
                static_cast<double>(shown) / hz, shown, shown ? static_cast<double>(s.frame_ms.last(shown, shown - 1)) : 0.0,
                target, hz);
    const float top = static_cast<float>(3.0 * target);
    // ImGui 1.86's PlotLines takes no negative ("fill") width: give the sizes explicitly.
    const ImVec2 size(ImGui::GetContentRegionAvail().x,
                      ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing());
    const std::size_t half_px = std::max<std::size_t>(1, static_cast<std::size_t>(size.x / 2));
    FrameView view{&s, shown, std::max<std::size_t>(1, (shown + half_px - 1) / half_px)};
    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::PlotLines("##frametimes", frame_getter, &view, view.points(), 0, nullptr, 0.0f, top, size);
    ImGui::PopStyleColor();
    outline_item();
    const ImVec2 pad = ImGui::GetStyle().FramePadding;
    ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    lo.x += pad.x; lo.y += pad.y; hi.x -= pad.x; hi.y -= pad.y;
    char label[64];
    std::snprintf(label, sizeof label, "target %.2f ms", target);
    plot_marker(lo, hi, 1.0f / 3.0f, kTargetLine, label);
    std::snprintf(label, sizeof label, "2x target %.2f ms", 2 * target);
    plot_marker(lo, hi, 2.0f / 3.0f, kDoubleLine, label);
    // Frames that cost more than the period: the reason in red instead of the scale's caption.
    const pacer::PacerStatus st = s.pacer().status();
    const std::string overrun =
        s.replaying() ? std::string() : overrun_text(s.summary(), st.rate.hz, st.vsync.in_use, cost.swap.avg);
    if (!overrun.empty())
        ImGui::TextColored(kRed, "%s; scale 0 .. %.1f ms", overrun.c_str(), static_cast<double>(top));
    else
        ImGui::TextColored(kGrey, "scale 0 .. %.1f ms (3x target); spikes above are clipped. "
                                  "A flat line on the green mark is perfect pacing.", static_cast<double>(top));
    ImGui::End();
}

}  // namespace pacer_demo
