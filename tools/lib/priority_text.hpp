// tools/lib/priority_text.hpp - the pacing thread's priority in words, one form for the `pacer`
// tool's commands (probe, run, compare) and the demo: what is in force, which lever and who
// granted it, what the real-time guard did, and the raised spin's bound.
//
//   const pacer::PriorityGrant g = pacer::probe_priority(c);
//   grant_text(g)     "SCHED_FIFO 5 granted (realtime, by the OS)"
//                     "nice -15 granted (weight, by RealtimeKit)"
//                     "refused, paces as normal: nice -15 refused: RLIMIT_NICE 0 allows ..."
//   const pacer::WaiterStatus w = fp.status().waiter;
//   priority_text(w.priority)    the same for a pacer's thread, and what is pending, e.g.
//                     "nice -15 granted (weight, by the OS); asking RealtimeKit or the ..."
//                     "the thread's own class for now: the real-time guard put the thread back ..."
//   guard_text(w.priority)       "real-time guard: 1 demotion, last step: put the thread back to
//                                 its own class: a frame ran 55 ms of CPU without sleeping ..."
//   spin_bound_text(w, 0.25)     "spin bound 4.167 ms (0.25 of the period), 0 wake-ups past it"
//
// Why here: the same words in every place the priority is shown, so that a probe, a run's
// summary and the demo's panels can be read side by side. The machine names (to_string of the
// lever and the grantor, pacer/modes.hpp) are for key=value lines; these are for people.
#pragma once

#include <string>

#include "pacer/priority.hpp"
#include "pacer/waiter.hpp"

namespace pacer::tools {

// "the OS", "RealtimeKit", "the Realtime portal", "the host"; "no one" for none.
const char* grantor_words(PriorityGrantor by) noexcept;
// "realtime, by the OS", "weight, by RealtimeKit"; "" for PriorityLever::none.
std::string lever_and_grantor(PriorityLever lever, PriorityGrantor by);
// One probe's grant: granted with its lever and grantor, or refused with the reason.
std::string grant_text(const PriorityGrant& g);
// A waiter's priority: as grant_text, plus what is pending (an ask, the guard's raise again), the
// thread's own class for normal, and "not yet asked" before the first raise.
std::string priority_text(const PriorityStatus& s);
// The real-time guard's demotions and last step; "" while it never acted.
std::string guard_text(const PriorityStatus& s);
// The raised spin's bound (share: WaiterConfig::raised_spin_share) and the wake-ups past it;
// "no spin bound (the thread is not raised)" while the bound is 0.
std::string spin_bound_text(const WaiterStatus& w, double share);

}  // namespace pacer::tools
