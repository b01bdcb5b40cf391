// Linux: the machine's run queue (run_queue.hpp).
#include "platform/linux/run_queue.hpp"

#include <sched.h>

#include <cstdio>

namespace pacer::platform::run_queue {

int runnable_now() noexcept {
    std::FILE* f = std::fopen("/proc/loadavg", "re");
    if (f == nullptr) return -1;
    double a = 0, b = 0, c = 0;
    int running = -1, total = 0;
    if (std::fscanf(f, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) != 5) running = -1;
    std::fclose(f);
    return running;
}

int cpus_of(pid_t tid) noexcept {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

}  // namespace pacer::platform::run_queue
