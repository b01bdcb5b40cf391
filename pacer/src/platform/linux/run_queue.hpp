// Linux: the machine's run queue as the real-time guard reads it for standing down
// (pacer/guard.hpp: GuardSample::runnable, cpus).
#pragma once

#include <sys/types.h>

namespace pacer::platform::run_queue {

// The threads runnable or running on the machine (the kernel's nr_running, the 4th field of
// /proc/loadavg: "0.52 0.58 0.59 3/467 12345"; the caller among them), -1 where it cannot be read.
int runnable_now() noexcept;

// The CPUs a thread may run on (0 where it cannot be read).
int cpus_of(pid_t tid) noexcept;

}  // namespace pacer::platform::run_queue
