// The controls: each applies through a Session setter and shows the library's verdict.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "panels.hpp"
#include "priority_text.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

void rate_controls(Session& s, UiState& ui) {
    ImGui::TextUnformatted("Target rate");
    for (double hz : {30.0, 60.0, 120.0, 144.0, 240.0}) {
        char b[16];
        std::snprintf(b, sizeof b, "%.0f", hz);
        if (ImGui::Button(b, ImVec2(42, 0))) {
            ui.any_hz = hz;
            ui.report(s.set_rate(hz), std::string("rate ") + b + " Hz");
        }
        ImGui::SameLine();
    }
    ImGui::NewLine();
    if (ImGui::InputDouble("Hz (Enter)", &ui.any_hz, 0, 0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue)) {
        // Events are read once per frame: below 1 Hz the window would stop answering, so the UI
        // refuses what the library would accept (the command line still takes it).
        if (ui.any_hz > 0 && ui.any_hz < 1.0)
            ui.report(pacer::Status::error("the window needs at least 1 Hz to stay responsive"), "");
        else
            ui.report(s.set_rate(ui.any_hz), "rate applied");
    }
}

void mode_controls(Session& s, UiState& ui) {
    section("Wait mode");
    for (int i = 0; i < kModeCount; ++i) {
        const auto& m = pacer::kWaitModeNames[i];
        if (ImGui::RadioButton(m.name, &ui.mode, i)) ui.report(s.set_mode(m.value), std::string("mode ") + m.name);
        if (i != 2 && i + 1 < kModeCount) ImGui::SameLine();
    }
    const auto policy_name = [](void*, int i, const char** out) {
        *out = pacer::kLatePolicyNames[i].name;
        return true;
    };
    bool pol_changed = ImGui::Combo("late policy", &ui.policy, policy_name, nullptr, kPolicyCount);
    pol_changed |= ImGui::InputInt("max catch-up", &ui.max_catch_up, 1, 1, ImGuiInputTextFlags_EnterReturnsTrue);
    if (pol_changed)
        ui.report(s.set_policy(pacer::kLatePolicyNames[ui.policy].value, ui.max_catch_up), "late policy applied");
}

// Where the frame waits, and just_in_time's budget of late frames: one line.
void sync_controls(Session& s, UiState& ui, float w) {
    const auto sync_name = [](void*, int i, const char** out) {
        *out = pacer::kSyncModeNames[i].name;
        return true;
    };
    ImGui::SetNextItemWidth(w * 0.36f);
    if (ImGui::Combo("sync", &ui.sync, sync_name, nullptr, kSyncCount))
        ui.report(s.set_sync(pacer::kSyncModeNames[ui.sync].value),
                  std::string("sync ") + pacer::kSyncModeNames[ui.sync].name);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w * 0.18f);
    if (ImGui::InputDouble("late share", &ui.max_late_share, 0, 0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue))
        ui.report(s.set_max_late_share(ui.max_late_share), "late-frame budget applied");
}

// The display: waits placed against the fitted vblanks, the target following the refresh, and the
// cadence governor. One line.
void display_controls(Session& s, UiState& ui, float w) {
    if (ImGui::Checkbox("display lock", &ui.display_lock))
        ui.report(s.set_display_lock(ui.display_lock), std::string("display lock ") + (ui.display_lock ? "on" : "off"));
    ImGui::SameLine();
    if (ImGui::Checkbox("match", &ui.match_display))
        ui.report(s.set_match_display(ui.match_display),
                  ui.match_display ? "target follows the display's refresh" : "target is the rate set above");
    ImGui::SameLine();
    const auto cadence_name = [](void*, int i, const char** out) {
        *out = pacer::kCadenceModeNames[i].name;
        return true;
    };
    ImGui::SetNextItemWidth(w * 0.2f);
    if (ImGui::Combo("cadence", &ui.cadence, cadence_name, nullptr, kCadenceCount))
        ui.report(s.set_cadence(pacer::kCadenceModeNames[ui.cadence].value),
                  std::string("cadence ") + pacer::kCadenceModeNames[ui.cadence].name);
}

void waiter_controls(Session& s, UiState& ui) {
    section("Hybrid waiter estimator");
    ImGui::InputDouble("late cost ms", &ui.late_cost_ms, 0, 0, "%.2f");
    ImGui::InputDouble("half-life (sleeps)", &ui.half_life, 0, 0, "%.0f");
    ImGui::InputDouble("initial margin us", &ui.initial_us, 0, 0, "%.0f");
    ImGui::InputDouble("min margin us", &ui.min_us, 0, 0, "%.0f");
    ImGui::InputDouble("spin cap us", &ui.max_spin_us, 0, 0, "%.0f");
    // A raised thread's spin bound, as a share of the period (WaiterConfig::raised_spin_share).
    constexpr double kShareLo = 0.01, kShareHi = 1.0;  // Ctrl+click types any value: the library judges it
    ImGui::SliderScalar("raised spin share", ImGuiDataType_Double, &ui.raised_spin_share, &kShareLo, &kShareHi, "%.2f");
    if (ImGui::Button("Apply waiter settings")) {
        pacer::WaiterConfig wc = s.pacer().config().waiter;  // the priority set under Load stays
        const auto ns = [](double us) {
            return std::chrono::nanoseconds(std::isfinite(us) && std::fabs(us) < 1e12
                                                ? static_cast<std::int64_t>(us * 1000.0)
                                                : std::int64_t{-1});
        };
        wc.late_cost = ns(ui.late_cost_ms * 1000.0);
        wc.half_life = ui.half_life;
        wc.initial_margin = ns(ui.initial_us);
        wc.min_margin = ns(ui.min_us);
        wc.max_spin = ns(ui.max_spin_us);
        wc.raised_spin_share = ui.raised_spin_share;
        ui.report(s.set_waiter(wc), "waiter settings applied");
    }
}

void sim_controls(Session& s, UiState& ui) {
    section("Fixed-step simulation");
    ImGui::InputDouble("sim Hz", &ui.sim_hz, 0, 0, "%.1f");
    ImGui::InputInt("max steps/frame", &ui.max_steps);
    if (ImGui::Button("Apply simulation"))
        ui.report(s.set_sim(ui.sim_hz, ui.max_steps), "simulation rate applied");
}

// The pacing thread's class beside the load it competes with: what the OS granted, the lever and
// who granted it, the raised spin's bound and the wake-ups past it, what the real-time guard did
// (pacer/priority.hpp, pacer/guard.hpp; the Status panel repeats the grant).
void priority_box(Session& s, UiState& ui, float w) {
    const auto priority_name = [](void*, int i, const char** out) {
        *out = pacer::kThreadPriorityNames[i].name;
        return true;
    };
    ImGui::SetNextItemWidth(w * 0.3f);
    if (ImGui::Combo("priority", &ui.priority, priority_name, nullptr, kPriorityCount))
        ui.report(s.set_priority(pacer::kThreadPriorityNames[ui.priority].value),
                  std::string("priority ") + pacer::kThreadPriorityNames[ui.priority].name);
    ImGui::SameLine();
    const pacer::WaiterStatus ws = s.pacer().status().waiter;
    const pacer::PriorityStatus& ps = ws.priority;
    // Beside the box, what is in force in short ("SCHED_RR 5"; the Status panel has the rest).
    const std::string in_force(ps.in_force, std::strcspn(ps.in_force, "("));
    if (ps.refused && ps.asked == pacer::ThreadPriority::automatic) ImGui::TextDisabled("own class (not granted)");
    else if (ps.refused) ImGui::TextColored(kRed, "refused");
    else if (ps.asked == pacer::ThreadPriority::normal) ImGui::TextDisabled("own class");
    else if (ps.granted) ImGui::Text("%s", in_force.c_str());
    else if (ps.pending) ImGui::TextDisabled("own class for now");
    else ImGui::TextDisabled("not yet asked");
    const std::string guard = pacer::tools::guard_text(ps);
    ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
    if (ps.granted) ImGui::TextWrapped("%s", pacer::tools::lever_and_grantor(ps.lever, ps.by).c_str());
    if (ps.pending && ps.reason[0] && guard.empty()) ImGui::TextWrapped("%s", ps.reason);  // an ask under way
    if (ws.spin_bound.count() > 0 || ws.wakeups_past_bound > 0)
        ImGui::TextWrapped("%s", pacer::tools::spin_bound_text(ws, s.pacer().config().waiter.raised_spin_share).c_str());
    ImGui::PopStyleColor();
    // The guard's last step: red while it holds the thread at its own class, grey once raised again.
    if (!guard.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ps.lever == pacer::PriorityLever::realtime ? kGrey : kRed);
        ImGui::TextWrapped("%s", guard.c_str());
        ImGui::PopStyleColor();
    }
}

void load_controls(Session& s, UiState& ui, float w) {
    section("Load");
    bool work = ImGui::SliderFloat("work ms", &ui.work_ms, 0.0f, 20.0f, "%.2f");
    work |= ImGui::SliderFloat("jitter +- ms", &ui.jitter_ms, 0.0f, 10.0f, "%.2f");
    if (work) ui.report(s.set_work(ui.work_ms, ui.jitter_ms), "work applied");
    const int max_threads = std::min(kMaxLoadThreads, 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    if (ImGui::SliderInt("busy threads", &ui.load, 0, max_threads))
        ui.report(s.set_load(ui.load), "busy threads: " + std::to_string(ui.load));
    priority_box(s, ui, w);
    bool coarse = ImGui::Checkbox("coarse scheduler", &ui.coarse);
    ImGui::SameLine();
    ImGui::PushItemWidth(w * 0.25f);
    coarse |= ImGui::SliderInt("ms", &ui.coarse_ms, 1, 10);
    ImGui::PopItemWidth();
    if (coarse) ui.report(s.set_coarse(ui.coarse ? ui.coarse_ms : 0),
                          ui.coarse ? "fake scheduler period " + std::to_string(ui.coarse_ms) + " ms"
                                    : "real OS sleep");
    // In vsync and auto modes the pacer chooses the swap interval (Presenter).
    const pacer::WaitMode m = s.pacer().config().mode;
    const bool pacer_owns_vsync = m == pacer::WaitMode::vsync || m == pacer::WaitMode::automatic;
    ImGui::BeginDisabled(pacer_owns_vsync);
    if (ImGui::Checkbox(pacer_owns_vsync ? "vsync (set by the pacer in this mode)" : "vsync (SDL_GL_SetSwapInterval)",
                        &ui.vsync))
        ui.report({}, std::string("vsync ") + (ui.vsync ? "requested" : "off"));
    ImGui::EndDisabled();
    if (ImGui::Checkbox("render thread (present a frame behind)", &ui.render_thread))
        ui.report({}, std::string("render thread ") + (ui.render_thread ? "on" : "off"));
}

void reset_and_verdict(Session& s, UiState& ui) {
    ImGui::Separator();
    if (ImGui::Button("Reset statistics", ImVec2(-1, 0))) {
        s.reset_stats();
        ui.message_error = false;
        ui.message = "statistics reset";
    }
    if (!ui.message.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ui.message_error ? kRed : kGreen);
        ImGui::TextWrapped("%s%s", ui.message_error ? "Refused: " : "", ui.message.c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace

void controls_panel(Session& s, UiState& ui, float x, float y, float w, float h) {
    panel("Controls", x, y, w, h);
    ImGui::PushItemWidth(w * 0.42f);
    rate_controls(s, ui);
    mode_controls(s, ui);
    sync_controls(s, ui, w);
    display_controls(s, ui, w);
    waiter_controls(s, ui);
    load_controls(s, ui, w);  // before the simulation: the load and the priority box stay in view
    sim_controls(s, ui);
    reset_and_verdict(s, ui);
    ImGui::PopItemWidth();
    ImGui::TextColored(kGrey, "Esc quits.");
    ImGui::End();
}

}  // namespace pacer_demo
