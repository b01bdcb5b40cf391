// bench_handoff: what runs between a wait's handoff and the caller (HybridWaiter::
// wait_until_handoff) when the free functions restore the timer slack after the spin (a
// PacingScope around the whole call, as pacer::sleep_until did) or right after the wake-up (the
// OS sleep alone bracketed, as it does now). Both on the real OS, interleaved in chunks in a
// shuffled order, with a plain spin loop beside them. Prints per structure: the gap from the
// handoff to the caller's code (the handoff leaves HybridWaiter::kHandoff for it) and the
// lateness the caller sees.
//
//   bench_handoff [hz = 60] [rounds = 10] [seconds per chunk = 0.5]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "pacer/pacer.hpp"

namespace {

// The system source with each OS sleep bracketed by begin/end_pacing (the current structure).
class PacedSleeps final : public pacer::TimeSource {
public:
    pacer::clock::time_point now() noexcept override { return os_.now(); }
    void sleep_until(pacer::clock::time_point deadline) noexcept override {
        os_.begin_pacing();
        os_.sleep_until(deadline);
        os_.end_pacing();
    }
    void relax() noexcept override { os_.relax(); }
    pacer::CpuTimes cpu_times() noexcept override { return os_.cpu_times(); }
    const char* sleep_primitive() const noexcept override { return os_.sleep_primitive(); }

private:
    pacer::TimeSource& os_ = pacer::system_time_source();
};

enum Structure { kSpin, kScopeAroundCall, kScopeAroundSleep, kStructures };
const char* kNames[kStructures] = {"plain spin loop", "slack restored after the spin",
                                   "slack restored after the wake-up"};

struct Samples {
    std::vector<double> late_us, gap_us;
};

double q(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return pacer::percentile_sorted(v, p);
}

// One wait to deadline d with the given structure; the caller's clock read right after it.
void one_wait(Structure s, pacer::HybridWaiter& w, std::int64_t d, Samples& out) {
    pacer::TimeSource& ts = pacer::system_time_source();
    if (s == kSpin) {
        while (pacer::clock::to_ns(ts.now()) < d) ts.relax();
        out.late_us.push_back(static_cast<double>(std::max<std::int64_t>(0, pacer::clock::to_ns(ts.now()) - d)) / 1e3);
        return;
    }
    pacer::WaitResult r;
    if (s == kScopeAroundCall) {
        pacer::PacingScope scope(ts);
        r = w.wait_until_handoff(pacer::clock::from_ns(d));
    } else {
        r = w.wait_until_handoff(pacer::clock::from_ns(d));
    }
    const std::int64_t handoff = pacer::clock::to_ns(r.end);
    const std::int64_t caller = pacer::clock::to_ns(ts.now());
    if (handoff < d) r.end = pacer::clock::from_ns(caller);
    pacer::finish_wait(ts, r, pacer::clock::from_ns(d));
    const std::int64_t wake = pacer::clock::to_ns(ts.now());
    out.late_us.push_back(static_cast<double>(std::max<std::int64_t>(0, wake - d)) / 1e3);
    if (handoff < d) out.gap_us.push_back(static_cast<double>(caller - handoff) / 1e3);
}

}  // namespace

int main(int argc, char** argv) {
    const double hz = argc > 1 ? std::atof(argv[1]) : 60.0;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
    const double seconds = argc > 3 ? std::atof(argv[3]) : 0.5;
    if (!(hz > 0 && hz <= 10'000) || rounds < 1 || !(seconds > 0 && seconds <= 600)) {
        std::fprintf(stderr, "usage: bench_handoff [hz in (0, 10000]] [rounds >= 1] [seconds in (0, 600]]\n");
        return 2;
    }
    pacer::TimeSource& ts = pacer::system_time_source();
    PacedSleeps paced;
    pacer::HybridWaiter scoped_call, scoped_sleep(pacer::WaiterConfig{}, &paced);
    const auto period = static_cast<std::int64_t>(1e9 / hz);
    Samples s[kStructures];
    Structure order[kStructures] = {kSpin, kScopeAroundCall, kScopeAroundSleep};
    std::mt19937 rng(12345);
    for (int r = 0; r < rounds; ++r) {
        std::shuffle(order, order + kStructures, rng);
        for (const Structure st : order) {
            std::int64_t d = pacer::clock::to_ns(ts.now());
            for (int i = 0; i < static_cast<int>(seconds * hz); ++i)
                one_wait(st, st == kScopeAroundCall ? scoped_call : scoped_sleep, d += period, s[st]);
        }
    }
    std::printf("%.0f Hz, %d rounds x %.1f s; the handoff leaves %lld us for the gap\n"
                "| structure | handoff-to-caller gap p50 us | gap p99 us | late p50 us | late p99 us |\n|---|---|---|---|---|\n",
                hz, rounds, seconds, static_cast<long long>(pacer::HybridWaiter::kHandoff.count() / 1000));
    for (int k = 0; k < kStructures; ++k)
        std::printf("| %s | %.2f | %.2f | %.3f | %.1f |\n", kNames[k], q(s[k].gap_us, 0.5), q(s[k].gap_us, 0.99),
                    q(s[k].late_us, 0.5), q(s[k].late_us, 0.99));
    return 0;
}
