// The statistics: percentiles, lows, missed deadlines, stutters, and the capture controls.
#include <string>

#include "panels.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

// The frames have periods to judge intervals by: a live run's, or a file's own target frame
// times (a file without them gets its median frame time as a stand-in period, replay.cpp, and
// an error against that would be no pacing error).
bool interval_error_known(Session& s, const pacer::StatsSummary& m) {
    return m.interval_error_frames > 0 && (!s.replaying() || s.replay().has_target());
}

void percentile_table(const pacer::StatsSummary& m, bool interval_error) {
    if (ImGui::BeginTable("pct", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 76.0f);
        for (const char* c : {"mean", "p50", "p90", "p99", "p99.9", "max"})
            ImGui::TableSetupColumn(c);
        ImGui::TableHeadersRow();
        const auto row = [](const char* name, const pacer::TimeDistribution& d, const char* fmt) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name);
            for (std::chrono::nanoseconds v : {d.mean, d.p50, d.p90, d.p99, d.p999, d.max}) {
                ImGui::TableNextColumn();
                ImGui::Text(fmt, pacer::to_ms(v));
            }
        };
        row("frame time", m.interval, "%.2f");
        row("lateness", m.lateness, "%.3f");
        if (m.latency_frames > 0) row("latency", m.latency, "%.2f");
        if (interval_error) row("interval_error", m.interval_error, "%.3f");
        ImGui::EndTable();
    }
}

// Start / stop of a frame-time capture, or its progress.
void capture_controls(Session& s, UiState& ui) {
    if (!s.capture().is_open()) {
        ImGui::InputText("##capture", ui.capture_path, sizeof ui.capture_path);
        ImGui::SameLine();
        if (ImGui::Button("Start capture"))
            ui.report(s.start_capture(ui.capture_path), std::string("capturing to ") + ui.capture_path);
        ImGui::SameLine();
        ImGui::TextColored(kGrey, "PresentMon CSV");
    } else {
        const pacer::CaptureWriter& c = s.capture();
        if (c.failed())
            ImGui::TextColored(kRed, "%llu rows, %llu lost", static_cast<unsigned long long>(c.rows()),
                               static_cast<unsigned long long>(c.rows_dropped()));
        else
            ImGui::Text("%llu rows to %s", static_cast<unsigned long long>(c.rows()), c.path().c_str());
        ImGui::SameLine();
        if (ImGui::Button("Stop")) {
            const std::string path = c.path();
            ui.report(s.stop_capture(), "wrote " + path + " and " + pacer::CaptureWriter::stats_path(path));
        }
    }
}

// A capture file shown instead of the live frames (demo/replay.hpp): load, play or step, back to live.
void replay_controls(Session& s, UiState& ui) {
    if (!s.replaying()) {
        ImGui::InputText("##replay", ui.replay_path, sizeof ui.replay_path);
        ImGui::SameLine();
        if (ImGui::Button("Replay file")) ui.report(s.start_replay(ui.replay_path), std::string("replaying ") + ui.replay_path);
        ImGui::SameLine();
        ImGui::TextColored(kGrey, "any capture");
        return;
    }
    if (ImGui::Button(s.replay_playing() ? "Pause" : "Play")) s.set_replay_playing(!s.replay_playing());
    ImGui::SameLine();
    if (ImGui::Button("Step")) s.step_replay(1);
    ImGui::SameLine();
    if (ImGui::Button("Step 100")) s.step_replay(100);
    ImGui::SameLine();
    if (ImGui::Button("Restart")) s.restart_replay();
    ImGui::SameLine();
    if (ImGui::Button("Live")) {
        s.stop_replay();
        ui.report({}, "live frames");
    }
    ImGui::SameLine();
    ImGui::Text("%zu / %zu", s.replay_position(), s.replay().size());
}

}  // namespace

void stats_panel(Session& s, UiState& ui, float x, float y, float w, float h) {
    panel(s.replaying() ? "Statistics (replayed file: its last 4096 frames shown)###stats"
                        : "Statistics (window of the last 4096 frames)###stats",
          x, y, w, h);
    const pacer::StatsSummary& m = s.summary();
    const bool interval_error = interval_error_known(s, m);
    percentile_table(m, interval_error);
    ImGui::Text("Average FPS  %.1f      1%% low  %.1f      0.1%% low  %.1f", m.avg_fps, m.low1_fps,
                m.low01_fps);
    if (interval_error)
        ImGui::Text("off_100us_share  %.2f %%   (intervals off their period by more than 100 us)",
                    100 * m.off_100us_share);
    else
        ImGui::TextColored(kGrey, "interval_error  unknown: no period for the frames");
    const ImVec4 miss_col = m.missed > 0 ? kRed : kGreen;
    ImGui::TextColored(miss_col, "Missed deadlines  %zu in window, %llu since reset (%llu skips)",
                       m.missed, static_cast<unsigned long long>(m.missed_total),
                       static_cast<unsigned long long>(m.skipped_total));
    ImGui::TextColored(s.stutters() > 0 ? kRed : kGreen,
                       "Stutters  %llu  (frame > 2.5x average of previous 20)",
                       static_cast<unsigned long long>(s.stutters()));
    ImGui::TextColored(kGrey, "Missed: woke > %.2f ms after its deadline, or skipped a slot.",
                       pacer::to_ms(s.pacer().config().miss_tolerance));
    // A percentage only where something says when frames were shown (session.hpp, shown_late_known).
    const bool vsync_in_use = s.pacer().status().vsync.in_use;
    if (const std::string late = shown_late_text(m, vsync_in_use, s.pacer().config().sync); !late.empty())
        ImGui::TextColored(shown_late_known(m, vsync_in_use) ? ImGui::GetStyleColorVec4(ImGuiCol_Text) : kGrey, "%s",
                           late.c_str());
    ImGui::Separator();
    ImGui::PushItemWidth(w * 0.45f);
    capture_controls(s, ui);
    replay_controls(s, ui);
    ImGui::PopItemWidth();
    ImGui::End();
}

}  // namespace pacer_demo
