// Would a short slice help the weight? (Linux 6.12 and later: sched_setattr's sched_runtime for a
// fair class.) EEVDF lets a woken thread preempt the running one at once when its slice is the
// shorter; with the kernel's own slice a woken pacing thread may wait for the next tick. pacer
// does not set a slice: this bench measured none of that gain. FramePacers at 144 Hz (or HZ)
// beside BUSY spinning threads in the process, in interleaved blocks of 0.5 s, four ways:
//   normal           the thread's own class (priority normal)
//   normal + slice   the same, the bench giving the thread a 0.1 ms slice after its first wait
//   weight           priority automatic: the nice value pacer grants
//   weight + slice   the same, the bench adding the 0.1 ms slice after the raise
// For each: the interval error's p50 and p99, the share off by more than 100 us, the waits that
// returned more than 50 us late, the worst lateness, and the thread's CPU per frame. The weight
// needs the nice value granted (root, CAP_SYS_NICE or RLIMIT_NICE); where it is refused, or the
// kernel keeps no slice, the header says so and the rows compare what was in force.
//
//   bench_weight_slice [HZ [SECONDS [BUSY]]]   default 144 20 2
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "pacer/pacer.hpp"

namespace {

// sched_attr (SCHED_ATTR_SIZE_VER0): the calling thread's fair policy, nice value and slice.
struct SchedAttr {
    std::uint32_t size = sizeof(SchedAttr), policy = 0;
    std::uint64_t flags = 0;
    std::int32_t nice = 0;
    std::uint32_t priority = 0;
    std::uint64_t runtime = 0, deadline = 0, period = 0;
};

long long slice_now() {
    SchedAttr a;
    return syscall(SYS_sched_getattr, 0, &a, static_cast<unsigned>(sizeof a), 0u) == 0
               ? static_cast<long long>(a.runtime) : -1;
}

// The calling thread's slice to ns (0: the kernel's own), its policy, flags and nice value kept.
void set_slice(long long ns) {
    SchedAttr a;
    if (syscall(SYS_sched_getattr, 0, &a, static_cast<unsigned>(sizeof a), 0u) != 0) return;
    a.size = sizeof a;
    a.runtime = static_cast<std::uint64_t>(ns);
    (void)syscall(SYS_sched_setattr, 0, &a, 0u);
}

std::int64_t thread_cpu() { return pacer::system_time_source().cpu_times().thread.count(); }

struct Series {
    std::vector<double> err_us;
    long late = 0;
    double worst_us = 0, cpu_ns = 0;
    long frames = 0;
};

double quantile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// One block: `frames` frames of fp, the slice set after the first wait (which raises) when
// slice_ns >= 0; the pacer's grid starts anew, so the first interval is not counted.
void block(pacer::FramePacer& fp, int frames, long long slice_ns, Series& s) {
    fp.reset();
    (void)fp.wait();
    if (slice_ns >= 0) set_slice(slice_ns);
    const std::int64_t cpu0 = thread_cpu();
    for (int i = 0; i < frames; ++i) {
        const pacer::FrameTiming t = fp.wait();
        const double late_us = static_cast<double>(t.lateness.count()) / 1e3;
        s.late += late_us > 50 ? 1 : 0;
        s.worst_us = std::max(s.worst_us, late_us);
        s.err_us.push_back(std::abs(static_cast<double>((t.interval - t.period).count())) / 1e3);
    }
    s.cpu_ns += static_cast<double>(thread_cpu() - cpu0);
    s.frames += frames;
    fp.end_pacing();  // the thread back to its own class and slice before the next block
    if (slice_ns >= 0) set_slice(0);
}

}  // namespace

int main(int argc, char** argv) {
    const double hz = argc > 1 ? std::atof(argv[1]) : 144;
    const double seconds = argc > 2 ? std::atof(argv[2]) : 20;
    const int busy = argc > 3 ? std::atoi(argv[3]) : 2;
    if (!(hz >= 1 && hz <= 1000) || !(seconds > 0 && seconds <= 3600) || busy < 0 || busy > 64) {
        std::fprintf(stderr, "usage: bench_weight_slice [HZ in [1, 1000] [SECONDS in (0, 3600] [BUSY in [0, 64]]]]\n");
        return 2;
    }
    pacer::set_log_function(nullptr);
    std::atomic<bool> stop{false};
    std::vector<std::thread> spinners;
    for (int i = 0; i < busy; ++i)
        spinners.emplace_back([&stop] {
            while (!stop.load(std::memory_order_relaxed)) {
            }
        });
    pacer::PacerConfig own;
    own.target_hz = hz;
    own.waiter.priority.mode = pacer::ThreadPriority::normal;
    pacer::PacerConfig raised = own;
    raised.waiter.priority.mode = pacer::ThreadPriority::automatic;
    pacer::FramePacer fp[4] = {pacer::FramePacer(own), pacer::FramePacer(own), pacer::FramePacer(raised),
                               pacer::FramePacer(raised)};
    // the slice the bench sets after the first wait: -1 none, else ns
    const long long slice[4] = {-1, 100'000, -1, 100'000};
    const char* names[4] = {"normal", "normal + slice", "weight", "weight + slice"};
    const int frames = std::max(2, static_cast<int>(hz / 2));
    const int blocks = std::max(1, static_cast<int>(seconds / 2));
    Series s[4];
    for (int b = 0; b < blocks; ++b)
        for (int k = 0; k < 4; ++k) block(fp[k], frames, slice[k], s[k]);
    stop = true;
    for (std::thread& t : spinners) t.join();

    std::printf("%.0f Hz beside %d busy threads in the process, %d interleaved blocks of %d frames each\n", hz, busy,
                blocks, frames);
    std::printf("weight: %s; the kernel's slice %s\n", fp[2].status().waiter.priority.in_force,
                slice_now() > 0 ? (std::to_string(slice_now() / 1000) + " us").c_str()
                                : "not reported (before Linux 6.12: no slices to set)");
    for (int k = 0; k < 4; ++k) {
        const double over = static_cast<double>(std::count_if(s[k].err_us.begin(), s[k].err_us.end(),
                                                               [](double e) { return e > 100; }));
        std::printf("%-15s interval error p50 %6.2f us p99 %8.1f us, off > 100 us %5.2f %%, late > 50 us %4ld of "
                    "%ld, worst %6.0f us, CPU %5.1f us a frame\n",
                    names[k], quantile(s[k].err_us, 0.5), quantile(s[k].err_us, 0.99),
                    100 * over / static_cast<double>(std::max<std::size_t>(1, s[k].err_us.size())), s[k].late,
                    s[k].frames, s[k].worst_us, s[k].cpu_ns / 1e3 / static_cast<double>(std::max(1L, s[k].frames)));
    }
    return 0;
}
