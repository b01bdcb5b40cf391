#include "machine_cpu.hpp"

#include <cstdio>

namespace pacer_demo {

MachineCpu::MachineCpu() { available_ = read(&busy_, &total_); }

bool MachineCpu::read(std::uint64_t* busy, std::uint64_t* total) {
#if defined(__linux__)
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (f == nullptr) return false;
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (USER_HZ ticks);
    // guest times are already included in user and nice, so they are not added again.
    unsigned long long v[8] = {};
    const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                              &v[3], &v[4], &v[5], &v[6], &v[7]);
    std::fclose(f);
    if (n < 4) return false;
    std::uint64_t t = 0;
    for (int i = 0; i < n; ++i) t += v[i];
    const std::uint64_t idle = v[3] + (n > 4 ? v[4] : 0);
    *busy = t - idle;
    *total = t;
    return true;
#else
    (void)busy;
    (void)total;
    return false;
#endif
}

double MachineCpu::sample() {
    std::uint64_t b = 0, t = 0;
    if (!read(&b, &t)) {
        available_ = false;
        return -1.0;
    }
    available_ = true;
    const std::uint64_t db = b - busy_, dt = t - total_;
    busy_ = b;
    total_ = t;
    if (dt == 0) return -1.0;
    return 100.0 * static_cast<double>(db) / static_cast<double>(dt);
}

}  // namespace pacer_demo
