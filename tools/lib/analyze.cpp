#include "analyze.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "pacer/stats.hpp"

namespace pacer::tools {

namespace {

// The figures over an ascending sequence S of frame times: a std::vector<double>, or a sorted
// FrameColumn (tools/analyze.hpp), which holds a million frame times in 4 MB instead of 8. Each
// does the arithmetic of its pacer:: counterpart (pacer/stats.hpp) in the same order, so that the
// figures are the same to the bit whichever S holds the values.

// MathNet's R8 quantile (quantile_r8 below).
template <class S>
double quantile_r8_of(const S& s, double p) noexcept {
    const std::size_t n = s.size();
    if (n == 0) return 0.0;
    const double h = (static_cast<double>(n) + 1.0 / 3.0) * p + 1.0 / 3.0;
    const double hf = std::floor(h);
    if (hf <= 0 || p <= 0) return s[0];
    if (hf >= static_cast<double>(n) || p >= 1) return s[n - 1];
    const auto k = static_cast<std::size_t>(hf);  // 1-based x_k = s[k - 1]
    return s[k - 1] + (h - hf) * (s[k] - s[k - 1]);
}

// The first index whose value is >= cut (std::lower_bound).
template <class S>
std::size_t lower_index(const S& s, double cut) noexcept {
    std::size_t lo = 0, hi = s.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (s[mid] < cut) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

}  // namespace

const char* to_string(Definitions d) noexcept {
    return d == Definitions::capframex ? "capframex" : "presentmon";
}

// ArrayStatistics.QuantileInplace of MathNet.Numerics (src/Numerics/Statistics/ArrayStatistics.cs),
// which CapFrameX's GetPQuantileSequence calls through Statistics.Quantile.
double quantile_r8(const std::vector<double>& s, double p) noexcept { return quantile_r8_of(s, p); }

// ---- FrameColumn -------------------------------------------------------------------------------

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int32_t kNaNCode = std::numeric_limits<std::int32_t>::min();
constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
constexpr int kMaxDigits = 9;
// While the column is this short, a value that needs the other unit factor re-encodes it (a
// MangoHud frame time's first value may fit x 1 by chance, the next ones only x 1e-3).
constexpr std::size_t kRefactorRows = 64;

bool same_bits(double a, double b) noexcept { return std::memcmp(&a, &b, sizeof a) == 0; }

// Ascending order of int32 keys, least significant byte first (4 passes over the keys, fewer when
// a byte is the same in every key: the top one is, for frame times).
void radix_sort(std::vector<std::int32_t>& v) {
    std::vector<std::int32_t> tmp(v.size());
    for (int shift = 0; shift < 32; shift += 8) {
        std::size_t count[256] = {};
        auto byte = [shift](std::int32_t x) {
            return ((static_cast<std::uint32_t>(x) ^ 0x80000000u) >> shift) & 0xFFu;  // sign flipped: order kept
        };
        for (const std::int32_t x : v) ++count[byte(x)];
        if (count[byte(v.front())] == v.size()) continue;
        std::size_t sum = 0;
        for (std::size_t& c : count) sum += std::exchange(c, sum);
        for (const std::int32_t x : v) tmp[count[byte(x)]++] = x;
        v.swap(tmp);
    }
}

}  // namespace

double FrameColumn::decode(std::int32_t m) const noexcept {
    if (m == kNaNCode) return kNaN;
    const double x = static_cast<double>(m) / kPow10[digits_];
    return factor_ == 1.0 ? x : x * factor_;
}

// m such that decode(m) at (digits, factor) is v, bit for bit.
bool FrameColumn::fits(double v, int digits, double factor, std::int32_t& m) const noexcept {
    const double scaled = v / factor * kPow10[digits];
    if (!(std::fabs(scaled) < 2147483647.0)) return false;
    const auto c = static_cast<std::int32_t>(std::llround(scaled));
    const double x = static_cast<double>(c) / kPow10[digits];
    if (!same_bits(factor == 1.0 ? x : x * factor, v) || c == kNaNCode) return false;
    m = c;
    return true;
}

void FrameColumn::push(double v) {
    if (wide_) return wide_values_.push_back(v);
    std::int32_t m = kNaNCode;
    if (std::isnan(v) || (digits_ >= 0 && fits(v, digits_, factor_, m)) || refit(v, m)) return narrow_.push_back(m);
    widen();
    wide_values_.push_back(v);
}

// A value the column's scale does not hold: the first one picks the scale; later ones may add
// decimals or, while the column is short, switch the unit factor.
bool FrameColumn::refit(double v, std::int32_t& m) {
    if (digits_ < 0) {
        for (const double factor : {1.0, 1e-3})
            for (int d = 0; d <= kMaxDigits; ++d)
                if (fits(v, d, factor, m)) {
                    digits_ = d;
                    factor_ = factor;
                    return true;
                }
        return false;
    }
    return more_digits(v, m) || (narrow_.size() <= kRefactorRows && other_factor(v, m));
}

// The fewest decimals that hold v, the values so far multiplied up to them (exact: the same
// decimal number at the same double, as long as it stays below 2^31).
bool FrameColumn::more_digits(double v, std::int32_t& m) {
    for (int d = digits_ + 1; d <= kMaxDigits; ++d) {
        if (!fits(v, d, factor_, m)) continue;
        const auto mul = static_cast<std::int64_t>(kPow10[d - digits_]);
        for (const std::int32_t x : narrow_)
            if (x != kNaNCode && std::llabs(x * mul) >= std::numeric_limits<std::int32_t>::max()) return false;
        for (std::int32_t& x : narrow_)
            if (x != kNaNCode) x = static_cast<std::int32_t>(x * mul);
        digits_ = d;
        return true;
    }
    return false;
}

// The other unit factor, with the fewest decimals that hold the values so far and v.
bool FrameColumn::other_factor(double v, std::int32_t& m) {
    const double factor = factor_ == 1.0 ? 1e-3 : 1.0;
    const std::vector<double> old = doubles();
    for (int d = 0; d <= kMaxDigits; ++d) {
        std::vector<std::int32_t> re(old.size(), kNaNCode);
        bool all = fits(v, d, factor, m);
        for (std::size_t i = 0; all && i < old.size(); ++i) all = std::isnan(old[i]) || fits(old[i], d, factor, re[i]);
        if (!all) continue;
        narrow_ = std::move(re);
        digits_ = d;
        factor_ = factor;
        return true;
    }
    return false;
}

void FrameColumn::widen() {
    wide_values_ = doubles();
    wide_ = true;
    narrow_ = std::vector<std::int32_t>();
}

void FrameColumn::reserve(std::size_t n) {
    if (wide_) wide_values_.reserve(n);
    else narrow_.reserve(n);
}

void FrameColumn::push_at(std::size_t i, double v) {
    if (empty() && std::isnan(v)) return;
    pad(i);
    push(v);
}

void FrameColumn::pad(std::size_t n) {
    while (!empty() && size() < n) push(kNaN);
}

void FrameColumn::set(std::size_t i, double v) {
    std::int32_t m = kNaNCode;
    if (wide_) {
        wide_values_[i] = v;
    } else if (std::isnan(v) || (digits_ >= 0 && fits(v, digits_, factor_, m)) || refit(v, m)) {
        narrow_[i] = m;
    } else {
        widen();
        wide_values_[i] = v;
    }
}

std::vector<double> FrameColumn::doubles() const {
    if (wide_) return wide_values_;
    std::vector<double> out(narrow_.size());
    for (std::size_t i = 0; i < narrow_.size(); ++i) out[i] = decode(narrow_[i]);
    return out;
}

// Sorting the integers sorts the doubles: decode is monotone (a correctly rounded division, then
// a positive factor).
void FrameColumn::sort() {
    if (wide_) {
        auto& v = wide_values_;
        v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
        std::sort(v.begin(), v.end());
    } else {
        narrow_.erase(std::remove(narrow_.begin(), narrow_.end(), kNaNCode), narrow_.end());
        if (!narrow_.empty()) radix_sort(narrow_);
    }
}

void FrameColumn::select(std::vector<std::size_t> ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    auto place = [&ranks](auto& v) {
        std::size_t from = 0;
        for (const std::size_t r : ranks) {
            if (r >= v.size()) break;
            std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(r), v.end());
            from = r + 1;
        }
    };
    if (wide_) {
        auto& v = wide_values_;
        v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
        place(v);
    } else {
        narrow_.erase(std::remove(narrow_.begin(), narrow_.end(), kNaNCode), narrow_.end());
        place(narrow_);
    }
}

namespace {

// ---- ValueBag ----------------------------------------------------------------------------------

// Values that are only ever sorted (display, busy and latency times): a count per distinct value
// while that takes less memory than the values (a capture's numbers have few decimals and repeat),
// else the values in a FrameColumn. SortedBag gives them back, ascending.
class ValueBag {
public:
    void add(double v) {  // v finite
        ++n_;
        if (spilled_) return values_.push(v);
        if (keys_.empty()) grow();
        std::uint64_t key;
        std::memcpy(&key, &v, sizeof key);
        std::size_t i = slot(key);
        while (counts_[i] != 0 && keys_[i] != key) i = (i + 1) & (keys_.size() - 1);
        if (counts_[i]++ != 0) return;
        keys_[i] = key;
        if (2 * ++distinct_ <= keys_.size()) return;
        // The next table: 2 x the slots, 12 bytes each, against 4 bytes a value in a FrameColumn.
        if (distinct_ > kFewValues && 24 * keys_.size() > 4 * n_) {
            spill();
        } else {
            grow();
        }
    }
    bool empty() const noexcept { return n_ == 0; }
    friend class SortedBag;  // takes the values out, ascending

private:
    // Up to this many distinct values the table (12 bytes a slot, at most half full: 400 KB) is
    // kept whatever the count; past it only while it is smaller than the values would be.
    static constexpr std::size_t kFewValues = 16384;
    std::size_t slot(std::uint64_t key) const noexcept {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
    }
    void grow();
    void spill();
    std::vector<std::uint64_t> keys_;   // the doubles' bits
    std::vector<std::uint32_t> counts_;  // 0: an empty slot
    std::size_t distinct_ = 0, n_ = 0;
    int shift_ = 64;
    bool spilled_ = false;
    FrameColumn values_;
};

void ValueBag::grow() {
    std::vector<std::uint64_t> keys = std::move(keys_);
    std::vector<std::uint32_t> counts = std::move(counts_);
    const std::size_t size = std::max<std::size_t>(64, 2 * keys.size());
    keys_.assign(size, 0);
    counts_.assign(size, 0);
    shift_ = 64 - std::countr_zero(size);
    for (std::size_t j = 0; j < keys.size(); ++j) {
        if (counts[j] == 0) continue;
        std::size_t i = slot(keys[j]);
        while (counts_[i] != 0) i = (i + 1) & (size - 1);
        keys_[i] = keys[j];
        counts_[i] = counts[j];
    }
}

void ValueBag::spill() {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
        double v;
        std::memcpy(&v, &keys_[i], sizeof v);
        for (std::uint32_t c = 0; c < counts_[i]; ++c) values_.push(v);
    }
    keys_ = {};
    counts_ = {};
    spilled_ = true;
}


// A ValueBag's values in ascending order, for the percentiles ps: as the bag's (value, count) runs
// while it kept them (a million frames of a few hundred distinct values take a few KB, where the
// values one by one take 8 MB, and the page faults of 8 MB cost more than the sort), else every
// value, with the ranks those percentiles read put in place (FrameColumn::select: no scratch
// memory, where a sort needs as much again).
class SortedBag {
public:
    SortedBag(ValueBag&& bag, std::initializer_list<double> ps) : n_(bag.n_) {
        if (bag.spilled_) {
            values_ = std::move(bag.values_);
            std::vector<std::size_t> ranks;
            for (const double p : ps) {
                const double h = n_ > 0 ? static_cast<double>(n_ - 1) * p : 0.0;
                const auto lo = !(p > 0) ? 0 : p >= 1 ? n_ - 1 : static_cast<std::size_t>(std::floor(h));
                ranks.insert(ranks.end(), {lo, std::min(lo + 1, n_ - 1)});
            }
            values_.select(std::move(ranks));
            return;
        }
        for (std::size_t i = 0; i < bag.keys_.size(); ++i) {
            if (bag.counts_[i] == 0) continue;
            double v;
            std::memcpy(&v, &bag.keys_[i], sizeof v);
            runs_.push_back({v, bag.counts_[i]});
        }
        bag = ValueBag();
        std::sort(runs_.begin(), runs_.end(), [](const Run& x, const Run& y) { return x.value < y.value; });
        std::uint64_t end = 0;
        for (Run& r : runs_) r.end = end += r.end;
    }
    bool empty() const noexcept { return n_ == 0; }
    // pacer::percentile_sorted(values, p), the same arithmetic on the same values; p one of ps.
    double percentile(double p) const { return pacer::percentile_sorted_of(*this, p); }
    std::size_t size() const noexcept { return n_; }
    double operator[](std::size_t i) const { return at(i); }

private:
    struct Run {
        double value;
        std::uint64_t end;  // a count, then the rank just past the run
    };
    double at(std::size_t rank) const {
        if (!values_.empty()) return values_[rank];
        const auto it = std::upper_bound(runs_.begin(), runs_.end(), static_cast<std::uint64_t>(rank),
                                         [](std::uint64_t r, const Run& run) { return r < run.end; });
        return it->value;
    }
    std::size_t n_;
    std::vector<Run> runs_;
    FrameColumn values_;  // every value (the bag spilled), compact where it can be; see select()
};

// ---- the figures -------------------------------------------------------------------------------

// One series' frames as the figures need them: the frame times (and target, lateness, time
// stamps) in file order; the other columns only as bags of values and counts, except with
// AnalyzeOptions::keep_frames, which keeps them per frame for Analysis.
struct SeriesFrames {
    FrameColumn ft, time_s, target, lateness;
    FrameColumn display, dropped, cpu, gpu, pc, input;  // keep_frames only
    ValueBag shown, cpu_busy, gpu_busy, pc_latency, input_latency;
    std::uint64_t displayed = 0, dropped_frames = 0, busy_frames = 0, gpu_bound = 0;
    bool any_gpu = false;        // a GPU busy value (finite or not)
    bool cpu_needs_gpu = false;  // CPU busy reported only beside a GPU busy (a capture's columns)
    bool sampled = false;        // rows are interval averages (CaptureReader::sampled())
};

// The other columns of one frame: dropped (1, 0, NaN unknown), display, CPU / GPU busy, latencies.
struct OtherColumns {
    double dropped = kNaN, display = kNaN, cpu = kNaN, gpu = kNaN, pc = kNaN, input = kNaN;
};

void add_other_columns(SeriesFrames& s, const OtherColumns& c) {
    if (!std::isnan(c.dropped)) {
        if (c.dropped != 0) {
            ++s.dropped_frames;
        } else {
            ++s.displayed;
            if (std::isfinite(c.display) && c.display > 0) s.shown.add(c.display);
        }
    }
    if (std::isfinite(c.cpu)) s.cpu_busy.add(c.cpu);
    if (std::isfinite(c.gpu)) s.gpu_busy.add(c.gpu);
    s.any_gpu = s.any_gpu || !std::isnan(c.gpu);
    if (!std::isnan(c.cpu) && !std::isnan(c.gpu)) {
        ++s.busy_frames;
        if (c.gpu >= c.cpu) ++s.gpu_bound;
    }
    if (std::isfinite(c.pc)) s.pc_latency.add(c.pc);
    if (std::isfinite(c.input)) s.input_latency.add(c.input);
}

template <class S>
double low_avg(const S& sorted, double cut) {
    const std::size_t first = lower_index(sorted, cut);
    const double n = static_cast<double>(sorted.size() - first);
    double sum = 0.0;
    for (std::size_t i = first; i < sorted.size(); ++i) sum += sorted[i];
    return sum > 0 ? 1000.0 * n / sum : 0.0;
}

// Longest frames first, accumulated until they cover `share` of the total time.
template <class S>
double low_integral(const S& sorted, double total, double share) {
    double acc = 0;
    for (std::size_t i = sorted.size(); i-- > 0;) {
        const double v = sorted[i];
        acc += v;
        if (acc >= share * total) return v > 0 ? 1000.0 / v : 0.0;
    }
    return sorted.empty() || sorted[0] <= 0 ? 0.0 : 1000.0 / sorted[0];
}

// Q8(p) of the FPS values 1000 / ft, from the ascending frame times (the FPS values are the same
// list, descending): CapFrameX's P1 / P0.1 FPS.
template <class S>
double fps_quantile_r8(const S& sorted_ft, double p) {
    const std::size_t n = sorted_ft.size();
    if (n == 0) return 0.0;
    auto fps = [&](std::size_t k) {  // k-th smallest FPS value, 0-based
        const double ft = sorted_ft[n - 1 - k];
        return ft > 0 ? 1000.0 / ft : std::numeric_limits<double>::infinity();
    };
    const double h = (static_cast<double>(n) + 1.0 / 3.0) * p + 1.0 / 3.0;
    const double hf = std::floor(h);
    if (hf <= 0 || p <= 0) return fps(0);
    if (hf >= static_cast<double>(n) || p >= 1) return fps(n - 1);
    const auto k = static_cast<std::size_t>(hf);
    return fps(k - 1) + (h - hf) * (fps(k) - fps(k - 1));
}

// pacer::percentile_sorted(values, p) of `count` values that come one at a time, without keeping
// them: only the largest count - floor((count - 1) p) are kept (a min-heap), the values at ranks
// floor(h) and floor(h) + 1 that a full sort would give. For p = 0.99: 1 % of the values, 80 KB
// for a million frames where the values would take 8 MB.
class UpperPercentile {
public:
    UpperPercentile(std::size_t count, double p) : count_(count), p_(p) {
        const double h = count > 0 ? static_cast<double>(count - 1) * p : 0.0;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        keep_ = !(p > 0) ? count : p >= 1 ? 1 : count - lo;
        heap_.reserve(keep_);
    }
    void add(double v) {
        if (heap_.size() < keep_) {
            heap_.push_back(v);
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        } else if (v > heap_.front()) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
            heap_.back() = v;
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        }
    }
    // After `count` add()s.
    double value() {
        std::sort(heap_.begin(), heap_.end());
        if (heap_.empty()) return 0.0;
        if (!(p_ > 0) || p_ >= 1) return !(p_ > 0) ? heap_.front() : heap_.back();
        const double h = static_cast<double>(count_ - 1) * p_;
        const double frac = h - std::floor(h);
        const double lo = heap_[0], hi = heap_.size() > 1 ? heap_[1] : heap_[0];
        return lo + frac * (hi - lo);
    }

private:
    std::size_t count_, keep_;
    double p_;
    std::vector<double> heap_;
};

// CapFrameX's stutter rule (FrametimeStatisticProvider.GetStutteringTimePercentage with
// GetMovingAverage and SampleBasedMovingAverage.ProcessSamples): the window is
// Convert.ToInt32(sqrt(mean) * 10) (round half to even: nearbyint in the default rounding mode),
// the average includes the frame itself, and a value more than 3 x its predecessor enters the
// average as the predecessor.
void capframex_stutters(const FrameColumn& ft, double mean, double factor, Analysis& a) {
    const std::size_t n = ft.size();
    const double w = std::nearbyint(std::sqrt(mean) * 10.0);
    const std::size_t window = w < 1 ? 1 : static_cast<std::size_t>(w);
    auto v = [&](std::size_t k) { return k > 0 && ft[k] > ft[k - 1] * 3 ? ft[k - 1] : ft[k]; };
    double sum = 0, time = 0;
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += v(i);
        if (i >= window) sum -= v(i - window);
        const double len = static_cast<double>(std::min(i + 1, window));
        if (ft[i] > factor * (sum / len)) {
            ++count;
            time += ft[i];
        }
    }
    a.stutters = count;
    a.stutter_time_share = time;  // divided by the total by the caller
}

// Refresh periods: the frame-time histogram's bins are centred on whole periods (a frame of
// exactly one period is in the bin of 1, whichever way the jitter goes); lateness counts whole
// periods late ([0, 1): less than one period late).
std::size_t periods_nearest(double x, double period) {
    const double b = std::floor(x / period + 0.5);
    return b < 0 ? 0 : b > 5 ? 5 : static_cast<std::size_t>(b);
}
std::size_t periods_late(double x, double period) {
    const double b = std::floor(x / period);
    return b < 0 ? 0 : b > 5 ? 5 : static_cast<std::size_t>(b);
}

void compute_sampled(const SeriesFrames& s, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.sampled = true;
    double fps_sum = 0, total = 0;
    std::size_t fps_n = 0;
    a.sampled_fps_min = std::numeric_limits<double>::infinity();
    a.sampled_fps_max = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = s.ft[i];
        total += v;
        if (!(v > 0)) continue;
        const double fps = 1000.0 / v;
        fps_sum += fps;
        ++fps_n;
        a.sampled_fps_min = std::min(a.sampled_fps_min, fps);
        a.sampled_fps_max = std::max(a.sampled_fps_max, fps);
    }
    if (fps_n == 0) a.sampled_fps_min = 0;
    a.avg_fps = fps_n ? fps_sum / static_cast<double>(fps_n) : 0.0;
    // The time the samples cover: the span of the time column plus one mean interval (the first
    // sample covers one interval before its own time stamp).
    double first = kNaN, last = kNaN;
    for (std::size_t i = 0; i < s.time_s.size(); ++i) {
        const double t = s.time_s[i];
        if (!std::isfinite(t)) continue;
        if (std::isnan(first)) first = t;
        last = t;
    }
    if (n >= 2 && std::isfinite(first) && last > first) {
        const double span = last - first;
        a.duration_s = span + span / static_cast<double>(n - 1);
    } else {
        a.duration_s = total / 1000.0;  // no usable time column: the samples' own frame times
    }
}

// Frame-time figures: mean, spread, quantiles, P1 / P0.1 FPS, lows. `sorted` is ft sorted.
template <class S>
void frame_time_figures(const S& sorted, double total, bool cfx, Analysis& a) {
    const Distribution dist = pacer::describe_sorted_of(sorted);
    a.mean_ms = dist.mean;
    a.stddev_ms = dist.stddev;
    a.min_ms = dist.min;
    a.max_ms = dist.max;
    if (cfx) {
        a.p50_ms = quantile_r8_of(sorted, 0.50);
        a.p90_ms = quantile_r8_of(sorted, 0.90);
        a.p95_ms = quantile_r8_of(sorted, 0.95);
        a.p99_ms = quantile_r8_of(sorted, 0.99);
        a.p999_ms = quantile_r8_of(sorted, 0.999);
        a.p1_fps = fps_quantile_r8(sorted, 0.01);
        a.p01_fps = fps_quantile_r8(sorted, 0.001);
    } else {
        a.p50_ms = dist.p50;
        a.p90_ms = dist.p90;
        a.p95_ms = dist.p95;
        a.p99_ms = dist.p99;
        a.p999_ms = dist.p999;
        a.p1_fps = a.p99_ms > 0 ? 1000.0 / a.p99_ms : 0.0;
        a.p01_fps = a.p999_ms > 0 ? 1000.0 / a.p999_ms : 0.0;
    }
    a.low1_avg_fps = low_avg(sorted, a.p99_ms);
    a.low01_avg_fps = low_avg(sorted, a.p999_ms);
    a.low1_integral_fps = low_integral(sorted, total, 0.01);
    a.low01_integral_fps = low_integral(sorted, total, 0.001);
}

// Pacing error against the target (--target-hz, else the per-frame target).
void pacing_error(const SeriesFrames& s, const AnalyzeOptions& o, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.has_target = o.target_ms > 0 || s.target.size() == n;
    if (!a.has_target) return;
    UpperPercentile err_p99(n, 0.99);
    double sum = 0, sq = 0, tsum = 0;
    std::size_t within = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double t = o.target_ms > 0 ? o.target_ms : s.target[i];
        const double e = s.ft[i] - t;
        tsum += t;
        sum += e;
        sq += e * e;
        err_p99.add(std::fabs(e));
        if (std::fabs(e) <= 0.5) ++within;
    }
    a.target_ms = tsum / static_cast<double>(n);
    a.bias_ms = sum / static_cast<double>(n);
    a.rms_ms = std::sqrt(sq / static_cast<double>(n));
    a.abs_err_p99_ms = err_p99.value();
    a.within_05ms = static_cast<double>(within) / static_cast<double>(n);
}

// Successive-frame jitter |ft[i] - ft[i-1]|.
void jitter(const FrameColumn& ft, Analysis& a) {
    const std::size_t n = ft.size();
    if (n < 2) return;
    UpperPercentile p99(n - 1, 0.99);
    double sum = 0, prev = ft[0], max = 0;
    for (std::size_t i = 1; i < n; ++i) {
        const double cur = ft[i];
        const double d = std::fabs(cur - prev);
        p99.add(d);
        sum += d;
        max = std::max(max, d);
        prev = cur;
    }
    a.jitter_mean_ms = sum / static_cast<double>(n - 1);
    a.jitter_p99_ms = p99.value();
    a.jitter_max_ms = max;
}

// Hitches, and stutters by pacer's rule (CapFrameX's: capframex_stutters, once the mean is known).
void stutters_and_hitches(const FrameColumn& ft, double total, bool cfx, const AnalyzeOptions& o, Analysis& a) {
    StutterCounter stutters(o.stutter_window, o.stutter_factor);
    double prev = 0;
    for (std::size_t i = 0; i < ft.size(); ++i) {
        const double v = ft[i];
        if (i > 0 && v > 60.0 && v >= 1.5 * prev) ++a.hitches;
        if (!cfx) (void)stutters.add(v);
        prev = v;
    }
    if (cfx) return;
    a.stutters = stutters.count();
    a.stutter_time_share = total > 0 ? stutters.time_sum() / total : 0.0;
}

void refresh_period(const AnalyzeOptions& o, Analysis& a) {
    if (o.refresh_hz > 0) {
        a.refresh_ms = 1000.0 / o.refresh_hz;
        a.refresh_source = "--refresh-hz";
    } else if (a.has_target && a.target_ms > 0) {
        a.refresh_ms = a.target_ms;
        a.refresh_source = o.target_ms > 0 ? "--target-hz" : "capture's target";
    } else {
        a.refresh_ms = 1000.0 / 60.0;
        a.refresh_source = "60 Hz default";
    }
}

// Swappy's histograms: frame time and lateness in refresh periods.
void swappy_histograms(const SeriesFrames& s, Analysis& a) {
    a.interval_hist.fill(0);
    a.lateness_hist.fill(0);
    for (std::size_t i = 0; i < s.ft.size(); ++i) ++a.interval_hist[periods_nearest(s.ft[i], a.refresh_ms)];
    if (s.lateness.size() != s.ft.size()) return;
    for (std::size_t i = 0; i < s.lateness.size(); ++i) {
        const double v = s.lateness[i];
        if (std::isnan(v)) continue;
        a.has_lateness = true;
        ++a.lateness_hist[periods_late(v, a.refresh_ms)];
    }
}

// The frame-time histogram from min to p99.9 (longer frames land in the last bin).
template <class S>
void frame_time_histogram(const S& sorted, const AnalyzeOptions& o, Analysis& a) {
    const int bins = std::max(1, o.histogram_bins);
    a.histogram.assign(static_cast<std::size_t>(bins), 0);
    a.hist_lo_ms = a.min_ms;
    a.hist_hi_ms = a.p999_ms > a.min_ms ? a.p999_ms : a.min_ms + 1.0;
    const double scale = bins / (a.hist_hi_ms - a.hist_lo_ms);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const double b = std::floor((sorted[i] - a.hist_lo_ms) * scale);
        const std::size_t k = b < 0 ? 0 : b >= bins ? static_cast<std::size_t>(bins - 1) : static_cast<std::size_t>(b);
        ++a.histogram[k];
    }
}

void displayed_frames(SeriesFrames& s, double total, Analysis& a) {
    a.displayed = s.displayed;
    a.dropped = s.dropped_frames;
    a.has_displayed = a.displayed + a.dropped > 0;
    if (a.has_displayed) {
        a.dropped_share = static_cast<double>(a.dropped) / static_cast<double>(a.displayed + a.dropped);
        a.displayed_fps = total > 0 ? 1000.0 * static_cast<double>(a.displayed) / total : 0.0;
    }
    const SortedBag shown(std::move(s.shown), {0.50, 0.90, 0.99, 0.999});
    a.has_display_times = !shown.empty();
    a.display_p50_ms = shown.percentile(0.50);
    a.display_p90_ms = shown.percentile(0.90);
    a.display_p99_ms = shown.percentile(0.99);
    a.display_p999_ms = shown.percentile(0.999);
}

// CPU busy against GPU busy, and the latency columns.
void busy_and_latency(SeriesFrames& s, Analysis& a) {
    if (s.cpu_needs_gpu && !s.any_gpu) s.cpu_busy = ValueBag();
    {
        const SortedBag v(std::move(s.cpu_busy), {0.5});
        a.has_cpu_busy = !v.empty();
        a.cpu_busy_p50_ms = v.percentile(0.5);
    }
    {
        const SortedBag v(std::move(s.gpu_busy), {0.5});
        a.has_gpu_busy = !v.empty();
        a.gpu_busy_p50_ms = v.percentile(0.5);
    }
    if (a.has_cpu_busy && a.has_gpu_busy) {
        a.busy_frames = s.busy_frames;
        a.gpu_bound_share = a.busy_frames ? static_cast<double>(s.gpu_bound) / static_cast<double>(a.busy_frames) : 0.0;
    }
    {
        const SortedBag v(std::move(s.pc_latency), {0.5, 0.99});
        a.has_pc_latency = !v.empty();
        a.pc_latency_p50_ms = v.percentile(0.5);
        a.pc_latency_p99_ms = v.percentile(0.99);
    }
    const SortedBag v(std::move(s.input_latency), {0.5, 0.99});
    a.has_input_latency = !v.empty();
    a.input_latency_p50_ms = v.percentile(0.5);
    a.input_latency_p99_ms = v.percentile(0.99);
}

// Every figure of one series. Consumes the frames: each column is freed once its figures are
// made, so that at most the frame times and one column of doubles are held at a time.
void analyze_frames(SeriesFrames& s, const AnalyzeOptions& o, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.frames = n;
    a.definitions = o.definitions;
    if (n == 0) return;
    if (s.sampled) return compute_sampled(s, a);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += s.ft[i];
    a.duration_s = total / 1000.0;
    a.avg_fps = total > 0 ? 1000.0 * static_cast<double>(n) / total : 0.0;
    displayed_frames(s, total, a);
    busy_and_latency(s, a);
    const bool cfx = o.definitions == Definitions::capframex;
    pacing_error(s, o, a);
    jitter(s.ft, a);
    stutters_and_hitches(s.ft, total, cfx, o, a);
    refresh_period(o, a);
    swappy_histograms(s, a);
    s.target = FrameColumn();
    s.lateness = FrameColumn();
    // CapFrameX's stutters need the mean first, and the frames in their order after it.
    FrameColumn sorted = cfx ? FrameColumn(s.ft) : std::move(s.ft);
    sorted.sort();
    if (o.keep_frames) a.frame_ms_sorted = sorted.doubles();
    frame_time_figures(sorted, total, cfx, a);
    frame_time_histogram(sorted, o, a);
    if (!cfx) return;
    capframex_stutters(s.ft, a.mean_ms, o.stutter_factor, a);
    a.stutter_time_share = total > 0 ? a.stutter_time_share / total : 0.0;
}

// The public compute()'s columns as a series: each column of another length than ft is left out.
SeriesFrames series_of(const std::vector<double>& ft, const FrameColumns& c) {
    const std::size_t n = ft.size();
    SeriesFrames s;
    s.sampled = c.sampled;
    auto at = [n](const std::vector<double>& v, std::size_t i) { return v.size() == n ? v[i] : kNaN; };
    for (const double t : c.time_s) s.time_s.push(t);
    for (std::size_t i = 0; i < n; ++i) {
        s.ft.push(ft[i]);
        if (c.target_ms.size() == n) s.target.push(c.target_ms[i]);
        if (c.lateness_ms.size() == n) s.lateness.push(c.lateness_ms[i]);
        add_other_columns(s, {at(c.dropped, i), c.dropped.size() == n ? at(c.display_ms, i) : kNaN, at(c.cpu_busy_ms, i),
                              at(c.gpu_busy_ms, i), at(c.pc_latency_ms, i), at(c.input_to_photon_ms, i)});
    }
    return s;
}

}  // namespace

void compute(const std::vector<double>& ft, const FrameColumns& c, const AnalyzeOptions& o, Analysis& a) {
    SeriesFrames s = series_of(ft, c);
    analyze_frames(s, o, a);
}

void compute(const std::vector<double>& ft, const std::vector<double>& target,
             const std::vector<double>& lateness, const AnalyzeOptions& o, Analysis& a) {
    FrameColumns c;
    c.target_ms = target;
    c.lateness_ms = lateness;
    compute(ft, c, o, a);
}

namespace {

bool ci_equal(std::string_view x, std::string_view y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(x[i])) != std::tolower(static_cast<unsigned char>(y[i]))) return false;
    return true;
}

bool has_column(const CaptureReader& r, std::string_view name) {
    for (const std::string& c : r.columns())
        if (ci_equal(c, name)) return true;
    return false;
}

// A swap chain address as a number: "0x0000021D5B1C2F40" (PresentMon 1.x) and "0x21D5B1C2F40"
// (2.x) are the same swap chain.
bool hex_value(std::string_view s, std::uint64_t& v) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool same_swapchain(std::string_view x, std::string_view y) {
    std::uint64_t a = 0, b = 0;
    if (hex_value(x, a) && hex_value(y, b)) return a == b;
    return ci_equal(x, y);
}

struct Group {
    SeriesInfo info;
    double pid = std::nan("");  // as read (NaN: none), for the per-row comparison
    std::string swapchain_raw;  // as read
    std::string key;            // application, pid, swap chain: the hash key
    double ms = 0;              // sum of the frame times
    double t_first = std::nan(""), t_last = std::nan("");  // time stamps, for a sampled log
    SeriesFrames frames;        // the frames of a selected series
    bool any_target = false, any_lateness = false, has_missed = false;
    std::uint64_t missed = 0, na_rows = 0;
    // The file's rows (CaptureReader::rows_hint()) for the first series: its columns are reserved
    // at once, not grown by doubling (each doubling copies the column into fresh pages).
    std::uint64_t rows_hint = 0;
};

bool same_pid(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

bool same_series(const FrameRecord& f, const Group& g) {
    return same_pid(f.process_id, g.pid) && same_text(f.swapchain, g.swapchain_raw) &&
           same_text(f.application, g.info.application);
}

// The series of each row. Rows of a few series interleave (a game and dwm.exe take turns): the
// last row's series, else a short linear search; past 16 series, a hash of (application, pid,
// swap chain).
class SeriesLookup {
public:
    // Index of f's series in groups; groups.size() when it is a new one (key() is its hash key).
    std::size_t find(const FrameRecord& f, const std::vector<Group>& groups) {
        if (cur_ < groups.size() && same_series(f, groups[cur_])) return cur_;
        cur_ = groups.size();
        if (groups.size() <= 16) {
            for (std::size_t i = 0; i < groups.size(); ++i)
                if (same_series(f, groups[i])) return cur_ = i;
        }
        key_.assign(f.application.data(), f.application.size());
        key_ += '\x1f';
        if (!std::isnan(f.process_id)) key_ += std::to_string(static_cast<std::int64_t>(f.process_id));
        key_ += '\x1f';
        key_.append(f.swapchain.data(), f.swapchain.size());
        if (groups.size() > 16) {
            if (index_.empty())  // the first time past 16: index what is there
                for (std::size_t i = 0; i < groups.size(); ++i) index_.emplace(groups[i].key, i);
            if (const auto it = index_.find(key_); it != index_.end()) return cur_ = it->second;
        }
        return cur_;
    }
    void added(const std::vector<Group>& groups) {
        if (!index_.empty()) index_.emplace(groups.back().key, groups.size() - 1);
    }
    const std::string& key() const noexcept { return key_; }

private:
    std::size_t cur_ = static_cast<std::size_t>(-1);
    std::string key_;
    std::unordered_map<std::string, std::size_t> index_;
};

Group new_group(const FrameRecord& f, const std::string& key, const AnalyzeOptions& o) {
    Group g;
    g.key = key;
    g.info.application = std::string(f.application);
    g.swapchain_raw = std::string(f.swapchain);
    if (g.swapchain_raw != "NA") g.info.swapchain = g.swapchain_raw;
    g.pid = f.process_id;
    if (std::isfinite(f.process_id)) g.info.process_id = static_cast<std::int64_t>(f.process_id);
    g.info.selected = (o.application.empty() || ci_equal(g.info.application, o.application)) &&
                      (o.process_id < 0 || g.info.process_id == o.process_id) &&
                      (o.swapchain.empty() || same_swapchain(g.info.swapchain, o.swapchain));
    return g;
}

// What collect() keeps of each frame of a selected series, decided once from the file and the options.
struct Keep {
    bool frames = false;     // any (not when listing)
    bool times = false;      // time stamps: the per-frame series, a sampled log's span
    bool per_frame = false;  // AnalyzeOptions::keep_frames: the other columns per frame too
    bool target = false, lateness = false;
    bool na_display_is_dropped = false;
    bool sampled = false;
};

Keep keep_of(const CaptureReader& r, const AnalyzeOptions& o, bool keep) {
    Keep k;
    k.frames = keep;
    k.sampled = r.sampled();
    k.times = o.keep_frames || k.sampled;
    k.per_frame = o.keep_frames && o.keep_columns;
    k.target = r.has_target();
    k.lateness = r.has_lateness();
    // Without a Dropped value, PresentMon 2.x's DisplayedTime says NA for a frame never displayed.
    k.na_display_is_dropped = !has_column(r, "Dropped") && has_column(r, "DisplayedTime");
    return k;
}

void add_frame(Group& g, const FrameRecord& f, const Keep& k) {
    SeriesFrames& s = g.frames;
    const std::size_t i = s.ft.size();
    if (i == 0 && g.rows_hint > 0) {
        const auto n = static_cast<std::size_t>(g.rows_hint);
        s.ft.reserve(n);
        if (k.times) s.time_s.reserve(n);
        if (k.target) s.target.reserve(n);
        if (k.lateness) s.lateness.reserve(n);
    }
    s.ft.push(f.frame_ms);
    if (k.times) s.time_s.push(f.time_s);
    if (k.target) s.target.push(f.target_ms);
    if (k.lateness) s.lateness.push(f.lateness_ms);
    g.any_target = g.any_target || !std::isnan(f.target_ms);
    g.any_lateness = g.any_lateness || !std::isnan(f.lateness_ms);
    if (!std::isnan(f.missed)) {
        g.has_missed = true;
        if (f.missed > 0) ++g.missed;
    }
    const double dropped = !std::isnan(f.dropped)     ? f.dropped
                           : k.na_display_is_dropped ? (std::isnan(f.display_change_ms) ? 1.0 : 0.0)
                                                     : kNaN;
    const OtherColumns c{dropped, f.display_change_ms, f.busy_ms, f.gpu_busy_ms, f.pc_latency_ms, f.input_to_photon_ms};
    add_other_columns(s, c);
    if (!k.per_frame) return;
    s.display.push_at(i, c.display);
    s.dropped.push_at(i, c.dropped);
    s.cpu.push_at(i, c.cpu);
    s.gpu.push_at(i, c.gpu);
    s.pc.push_at(i, c.pc);
    s.input.push_at(i, c.input);
}

// One row into its series: counted, and its frame kept when the series is selected.
Status add_row(Group& g, const FrameRecord& f, const Keep& k, const AnalyzeOptions& o, std::size_t& kept,
               const CaptureReader& r) {
    ++g.info.rows;
    if (std::isnan(f.frame_ms)) {
        ++g.na_rows;
        return {};
    }
    ++g.info.frames;
    g.ms += f.frame_ms;
    if (k.sampled && std::isfinite(f.time_s)) {
        if (std::isnan(g.t_first)) g.t_first = f.time_s;
        g.t_last = f.time_s;
    }
    if (!k.frames || !g.info.selected) return {};
    if (kept >= o.max_frames)
        return Status::error(r.name() + ":" + std::to_string(f.line) + ": more than " + std::to_string(o.max_frames) +
                             " frames; analyze a part of the capture");
    ++kept;
    add_frame(g, f, k);
    return {};
}

// Reads every row, grouped by (application, process, swap chain). Frames are kept only for the
// selected series (and not at all when listing).
Status collect(CaptureReader& r, const AnalyzeOptions& o, bool keep, std::vector<Group>& groups, std::uint64_t& rows) {
    const Keep k = keep_of(r, o, keep);
    r.set_summary_only(true, k.times);
    SeriesLookup lookup;
    std::size_t kept = 0;
    FrameRecord f;
    while (r.next(f)) {
        ++rows;
        const std::size_t cur = lookup.find(f, groups);
        if (cur == groups.size()) {
            if (groups.size() >= 100000)
                return Status::error(r.name() + ":" + std::to_string(f.line) + ": more than 100000 processes and swap chains");
            groups.push_back(new_group(f, lookup.key(), o));
            if (groups.size() == 1) groups.back().rows_hint = r.rows_hint();
            lookup.added(groups);
        }
        if (Status st = add_row(groups[cur], f, k, o, kept, r); !st) return st;
    }
    if (!r.error().ok()) return r.error();
    // A log of samples spans its time stamps; its rows' frame times add up to far less.
    for (Group& g : groups)
        g.info.duration_s = k.sampled && std::isfinite(g.t_first) ? g.t_last - g.t_first : g.ms / 1000.0;
    // The main series first: most frames, then the first in the file.
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Group& x, const Group& y) { return x.info.frames > y.info.frames; });
    return {};
}

// The column the reader takes as the frame time: the first frame-time column of the header.
std::string frame_column(const CaptureReader& r) {
    const int k = r.field_of(pacer::CaptureColumnId::frame_ms);
    return k >= 0 ? r.columns()[static_cast<std::size_t>(k)] : std::string();
}

// Frames without a target use the last known one; those before the first known one, that one
// (a capture starts with it).
void fill_targets(FrameColumn& target) {
    double last = kNaN;
    for (std::size_t i = 0; i < target.size(); ++i) {
        if (std::isnan(target[i])) target.set(i, last);
        else last = target[i];
    }
    last = kNaN;
    for (std::size_t i = target.size(); i-- > 0;) {
        if (std::isnan(target[i])) target.set(i, last);
        else last = target[i];
    }
}

// AnalyzeOptions::keep_frames: the series per frame, before the figures consume the columns.
// Times are seconds since the first frame; a file without a time column (or with gaps in it)
// gets the running sum of frame times.
void keep_series(SeriesFrames& s, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.frame_ms = s.ft.doubles();
    a.time_s = s.time_s.doubles();
    const double t0 = a.time_s.empty() ? 0.0 : a.time_s.front();
    double sum = 0;
    for (std::size_t i = 0; i < a.time_s.size(); ++i) {
        sum += i ? a.frame_ms[i] / 1000.0 : 0.0;
        a.time_s[i] = std::isfinite(a.time_s[i]) && std::isfinite(t0) ? a.time_s[i] - t0 : sum;
    }
    // CPU busy is reported beside GPU busy (which of the two bound the frame).
    if (s.gpu.empty()) s.cpu = FrameColumn();
    const std::pair<FrameColumn*, std::vector<double>*> columns[] = {
        {&s.display, &a.display_ms}, {&s.dropped, &a.dropped_flags}, {&s.cpu, &a.cpu_busy_ms},
        {&s.gpu, &a.gpu_busy_ms},    {&s.pc, &a.pc_latency_ms},      {&s.input, &a.input_to_photon_ms}};
    for (const auto& [column, out] : columns) {
        column->pad(n);
        *out = column->doubles();
        *column = FrameColumn();
    }
}

void analyze_group(Group& g, const CaptureReader& r, const AnalyzeOptions& o, std::uint64_t rows, Analysis& a) {
    a.file = r.name();
    a.format = to_string(r.format());
    a.frame_column = frame_column(r);
    a.application = g.info.application;
    a.swapchain = g.info.swapchain;
    a.process_id = g.info.process_id;
    a.rows = g.info.rows;
    a.na_rows = g.na_rows;
    a.filtered_rows = rows - g.info.rows;
    SeriesFrames& s = g.frames;
    s.sampled = r.sampled();
    // A capture without GPU busy (pacer's own: MsCPUBusy is the work time) does not report CPU busy.
    s.cpu_needs_gpu = true;
    if (g.any_target) fill_targets(s.target);
    else s.target = FrameColumn();
    if (!g.any_lateness) s.lateness = FrameColumn();
    if (o.keep_frames) keep_series(s, a);
    analyze_frames(s, o, a);
    a.has_missed = g.has_missed;
    a.missed = g.missed;
    g.frames = SeriesFrames();
}

std::string selection_text(const AnalyzeOptions& o) {
    std::string s;
    auto add = [&](const std::string& t) { s += (s.empty() ? "" : " and ") + t; };
    if (!o.application.empty()) add("application " + o.application);
    if (o.process_id >= 0) add("pid " + std::to_string(o.process_id));
    if (!o.swapchain.empty()) add("swap chain " + o.swapchain);
    return s;
}

std::string holds_list(const std::vector<SeriesInfo>& series, std::size_t from, std::size_t max) {
    std::string s;
    std::size_t shown = 0;
    for (std::size_t i = from; i < series.size() && shown < max; ++i, ++shown)
        s += (shown ? ", " : "") + describe(series[i]);
    if (series.size() - from > shown) s += " and " + std::to_string(series.size() - from - shown) + " more";
    return s;
}

}  // namespace

std::string describe(const SeriesInfo& s) {
    std::string d = s.application.empty() ? std::string("(no application)") : s.application;
    std::string in;
    if (s.process_id >= 0) in += "pid " + std::to_string(s.process_id);
    if (!s.swapchain.empty()) in += (in.empty() ? "" : ", ") + std::string("swap chain ") + s.swapchain;
    in += (in.empty() ? "" : ", ") + std::to_string(s.frames) + " frames";
    return d + " (" + in + ")";
}

namespace {

// The note under the table: what else the file holds, or what else the selection matched, and
// how to pick; and a last row left out.
std::string series_note(const CaptureReader& r, const AnalyzeOptions& o, const std::vector<Group>& groups,
                        const std::vector<std::size_t>& chosen, std::size_t shown) {
    const bool selecting = !o.application.empty() || o.process_id >= 0 || !o.swapchain.empty();
    std::string names, note;
    std::uint64_t hidden_frames = 0;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
        if (k < shown) names += (k > 0 ? ", " : "") + describe(groups[chosen[k]].info);
        else hidden_frames += groups[chosen[k]].info.frames;
    }
    const std::string how = "pick one with --app NAME, --pid N or --swapchain ADDR; `pacer analyze --list " +
                            r.name() + "` lists them";
    if (!selecting && groups.size() > 1) {
        note = "note: " + r.name() + " holds " + std::to_string(groups.size()) +
               " series (process, swap chain), each analysed on its own: " + names;
        if (chosen.size() > shown)
            note += "; not shown: " + std::to_string(chosen.size() - shown) + " more with " +
                    std::to_string(hidden_frames) + " frames";
        note += "; " + how;
    } else if (selecting && chosen.size() > 1) {
        note = "note: " + std::to_string(chosen.size()) + " series of " + r.name() + " match " + selection_text(o) +
               ", each analysed on its own: " + names +
               (chosen.size() > shown ? " and " + std::to_string(chosen.size() - shown) + " more" : std::string()) +
               "; " + how;
    }
    if (r.cut_last_line())
        note += (note.empty() ? "" : "\n") + std::string("note: ") + r.name() + ":" + std::to_string(r.line()) +
                ": the last line is a row cut short (its writer stopped mid-row) and was left out";
    return note;
}

}  // namespace

Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, FileAnalysis& out) {
    out = FileAnalysis();
    out.file = r.name();
    out.format = to_string(r.format());
    out.sampled = r.sampled();
    std::vector<Group> groups;
    std::uint64_t rows = 0;
    if (Status st = collect(r, o, true, groups, rows); !st) return st;
    for (const Group& g : groups) out.series.push_back(g.info);
    std::vector<std::size_t> chosen;  // selected series with frames, main first
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (groups[i].info.selected && groups[i].info.frames > 0) chosen.push_back(i);
    if (chosen.empty()) {
        const bool selecting = !o.application.empty() || o.process_id >= 0 || !o.swapchain.empty();
        if (!selecting || groups.empty()) return Status::error(r.name() + ": no frames");
        return Status::error(r.name() + ": no frames of " + selection_text(o) + " (the file holds: " +
                             holds_list(out.series, 0, 8) + ")");
    }
    const std::size_t n = std::min(chosen.size(), std::max<std::size_t>(1, o.max_series));
    for (std::size_t k = 0; k < n; ++k) {
        Analysis a;
        analyze_group(groups[chosen[k]], r, o, rows, a);
        out.analyses.push_back(std::move(a));
    }
    out.note = series_note(r, o, groups, chosen, n);
    return {};
}

Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, Analysis& a) {
    FileAnalysis fa;
    AnalyzeOptions one = o;
    one.max_series = 1;
    if (Status st = analyze_reader(r, one, fa); !st) return st;
    a = std::move(fa.analyses.front());
    return {};
}

namespace {

// A file the reader refused: its error, or, for pacer's stats sidecar, a skip with a note.
Status refused(const CaptureReader& r, const Status& st, FileAnalysis& out) {
    if (!r.stats_sidecar()) return st;
    out = FileAnalysis();
    out.file = r.name();
    out.skipped = true;
    out.note = "note: skipped " + r.name() + ": pacer's stats sidecar" +
               (r.sidecar_of().empty() ? std::string() : " of " + r.sidecar_of()) + ", not a capture";
    return {};
}

}  // namespace

Status analyze_file(const std::string& path, const AnalyzeOptions& o, FileAnalysis& out) {
    CaptureReader r;
    if (Status st = r.open(path); !st) return refused(r, st, out);
    return analyze_reader(r, o, out);
}

Status analyze_file(const std::string& path, const AnalyzeOptions& o, Analysis& a) {
    CaptureReader r;
    if (Status st = r.open(path); !st) return st;
    return analyze_reader(r, o, a);
}

Status list_file(const std::string& path, FileAnalysis& out) {
    out = FileAnalysis();
    CaptureReader r;
    if (Status st = r.open(path); !st) return refused(r, st, out);
    out.file = r.name();
    out.format = to_string(r.format());
    out.sampled = r.sampled();
    std::vector<Group> groups;
    std::uint64_t rows = 0;
    if (Status st = collect(r, {}, false, groups, rows); !st) return st;
    for (const Group& g : groups) out.series.push_back(g.info);
    return {};
}

namespace {

// "CPUStartTime, TimeInMs (ms)": a column's aliases as the table writes them ("Name:ms").
std::string aliases_text(std::string_view aliases) {
    std::string out;
    while (!aliases.empty()) {
        const std::size_t bar = aliases.find('|');
        std::string_view one = aliases.substr(0, bar);
        aliases = bar == std::string_view::npos ? std::string_view() : aliases.substr(bar + 1);
        const std::size_t colon = one.find(':');
        if (!out.empty()) out += ", ";
        out += std::string(one.substr(0, colon));
        if (colon != std::string_view::npos) out += " (" + std::string(one.substr(colon + 1)) + ")";
    }
    return out;
}

}  // namespace

std::string format_columns() {
    std::string out = "column                     unit           origin      also read as\n";
    char b[256];
    for (const pacer::CaptureColumn& c : pacer::kCaptureColumns) {
        std::snprintf(b, sizeof b, "%-26s %-14s %-11s ", c.name, pacer::to_string(c.unit), pacer::to_string(c.origin));
        out += b + aliases_text(c.aliases);
        while (out.back() == ' ') out.pop_back();
        out += '\n';
    }
    return out;
}

std::string format_series(const FileAnalysis& fa) {
    std::string out = fa.file + ": " + fa.format + ", " + std::to_string(fa.series.size()) + " series" +
                      (fa.sampled ? " (a log of samples: one row per interval, not per frame)" : "") + "\n";
    std::size_t app_w = 11, sc_w = 10;
    for (const SeriesInfo& s : fa.series) {
        app_w = std::max(app_w, s.application.size());
        sc_w = std::max(sc_w, s.swapchain.size());
    }
    char b[1024];
    std::snprintf(b, sizeof b, "  %-*s  %10s  %-*s  %10s  %10s\n", static_cast<int>(app_w), "application", "pid",
                  static_cast<int>(sc_w), "swap chain", "frames", "duration s");
    out += b;
    for (const SeriesInfo& s : fa.series) {
        const std::string pid = s.process_id >= 0 ? std::to_string(s.process_id) : std::string("NA");
        const std::string app = s.application.empty() ? std::string("(none)") : s.application;
        std::snprintf(b, sizeof b, "  %-*s  %10s  %-*s  %10llu  %10.3f\n", static_cast<int>(app_w), app.c_str(),
                      pid.c_str(), static_cast<int>(sc_w), s.swapchain.empty() ? "NA" : s.swapchain.c_str(),
                      static_cast<unsigned long long>(s.frames), s.duration_s);
        out += b;
    }
    return out;
}

// ---- text --------------------------------------------------------------------------------------

namespace {

std::string num(double v, int prec) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", prec, v);
    return b;
}

using A = const Analysis&;

// One row of the text table: which analyses have it (the row is printed when any has), and the cell.
struct Line {
    const char* label;
    bool (*has)(A);
    std::string (*get)(A);
};

bool always(A) { return true; }
bool per_frame(A a) { return !a.sampled; }
bool sampled(A a) { return a.sampled; }
bool displayed(A a) { return !a.sampled && a.has_displayed; }
bool display_times(A a) { return !a.sampled && a.has_display_times; }
bool cpu_busy(A a) { return !a.sampled && a.has_cpu_busy; }
bool gpu_busy(A a) { return !a.sampled && a.has_gpu_busy; }
bool both_busy(A a) { return !a.sampled && a.busy_frames > 0; }
bool pc_latency(A a) { return !a.sampled && a.has_pc_latency; }
bool input_latency(A a) { return !a.sampled && a.has_input_latency; }
bool lateness(A a) { return !a.sampled && a.has_lateness; }
std::string target_or_na(A a, double v, int prec) { return a.has_target ? num(v, prec) : std::string("NA"); }

const Line kLines[] = {
    {"format", always, [](A a) { return a.format; }},
    {"application", always, [](A a) { return a.application.empty() ? std::string("NA") : a.application; }},
    {"process id", always, [](A a) { return a.process_id >= 0 ? std::to_string(a.process_id) : std::string("NA"); }},
    {"swap chain", always, [](A a) { return a.swapchain.empty() ? std::string("NA") : a.swapchain; }},
    {"frame time column", always, [](A a) { return a.frame_column.empty() ? std::string("?") : a.frame_column; }},
    {"definitions", per_frame, [](A a) { return std::string(to_string(a.definitions)); }},
    {"samples (sampled log)", sampled, [](A a) { return std::to_string(a.frames); }},
    {"frames", per_frame, [](A a) { return std::to_string(a.frames); }},
    {"rows without frame time", always, [](A a) { return std::to_string(a.na_rows); }},
    {"duration s", always, [](A a) { return num(a.duration_s, 3); }},
    {"average FPS", always, [](A a) { return num(a.avg_fps, 2); }},
    {"sampled FPS min", sampled, [](A a) { return num(a.sampled_fps_min, 2); }},
    {"sampled FPS max", sampled, [](A a) { return num(a.sampled_fps_max, 2); }},
    {"P1 FPS", per_frame, [](A a) { return num(a.p1_fps, 2); }},
    {"P0.1 FPS", per_frame, [](A a) { return num(a.p01_fps, 2); }},
    {"1% low FPS (average)", per_frame, [](A a) { return num(a.low1_avg_fps, 2); }},
    {"0.1% low FPS (average)", per_frame, [](A a) { return num(a.low01_avg_fps, 2); }},
    {"1% low FPS (integral)", per_frame, [](A a) { return num(a.low1_integral_fps, 2); }},
    {"0.1% low FPS (integral)", per_frame, [](A a) { return num(a.low01_integral_fps, 2); }},
    {"frame time mean ms", per_frame, [](A a) { return num(a.mean_ms, 3); }},
    {"frame time stddev ms", per_frame, [](A a) { return num(a.stddev_ms, 3); }},
    {"frame time min ms", per_frame, [](A a) { return num(a.min_ms, 3); }},
    {"frame time p50 ms", per_frame, [](A a) { return num(a.p50_ms, 3); }},
    {"frame time p90 ms", per_frame, [](A a) { return num(a.p90_ms, 3); }},
    {"frame time p95 ms", per_frame, [](A a) { return num(a.p95_ms, 3); }},
    {"frame time p99 ms", per_frame, [](A a) { return num(a.p99_ms, 3); }},
    {"frame time p99.9 ms", per_frame, [](A a) { return num(a.p999_ms, 3); }},
    {"frame time max ms", per_frame, [](A a) { return num(a.max_ms, 3); }},
    {"target ms", per_frame, [](A a) { return target_or_na(a, a.target_ms, 3); }},
    {"pacing error bias ms", per_frame, [](A a) { return target_or_na(a, a.bias_ms, 3); }},
    {"pacing error RMS ms", per_frame, [](A a) { return target_or_na(a, a.rms_ms, 3); }},
    {"pacing |error| p99 ms", per_frame, [](A a) { return target_or_na(a, a.abs_err_p99_ms, 3); }},
    {"within +/-0.5 ms %", per_frame, [](A a) { return target_or_na(a, 100 * a.within_05ms, 2); }},
    {"jitter mean ms", per_frame, [](A a) { return num(a.jitter_mean_ms, 3); }},
    {"jitter p99 ms", per_frame, [](A a) { return num(a.jitter_p99_ms, 3); }},
    {"jitter max ms", per_frame, [](A a) { return num(a.jitter_max_ms, 3); }},
    {"stutters (>2.5x avg)", per_frame, [](A a) { return std::to_string(a.stutters); }},
    {"stutter time %", per_frame, [](A a) { return num(100 * a.stutter_time_share, 3); }},
    {"hitches (>60ms, >=1.5x prev)", per_frame, [](A a) { return std::to_string(a.hitches); }},
    {"missed frames", per_frame, [](A a) { return a.has_missed ? std::to_string(a.missed) : std::string("NA"); }},
    {"dropped frames %", displayed, [](A a) { return num(100 * a.dropped_share, 2); }},
    {"displayed FPS", displayed, [](A a) { return num(a.displayed_fps, 2); }},
    {"displayed time p50 ms", display_times, [](A a) { return num(a.display_p50_ms, 3); }},
    {"displayed time p90 ms", display_times, [](A a) { return num(a.display_p90_ms, 3); }},
    {"displayed time p99 ms", display_times, [](A a) { return num(a.display_p99_ms, 3); }},
    {"displayed time p99.9 ms", display_times, [](A a) { return num(a.display_p999_ms, 3); }},
    {"CPU busy p50 ms", cpu_busy, [](A a) { return num(a.cpu_busy_p50_ms, 3); }},
    {"GPU busy p50 ms", gpu_busy, [](A a) { return num(a.gpu_busy_p50_ms, 3); }},
    {"GPU busy >= CPU busy % frames", both_busy, [](A a) { return num(100 * a.gpu_bound_share, 2); }},
    {"PC latency p50 ms", pc_latency, [](A a) { return num(a.pc_latency_p50_ms, 3); }},
    {"PC latency p99 ms", pc_latency, [](A a) { return num(a.pc_latency_p99_ms, 3); }},
    {"input to photon p50 ms", input_latency, [](A a) { return num(a.input_latency_p50_ms, 3); }},
    {"input to photon p99 ms", input_latency, [](A a) { return num(a.input_latency_p99_ms, 3); }},
    {"refresh period ms", per_frame, [](A a) { return num(a.refresh_ms, 3); }},
    {"refresh period from", per_frame, [](A a) { return std::string(a.refresh_source); }},
};

// Swappy's histograms: the share of frames whose frame time (lateness) lasts N refresh periods.
// Frame times in bins centred on whole periods, lateness in whole periods late.
struct HistogramLine {
    const char* label;
    bool (*has)(A);
    std::array<std::uint64_t, 6> Analysis::*counts;
    std::size_t bin;
};

const HistogramLine kHistogramLines[] = {
    {"% frames lasting < 0.5 refreshes", per_frame, &Analysis::interval_hist, 0},
    {"% frames lasting 1 refresh [0.5,1.5)", per_frame, &Analysis::interval_hist, 1},
    {"% frames lasting 2 refreshes [1.5,2.5)", per_frame, &Analysis::interval_hist, 2},
    {"% frames lasting 3 refreshes [2.5,3.5)", per_frame, &Analysis::interval_hist, 3},
    {"% frames lasting 4 refreshes [3.5,4.5)", per_frame, &Analysis::interval_hist, 4},
    {"% frames lasting >= 4.5 refreshes", per_frame, &Analysis::interval_hist, 5},
    {"% frames late by [0,1) refresh periods", lateness, &Analysis::lateness_hist, 0},
    {"% frames late by [1,2) refresh periods", lateness, &Analysis::lateness_hist, 1},
    {"% frames late by [2,3) refresh periods", lateness, &Analysis::lateness_hist, 2},
    {"% frames late by [3,4) refresh periods", lateness, &Analysis::lateness_hist, 3},
    {"% frames late by [4,5) refresh periods", lateness, &Analysis::lateness_hist, 4},
    {"% frames late by >= 5 refresh periods", lateness, &Analysis::lateness_hist, 5},
};

// A label column and one right-aligned column per analysis, headed by its file name.
class TextTable {
public:
    explicit TextTable(const std::vector<Analysis>& as) : as_(as) {
        std::vector<std::string> names;
        for (const Analysis& a : as) {
            width_.push_back(std::max<std::size_t>(17, std::min<std::size_t>(a.file.size(), 40)));
            names.push_back(a.file.size() > 40 ? "..." + a.file.substr(a.file.size() - 37) : a.file);
        }
        row("", names);
    }
    // The row, when any analysis has it. "NA": the file has no such data; "-": not meaningful
    // for a sampled log.
    template <class Cell>
    void row_if(const char* label, bool (*has)(A), Cell cell) {
        if (std::none_of(as_.begin(), as_.end(), has)) return;
        std::vector<std::string> cells;
        for (const Analysis& a : as_) cells.push_back(has(a) ? cell(a) : std::string(a.sampled ? "-" : "NA"));
        row(label, cells);
    }
    std::string text() && { return std::move(out_); }

private:
    void row(const std::string& label, const std::vector<std::string>& cells) {
        out_ += label;
        if (label.size() < kLabelWidth) out_.append(kLabelWidth - label.size(), ' ');
        for (std::size_t i = 0; i < cells.size(); ++i) {
            out_ += "  ";
            if (cells[i].size() < width_[i]) out_.append(width_[i] - cells[i].size(), ' ');
            out_ += cells[i];
        }
        out_ += '\n';
    }
    static constexpr std::size_t kLabelWidth = 40;
    const std::vector<Analysis>& as_;
    std::vector<std::size_t> width_;
    std::string out_;
};

// A frame-time histogram as bars of '#', the longest 50 wide.
std::string text_histogram(A a) {
    std::string out = "\nframe-time histogram of " + a.file + " (ms)\n";
    std::uint64_t peak = 1;
    for (auto c : a.histogram) peak = std::max(peak, c);
    const double step = (a.hist_hi_ms - a.hist_lo_ms) / static_cast<double>(a.histogram.size());
    for (std::size_t b = 0; b < a.histogram.size(); ++b) {
        const double lo = a.hist_lo_ms + step * static_cast<double>(b);
        const bool last = b + 1 == a.histogram.size();
        char head[64];
        std::snprintf(head, sizeof head, "%9.3f %s %-9s", lo, last ? "+ " : "- ", last ? "" : num(lo + step, 3).c_str());
        const auto len = static_cast<std::size_t>(
            std::llround(50.0 * static_cast<double>(a.histogram[b]) / static_cast<double>(peak)));
        out += std::string(head) + " |" + std::string(len, '#') + " " + std::to_string(a.histogram[b]) + "\n";
    }
    return out;
}

}  // namespace

std::string format_text(const std::vector<Analysis>& as) {
    TextTable table(as);
    for (const Line& l : kLines) table.row_if(l.label, l.has, l.get);
    for (const HistogramLine& h : kHistogramLines)
        table.row_if(h.label, h.has, [&h](A a) {
            const std::uint64_t count = (a.*h.counts)[h.bin];
            return a.frames ? num(100.0 * static_cast<double>(count) / static_cast<double>(a.frames), 2) : std::string("NA");
        });
    std::string out = std::move(table).text();
    for (const Analysis& a : as) {
        if (!a.sampled) continue;
        out += "\n" + a.file + ": sampled: " + std::to_string(a.frames) + " samples over " + num(a.duration_s, 1) +
               " s (one row per log interval, each an average of many frames): only the average FPS and the"
               " sampled FPS range are shown\n";
    }
    for (const Analysis& a : as)
        if (!a.sampled) out += text_histogram(a);
    return out;
}

// ---- JSON --------------------------------------------------------------------------------------

namespace {

std::string json_str(const std::string& s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += static_cast<char>(c);
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += static_cast<char>(c);
        }
    }
    return o + "\"";
}

std::string jnum(double v) {
    if (!std::isfinite(v)) return "null";
    char b[64];
    auto r = std::to_chars(b, b + sizeof b, v);
    return std::string(b, r.ptr);
}

template <class C>
std::string jarr(const C& c) {
    std::string o = "[";
    for (std::size_t i = 0; i < c.size(); ++i) o += (i ? "," : "") + std::to_string(c[i]);
    return o + "]";
}

// A sampled log has no frame-level figures: null.
std::string jframe(A a, double v) { return a.sampled ? std::string("null") : jnum(v); }
std::string jframe(A a, std::uint64_t v) { return a.sampled ? std::string("null") : std::to_string(v); }
std::string jnull_or(bool cond, const std::string& v) { return cond ? v : std::string("null"); }

// "name": [v, ...] with `decimals` decimals at most (trailing zeros dropped), null for NaN.
// Linear in the length: one growing buffer, no temporaries per value.
void append_series(std::string& o, const char* name, const std::vector<double>& v, int decimals, bool& first) {
    if (v.empty()) return;
    o += first ? "\n    " : ",\n    ";
    first = false;
    o += '"';
    o += name;
    o += "\": [";
    char b[64];
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) o += ',';
        if (!std::isfinite(v[i])) {
            o += "null";
            continue;
        }
        char* end = std::to_chars(b, b + sizeof b, v[i], std::chars_format::fixed, decimals).ptr;
        if (std::find(b, end, '.') != end) {
            while (end[-1] == '0') --end;
            if (end[-1] == '.') --end;
        }
        o.append(b, end);
    }
    o += ']';
}

// Which series, and its counts and rates.
std::string json_head(A a) {
    return "  {\"file\": " + json_str(a.file) + ", \"format\": " + json_str(a.format) +
           ", \"application\": " + json_str(a.application) +
           ", \"process_id\": " + (a.process_id >= 0 ? std::to_string(a.process_id) : std::string("null")) +
           ", \"swapchain\": " + (a.swapchain.empty() ? std::string("null") : json_str(a.swapchain)) +
           ",\n   \"frame_column\": " + json_str(a.frame_column) + ", \"definitions\": " + json_str(to_string(a.definitions)) +
           ", \"sampled\": " + (a.sampled ? "true" : "false") + ",\n   \"rows\": " + std::to_string(a.rows) +
           ", \"frames\": " + jframe(a, a.frames) +
           ", \"samples\": " + (a.sampled ? std::to_string(a.frames) : std::string("null")) +
           ", \"na_rows\": " + std::to_string(a.na_rows) + ", \"duration_s\": " + jnum(a.duration_s) +
           ",\n   \"avg_fps\": " + jnum(a.avg_fps) + ", \"sampled_fps\": " +
           jnull_or(a.sampled, "{\"min\": " + jnum(a.sampled_fps_min) + ", \"max\": " + jnum(a.sampled_fps_max) + "}") +
           ", \"p1_fps\": " + jframe(a, a.p1_fps) + ", \"p01_fps\": " + jframe(a, a.p01_fps) +
           ", \"low1_avg_fps\": " + jframe(a, a.low1_avg_fps) + ", \"low01_avg_fps\": " + jframe(a, a.low01_avg_fps) +
           ", \"low1_integral_fps\": " + jframe(a, a.low1_integral_fps) +
           ", \"low01_integral_fps\": " + jframe(a, a.low01_integral_fps);
}

// Frame times, pacing error, jitter, stutters.
std::string json_frame_times(A a) {
    return ",\n   \"frame_time_ms\": " +
           jnull_or(!a.sampled, "{\"mean\": " + jnum(a.mean_ms) + ", \"stddev\": " + jnum(a.stddev_ms) +
                                    ", \"min\": " + jnum(a.min_ms) + ", \"p50\": " + jnum(a.p50_ms) +
                                    ", \"p90\": " + jnum(a.p90_ms) + ", \"p95\": " + jnum(a.p95_ms) +
                                    ", \"p99\": " + jnum(a.p99_ms) + ", \"p99.9\": " + jnum(a.p999_ms) +
                                    ", \"max\": " + jnum(a.max_ms) + "}") +
           ",\n   \"pacing_error_ms\": " +
           jnull_or(!a.sampled && a.has_target,
                    "{\"target\": " + jnum(a.target_ms) + ", \"bias\": " + jnum(a.bias_ms) + ", \"rms\": " +
                        jnum(a.rms_ms) + ", \"abs_p99\": " + jnum(a.abs_err_p99_ms) +
                        ", \"within_0.5ms_share\": " + jnum(a.within_05ms) + "}") +
           ",\n   \"jitter_ms\": " +
           jnull_or(!a.sampled, "{\"mean\": " + jnum(a.jitter_mean_ms) + ", \"p99\": " + jnum(a.jitter_p99_ms) +
                                    ", \"max\": " + jnum(a.jitter_max_ms) + "}") +
           ", \"stutters\": " + jframe(a, a.stutters) + ", \"stutter_time_share\": " + jframe(a, a.stutter_time_share) +
           ", \"hitches\": " + jframe(a, a.hitches) +
           ", \"missed\": " + (a.has_missed && !a.sampled ? std::to_string(a.missed) : std::string("null"));
}

// Displayed frames, CPU / GPU busy, latency.
std::string json_display_busy_latency(A a) {
    const double nan = std::nan("");
    const std::string display_ms =
        jnull_or(a.has_display_times, "{\"p50\": " + jnum(a.display_p50_ms) + ", \"p90\": " + jnum(a.display_p90_ms) +
                                          ", \"p99\": " + jnum(a.display_p99_ms) + ", \"p99.9\": " + jnum(a.display_p999_ms) + "}");
    return ",\n   \"displayed\": " +
           jnull_or(a.has_displayed && !a.sampled,
                    "{\"displayed\": " + std::to_string(a.displayed) + ", \"dropped\": " + std::to_string(a.dropped) +
                        ", \"dropped_share\": " + jnum(a.dropped_share) + ", \"displayed_fps\": " + jnum(a.displayed_fps) +
                        ", \"display_ms\": " + display_ms + "}") +
           ", \"busy_ms\": " +
           jnull_or((a.has_cpu_busy || a.has_gpu_busy) && !a.sampled,
                    "{\"cpu_p50\": " + jnum(a.has_cpu_busy ? a.cpu_busy_p50_ms : nan) +
                        ", \"gpu_p50\": " + jnum(a.has_gpu_busy ? a.gpu_busy_p50_ms : nan) +
                        ", \"frames_with_both\": " + std::to_string(a.busy_frames) +
                        ", \"gpu_ge_cpu_share\": " + jnum(a.busy_frames ? a.gpu_bound_share : nan) + "}") +
           ",\n   \"latency_ms\": " +
           jnull_or((a.has_pc_latency || a.has_input_latency) && !a.sampled,
                    "{\"pc_p50\": " + jnum(a.has_pc_latency ? a.pc_latency_p50_ms : nan) +
                        ", \"pc_p99\": " + jnum(a.has_pc_latency ? a.pc_latency_p99_ms : nan) +
                        ", \"input_to_photon_p50\": " + jnum(a.has_input_latency ? a.input_latency_p50_ms : nan) +
                        ", \"input_to_photon_p99\": " + jnum(a.has_input_latency ? a.input_latency_p99_ms : nan) + "}");
}

// frame_time_refresh_histogram's bins, [lo, hi) in refresh periods: centred on whole periods.
constexpr const char* kRefreshBinsJson = "[[0, 0.5], [0.5, 1.5], [1.5, 2.5], [2.5, 3.5], [3.5, 4.5], [4.5, null]]";

std::string json_histograms(A a) {
    return ",\n   \"refresh_ms\": " + jframe(a, a.refresh_ms) +
           ", \"refresh_source\": " + (a.sampled ? std::string("null") : json_str(a.refresh_source)) +
           ", \"frame_time_refresh_histogram\": " + (a.sampled ? std::string("null") : jarr(a.interval_hist)) +
           ", \"frame_time_refresh_bins\": " + (a.sampled ? std::string("null") : std::string(kRefreshBinsJson)) +
           ", \"lateness_refresh_histogram\": " + (a.has_lateness && !a.sampled ? jarr(a.lateness_hist) : std::string("null")) +
           ",\n   \"histogram\": " +
           jnull_or(!a.sampled, "{\"lo_ms\": " + jnum(a.hist_lo_ms) + ", \"hi_ms\": " + jnum(a.hist_hi_ms) +
                                    ", \"counts\": " + jarr(a.histogram) + "}");
}

// The per-frame series Analysis keeps with AnalyzeOptions::keep_frames.
void append_frames(std::string& o, A a) {
    o += ",\n   \"frames\": {";
    bool first = true;
    std::size_t bytes = 0;
    for (const auto* v : {&a.time_s, &a.frame_ms, &a.display_ms, &a.dropped_flags, &a.cpu_busy_ms, &a.gpu_busy_ms,
                          &a.pc_latency_ms, &a.input_to_photon_ms})
        bytes += v->size() * 12;
    o.reserve(o.size() + bytes);
    append_series(o, "time_s", a.time_s, 9, first);
    append_series(o, "frame_ms", a.frame_ms, 6, first);
    append_series(o, "display_ms", a.display_ms, 6, first);
    append_series(o, "dropped", a.dropped_flags, 0, first);
    append_series(o, "cpu_busy_ms", a.cpu_busy_ms, 6, first);
    append_series(o, "gpu_busy_ms", a.gpu_busy_ms, 6, first);
    append_series(o, "pc_latency_ms", a.pc_latency_ms, 6, first);
    append_series(o, "input_to_photon_ms", a.input_to_photon_ms, 6, first);
    o += "}";
}

}  // namespace

std::string format_json(const std::vector<Analysis>& as, bool frames) {
    std::string o = "[\n";
    for (std::size_t i = 0; i < as.size(); ++i) {
        const Analysis& a = as[i];
        o += json_head(a) + json_frame_times(a) + json_display_busy_latency(a) + json_histograms(a);
        if (frames) append_frames(o, a);
        o += i + 1 < as.size() ? "},\n" : "}\n";
    }
    o += "]\n";
    return o;
}

}  // namespace pacer::tools
