#include "pacer/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pacer {

double percentile_sorted(Span<const double> s, double p) noexcept { return percentile_sorted_of(s, p); }

StutterCounter::StutterCounter(int window, double factor)
    : ring_(static_cast<std::size_t>(std::max(window, 1))), factor_(factor) {}

bool StutterCounter::add(double frame_time) noexcept {
    if (!std::isfinite(frame_time) || frame_time < 0) return false;
    const std::size_t n = ring_.size();
    // frame > factor * sum / n, without a division per frame.
    const bool stutter = filled_ == n && frame_time * static_cast<double>(n) > factor_ * sum_;
    if (stutter) {
        ++count_;
        time_sum_ += frame_time;
    }
    if (filled_ == n) sum_ -= ring_[head_];
    else ++filled_;
    ring_[head_] = frame_time;
    sum_ += frame_time;
    if (++head_ == n) head_ = 0;
    return stutter;
}

void StutterCounter::reset() noexcept {
    head_ = filled_ = 0;
    sum_ = 0;
    count_ = 0;
    time_sum_ = 0;
}

FrameStats::FrameStats(std::size_t capacity, int stutter_window, double stutter_factor)
    : cap_(std::max<std::size_t>(capacity, 2)),
      interval_(cap_), lateness_(cap_), work_(cap_), slept_(cap_), spun_(cap_), latency_(cap_), period_(cap_),
      missed_(cap_), shown_late_(cap_), stutter_flag_(cap_), shown_(cap_), dropped_(cap_), feedback_(cap_),
      stutter_(stutter_window, stutter_factor), scratch_(cap_) {}

void FrameStats::reset() noexcept {
    head_ = count_ = 0;
    missed_total_ = skipped_total_ = frames_total_ = 0;
    last_period_ = 0;
    stutter_.reset();
}

void FrameStats::add(const FrameTiming& t) noexcept {
    ++frames_total_;
    skipped_total_ += t.skipped;
    last_period_ = t.period.count();
    if (t.interval.count() <= 0) return;  // first frame of a grid: no frame time yet
    interval_[head_] = t.interval.count();
    lateness_[head_] = t.lateness.count();
    work_[head_] = t.work.count();
    slept_[head_] = t.slept.count();
    spun_[head_] = t.spun.count();
    latency_[head_] = t.latency.count();
    period_[head_] = t.period.count() > 0 ? t.period.count() : 0;
    shown_late_[head_] = t.shown_late ? 1 : 0;
    shown_[head_] = t.presents_shown;
    dropped_[head_] = t.presents_dropped;
    feedback_[head_] = t.present_feedback ? 1 : 0;
    missed_[head_] = t.missed ? 1 : 0;
    stutter_flag_[head_] = stutter_.add(static_cast<double>(t.interval.count()) * 1e-6) ? 1 : 0;
    if (t.missed) ++missed_total_;
    if (++head_ == cap_) head_ = 0;
    if (count_ < cap_) ++count_;
}

std::size_t FrameStats::at(std::size_t i) const noexcept {
    return (head_ + cap_ - count_ + i) % cap_;
}

const std::int64_t* FrameStats::column(FrameMetric m) const noexcept {
    switch (m) {
        case FrameMetric::interval: return interval_.data();
        case FrameMetric::lateness: return lateness_.data();
        case FrameMetric::work: return work_.data();
        case FrameMetric::slept: return slept_.data();
        case FrameMetric::spun: return spun_.data();
        case FrameMetric::latency: return latency_.data();
    }
    return interval_.data();
}

namespace {

// An ascending window of ns values, read as doubles by percentile_sorted_of and describe_sorted_of.
struct NsAsDouble {
    Span<const std::int64_t> v;
    std::size_t size() const noexcept { return v.size(); }
    double operator[](std::size_t i) const noexcept { return static_cast<double>(v[i]); }
};

// 1 / mean of the frame times (ns, ascending) at or above the q-quantile (the "average" low-FPS
// definition).
double low_fps(Span<const std::int64_t> sorted, double q) noexcept {
    if (sorted.empty()) return 0.0;
    const double cut = percentile_sorted_of(NsAsDouble{sorted}, q);
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), cut,
                                        [](std::int64_t v, double c) { return static_cast<double>(v) < c; });
    double sum = 0;
    std::size_t n = 0;
    for (auto it = first; it != sorted.end(); ++it, ++n) sum += static_cast<double>(*it);
    if (n == 0 || sum <= 0) return 0.0;
    return 1e9 * static_cast<double>(n) / sum;
}

std::chrono::nanoseconds nearest_ns(double ns) noexcept {
    return std::chrono::nanoseconds(std::llround(ns));
}

// The distribution of an ascending window of ns values.
TimeDistribution describe_ns(Span<const std::int64_t> sorted) noexcept {
    const Distribution d = describe_sorted_of(NsAsDouble{sorted});
    TimeDistribution t;
    t.mean = nearest_ns(d.mean);
    t.stddev = nearest_ns(d.stddev);
    t.min = nearest_ns(d.min);
    t.max = nearest_ns(d.max);
    t.p50 = nearest_ns(d.p50);
    t.p90 = nearest_ns(d.p90);
    t.p95 = nearest_ns(d.p95);
    t.p99 = nearest_ns(d.p99);
    t.p999 = nearest_ns(d.p999);
    return t;
}

}  // namespace

Distribution describe_sorted(Span<const double> sorted) noexcept { return describe_sorted_of(sorted); }

StatsSummary FrameStats::summarize() const noexcept {
    StatsSummary s;
    s.frames = count_;
    s.missed_total = missed_total_;
    s.skipped_total = skipped_total_;
    s.frames_total = frames_total_;
    s.stutters_total = stutter_.count();
    s.target = std::chrono::nanoseconds(last_period_);
    if (count_ == 0) return s;
    const Span<std::int64_t> buf(scratch_.data(), count_);

    std::int64_t wall = 0, work = 0, slept = 0, spun = 0;
    for (std::size_t i = 0; i < count_; ++i) {
        const std::size_t j = at(i);
        wall += interval_[j];
        work += work_[j];
        slept += slept_[j];
        spun += spun_[j];
        s.missed += missed_[j];
        s.stutters += stutter_flag_[j];
        buf[i] = lateness_[j];
    }
    std::sort(buf.begin(), buf.end());
    s.lateness = describe_ns(buf);

    // Latency: the frames that have one (a frame that was not presented has none).
    std::size_t n = 0;
    for (std::size_t i = 0; i < count_; ++i) {
        const std::size_t j = at(i);
        s.shown_late += shown_late_[j];
        s.presents_shown += shown_[j];
        s.presents_dropped += dropped_[j];
        s.present_feedback = s.present_feedback || feedback_[j] != 0;
        if (latency_[j] > 0) buf[n++] = latency_[j];
    }
    s.latency_frames = n;
    std::sort(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    s.latency = describe_ns(Span<const std::int64_t>(buf.data(), n));

    for (std::size_t i = 0; i < count_; ++i) buf[i] = interval_[at(i)];
    std::sort(buf.begin(), buf.end());
    s.interval = describe_ns(buf);
    s.avg_fps = wall > 0 ? 1e9 * static_cast<double>(count_) / static_cast<double>(wall) : 0.0;
    if (s.present_feedback && wall > 0)
        s.shown_fps = 1e9 * static_cast<double>(s.presents_shown) / static_cast<double>(wall);
    s.low1_fps = low_fps(buf, 0.99);
    s.low01_fps = low_fps(buf, 0.999);
    if (wall > 0) {
        const double w = static_cast<double>(wall);
        s.work_share = std::clamp(static_cast<double>(work) / w, 0.0, 1.0);
        s.sleep_share = std::clamp(static_cast<double>(slept) / w, 0.0, 1.0);
        s.spin_share = std::clamp(static_cast<double>(spun) / w, 0.0, 1.0);
    }
    interval_error(s, buf);
    return s;
}

// |interval - period| of the frames that have a period, as `pacer compare` takes it per frame.
void FrameStats::interval_error(StatsSummary& s, Span<std::int64_t> buf) const noexcept {
    std::size_t n = 0, off = 0;
    for (std::size_t i = 0; i < count_; ++i) {
        const std::size_t j = at(i);
        if (period_[j] <= 0) continue;  // no period known: no error to take
        const std::int64_t e = interval_[j] > period_[j] ? interval_[j] - period_[j] : period_[j] - interval_[j];
        if (e > kIntervalOffThreshold.count()) ++off;
        buf[n++] = e;
    }
    s.interval_error_frames = n;
    if (n == 0) return;
    std::sort(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    s.interval_error = describe_ns(Span<const std::int64_t>(buf.data(), n));
    s.off_100us_share = static_cast<double>(off) / static_cast<double>(n);
}

HistogramCounts FrameStats::histogram(FrameMetric metric, std::chrono::nanoseconds lo, std::chrono::nanoseconds hi,
                                      Span<float> bins) const noexcept {
    HistogramCounts c;
    if (bins.empty() || hi <= lo) return c;
    std::fill(bins.begin(), bins.end(), 0.0f);
    const std::int64_t* col = column(metric);
    const double scale = static_cast<double>(bins.size()) / static_cast<double>((hi - lo).count());
    const auto last = static_cast<std::ptrdiff_t>(bins.size()) - 1;
    for (std::size_t i = 0; i < count_; ++i) {
        if (metric == FrameMetric::latency && col[at(i)] <= 0) continue;  // no latency known
        const std::int64_t v = col[at(i)];
        std::ptrdiff_t k;
        if (v < lo.count()) {
            k = 0;
            ++c.below;
        } else if (v >= hi.count()) {
            k = last;
            ++c.above;
        } else {
            // Rounding can put a value just under hi at bins.size(): it belongs to the last bin.
            k = std::min(static_cast<std::ptrdiff_t>(std::floor(static_cast<double>(v - lo.count()) * scale)), last);
        }
        bins[static_cast<std::size_t>(k)] += 1.0f;
        ++c.placed;
    }
    return c;
}

std::size_t FrameStats::series_ms(FrameMetric metric, Span<float> out) const noexcept {
    const std::size_t n = std::min(out.size(), count_);
    const std::int64_t* col = column(metric);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = static_cast<float>(to_ms(std::chrono::nanoseconds(col[at(count_ - n + i)])));
    return n;
}

CpuMeter::CpuMeter(TimeSource* ts) noexcept : ts_(ts ? ts : &system_time_source()) {
    wall_ = clock::to_ns(ts_->now());
    cpu_ = ts_->cpu_times();
}

CpuUsage CpuMeter::sample() noexcept {
    CpuUsage u;
    const std::int64_t wall = clock::to_ns(ts_->now());
    const CpuTimes cpu = ts_->cpu_times();
    const std::int64_t dt = wall - wall_;
    u.wall = std::chrono::nanoseconds(dt);
    if (dt > 0 && cpu.process.count() >= 0 && cpu_.process.count() >= 0 && cpu.thread.count() >= 0 &&
        cpu_.thread.count() >= 0) {
        u.process_pct = 100.0 * static_cast<double>((cpu.process - cpu_.process).count()) / static_cast<double>(dt);
        u.thread_pct = 100.0 * static_cast<double>((cpu.thread - cpu_.thread).count()) / static_cast<double>(dt);
        u.valid = true;
    }
    wall_ = wall;
    cpu_ = cpu;
    return u;
}

}  // namespace pacer
