// tools/lib/analyze_internal.hpp - what the pieces of the analysis share (not a public header:
// analyze.hpp is the tools library's umbrella). analyze_columns.cpp stores the columns,
// analyze_figures.cpp computes a series' figures, analyze_read.cpp reads a capture into series,
// analyze_output.cpp writes the text and JSON tables.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "analyze.hpp"
#include "pacer/stats.hpp"

namespace pacer::tools::detail {

// kNaN: capture_reader.hpp.

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

// Adds one frame's other columns to the series' bags and counts (analyze_figures.cpp).
void add_other_columns(SeriesFrames& s, const OtherColumns& c);

// Every figure of one series (analyze_figures.cpp). Consumes the frames: each column is freed once
// its figures are made, so that at most the frame times and one column of doubles are held at a
// time.
void analyze_frames(SeriesFrames& s, const AnalyzeOptions& o, Analysis& a);

}  // namespace pacer::tools::detail
