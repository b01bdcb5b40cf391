#include "pacer/capture.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>

#include "pacer/version.hpp"

// The process id is the only OS fact the capture needs that the TimeSource seam does not give.
#ifdef _WIN32
#include <process.h>
#define PACER_GETPID _getpid
#else
#include <unistd.h>
#define PACER_GETPID getpid
#endif

namespace pacer {
namespace {

constexpr const char* kOsName =
#if defined(_WIN32)
    "Windows";
#elif defined(__APPLE__)
    "macOS";
#elif defined(__linux__)
    "Linux";
#else
    "unknown";
#endif

// Where a text is written: an unquoted field of a frame row, where a comma or a quote would split
// the row or start quoting, or a sidecar value, which csv_field() quotes and which only has to
// stay on its line.
enum class Field { row, sidecar };

// Copies text into out (at most max chars), replacing with '_' what the field cannot hold.
std::size_t sanitize(const char* text, std::size_t len, char* out, std::size_t max,
                     Field where = Field::row) noexcept {
    std::size_t n = 0;
    for (std::size_t i = 0; i < len && n < max; ++i) {
        const char c = text[i];
        const bool ends_line = c == '\n' || c == '\r' || c == '\0';
        const bool splits_row = where == Field::row && (c == ',' || c == '"');
        out[n++] = ends_line || splits_row ? '_' : c;
    }
    return n;
}

std::string sanitized(const std::string& s, std::size_t max, Field where = Field::row) {
    std::string out(std::min(s.size(), max), '_');
    out.resize(sanitize(s.data(), s.size(), out.data(), out.size(), where));
    return out;
}

// A sidecar value as an RFC 4180 field (section 2, rules 6 and 7): in double quotes, each quote
// doubled, when it holds a comma or a quote; as it is otherwise.
std::string csv_field(const std::string& v) {
    if (v.find_first_of(",\"") == std::string::npos) return v;
    std::string out = "\"";
    for (const char c : v) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

// Appends helpers: p points into a buffer with room for CaptureWriter::kMaxRow bytes.
inline char* put(char* p, const char* s, std::size_t n) noexcept {
    std::memcpy(p, s, n);
    return p + n;
}
inline char* put(char* p, const char* s) noexcept { return put(p, s, std::strlen(s)); }
inline char* put_na(char* p) noexcept { return put(p, "NA,", 3); }

inline char* put_u(char* p, std::uint64_t v) noexcept {
    return std::to_chars(p, p + 24, v).ptr;
}

// ns as a decimal with `digits` fraction digits of 10^digits units per unit (ms: 6, s: 9).
// Integer arithmetic: exact, locale-free.
inline char* put_fixed(char* p, std::int64_t ns, int digits) noexcept {
    std::uint64_t unit = 1;
    for (int i = 0; i < digits; ++i) unit *= 10;
    std::uint64_t v;
    if (ns < 0) {
        *p++ = '-';
        v = static_cast<std::uint64_t>(-(ns + 1)) + 1;
    } else {
        v = static_cast<std::uint64_t>(ns);
    }
    p = put_u(p, v / unit);
    *p++ = '.';
    std::uint64_t frac = v % unit;
    for (int i = digits - 1; i >= 0; --i) {
        p[i] = static_cast<char>('0' + frac % 10);
        frac /= 10;
    }
    return p + digits;
}
inline char* put_ms(char* p, std::int64_t ns) noexcept {
    p = put_fixed(p, ns, 6);
    *p++ = ',';
    return p;
}
inline char* put_ms_or_na(char* p, std::chrono::nanoseconds d) noexcept {
    return d.count() < 0 ? put_na(p) : put_ms(p, d.count());
}

}  // namespace

CaptureWriter::CaptureWriter() noexcept = default;

CaptureWriter::~CaptureWriter() { (void)close(); }

std::string CaptureWriter::header() {
    return std::string(kPresentMonColumns) + "," + kPacerColumns;
}

std::string CaptureWriter::stats_path(const std::string& capture_path) {
    const std::string ext = ".csv";
    if (capture_path.size() > ext.size() &&
        capture_path.compare(capture_path.size() - ext.size(), ext.size(), ext) == 0)
        return capture_path.substr(0, capture_path.size() - ext.size()) + "-stats.csv";
    return capture_path + "-stats.csv";
}

Status CaptureWriter::open(const std::string& path, const CaptureOptions& options, TimeSource* ts) {
    if (is_open()) (void)close();
    err_[0] = '\0';
    rows_ = written_ = dropped_ = rows_in_buf_ = no_time_ = 0;
    n_ = wakes_ = missed_ = skipped_ = presents_ = 0;
    sum_ns_ = min_ns_ = max_ns_ = wake_ns_ = work_ns_ = slept_ns_ = spun_ns_ = max_late_ns_ = 0;
    mean_ms_ = m2_ = 0;
    have_t0_ = have_present_ = false;
    t0_ = written_until_ = newest_ = last_present_ = 0;
    pos_ = pending_at_ = 0;
    pending_ = false;
    if (path.empty()) return Status::error("capture: empty path");

    opt_ = options;
    opt_.application = sanitized(options.application, 64);
    if (opt_.application.empty()) opt_.application = "pacer";
    opt_.runtime = sanitized(options.runtime, 32);
    if (opt_.runtime.empty()) opt_.runtime = "Other";
    opt_.notes = sanitized(options.notes, 512, Field::sidecar);
    opt_.stats_window = std::max<std::size_t>(options.stats_window, 2);
    if (opt_.config) {
        if (Status st = validate(*opt_.config); !st) return Status::error("capture: config: " + st.message());
    }
    cap_ = std::clamp<std::size_t>(options.buffer_bytes, kMinBuffer, std::size_t{64} << 20);
    sleep_primitive_ = (ts ? ts : &system_time_source())->sleep_primitive();

    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return Status::error("capture: cannot open " + path + " for writing: " + std::strerror(errno));
    // Our buffer is the only one: every write below is one system call of a whole buffer.
    std::setvbuf(f, nullptr, _IONBF, 0);
    file_ = f;
    path_ = path;
    // A device or a pipe (/dev/null, /dev/full, a FIFO) gets no sidecar beside it.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) opt_.write_stats = false;
    buf_ = std::make_unique<char[]>(cap_);
    window_ = opt_.write_stats ? std::make_unique<FrameStats>(opt_.stats_window) : nullptr;

    char* p = prefix_;
    p = put(p, opt_.application.data(), opt_.application.size());
    *p++ = ',';
    p = put_u(p, static_cast<std::uint64_t>(PACER_GETPID()));
    p = put(p, ",NA,");
    p = put(p, opt_.runtime.data(), opt_.runtime.size());
    *p++ = ',';
    prefix_len_ = static_cast<std::size_t>(p - prefix_);

    const std::string h = header() + "\n";
    std::memcpy(buf_.get(), h.data(), h.size());
    pos_ = h.size();
    // The header goes out at once, so that a process killed before its first rows leaves a
    // readable file. A target that fails writes (a full disk, /dev/full) is reported like a disk
    // that fills up later (failed(), status()): the frame loop goes on either way.
    flush();
    return {};
}

void CaptureWriter::fail(const char* what, int err) noexcept {
    if (failed()) return;
    std::snprintf(err_, sizeof err_, "capture: cannot %s %s: %s", what, path_.c_str(),
                  err ? std::strerror(err) : "unknown error");
}

bool CaptureWriter::write_all(const char* data, std::size_t n) noexcept {
    while (n > 0) {
        errno = 0;
        const std::size_t w = std::fwrite(data, 1, n, file_);
        if (w == 0) {
            if (errno == EINTR) {
                std::clearerr(file_);
                continue;
            }
            fail("write", errno);
            return false;
        }
        data += w;
        n -= w;
    }
    return true;
}

void CaptureWriter::flush() noexcept {
    if (!file_ || pos_ == 0) return;
    // The row still waiting for its latency stays in the buffer (moved to its front).
    const std::size_t whole = pending_ ? pending_at_ : pos_;
    if (whole > 0) {
        if (!failed() && write_all(buf_.get(), whole)) {
            written_ += rows_in_buf_;
        } else {
            dropped_ += rows_in_buf_;
        }
    }
    if (rows_in_buf_ > 0) written_until_ = newest_;
    rows_in_buf_ = 0;
    if (pending_ && failed()) {  // it can never be written now
        ++dropped_;
        pending_ = false;
    }
    if (pending_) {
        std::memmove(buf_.get(), buf_.get() + pending_at_, pos_ - pending_at_);
        pos_ -= pending_at_;
        pending_at_ = 0;
    } else {
        pos_ = 0;
    }
}

void CaptureWriter::finish_row(const FrameTiming* next) noexcept {
    if (!pending_) return;
    const std::chrono::nanoseconds latency = next ? next->latency : std::chrono::nanoseconds(0);
    if (window_) {  // the row's frame, with the latency figures that belong to it
        FrameTiming& w = pending_timing_;
        w.latency = latency;
        w.input_to_present = next ? next->input_to_present : std::chrono::nanoseconds(0);
        w.latency_measured = next && next->latency_measured;
        w.shown_late = next && next->shown_late;
        window_->add(w);
    }
    char* const start = buf_.get() + pos_;
    char* p = start;
    if (latency.count() > 0) {
        p = put_fixed(p, latency.count(), 6);  // MsPCLatency
    } else {
        p = put(p, "NA", 2);
    }
    *p++ = '\n';
    pos_ += static_cast<std::size_t>(p - start);
    pending_ = false;
    ++rows_in_buf_;
    newest_ = pending_time_;
}

void CaptureWriter::add(const FrameTiming& t, const CaptureExtras& x) noexcept {
    if (!file_) return;
    ++rows_;
    // This wait() carries the latency of the frame presented before it: the previous row's.
    finish_row(&t);
    const std::int64_t wake = clock::to_ns(t.wake);
    if (!have_t0_) {
        t0_ = written_until_ = wake;
        have_t0_ = true;
    }
    const std::int64_t interval = t.interval.count();  // wake to wake
    const bool has_interval = interval > 0;
    // Pacer's own figures: every frame with a wake-to-wake interval, written or not.
    skipped_ += t.skipped;
    if (has_interval) {
        ++wakes_;
        if (t.missed) ++missed_;
        wake_ns_ += interval;
        work_ns_ += t.work.count();
        slept_ns_ += t.slept.count();
        spun_ns_ += t.spun.count();
        max_late_ns_ = std::max(max_late_ns_, t.lateness.count());
    }

    // The frame time (MsBetweenPresents) and the row's time (TimeInSeconds): see the header.
    std::int64_t frame = -1, at = wake;
    if (x.present) {
        const std::int64_t begin = clock::to_ns(x.present->begin);
        if (have_present_) frame = begin - last_present_;
        last_present_ = begin;
        have_present_ = true;
        ++presents_;
        at = begin;
    } else if (presents_ == 0) {
        frame = interval;
    }
    if (frame <= 0) {  // no frame time: no row
        ++no_time_;
        return;
    }
    if (failed()) {
        ++dropped_;
        return;
    }
    if (cap_ - pos_ < kMaxRow) {  // never true after open() and add(), which leave room
        flush();
        if (failed()) {
            ++dropped_;
            return;
        }
    }

    char* const start = buf_.get() + pos_;
    char* p = put(start, prefix_, prefix_len_);
    const int sync = x.sync_interval >= 0 ? x.sync_interval : x.present ? x.present->swap_interval : -1;
    if (sync >= 0) {
        p = put_u(p, static_cast<std::uint64_t>(sync));
        *p++ = ',';
    } else {
        p = put_na(p);
    }
    p = put(p, "NA,NA,Unknown,");  // PresentFlags, AllowsTearing, PresentMode
    int dropped = x.dropped;
    if (dropped < 0 && x.present && !x.present->ok) dropped = 1;
    if (dropped < 0 && x.until_displayed.count() >= 0) dropped = 0;
    if (dropped >= 0) {
        *p++ = dropped > 0 ? '1' : '0';
        *p++ = ',';
    } else {
        p = put_na(p);
    }
    p = put_fixed(p, at - t0_, 9);  // TimeInSeconds
    *p++ = ',';
    p = put_ms(p, frame);  // MsBetweenPresents
    p = put_ms_or_na(p, x.between_display_change);
    std::chrono::nanoseconds in_present = x.in_present;
    if (in_present.count() < 0 && x.present) in_present = x.present->end - x.present->begin;
    p = put_ms_or_na(p, in_present);
    p = put_ms_or_na(p, x.until_render_complete);
    p = put_ms_or_na(p, x.until_displayed);
    p = put_u(p, t.index);  // Frame
    *p++ = ',';
    if (has_interval) {
        p = put_ms(p, t.work.count());             // MsCPUBusy
        p = put_ms(p, interval - t.work.count());  // MsCPUWait
    } else {
        p = put(p, "NA,NA,");
    }
    p = put(p, to_string(t.mode));
    *p++ = ',';
    p = put_ms(p, t.period.count());
    p = put_ms(p, t.lateness.count());
    p = put_ms(p, t.slept.count());
    p = put_ms(p, t.spun.count());
    p = put_ms(p, t.oversleep.count());
    p = put_ms(p, t.margin.count());
    p = put_u(p, t.skipped);
    *p++ = ',';
    *p++ = t.missed ? '1' : '0';
    *p++ = ',';
    if (x.pacing_source) {
        p += sanitize(x.pacing_source, std::strlen(x.pacing_source), p, 31);
    } else {
        p = put(p, to_string(t.source));
    }
    *p++ = ',';
    if (has_interval) {
        p = put_fixed(p, interval, 6);  // MsBetweenWakes
    } else {
        p = put(p, "NA", 2);
    }
    *p++ = ',';
    p = put(p, to_string(t.sync));  // SyncMode
    *p++ = ',';
    p = put_u(p, t.cadence);  // Cadence
    *p++ = ',';
    // CadenceHz in mHz: three decimals, integer arithmetic (NA for a value no rate has).
    if (std::isfinite(t.cadence_hz) && t.cadence_hz >= 0 && t.cadence_hz < 1e9) {
        p = put_fixed(p, std::llround(t.cadence_hz * 1000.0), 3);
        *p++ = ',';
    } else {
        p = put_na(p);
    }
    p = put(p, to_string(t.cadence_reason));  // CadenceReason
    *p++ = ',';
    p = put_ms(p, t.display_dt.count());  // MsDisplayDelta
    // MsPCLatency follows at the next add() (finish_row), or NA at close().
    pending_at_ = pos_;
    pending_ = true;
    pending_time_ = at;
    pos_ += static_cast<std::size_t>(p - start);

    // Frame-time totals for the sidecar, over the rows as written.
    ++n_;
    sum_ns_ += frame;
    min_ns_ = n_ == 1 ? frame : std::min(min_ns_, frame);
    max_ns_ = std::max(max_ns_, frame);
    const double ms = static_cast<double>(frame) * 1e-6;
    const double d = ms - mean_ms_;
    mean_ms_ += d / static_cast<double>(n_);
    m2_ += d * (ms - mean_ms_);
    if (window_) {
        pending_timing_ = t;  // into the window once its latency is known (finish_row)
        pending_timing_.interval = std::chrono::nanoseconds(frame);
    }

    // Durability: hand the rows to the OS once they are worth a write (see the header).
    if (cap_ - pos_ < kMaxRow ||
        (rows_in_buf_ >= kRowsPerWrite && newest_ - written_until_ >= kWriteAfterNs))
        flush();
}

Status CaptureWriter::status() const {
    if (!failed()) return {};
    return Status::error(err_);
}

Status CaptureWriter::close() {
    if (!file_) return {};
    finish_row(nullptr);  // the last row's latency never came
    flush();
    if (std::fclose(file_) != 0) fail("close", errno);
    file_ = nullptr;
    buf_.reset();
    Status st = status();
    if (opt_.write_stats) {
        Status s2 = write_stats();
        if (st.ok() && !s2.ok()) st = s2;
    }
    window_.reset();
    return st;
}

Status CaptureWriter::write_stats() const {
    const std::string sp = stats_path(path_);
    std::FILE* f = std::fopen(sp.c_str(), "wb");
    if (!f) return Status::error("capture: cannot open " + sp + " for writing: " + std::strerror(errno));
    std::string out = "Key,Value\n";
    char num[64];
    auto kv = [&](const char* k, const std::string& v) {
        out += k;
        out += ',';
        out += csv_field(v);
        out += '\n';
    };
    auto d = [&](double v) {
        auto r = std::to_chars(num, num + sizeof num, v, std::chars_format::fixed, 6);
        return std::string(num, r.ptr);
    };
    auto u = [&](std::uint64_t v) { return std::to_string(v); };
    const std::string name = path_.substr(path_.find_last_of("/\\") == std::string::npos ? 0 : path_.find_last_of("/\\") + 1);
    kv("Capture", sanitized(name, 256, Field::sidecar));
    kv("Application", opt_.application);
    kv("Rows", u(rows_));
    kv("RowsWritten", u(written_));
    kv("RowsDropped", u(dropped_));
    kv("RowsWithoutFrameTime", u(no_time_));
    kv("WriteError", failed() ? sanitized(err_, 256, Field::sidecar) : "none");
    kv("Frames", u(n_));
    kv("FrameTimeSource", presents_ > 0 ? "presents" : "wakes");
    kv("DurationSeconds", d(static_cast<double>(sum_ns_) * 1e-9));
    kv("AverageFPS", d(sum_ns_ > 0 ? 1e9 * static_cast<double>(n_) / static_cast<double>(sum_ns_) : 0.0));
    kv("MsFrameTimeMean", d(mean_ms_));
    kv("MsFrameTimeStdDev", d(n_ > 0 ? std::sqrt(m2_ / static_cast<double>(n_)) : 0.0));
    kv("MsFrameTimeMin", d(static_cast<double>(min_ns_) * 1e-6));
    kv("MsFrameTimeMax", d(static_cast<double>(max_ns_) * 1e-6));
    kv("MsLatenessMax", d(static_cast<double>(max_late_ns_) * 1e-6));
    kv("MissedFrames", u(missed_));
    kv("SkippedSlots", u(skipped_));
    const double wall = static_cast<double>(std::max<std::int64_t>(wake_ns_, 1));
    kv("WorkShare", d(static_cast<double>(work_ns_) / wall));
    kv("SleepShare", d(static_cast<double>(slept_ns_) / wall));
    kv("SpinShare", d(static_cast<double>(spun_ns_) / wall));
    if (window_) {
        const StatsSummary s = window_->summarize();
        kv("WindowFrames", u(s.frames));
        kv("WindowMsFrameTimeP50", d(s.interval_ms.p50));
        kv("WindowMsFrameTimeP90", d(s.interval_ms.p90));
        kv("WindowMsFrameTimeP95", d(s.interval_ms.p95));
        kv("WindowMsFrameTimeP99", d(s.interval_ms.p99));
        kv("WindowMsFrameTimeP99.9", d(s.interval_ms.p999));
        kv("Window1PercentLowFPS", d(s.low1_fps));
        kv("Window0.1PercentLowFPS", d(s.low01_fps));
        kv("WindowMsLatenessP50", d(s.lateness_ms.p50));
        kv("WindowMsLatenessP99", d(s.lateness_ms.p99));
        kv("WindowMsTargetFrameTime", d(s.target_ms));
        // MsPCLatency over the window's rows that have one; the share of those shown late.
        kv("WindowLatencyFrames", u(s.latency_frames));
        kv("WindowMsPCLatencyP50", s.latency_frames > 0 ? d(s.latency_ms.p50) : "NA");
        kv("WindowMsPCLatencyP99", s.latency_frames > 0 ? d(s.latency_ms.p99) : "NA");
        kv("WindowShownLateShare",
           s.latency_frames > 0 ? d(static_cast<double>(s.shown_late) / static_cast<double>(s.latency_frames)) : "NA");
    }
    if (opt_.config) {
        const PacerConfig& c = *opt_.config;
        kv("SettingTargetHz", d(c.target_hz));
        kv("SettingWaitMode", to_string(c.mode));
        kv("SettingLatePolicy", to_string(c.late_policy));
        kv("SettingMaxCatchUp", std::to_string(c.max_catch_up));
        kv("SettingMsMissTolerance", d(static_cast<double>(c.miss_tolerance.count()) * 1e-6));
        kv("SettingMsWaiterLateCost", d(static_cast<double>(c.waiter.late_cost.count()) * 1e-6));
        kv("SettingWaiterHalfLife", d(c.waiter.half_life));
        kv("SettingMsMinMargin", d(static_cast<double>(c.waiter.min_margin.count()) * 1e-6));
        kv("SettingMsMaxSpin", d(static_cast<double>(c.waiter.max_spin.count()) * 1e-6));
        kv("SettingSync", to_string(c.sync));
        kv("SettingMaxLateShare", d(c.max_late_share));
        kv("SettingCadence", to_string(c.cadence));
    }
    kv("Notes", opt_.notes.empty() ? "NA" : opt_.notes);
    kv("MachineOS", kOsName);
    kv("MachineHardwareThreads", u(std::thread::hardware_concurrency()));
    kv("MachineSleepPrimitive", sanitized(sleep_primitive_, 256, Field::sidecar));
    kv("PacerVersion", kVersion);

    const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !ok)
        return Status::error("capture: cannot write " + sp + ": " + std::strerror(ok ? errno : err));
    return {};
}

}  // namespace pacer
