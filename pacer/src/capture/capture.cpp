#include "pacer/capture.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>

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
// ---- the values of a row ---------------------------------------------------------------------

struct Na {};  // a value nobody measured: "NA"
constexpr Na na{};
using Number = std::optional<std::int64_t>;  // a number, or NA

// What the table's `value` expressions read (pacer/capture_columns.hpp).
struct CaptureRow {
    const FrameTiming& t;     // the frame
    const CaptureExtras& x;   // what the engine added to it
    std::chrono::nanoseconds latency;  // brought by the frame after it; <= 0: none
    std::int64_t frame_ns;    // MsBetweenPresents (> 0)
    std::int64_t time_ns;     // TimeInSeconds, since the first captured frame's wake
    std::string_view application, process_id, runtime;
    std::string_view source;  // CaptureExtras::pacing_source, sanitized; empty: FrameTiming::source
};

Number or_na(std::chrono::nanoseconds d) noexcept { return d.count() < 0 ? Number() : Number(d.count()); }

Number when_interval(const CaptureRow& r, std::chrono::nanoseconds d) noexcept {
    return r.t.interval.count() > 0 ? Number(d.count()) : Number();
}

Number sync_interval(const CaptureRow& r) noexcept {
    const int sync = r.x.sync_interval >= 0 ? r.x.sync_interval : r.x.present ? r.x.present->swap_interval : -1;
    return sync >= 0 ? Number(sync) : Number();
}

Number dropped(const CaptureRow& r) noexcept {
    int d = r.x.dropped;
    if (d < 0 && r.x.present) {
        const PresentOutcome o = r.x.present->outcome;
        if (o == PresentOutcome::skipped || o == PresentOutcome::discarded || !r.x.present->ok) d = 1;
        else if (o == PresentOutcome::shown) d = 0;
    }
    if (d < 0 && r.x.until_displayed.count() >= 0) d = 0;
    return d >= 0 ? Number(d > 0 ? 1 : 0) : Number();
}

Number in_present(const CaptureRow& r) noexcept {
    std::chrono::nanoseconds d = r.x.in_present;
    if (d.count() < 0 && r.x.present) d = r.x.present->end - r.x.present->begin;
    return or_na(d);
}

std::string_view pacing_source(const CaptureRow& r) noexcept {
    return r.source.empty() ? std::string_view(to_string(r.t.source)) : r.source;
}

// mHz, for three decimals in integer arithmetic; NA for a value no rate has.
Number millihertz(double hz) noexcept {
    if (!std::isfinite(hz) || hz < 0 || hz >= 1e9) return Number();
    return std::llround(hz * 1000.0);
}

Number latency(const CaptureRow& r) noexcept {
    return r.latency.count() > 0 ? Number(r.latency.count()) : Number();
}

// ---- writing a value ---------------------------------------------------------------------------

// A number in the unit's form: durations and time stamps are ns (6 or 9 decimals of ms or s),
// rates mHz (3 decimals of Hz), the rest whole numbers.
template <CaptureUnit U>
char* put_number(char* p, std::int64_t v) noexcept {
    if constexpr (U == CaptureUnit::ms || U == CaptureUnit::ms_signed) return put_fixed(p, v, 6);
    if constexpr (U == CaptureUnit::seconds) return put_fixed(p, v, 9);
    if constexpr (U == CaptureUnit::hz) return put_fixed(p, v, 3);
    if (v < 0) {
        *p++ = '-';
        return put_u(p, static_cast<std::uint64_t>(-(v + 1)) + 1);
    }
    return put_u(p, static_cast<std::uint64_t>(v));
}

template <CaptureUnit U>
char* put_value(char* p, Na) noexcept { return put(p, "NA", 2); }
template <CaptureUnit U>
char* put_value(char* p, std::string_view s) noexcept { return put(p, s.data(), s.size()); }
template <CaptureUnit U>
char* put_value(char* p, const char* s) noexcept { return put(p, s); }
template <CaptureUnit U>
char* put_value(char* p, Number v) noexcept { return v ? put_number<U>(p, *v) : put(p, "NA", 2); }
template <CaptureUnit U>
char* put_value(char* p, std::chrono::nanoseconds d) noexcept { return put_number<U>(p, d.count()); }
template <CaptureUnit U, class T>
char* put_value(char* p, T v) noexcept {
    if constexpr (std::is_enum_v<T>) {
        return put(p, to_string(v));
    } else {
        static_assert(std::is_integral_v<T>, "a column's value: text, a number, a duration or a name");
        return put_number<U>(p, static_cast<std::int64_t>(v));
    }
}

// The row, every written column of the table in its order, ended by a line feed.
char* format_row(char* p, const CaptureRow& r) noexcept {
#define PACER_CAPTURE_WRITE(member, name, aliases, unit, origin, timing, value)      \
    if constexpr (CaptureOrigin::origin != CaptureOrigin::other) {                    \
        p = put_value<CaptureUnit::unit>(p, value);                                   \
        *p++ = ',';                                                                   \
    }
    PACER_CAPTURE_COLUMNS(PACER_CAPTURE_WRITE)
#undef PACER_CAPTURE_WRITE
    p[-1] = '\n';
    return p;
}

// PresentMon's columns come first, then pacer's: the header other tools know starts the line.
constexpr bool presentmon_columns_first() {
    bool pacer_seen = false;
    for (const CaptureColumn& c : kCaptureColumns) {
        if (c.origin == CaptureOrigin::pacer) pacer_seen = true;
        if (c.origin == CaptureOrigin::presentmon && pacer_seen) return false;
    }
    return true;
}
static_assert(presentmon_columns_first(), "PresentMon's classic columns must come first in the table");

// ---- the sidecar -------------------------------------------------------------------------------

// Key,Value lines; values as RFC 4180 fields.
class KeyValues {
public:
    void add(const char* key, const std::string& value) {
        out_ += key;
        out_ += ',';
        out_ += csv_field(value);
        out_ += '\n';
    }
    void add(const char* key, std::uint64_t v) { add(key, std::to_string(v)); }
    void add_fixed(const char* key, double v) {
        char num[64];
        const auto r = std::to_chars(num, num + sizeof num, v, std::chars_format::fixed, 6);
        add(key, std::string(num, r.ptr));
    }
    void add_ms(const char* key, std::int64_t ns) { add_fixed(key, static_cast<double>(ns) * 1e-6); }
    void add_ms(const char* key, std::chrono::nanoseconds d) { add_ms(key, d.count()); }
    std::string text() && { return std::move(out_); }

private:
    std::string out_ = "Key,Value\n";
};

void window_figures(KeyValues& kv, const StatsSummary& s) {
    kv.add("WindowFrames", s.frames);
    kv.add_fixed("WindowMsFrameTimeP50", to_ms(s.interval.p50));
    kv.add_fixed("WindowMsFrameTimeP90", to_ms(s.interval.p90));
    kv.add_fixed("WindowMsFrameTimeP95", to_ms(s.interval.p95));
    kv.add_fixed("WindowMsFrameTimeP99", to_ms(s.interval.p99));
    kv.add_fixed("WindowMsFrameTimeP99.9", to_ms(s.interval.p999));
    kv.add_fixed("Window1PercentLowFPS", s.low1_fps);
    kv.add_fixed("Window0.1PercentLowFPS", s.low01_fps);
    kv.add_fixed("WindowMsLatenessP50", to_ms(s.lateness.p50));
    kv.add_fixed("WindowMsLatenessP99", to_ms(s.lateness.p99));
    kv.add_fixed("WindowMsTargetFrameTime", to_ms(s.target));
    // MsPCLatency over the window's rows that have one; the share of those shown late.
    kv.add("WindowLatencyFrames", s.latency_frames);
    if (s.latency_frames == 0) {
        for (const char* k : {"WindowMsPCLatencyP50", "WindowMsPCLatencyP99", "WindowShownLateShare"}) kv.add(k, "NA");
        return;
    }
    kv.add_fixed("WindowMsPCLatencyP50", to_ms(s.latency.p50));
    kv.add_fixed("WindowMsPCLatencyP99", to_ms(s.latency.p99));
    kv.add_fixed("WindowShownLateShare", static_cast<double>(s.shown_late) / static_cast<double>(s.latency_frames));
}

void settings(KeyValues& kv, const PacerConfig& c) {
    kv.add_fixed("SettingTargetHz", c.target_hz);
    kv.add("SettingWaitMode", to_string(c.mode));
    kv.add("SettingLatePolicy", to_string(c.late_policy));
    kv.add("SettingMaxCatchUp", std::to_string(c.max_catch_up));
    kv.add_ms("SettingMsMissTolerance", c.miss_tolerance);
    kv.add_ms("SettingMsWaiterLateCost", c.waiter.late_cost);
    kv.add_fixed("SettingWaiterHalfLife", c.waiter.half_life);
    kv.add_ms("SettingMsMinMargin", c.waiter.min_margin);
    kv.add_ms("SettingMsMaxSpin", c.waiter.max_spin);
    kv.add("SettingSync", to_string(c.sync));
    kv.add_fixed("SettingMaxLateShare", c.max_late_share);
    kv.add("SettingCadence", to_string(c.cadence));
}

std::string file_name(const std::string& path) {
    const std::size_t slash = path.find_last_of("/\\");
    return path.substr(slash == std::string::npos ? 0 : slash + 1);
}

}  // namespace

CaptureWriter::CaptureWriter() noexcept = default;

CaptureWriter::~CaptureWriter() { (void)close(); }

std::string CaptureWriter::header() {
    std::string h;
    for (const CaptureColumn& c : kCaptureColumns) {
        if (c.origin == CaptureOrigin::other) continue;
        if (!h.empty()) h += ',';
        h += c.name;
    }
    return h;
}

std::string CaptureWriter::stats_path(const std::string& capture_path) {
    const std::string ext = ".csv";
    if (capture_path.size() > ext.size() &&
        capture_path.compare(capture_path.size() - ext.size(), ext.size(), ext) == 0)
        return capture_path.substr(0, capture_path.size() - ext.size()) + "-stats.csv";
    return capture_path + "-stats.csv";
}

void CaptureWriter::reset_counts() noexcept {
    err_[0] = '\0';
    rows_ = written_ = dropped_ = rows_in_buf_ = no_time_ = 0;
    n_ = wakes_ = missed_ = skipped_ = presents_ = 0;
    sum_ns_ = min_ns_ = max_ns_ = wake_ns_ = work_ns_ = slept_ns_ = spun_ns_ = max_late_ns_ = 0;
    mean_ms_ = m2_ = 0;
    have_t0_ = have_present_ = false;
    t0_ = written_until_ = newest_ = last_present_ = 0;
    pos_ = 0;
    held_first_ = held_n_ = 0;
    feedback_ = false;
    last_shown_ = -1;
    no_feedback_ = 0;
}

// The options as written: texts sanitized, sizes clamped, the config checked.
Status CaptureWriter::apply_options(const CaptureOptions& options, TimeSource* ts) {
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
    pid_len_ = static_cast<std::size_t>(put_u(pid_, static_cast<std::uint64_t>(PACER_GETPID())) - pid_);
    return {};
}

Status CaptureWriter::open(const std::string& path, const CaptureOptions& options, TimeSource* ts) {
    if (is_open()) (void)close();
    reset_counts();
    if (path.empty()) return Status::error("capture: empty path");
    if (Status st = apply_options(options, ts); !st) return st;

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
    held_ = std::make_unique<HeldRow[]>(kHeldRows);
    feedback_ = opt_.await_feedback;
    window_ = opt_.write_stats ? std::make_unique<FrameStats>(opt_.stats_window) : nullptr;

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

// The held rows are not in the buffer: they are formatted once they wait for nothing more.
void CaptureWriter::flush() noexcept {
    if (!file_ || pos_ == 0) return;
    if (!failed() && write_all(buf_.get(), pos_)) {
        written_ += rows_in_buf_;
    } else {
        dropped_ += rows_in_buf_;
    }
    if (rows_in_buf_ > 0) written_until_ = newest_;
    rows_in_buf_ = 0;
    pos_ = 0;
    if (failed()) {  // the held rows can never be written now
        dropped_ += held_n_;
        held_n_ = 0;
    }
}

void CaptureWriter::take_next(const FrameTiming* next) noexcept {
    if (held_n_ == 0) return;
    HeldRow& h = held(held_n_ - 1);
    if (h.has_next) return;
    h.has_next = true;
    if (!next) return;
    h.latency = next->latency;
    h.input_to_present = next->input_to_present;
    h.latency_measured = next->latency_measured;
    h.shown_late = next->shown_late;
}

void CaptureWriter::release(bool all) noexcept {
    while (held_n_ > 0) {
        HeldRow& h = held(0);
        if (!all && (!h.has_next || h.awaits_feedback) && held_n_ < kHeldRows) return;
        held_first_ = (held_first_ + 1) % kHeldRows;
        --held_n_;
        if (h.awaits_feedback) ++no_feedback_;
        write_row(h);  // h stays valid: its slot is reused only by the next hold()
    }
}

void CaptureWriter::write_row(HeldRow& h) noexcept {
    if (cap_ - pos_ < kMaxRow) flush();  // room for one more row
    if (failed()) {
        ++dropped_;
        return;
    }
    // The displayed time: the present's (given with it or by its feedback) for what the host
    // did not measure itself.
    CaptureExtras& x = h.x;
    const bool dropped = x.dropped > 0 || (x.present && (x.present->outcome == PresentOutcome::skipped ||
                                                         x.present->outcome == PresentOutcome::discarded));
    // As FramePacer takes it: a displayed time before the present or over 1 s after it is unknown.
    const bool known = x.present && x.present->displayed >= x.present->begin &&
                       x.present->displayed <= x.present->end + std::chrono::seconds(1);
    const std::int64_t shown = known && !dropped ? clock::to_ns(x.present->displayed) : -1;
    if (shown >= 0) {
        if (x.until_displayed.count() < 0) x.until_displayed = x.present->displayed - x.present->begin;
        if (x.between_display_change.count() < 0 && last_shown_ >= 0)
            x.between_display_change = std::chrono::nanoseconds(shown - last_shown_);
        last_shown_ = shown;
    }
    const CaptureRow r{h.t,       x, h.latency, h.frame_ns, h.time_ns, opt_.application, {pid_, pid_len_},
                       opt_.runtime, {h.source, h.source_len}};
    char* const start = buf_.get() + pos_;
    pos_ += static_cast<std::size_t>(format_row(start, r) - start);
    ++rows_in_buf_;
    newest_ = h.time_ns + t0_;
    if (window_) {  // the row's frame, with its frame time and the latency figures that belong to it
        FrameTiming& w = h.t;  // the row is written: its frame is free to be amended
        w.interval = std::chrono::nanoseconds(h.frame_ns);
        w.latency = h.latency;
        w.input_to_present = h.input_to_present;
        w.latency_measured = h.latency_measured;
        w.shown_late = h.shown_late;
        window_->add(w);
    }
}

void CaptureWriter::feedback(const PresentInfo& f) noexcept {
    if (!file_ || f.id == 0 || f.outcome == PresentOutcome::unknown) return;
    feedback_ = true;
    for (std::size_t i = held_n_; i-- > 0;) {
        HeldRow& h = held(i);
        if (!h.x.present || h.x.present->id != f.id) continue;
        if (!h.awaits_feedback) return;  // the same report twice
        h.awaits_feedback = false;
        h.x.present->outcome = f.outcome;
        if (f.outcome == PresentOutcome::shown && f.displayed != clock::time_point{})
            h.x.present->displayed = f.displayed;
        break;
    }
    release(false);
}

// Pacer's own figures: every frame with a wake-to-wake interval, written or not.
void CaptureWriter::count_wake(const FrameTiming& t) noexcept {
    skipped_ += t.skipped;
    const std::int64_t interval = t.interval.count();
    if (interval <= 0) return;
    ++wakes_;
    if (t.missed) ++missed_;
    wake_ns_ += interval;
    work_ns_ += t.work.count();
    slept_ns_ += t.slept.count();
    spun_ns_ += t.spun.count();
    max_late_ns_ = std::max(max_late_ns_, t.lateness.count());
}

// The frame time and the row's time (TimeInSeconds): see "Presents" in the header.
std::int64_t CaptureWriter::frame_time(const FrameTiming& t, const CaptureExtras& x, std::int64_t& at) noexcept {
    at = clock::to_ns(t.wake);
    if (x.present) {
        const std::int64_t begin = clock::to_ns(x.present->begin);
        const std::int64_t frame = have_present_ ? begin - last_present_ : -1;
        last_present_ = begin;
        have_present_ = true;
        ++presents_;
        at = begin;
        return frame;
    }
    return presents_ == 0 ? t.interval.count() : -1;
}

void CaptureWriter::hold(const FrameTiming& t, const CaptureExtras& x, std::int64_t frame, std::int64_t at) noexcept {
    HeldRow& pr = held(held_n_++);  // add() released a row of a full ring
    pr.t = t;
    pr.x = x;
    pr.x.pacing_source = nullptr;
    pr.source_len = x.pacing_source ? sanitize(x.pacing_source, std::strlen(x.pacing_source), pr.source, 31) : 0;
    pr.frame_ns = frame;
    pr.time_ns = at - t0_;
    pr.has_next = false;
    pr.latency = pr.input_to_present = std::chrono::nanoseconds(0);
    pr.latency_measured = pr.shown_late = false;
    // A present with an id waits for its feedback, unless it came with its outcome.
    pr.awaits_feedback = feedback_ && x.present && x.present->id != 0 && x.present->ok &&
                         x.present->outcome == PresentOutcome::unknown;
}

// Frame-time totals for the sidecar, over the rows as written.
void CaptureWriter::count_row(std::int64_t frame) noexcept {
    ++n_;
    sum_ns_ += frame;
    min_ns_ = n_ == 1 ? frame : std::min(min_ns_, frame);
    max_ns_ = std::max(max_ns_, frame);
    const double ms = static_cast<double>(frame) * 1e-6;
    const double d = ms - mean_ms_;
    mean_ms_ += d / static_cast<double>(n_);
    m2_ += d * (ms - mean_ms_);
}

void CaptureWriter::add(const FrameTiming& t, const CaptureExtras& x) noexcept {
    if (!file_) return;
    ++rows_;
    // This wait() carries the latency of the frame presented before it: the newest held row's.
    take_next(&t);
    release(false);  // and the oldest of a full ring, feedback or not
    if (!have_t0_) {
        t0_ = written_until_ = clock::to_ns(t.wake);
        have_t0_ = true;
    }
    count_wake(t);
    std::int64_t at = 0;
    const std::int64_t frame = frame_time(t, x, at);
    if (frame <= 0) {  // no frame time: no row
        ++no_time_;
        return;
    }
    if (failed()) {
        ++dropped_;
        return;
    }
    hold(t, x, frame, at);
    count_row(frame);
    // Durability: hand the rows to the OS once they are worth a write (see the header).
    if (rows_in_buf_ >= kRowsPerWrite && newest_ - written_until_ >= kWriteAfter.count()) flush();
}

Status CaptureWriter::status() const {
    if (!failed()) return {};
    return Status::error(err_);
}

Status CaptureWriter::close() {
    if (!file_) return {};
    take_next(nullptr);  // the last row's latency never came
    release(true);       // nor will the feedback the rows still wait for
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

std::string CaptureWriter::stats_text() const {
    KeyValues kv;
    kv.add("Capture", sanitized(file_name(path_), 256, Field::sidecar));
    kv.add("Application", opt_.application);
    kv.add("Rows", rows_);
    kv.add("RowsWritten", written_);
    kv.add("RowsDropped", dropped_);
    kv.add("RowsWithoutFrameTime", no_time_);
    kv.add("WriteError", failed() ? sanitized(err_, 256, Field::sidecar) : "none");
    kv.add("Frames", n_);
    kv.add("FrameTimeSource", presents_ > 0 ? "presents" : "wakes");
    kv.add_fixed("DurationSeconds", static_cast<double>(sum_ns_) * 1e-9);
    kv.add_fixed("AverageFPS", sum_ns_ > 0 ? 1e9 * static_cast<double>(n_) / static_cast<double>(sum_ns_) : 0.0);
    kv.add_fixed("MsFrameTimeMean", mean_ms_);
    kv.add_fixed("MsFrameTimeStdDev", n_ > 0 ? std::sqrt(m2_ / static_cast<double>(n_)) : 0.0);
    kv.add_ms("MsFrameTimeMin", min_ns_);
    kv.add_ms("MsFrameTimeMax", max_ns_);
    kv.add_ms("MsLatenessMax", max_late_ns_);
    kv.add("MissedFrames", missed_);
    kv.add("SkippedSlots", skipped_);
    const double wall = static_cast<double>(std::max<std::int64_t>(wake_ns_, 1));
    kv.add_fixed("WorkShare", static_cast<double>(work_ns_) / wall);
    kv.add_fixed("SleepShare", static_cast<double>(slept_ns_) / wall);
    kv.add_fixed("SpinShare", static_cast<double>(spun_ns_) / wall);
    if (window_) window_figures(kv, window_->summarize());
    if (opt_.config) settings(kv, *opt_.config);
    kv.add("Notes", opt_.notes.empty() ? "NA" : opt_.notes);
    kv.add("MachineOS", kOsName);
    kv.add("MachineHardwareThreads", std::uint64_t{std::thread::hardware_concurrency()});
    kv.add("MachineSleepPrimitive", sanitized(sleep_primitive_, 256, Field::sidecar));
    kv.add("PacerVersion", kVersion);
    return std::move(kv).text();
}

Status CaptureWriter::write_stats() const {
    const std::string sp = stats_path(path_);
    std::FILE* f = std::fopen(sp.c_str(), "wb");
    if (!f) return Status::error("capture: cannot open " + sp + " for writing: " + std::strerror(errno));
    const std::string out = stats_text();
    const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !ok)
        return Status::error("capture: cannot write " + sp + ": " + std::strerror(ok ? errno : err));
    return {};
}

}  // namespace pacer
