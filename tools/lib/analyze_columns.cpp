// tools/lib/analyze_columns.cpp - FrameColumn, the compact column of a capture's numbers, and the
// bags of values the figures sort.
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

#include "analyze_internal.hpp"

namespace pacer::tools {

using namespace detail;

const char* to_string(Definitions d) noexcept {
    return d == Definitions::capframex ? "capframex" : "presentmon";
}

// ArrayStatistics.QuantileInplace of MathNet.Numerics (src/Numerics/Statistics/ArrayStatistics.cs),
// which CapFrameX's GetPQuantileSequence calls through Statistics.Quantile.
double quantile_r8(const std::vector<double>& s, double p) noexcept { return quantile_r8_of(s, p); }

// ---- FrameColumn -------------------------------------------------------------------------------

namespace {

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

namespace detail {

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

}  // namespace detail

}  // namespace pacer::tools
