// tools/lib/priority_text.cpp - the pacing thread's priority in words (priority_text.hpp).
#include "priority_text.hpp"

#include <cstdio>

#include "pacer/modes.hpp"

namespace pacer::tools {

const char* grantor_words(PriorityGrantor by) noexcept {
    switch (by) {
    case PriorityGrantor::os: return "the OS";
    case PriorityGrantor::realtimekit: return "RealtimeKit";
    case PriorityGrantor::portal: return "the Realtime portal";
    case PriorityGrantor::host: return "the host";
    case PriorityGrantor::none: break;
    }
    return "no one";
}

std::string lever_and_grantor(PriorityLever lever, PriorityGrantor by) {
    if (lever == PriorityLever::none) return "";
    return std::string(to_string(lever)) + ", by " + grantor_words(by);
}

namespace {

// "<in force> granted (<lever>, by <grantor>)".
std::string granted(const char* in_force, PriorityLever lever, PriorityGrantor by) {
    std::string out = std::string(in_force) + " granted";
    if (lever != PriorityLever::none) out += " (" + lever_and_grantor(lever, by) + ")";
    return out;
}

}  // namespace

std::string grant_text(const PriorityGrant& g) {
    if (g.granted) {
        std::string out = granted(g.in_force, g.lever, g.by);
        if (g.pending && g.reason[0]) out += std::string("; ") + g.reason;
        return out;
    }
    if (g.pending) return std::string("the thread's own class for now: ") + g.reason;
    return std::string("refused, paces as normal: ") + (g.reason[0] ? g.reason : "refused");
}

std::string priority_text(const PriorityStatus& s) {
    if (s.asked == ThreadPriority::normal) return "the thread's own class, never changed";
    if (s.granted) {
        std::string out = granted(s.in_force, s.lever, s.by);
        if (s.pending && s.reason[0]) out += std::string("; ") + s.reason;
        return out;
    }
    if (s.pending) return std::string("the thread's own class for now: ") + s.reason;
    if (s.refused) return std::string("refused, paces as normal: ") + s.reason;
    return "not yet asked";
}

std::string guard_text(const PriorityStatus& s) {
    if (s.demotions == 0 && s.guard[0] == '\0') return "";
    char b[64];
    std::snprintf(b, sizeof b, "real-time guard: %llu demotion%s", static_cast<unsigned long long>(s.demotions),
                  s.demotions == 1 ? "" : "s");
    std::string out = b;
    if (s.guard[0]) out += std::string(", last step: ") + s.guard;
    return out;
}

std::string spin_bound_text(const WaiterStatus& w, double share) {
    char b[160];
    const auto past = static_cast<long long>(w.wakeups_past_bound);
    if (w.spin_bound.count() > 0)
        std::snprintf(b, sizeof b, "spin bound %.3f ms (%g of the period), %lld wake-up%s past it",
                      static_cast<double>(w.spin_bound.count()) / 1e6, share, past, past == 1 ? "" : "s");
    else if (past > 0)
        std::snprintf(b, sizeof b, "no spin bound (the thread is not raised); %lld wake-up%s past it while raised",
                      past, past == 1 ? "" : "s");
    else
        std::snprintf(b, sizeof b, "no spin bound (the thread is not raised)");
    return b;
}

}  // namespace pacer::tools
