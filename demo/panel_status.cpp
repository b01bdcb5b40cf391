// The status: the pacer's mode and waiter, and who paces (vsync or the wait). The display has a
// panel of its own (panel_display.cpp).

#include <algorithm>

#include "panels.hpp"
#include "priority_text.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

namespace {

// The thread priority asked for, what the OS granted, the lever and who granted it, and how often
// the real-time guard put the thread back (pacer/priority.hpp; the Controls panel's priority box
// has the guard's last step, the spin bound and the wake-ups past it).
void priority_lines(const pacer::PriorityStatus& pr) {
    if (pr.refused && pr.asked == pacer::ThreadPriority::automatic) {  // nothing the user must act on
        ImGui::Text("Priority automatic: the thread's own class, not raised:");
        ImGui::TextWrapped("%s", pr.reason);
    } else if (pr.refused) {
        ImGui::TextColored(kRed, "Priority %s refused:", pacer::to_string(pr.asked));
        ImGui::TextWrapped("%s", pr.reason);
    } else if (pr.asked == pacer::ThreadPriority::normal) {
        ImGui::Text("Priority normal (the thread's own class)");
    } else if (pr.granted) {
        ImGui::TextWrapped("Priority %s: %s (%s), %llu raise%s", pacer::to_string(pr.asked), pr.in_force,
                           pacer::tools::lever_and_grantor(pr.lever, pr.by).c_str(),
                           static_cast<unsigned long long>(pr.raises), pr.raises == 1 ? "" : "s");
    } else {
        ImGui::TextWrapped("Priority %s: %s", pacer::to_string(pr.asked),
                           pr.pending ? "the thread's own class for now" : "not yet asked");
    }
    if (pr.demotions > 0)  // red while the guard holds the thread at its own class
        ImGui::TextColored(pr.lever == pacer::PriorityLever::realtime ? kGrey : kRed, "Real-time guard: %llu demotion%s",
                           static_cast<unsigned long long>(pr.demotions), pr.demotions == 1 ? "" : "s");
}

}  // namespace

void status_panel(Session& s, const Presenter& p, float x, float y, float w, float h) {
    panel("Status", x, y, w, h);
    pacer::FramePacer& fp = s.pacer();
    const pacer::PacerStatus st = fp.status();
    const pacer::PacerConfig& c = fp.config();
    const pacer::FrameTiming& t = s.timing();
    ImGui::Text("%s wait, %s, %.2f Hz (%.3f ms)", pacer::to_string(c.mode),
                pacer::to_string(c.late_policy), c.target_hz, pacer::to_ms(st.period));
    ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
    ImGui::TextWrapped("%s", st.waiter.sleep_primitive);
    ImGui::PopStyleColor();
    // The waiter's learned margin (what the next hybrid wait subtracts), also in sleep/spin mode.
    ImGui::Text("Spin margin %.3f ms, from %lld sleeps", pacer::to_ms(st.waiter.margin),
                static_cast<long long>(st.waiter.sleeps_measured));
    ImGui::Text("Spin cap %.2f of %.1f ms", pacer::to_ms(st.waiter.spin_cap), pacer::to_ms(c.waiter.max_spin));
    if (st.waiter.preempted_spins > 0) {
        ImGui::SameLine();
        ImGui::TextColored(st.waiter.spin_cap < c.waiter.max_spin ? kRed : kGrey, "(%lld spins preempted)",
                           static_cast<long long>(st.waiter.preempted_spins));
    }
    priority_lines(st.waiter.priority);
    if (st.frames_in_flight > 0 || st.reports_lost > 0)  // presents named by frame: a render thread
        ImGui::Text("Presents %d frame%s behind, %llu reports lost", st.frames_in_flight,
                    st.frames_in_flight == 1 ? "" : "s", static_cast<unsigned long long>(st.reports_lost));
    ImGui::Text("Slept %.2f spun %.3f oversleep %.3f", pacer::to_ms(t.slept), pacer::to_ms(t.spun),
                pacer::to_ms(t.oversleep));
    const pacer::VsyncStatus vs = st.vsync;
    const bool manual = c.mode != pacer::WaitMode::vsync && c.mode != pacer::WaitMode::automatic;
    if (st.background)
        ImGui::TextColored(kGrey, "In the background: %g Hz, OS sleep only", std::min(c.background_hz, c.target_hz));
    ImGui::Text("Vsync requested: %s", p.requested > 0 ? "yes" : "no");
    ImGui::SameLine();
    if (p.in_effect >= 0)
        ImGui::TextColored(kGrey, "(%s, interval %d)", manual ? "by you" : "by the pacer", p.in_effect);
    else
        ImGui::TextColored(kRed, "(interval %d refused)", p.requested);
    ImGui::Text("Detected: %s   In use: %s", vs.detected ? "yes" : "no", vs.in_use ? "yes" : "no");
    ImGui::SameLine();
    ImGui::TextColored(kGrey, "(%d/%d locked)", st.vsync.locked_streak, pacer::VsyncDetector::kTrustAfter);
    ImGui::PushStyleColor(ImGuiCol_Text, kGrey);
    ImGui::TextWrapped("%s; this frame paced by %s", vs.reason, pacer::to_string(t.source));
    ImGui::PopStyleColor();
    if (s.coarse_ms() > 0)
        ImGui::TextColored(kRed, "Coarse scheduler injected: %d ms", s.coarse_ms());
    ImGui::End();
}

}  // namespace pacer_demo
