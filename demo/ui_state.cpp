#include "ui_state.hpp"

#include <cstdio>

#include "session.hpp"
#include "ui_common.hpp"

namespace pacer_demo {

UiState::UiState(const Options& o, Session& s) {
    any_hz = o.hz;
    // Options hold valid values only: always listed.
    mode = std::max(0, pacer::index_of(pacer::kWaitModeNames, o.mode));
    policy = std::max(0, pacer::index_of(pacer::kLatePolicyNames, o.policy));
    sync = std::max(0, pacer::index_of(pacer::kSyncModeNames, o.sync));
    max_late_share = o.max_late_share;
    display_lock = o.display_lock;
    match_display = o.match_display;
    cadence = std::max(0, pacer::index_of(pacer::kCadenceModeNames, o.cadence));
    priority = std::max(0, pacer::index_of(pacer::kThreadPriorityNames, o.priority));
    sim_hz = o.sim_hz;
    work_ms = static_cast<float>(o.work_ms);
    jitter_ms = static_cast<float>(o.work_jitter_ms);
    load = o.load;
    coarse = o.coarse_ms > 0;
    coarse_ms = o.coarse_ms > 0 ? o.coarse_ms : 4;
    vsync = o.vsync;
    render_thread = o.render_thread;
    const pacer::WaiterConfig& wc = s.pacer().config().waiter;
    late_cost_ms = pacer::to_ms(wc.late_cost);
    half_life = wc.half_life;
    initial_us = pacer::to_ms(wc.initial_margin) * 1000;
    min_us = pacer::to_ms(wc.min_margin) * 1000;
    max_spin_us = pacer::to_ms(wc.max_spin) * 1000;
    raised_spin_share = wc.raised_spin_share;
    max_steps = s.sim().config().max_steps;
    if (!o.replay.empty()) std::snprintf(replay_path, sizeof replay_path, "%s", o.replay.c_str());
}

void UiState::report(const pacer::Status& s, const std::string& ok_text) {
    message_error = !s.ok();
    message = s.ok() ? ok_text : s.message();
}

}  // namespace pacer_demo
