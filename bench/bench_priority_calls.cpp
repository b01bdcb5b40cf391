// What raising the pacing thread and putting it back cost (pacer/priority.hpp), as pacer makes the
// calls (TimeSource::raise_priority / restore_priority on the real OS): a loop that raises, sleeps
// until 100 us before a deadline, spins to 20 us before it, and puts the thread back, as
// ThreadPriority::wait does, beside N busy threads. Prints the two calls' durations.
//
//   bench_priority_calls [BUSY_THREADS=0] [PERIOD_US=16667] [CALLS=600]
//
// Why it matters: the put-back runs just before each deadline, and whatever it takes beyond what
// the waiter has learned is lateness. Measured on a 2-core virtual machine (600 calls each, 0-2
// busy threads, 60 and 144 Hz): the put-back 5-17 us at the median and 0.1-5.0 ms at the maximum,
// the raise 6-18 us at the median.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "pacer/pacer.hpp"

int main(int argc, char** argv) {
    const int busy = argc > 1 ? std::atoi(argv[1]) : 0;
    const long long period_us = argc > 2 ? std::atoll(argv[2]) : 16667;
    const int calls = argc > 3 ? std::atoi(argv[3]) : 600;
    if (busy < 0 || busy > 64 || period_us < 200 || period_us > 1'000'000 || calls < 1 || calls > 1'000'000) {
        std::fprintf(stderr, "usage: bench_priority_calls [BUSY_THREADS 0-64] [PERIOD_US 200-1000000] [CALLS]\n");
        return 2;
    }
    std::atomic<bool> stop{false};
    std::vector<std::thread> load;
    for (int i = 0; i < busy; ++i)
        load.emplace_back([&] {
            volatile unsigned long x = 0;
            while (!stop.load(std::memory_order_relaxed)) x = x + 1;
        });
    pacer::TimeSource& ts = pacer::system_time_source();
    const pacer::PriorityConfig c{pacer::ThreadPriority::wait};
    std::vector<double> up, down;
    std::int64_t deadline = pacer::clock::to_ns(ts.now());
    const char* refused = nullptr;
    static pacer::PriorityGrant last;
    for (int i = 0; i < calls && !refused; ++i) {
        deadline += period_us * 1000;
        const std::int64_t t0 = pacer::clock::to_ns(ts.now());
        last = ts.raise_priority(c, std::chrono::microseconds(period_us));
        const std::int64_t t1 = pacer::clock::to_ns(ts.now());
        if (!last.granted) {
            refused = last.reason;
            break;
        }
        ts.sleep_until(pacer::clock::from_ns(deadline - 100'000));
        while (pacer::clock::to_ns(ts.now()) < deadline - 20'000) ts.relax();
        const std::int64_t t2 = pacer::clock::to_ns(ts.now());
        ts.restore_priority(last);
        const std::int64_t t3 = pacer::clock::to_ns(ts.now());
        up.push_back(static_cast<double>(t1 - t0) / 1e3);
        down.push_back(static_cast<double>(t3 - t2) / 1e3);
    }
    stop = true;
    for (std::thread& t : load) t.join();
    if (refused) {
        std::printf("refused: %s\n", refused);
        return 0;
    }
    const auto q = [](std::vector<double> v, double p) {
        std::sort(v.begin(), v.end());
        return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
    };
    std::printf("%s, %d busy thread%s, period %lld us, %d calls: raise p50 %.1f p90 %.1f p99 %.1f max %.1f us; "
                "put back p50 %.1f p90 %.1f p99 %.1f max %.1f us\n",
                last.in_force, busy, busy == 1 ? "" : "s", period_us, calls, q(up, 0.5), q(up, 0.9), q(up, 0.99),
                q(up, 1.0), q(down, 0.5), q(down, 0.9), q(down, 0.99), q(down, 1.0));
    return 0;
}
