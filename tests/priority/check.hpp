// What the real-OS priority checks share (priority_check.cpp, realtimekit_check.cpp): a check
// that prints ok / FAIL and counts failures, and the calling thread's scheduling class.
#pragma once

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

namespace priority_test {

inline int failures = 0;

inline void check(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) ++failures;
}

// The calling thread's policy without the flag, and whether the flag is set.
inline int policy() { return sched_getscheduler(0) & ~SCHED_RESET_ON_FORK; }
inline bool reset_on_fork() { return (sched_getscheduler(0) & SCHED_RESET_ON_FORK) != 0; }
// The calling thread's nice value (setpriority() on a thread id acts on that thread on Linux).
inline int nice_now() { return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))); }

}  // namespace priority_test
