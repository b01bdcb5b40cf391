// Where the hybrid waiter's idle tail comes from. The hybrid FramePacer's wait (HybridWaiter on the
// real OS) at the thread's own class and raised by automatic, beside preciseSleep, in interleaved
// blocks of 0.5 s on an absolute grid with 0.5 ms of work a frame and nothing else running, and
// the normal one again with late_cost x4 (a margin that accepts fewer late wake-ups). For each:
// the interval error's p50 and p99, the share off by more than 100 us, the CPU of the wait (the
// thread's, less the work).
// For the hybrid waits, every wait that returned more than 50 us late, by its cause:
//   margin   the OS woke past the deadline by less than a spin may catch (cap - min_margin):
//            the margin's cost model let it be late (late_cost against the spin it would cost)
//   reach    the OS woke later than any spin under the cap could have covered
//   spin     the OS woke in time, but the spin lost the CPU (a preempted spin)
//   return   woke and spun in time, late by what ran after the spin (the handoff, the return)
// and what the estimator's own histogram says: the margin, the late share it accepts there
// (1 - fraction_below(margin - min_margin)) against the share of sleeps that woke past the margin.
//
//   bench_idle_tail [HZ [SECONDS [PRIORITY_OF_THE_RAISED]]]   default 144 20 automatic
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../tools/lib/precise_sleep.hpp"
#include "pacer/pacer.hpp"

namespace {

using ns = std::chrono::nanoseconds;

std::int64_t now_ns() { return pacer::clock::to_ns(pacer::system_time_source().now()); }
std::int64_t thread_cpu() { return pacer::system_time_source().cpu_times().thread.count(); }

void work(std::int64_t n) {
    const std::int64_t end = now_ns() + n;
    while (now_ns() < end) {
    }
}

struct Series {
    std::vector<double> err_us;
    double cpu_ns = 0;
    long causes[4] = {};  // margin, reach, spin, return
    long sleeps = 0, past_margin = 0;
};

// One block of frames with waiter w (nullptr: preciseSleep).
void block(pacer::HybridWaiter* w, bench::PreciseSleep& precise, std::int64_t period, int frames, Series& s) {
    std::int64_t deadline = now_ns() + period, last = -1;
    const std::int64_t cpu0 = thread_cpu();
    for (int i = 0; i < frames; ++i, deadline += period) {
        work(500'000);
        std::int64_t end = 0;
        if (w) {
            const pacer::WaitResult r = w->wait_until(pacer::clock::from_ns(deadline));
            end = pacer::clock::to_ns(r.end);
            const std::int64_t reach = (w->spin_cap() - w->config().min_margin).count();
            if (r.os_slept) {
                ++s.sleeps;
                s.past_margin += r.oversleep > r.margin ? 1 : 0;
            }
            if (r.lateness > ns(50'000)) {
                const bool woke_late = r.os_slept && r.oversleep >= r.margin;
                ++s.causes[woke_late ? (r.oversleep.count() - r.margin.count() <= reach ? 0 : 1)
                                     : (r.spin_preempted ? 2 : 3)];
            }
        } else {
            const std::int64_t left = deadline - now_ns();
            if (left > 0) precise.sleep(static_cast<double>(left) / 1e9);
            end = now_ns();
        }
        if (last >= 0) s.err_us.push_back(std::abs(static_cast<double>(end - last - period)) / 1e3);
        last = end;
        if (end > deadline + period) deadline = end;  // a frame lost: from here (no catch-up burst)
    }
    s.cpu_ns += static_cast<double>(thread_cpu() - cpu0 - std::int64_t{frames} * 500'000);  // the wait's own
}

double quantile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
    const double hz = argc > 1 ? std::atof(argv[1]) : 144;
    const double seconds = argc > 2 ? std::atof(argv[2]) : 20;
    pacer::ThreadPriority raised = pacer::ThreadPriority::automatic;
    if (!(hz >= 1 && hz <= 1000) || !(seconds > 0 && seconds <= 3600) ||
        (argc > 3 && !pacer::parse_thread_priority(argv[3], &raised))) {
        std::fprintf(stderr, "usage: bench_idle_tail [HZ in [1, 1000] [SECONDS in (0, 3600] [PRIORITY]]]\n");
        return 2;
    }
    const auto period = static_cast<std::int64_t>(std::llround(1e9 / hz));
    const int frames = std::max(2, static_cast<int>(hz / 2));
    pacer::WaiterConfig own;
    own.priority.mode = pacer::ThreadPriority::normal;
    pacer::WaiterConfig up = own;
    up.priority.mode = raised;
    pacer::HybridWaiter normal(own), lifted(up);
    bench::PreciseSleep precise;
    pacer::WaiterConfig costly = own;
    costly.late_cost *= 4;
    pacer::HybridWaiter strict(costly);
    Series s[4];
    pacer::PacingScope scope;
    const int blocks = std::max(1, static_cast<int>(seconds / 2));
    for (int b = 0; b < blocks; ++b) {
        block(&normal, precise, period, frames, s[0]);
        block(&lifted, precise, period, frames, s[1]);
        lifted.release_priority();  // preciseSleep at the thread's own class
        block(nullptr, precise, period, frames, s[2]);
        block(&strict, precise, period, frames, s[3]);
    }
    const char* names[4] = {"hybrid, normal", "", "preciseSleep", "hybrid, normal, late_cost x4"};
    const std::string lifted_name = std::string("hybrid, ") + pacer::to_string(raised) + " (" +
                                    lifted.status().priority.in_force + ")";
    names[1] = lifted_name.c_str();
    std::printf("%.0f Hz, %d blocks of %d frames each, interleaved; 0.5 ms of work a frame\n", hz, blocks, frames);
    for (int k = 0; k < 4; ++k) {
        const double over = static_cast<double>(std::count_if(s[k].err_us.begin(), s[k].err_us.end(),
                                                               [](double e) { return e > 100; }));
        std::printf("%-30s interval error p50 %6.2f us p99 %7.1f us, off > 100 us %5.2f %%, CPU %.2fx preciseSleep's\n",
                    names[k], quantile(s[k].err_us, 0.5), quantile(s[k].err_us, 0.99),
                    100 * over / static_cast<double>(s[k].err_us.size()), s[k].cpu_ns / s[2].cpu_ns);
    }
    for (int k : {0, 1, 3}) {
        const pacer::HybridWaiter& w = k == 0 ? normal : k == 1 ? lifted : strict;
        const pacer::LatenessEstimator& e = w.estimator();
        const ns m = w.margin() - w.config().min_margin;
        std::printf("%-30s late > 50 us by cause: margin %ld, reach %ld, spin %ld, return %ld; margin %.0f us "
                    "(estimator: p99 %.0f us, p99.9 %.0f us, accepts %.2f %% late; woke past the margin %.2f %%)\n",
                    names[k], s[k].causes[0], s[k].causes[1], s[k].causes[2], s[k].causes[3],
                    static_cast<double>(w.margin().count()) / 1e3, static_cast<double>(e.quantile(0.99).count()) / 1e3,
                    static_cast<double>(e.quantile(0.999).count()) / 1e3, 100 * (1 - e.fraction_below(m)),
                    100.0 * static_cast<double>(s[k].past_margin) / static_cast<double>(std::max(1L, s[k].sleeps)));
    }
    return 0;
}
