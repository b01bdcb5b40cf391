// The C API's statistics (pacer/pacer.h): pacer_stats is a pacer::FrameStats, pacer_cpu_meter a
// pacer::CpuMeter; the C timings are converted back to the C++ FrameTiming (c_api_common.cpp).
#include <cmath>
#include <cstdio>

#include "c_api/c_api_internal.hpp"
#include "pacer/stats.hpp"

struct pacer_stats {
    pacer::FrameStats impl;
};

struct pacer_cpu_meter {
    pacer::CpuMeter impl;
};

namespace {

using namespace pacer::capi;

pacer_distribution to_c(const pacer::TimeDistribution& d) noexcept {
    using pacer::to_ms;
    pacer_distribution c;
    c.mean = to_ms(d.mean);
    c.stddev = to_ms(d.stddev);
    c.min = to_ms(d.min);
    c.max = to_ms(d.max);
    c.p50 = to_ms(d.p50);
    c.p90 = to_ms(d.p90);
    c.p95 = to_ms(d.p95);
    c.p99 = to_ms(d.p99);
    c.p999 = to_ms(d.p999);
    return c;
}

pacer_stats_summary to_c(const pacer::StatsSummary& s) noexcept {
    pacer_stats_summary c{};
    c.frames = s.frames;
    c.interval_ms = to_c(s.interval);
    c.lateness_ms = to_c(s.lateness);
    c.target_ms = pacer::to_ms(s.target);
    c.avg_fps = s.avg_fps;
    c.low1_fps = s.low1_fps;
    c.low01_fps = s.low01_fps;
    c.missed = s.missed;
    c.missed_total = s.missed_total;
    c.skipped_total = s.skipped_total;
    c.frames_total = s.frames_total;
    c.latency_ms = to_c(s.latency);
    c.latency_frames = s.latency_frames;
    c.shown_late = s.shown_late;
    c.stutters = s.stutters;
    c.stutters_total = s.stutters_total;
    c.work_share = s.work_share;
    c.sleep_share = s.sleep_share;
    c.spin_share = s.spin_share;
    c.interval_error_ms = to_c(s.interval_error);
    c.interval_error_frames = s.interval_error_frames;
    c.off_100us_share = s.off_100us_share;
    return c;
}

// PACER_OK, or an error naming the function and the metric.
int check_metric(int metric, const char* function) noexcept {
    if (metric >= PACER_METRIC_INTERVAL && metric <= PACER_METRIC_LATENCY) return PACER_OK;
    char text[128];
    std::snprintf(text, sizeof text, "%s: metric = %d: not a pacer_frame_metric value", function, metric);
    return fail(PACER_ERROR_INVALID_ARGUMENT, text);
}

}  // namespace

extern "C" {

pacer_stats* pacer_stats_create(size_t capacity) {
    if (capacity < 2) {
        char text[96];
        std::snprintf(text, sizeof text, "pacer_stats_create: capacity = %zu: must be at least 2 frames", capacity);
        (void)fail(PACER_ERROR_INVALID_ARGUMENT, text);
        return nullptr;
    }
    pacer_stats* created = nullptr;
    (void)guarded([&] {
        created = new pacer_stats{pacer::FrameStats(capacity)};
        return PACER_OK;
    });
    return created;
}

void pacer_stats_destroy(pacer_stats* stats) { delete stats; }

int pacer_stats_add(pacer_stats* stats, const pacer_frame_timing* timing) {
    if (!stats) return null_argument("pacer_stats_add", "the stats");
    if (!timing) return null_argument("pacer_stats_add", "the timing");
    stats->impl.add(pacer::capi::to_cpp(*timing));
    return PACER_OK;
}

int pacer_stats_reset(pacer_stats* stats) {
    if (!stats) return null_argument("pacer_stats_reset", "the stats");
    stats->impl.reset();
    return PACER_OK;
}

int pacer_stats_summarize(const pacer_stats* stats, pacer_stats_summary* out) {
    if (!stats) return null_argument("pacer_stats_summarize", "the stats");
    if (!out) return null_argument("pacer_stats_summarize", "out");
    *out = to_c(stats->impl.summarize());
    return PACER_OK;
}

int pacer_stats_series(const pacer_stats* stats, int metric, float* out, size_t capacity, size_t* count) {
    if (count) *count = 0;
    if (!stats) return null_argument("pacer_stats_series", "the stats");
    if (!out && capacity > 0) return null_argument("pacer_stats_series", "out");
    if (const int code = check_metric(metric, "pacer_stats_series"); code != PACER_OK) return code;
    const std::size_t n = stats->impl.series_ms(static_cast<pacer::FrameMetric>(metric), {out, capacity});
    if (count) *count = n;
    return PACER_OK;
}

int pacer_stats_histogram(const pacer_stats* stats, int metric, double lo_ms, double hi_ms, float* bins,
                          size_t bin_count, pacer_histogram_counts* counts) {
    if (counts) *counts = pacer_histogram_counts{};
    if (!stats) return null_argument("pacer_stats_histogram", "the stats");
    if (!bins) return null_argument("pacer_stats_histogram", "bins");
    if (const int code = check_metric(metric, "pacer_stats_histogram"); code != PACER_OK) return code;
    const std::chrono::nanoseconds lo = pacer::from_ms(lo_ms), hi = pacer::from_ms(hi_ms);
    if (bin_count == 0 || !std::isfinite(lo_ms) || !std::isfinite(hi_ms) || hi <= lo) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "pacer_stats_histogram: [%g, %g) ms in %zu bins: needs finite bounds, hi > lo and bins",
                      lo_ms, hi_ms, bin_count);
        return fail(PACER_ERROR_INVALID_ARGUMENT, text);
    }
    const pacer::HistogramCounts h =
        stats->impl.histogram(static_cast<pacer::FrameMetric>(metric), lo, hi, {bins, bin_count});
    if (counts) {
        counts->placed = h.placed;
        counts->below = h.below;
        counts->above = h.above;
    }
    return PACER_OK;
}

pacer_cpu_meter* pacer_cpu_meter_create(void) {
    pacer_cpu_meter* created = nullptr;
    (void)guarded([&] {
        created = new pacer_cpu_meter{pacer::CpuMeter()};
        return PACER_OK;
    });
    return created;
}

void pacer_cpu_meter_destroy(pacer_cpu_meter* meter) { delete meter; }

int pacer_cpu_meter_sample(pacer_cpu_meter* meter, pacer_cpu_usage* out) {
    if (!meter) return null_argument("pacer_cpu_meter_sample", "the meter");
    if (!out) return null_argument("pacer_cpu_meter_sample", "out");
    const pacer::CpuUsage u = meter->impl.sample();
    out->process_pct = u.process_pct;
    out->thread_pct = u.thread_pct;
    out->wall_s = static_cast<double>(u.wall.count()) * 1e-9;
    out->valid = u.valid ? 1 : 0;
    return PACER_OK;
}

}  // extern "C"
