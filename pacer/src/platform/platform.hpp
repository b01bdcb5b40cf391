// The OS seam: the only functions in pacer that call the operating system. One implementation per
// OS in platform/<os>/platform.cpp (same file name in each folder, as SDL's timer backends); all
// portable logic lives above this line and reaches it through system_time_source().
#pragma once

#include "pacer/clock.hpp"
#include "pacer/priority.hpp"
#include "pacer/time_source.hpp"

namespace pacer::platform {

clock::time_point now() noexcept;                         // monotonic clock
void sleep_until(clock::time_point deadline) noexcept;  // absolute OS sleep, resumed if interrupted
void relax() noexcept;                              // CPU pause hint for spin loops
CpuTimes cpu_times() noexcept;                      // process and calling-thread CPU time
void begin_pacing() noexcept;                       // per thread, reference counted
void end_pacing() noexcept;
const char* sleep_primitive() noexcept;             // what sleep_until() uses right now
// The calling thread's scheduling class (pacer/priority.hpp has what each OS does).
PriorityGrant raise_priority(const PriorityConfig& c, std::chrono::nanoseconds period) noexcept;
bool refresh_priority(PriorityGrant& grant, std::chrono::nanoseconds period) noexcept;  // TimeSource's
void restore_priority(const PriorityGrant& grant) noexcept;
PriorityGrant probe_priority(const PriorityConfig& c) noexcept;  // raised as asked, put back

// automatic's refusal where the thread may run on one CPU only (Linux, Windows; pacer/priority.hpp).
inline constexpr char kAutomaticOneCpu[] =
    "automatic: not raised where the thread may run on one CPU only (a raised thread that spins on a job "
    "would starve the worker it waits for); ThreadPriority::high forces it";

}  // namespace pacer::platform
