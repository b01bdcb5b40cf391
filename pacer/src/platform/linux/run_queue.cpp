// Linux: the machine's run queue (run_queue.hpp).
#include "platform/linux/run_queue.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

namespace pacer::platform::run_queue {

int runnable_now() noexcept {
    // Kept open (the helper thread alone reads it): each look is one pread(), which makes the
    // kernel write the line again.
    static const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char line[128];
    const ssize_t n = pread(fd, line, sizeof line - 1, 0);
    if (n <= 0) return -1;
    line[n] = '\0';
    double a = 0, b = 0, c = 0;
    int running = -1, total = 0;
    if (std::sscanf(line, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) != 5) return -1;
    return running;
}

int cpus_of(pid_t tid) noexcept {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

}  // namespace pacer::platform::run_queue
