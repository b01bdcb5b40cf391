#include "capture_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <limits>

namespace pacer::tools {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Alias {
    const char* name;
    int col;
    double time_scale;  // for time columns: unit -> seconds
};

// [-]digits[.digits] with at most 19 digits whose value is below 2^53: m / 10^k in one IEEE
// division, exact in both operands and so correctly rounded (Clinger's fast path), the same
// double std::from_chars gives. Anything else (exponents, long mantissas, text) returns false and
// goes to std::from_chars. Captures are almost all such numbers: this halves the time per field.
inline bool fast_decimal(const char* p, const char* end, double& v) {
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const bool neg = p < end && *p == '-';
    if (neg) ++p;
    std::uint64_t m = 0;  // wraps past 19 digits: refused below
    const char* const first = p;
    for (unsigned d; p < end && (d = static_cast<unsigned>(*p - '0')) <= 9; ++p) m = m * 10 + d;
    std::ptrdiff_t digits = p - first, frac = 0;
    if (p < end && *p == '.') {
        const char* const point = ++p;
        for (unsigned d; p < end && (d = static_cast<unsigned>(*p - '0')) <= 9; ++p) m = m * 10 + d;
        frac = p - point;
        digits += frac;
    }
    if (p != end || digits == 0 || digits > 19 || m > (std::uint64_t{1} << 53) || frac > 22) return false;
    const double x = static_cast<double>(m);
    v = frac > 0 ? x / kPow10[frac] : x;
    if (neg) v = -v;
    return true;
}

}  // namespace

const char* to_string(CaptureFormat f) noexcept {
    switch (f) {
        case CaptureFormat::pacer: return "pacer";
        case CaptureFormat::presentmon1: return "PresentMon 1.x";
        case CaptureFormat::presentmon2: return "PresentMon 2.x";
        case CaptureFormat::ocat: return "OCAT";
        case CaptureFormat::capframex_csv: return "CapFrameX CSV";
        case CaptureFormat::capframex_json: return "CapFrameX JSON";
        case CaptureFormat::mangohud: return "MangoHud";
        case CaptureFormat::frameview: return "FrameView";
    }
    return "?";
}

CaptureReader::CaptureReader() {
    fields_.reserve(64);
    std::fill(std::begin(col_), std::end(col_), -1);
}

CaptureReader::~CaptureReader() {
    if (file_) std::fclose(file_);
}

Status CaptureReader::open(const std::string& path) {
    name_ = path;
    cap_ = kBufferBytes;
    buf_.reset(new char[cap_]);
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) {
        error_ = Status::error(path + ": cannot open: " + std::strerror(errno));
        return error_;
    }
    return start();
}

Status CaptureReader::open_memory(std::string_view data, const std::string& name) {
    name_ = name;
    mem_ = data;
    // All of a small input fits at once; a large one streams through kBufferBytes like a file.
    cap_ = std::min(kBufferBytes, data.size() + 1);
    buf_.reset(new char[cap_]);
    return start();
}

bool CaptureReader::fail(const std::string& what) {
    if (error_.ok()) error_ = Status::error(name_ + ":" + std::to_string(line_) + ": " + what);
    return false;
}

bool CaptureReader::fill() {
    if (eof_) return false;
    // Compact, then read. The buffer is 16 x kMaxLine (or holds the whole input), so a line fits.
    if (begin_ > 0) {
        std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    const std::size_t room = cap_ - end_;
    std::size_t got = 0;
    if (file_) {
        got = std::fread(buf_.get() + end_, 1, room, file_);
        if (got < room) {
            if (std::ferror(file_)) {
                ++line_;
                return fail(std::string("read error: ") + std::strerror(errno));
            }
            eof_ = true;
        }
    } else {
        got = std::min(room, mem_.size() - mem_pos_);
        std::memcpy(buf_.get() + end_, mem_.data() + mem_pos_, got);
        mem_pos_ += got;
        if (mem_pos_ == mem_.size()) eof_ = true;
    }
    end_ += got;
    return true;
}

bool CaptureReader::read_line(std::string_view& line) {
    if (!error_.ok()) return false;
    for (;;) {
        const char* b = buf_.get() + begin_;
        const char* nl = static_cast<const char*>(std::memchr(b, '\n', end_ - begin_));
        if (nl) {
            std::size_t len = static_cast<std::size_t>(nl - b);
            ++line_;
            if (len > kMaxLine) return fail("line longer than " + std::to_string(kMaxLine) + " bytes");
            begin_ += len + 1;
            if (len > 0 && b[len - 1] == '\r') --len;
            line = std::string_view(b, len);
            return true;
        }
        if (end_ - begin_ > kMaxLine) {
            ++line_;
            return fail("line longer than " + std::to_string(kMaxLine) + " bytes");
        }
        if (eof_) {
            if (begin_ == end_) return false;
            ++line_;  // last line without a line feed
            unterminated_ = true;
            std::size_t len = end_ - begin_;
            begin_ = end_;
            if (len > 0 && b[len - 1] == '\r') --len;
            line = std::string_view(b, len);
            return true;
        }
        if (!fill()) return false;
    }
}

bool CaptureReader::split(std::string_view line) {
    fields_.clear();
    // memchr per comma. A field that starts with a quote sends the row to the RFC 4180 path (a
    // quote inside an unquoted field is kept as it is).
    std::size_t pos = 0;
    for (;;) {
        if (pos < line.size() && line[pos] == '"') return split_quoted(line);
        const std::size_t comma = line.find(',', pos);
        if (comma == std::string_view::npos) {
            fields_.push_back(line.substr(pos));
            return true;
        }
        fields_.push_back(line.substr(pos, comma - pos));
        pos = comma + 1;
        if (fields_.size() > 4096) return fail("more than 4096 fields");
    }
}

// RFC 4180 on one line: a field that starts with a quote runs to the next lone quote ("" is a
// quote) and must be followed by a comma or the end of the line. Other fields are taken as they are.
bool CaptureReader::split_quoted(std::string_view line) {
    fields_.clear();
    unquoted_.clear();
    unquoted_.reserve(line.size());  // never more than the line: views into it stay valid
    std::size_t pos = 0;
    for (;;) {
        if (fields_.size() >= 4096) return fail("more than 4096 fields");
        if (pos < line.size() && line[pos] == '"') {
            const std::size_t first = unquoted_.size();
            std::size_t i = pos + 1;
            for (;;) {
                if (i >= line.size())
                    return fail("field " + std::to_string(fields_.size() + 1) +
                                ": quoted field not closed on its line");
                if (line[i] == '"') {
                    if (i + 1 < line.size() && line[i + 1] == '"') {
                        unquoted_ += '"';
                        i += 2;
                        continue;
                    }
                    break;
                }
                unquoted_ += line[i++];
            }
            fields_.push_back(std::string_view(unquoted_.data() + first, unquoted_.size() - first));
            ++i;  // the closing quote
            if (i == line.size()) return true;
            if (line[i] != ',')
                return fail("field " + std::to_string(fields_.size()) + ": text after the closing quote");
            pos = i + 1;
            continue;
        }
        const std::size_t comma = line.find(',', pos);
        const std::string_view raw = line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        const std::size_t first = unquoted_.size();
        unquoted_.append(raw.data(), raw.size());
        fields_.push_back(std::string_view(unquoted_.data() + first, raw.size()));
        if (comma == std::string_view::npos) return true;
        pos = comma + 1;
    }
}

namespace {

bool ci_equal(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
        if (x != y && std::tolower(x) != std::tolower(y)) return false;
    }
    return true;
}

bool ci_starts_with(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && ci_equal(s.substr(0, prefix.size()), prefix);
}

// The idx-th comma-separated field of an unquoted line (empty when the line has fewer).
std::string_view field_at(std::string_view line, int idx) {
    std::size_t pos = 0;
    for (int i = 0; i < idx; ++i) {
        const std::size_t c = line.find(',', pos);
        if (c == std::string_view::npos) return {};
        pos = c + 1;
    }
    const std::size_t c = line.find(',', pos);
    return line.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos);
}

bool parse_double(std::string_view s, double& v) {
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(v);
}

}  // namespace

Status CaptureReader::start() {
    static const Alias kAliases[] = {
        {"Application", kApplication, 1}, {"TimeInSeconds", kTime, 1}, {"CPUStartTime", kTime, 1},
        {"CPUStartTimeInMs", kTime, 1e-3}, {"TimeInMs", kTime, 1e-3}, {"elapsed", kTime, 1e-9},
        {"MsBetweenPresents", kFrame, 1}, {"FrameTime", kFrame, 1}, {"MsBetweenAppStart", kFrame, 1},
        {"MsCPUBusy", kBusy, 1}, {"CPUBusy", kBusy, 1}, {"MsCPUWait", kWait, 1}, {"CPUWait", kWait, 1},
        {"MsBetweenDisplayChange", kDisplayChange, 1}, {"DisplayedTime", kDisplayChange, 1},
        {"MsInPresentAPI", kInPresent, 1}, {"MsUntilRenderComplete", kRenderComplete, 1},
        {"MsUntilDisplayed", kDisplayed, 1}, {"Dropped", kDropped, 1}, {"Frame", kFrameIndex, 1},
        {"MsTargetFrameTime", kTarget, 1}, {"MsLateness", kLateness, 1}, {"MsSleep", kSleep, 1},
        {"MsSpin", kSpin, 1}, {"MsOversleep", kOversleep, 1}, {"MsMargin", kMargin, 1},
        {"Skipped", kSkipped, 1}, {"Missed", kMissed, 1}, {"WaitMode", kWaitMode, 1},
        {"PacingSource", kPacingSource, 1}, {"SyncInterval", kSyncInterval, 1}, {"fps", kFps, 1},
        {"ProcessID", kProcessId, 1}, {"SwapChainAddress", kSwapchain, 1},
        {"GPUBusy", kGpuBusy, 1}, {"MsGPUBusy", kGpuBusy, 1}, {"MsGPUActive", kGpuBusy, 1},
        {"MsPCLatency", kPcLatency, 1}, {"PCLatency", kPcLatency, 1},
        {"MsAllInputToPhotonLatency", kInputToPhoton, 1}, {"AllInputToPhotonLatency", kInputToPhoton, 1},
        {"MsClickToPhotonLatency", kInputToPhoton, 1}, {"ClickToPhotonLatency", kInputToPhoton, 1},
        {"MsBetweenWakes", kWake, 1},
    };
    if (!fill() && !error_.ok()) return error_;
    if (end_ - begin_ >= 3 && std::memcmp(buf_.get() + begin_, "\xEF\xBB\xBF", 3) == 0) begin_ += 3;  // UTF-8 BOM
    {
        std::size_t q = begin_;
        while (q < end_ && std::isspace(static_cast<unsigned char>(buf_[q]))) ++q;
        if (q < end_ && buf_[q] == '{') return start_json();
    }
    std::string_view line;
    bool preamble = false;
    for (int i = 0; i < kMaxHeaderLines;) {
        if (!read_line(line)) {
            if (!error_.ok()) return error_;
            if (line_ == 0) error_ = Status::error(name_ + ": empty file");
            else fail("no header with a frame-time column (MsBetweenPresents, FrameTime, "
                      "MsBetweenAppStart or frametime)");
            return error_;
        }
        if (line.size() >= 2 && line[0] == '/' && line[1] == '/') {  // CapFrameX "//Key=Value"
            preamble = true;
            continue;
        }
        ++i;
        if (!split(line)) return error_;
        std::fill(std::begin(col_), std::end(col_), -1);
        double time_scale = 1.0;
        for (std::size_t k = 0; k < fields_.size(); ++k) {
            for (const Alias& a : kAliases) {
                // The first column of a kind wins (MsBetweenPresents before MsBetweenAppStart).
                if (col_[a.col] < 0 && ci_equal(fields_[k], a.name)) {
                    col_[a.col] = static_cast<int>(k);
                    if (a.col == kTime) time_scale = a.time_scale;
                }
            }
        }
        if (col_[kFrame] < 0) {
            // A PresentMon header without a frame-time column is an error here, not a skipped line.
            if (!fields_.empty() && ci_equal(fields_[0], "Application"))
                return fail("header has no frame-time column (MsBetweenPresents, FrameTime or "
                            "MsBetweenAppStart)"),
                       error_;
            continue;
        }
        header_line_ = line_;
        columns_.assign(fields_.begin(), fields_.end());
        time_scale_ = time_scale;
        auto find = [&](std::string_view n) {
            for (std::size_t k = 0; k < columns_.size(); ++k)
                if (ci_equal(columns_[k], n)) return static_cast<int>(k);
            return -1;
        };
        auto any_prefix = [&](std::string_view p) {
            for (const std::string& c : columns_)
                if (ci_starts_with(c, p)) return true;
            return false;
        };
        const std::string& frame_name = columns_[static_cast<std::size_t>(col_[kFrame])];
        const int motherboard = find("Motherboard");
        if (motherboard > col_[kFrame]) short_row_ = static_cast<std::size_t>(motherboard);
        if (col_[kTarget] >= 0 || col_[kPacingSource] >= 0) format_ = CaptureFormat::pacer;
        else if (frame_name == "frametime" || (col_[kFps] >= 0 && find("elapsed") >= 0))
            format_ = CaptureFormat::mangohud;
        else if (!ci_equal(frame_name, "MsBetweenPresents")) format_ = CaptureFormat::presentmon2;
        else if (preamble) format_ = CaptureFormat::capframex_csv;
        else if (short_row_) format_ = CaptureFormat::ocat;
        else if (find("Render Queue Depth") >= 0 || any_prefix("GPU0Clk")) format_ = CaptureFormat::frameview;
        else if (find("MsBetweenAppStart") >= 0 || find("FrameType") >= 0 || find("CPUStartQPC") >= 0 ||
                 find("CPUStartTime") >= 0)
            format_ = CaptureFormat::presentmon2;
        else format_ = CaptureFormat::presentmon1;
        frame_scale_known_ = format_ != CaptureFormat::mangohud;
        if (format_ == CaptureFormat::mangohud) probe_sampled();
        return {};
    }
    fail("no header with a frame-time column in the first " + std::to_string(kMaxHeaderLines) + " lines");
    return error_;
}

// MangoHud: a per-frame log's elapsed steps by the row's frame time; an interval log's by the
// interval (100 ms, say) whatever the frame time. Looks at the rows already in the buffer (all of
// a small file, thousands of rows of a large one) without consuming them.
void CaptureReader::probe_sampled() {
    const int ft_col = col_[kFrame], t_col = col_[kTime], fps_col = col_[kFps];
    if (t_col < 0) return;
    std::size_t p = begin_;
    double prev_ms = kNaN, unit = kNaN;
    int rows = 0, pairs = 0, longer = 0;
    while (rows < kSampledProbeRows && p < end_) {
        const char* b = buf_.get() + p;
        const char* nl = static_cast<const char*>(std::memchr(b, '\n', end_ - p));
        if (!nl && !eof_) break;  // a line cut by the buffer's end
        std::size_t len = nl ? static_cast<std::size_t>(nl - b) : end_ - p;
        p += len + 1;
        if (len > 0 && b[len - 1] == '\r') --len;
        const std::string_view line(b, len);
        if (line.empty()) continue;
        ++rows;
        double ft = 0, t = 0, fps = 0;
        if (!parse_double(field_at(line, ft_col), ft) || !parse_double(field_at(line, t_col), t)) continue;
        if (std::isnan(unit) && fps_col >= 0 && parse_double(field_at(line, fps_col), fps) && fps > 0 && ft > 0)
            unit = fps * ft > 3e4 ? 1e-3 : 1.0;
        const double t_ms = t * time_scale_ * 1000.0;
        if (std::isfinite(prev_ms) && std::isfinite(unit)) {
            ++pairs;
            if (t_ms - prev_ms > 2.0 * ft * unit + 1.0) ++longer;
        }
        prev_ms = t_ms;
    }
    sampled_ = pairs > 0 && 2 * longer > pairs;
}

inline bool CaptureReader::number(int col, double& out, bool duration, double max) {
    out = kNaN;
    const int k = col_[col];
    if (k < 0 || static_cast<std::size_t>(k) >= fields_.size()) return true;
    const std::string_view s = fields_[static_cast<std::size_t>(k)];
    double v = 0;
    if (fast_decimal(s.data(), s.data() + s.size(), v) && !(duration && v < 0) && std::fabs(v) <= max) {
        out = v;
        return true;
    }
    if (s.empty() || s == "NA") return true;
    return number_slow(k, s, duration, max, out);
}


bool CaptureReader::number_slow(int k, std::string_view s, bool duration, double max, double& out) {
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    const std::string& name = columns_[static_cast<std::size_t>(k)];
    auto shown = [&] { return std::string(s.substr(0, 40)) + (s.size() > 40 ? "..." : ""); };
    if (r.ec == std::errc::result_out_of_range) return fail(name + " = " + shown() + ": number out of range");
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        return fail(name + " = \"" + shown() + "\": not a number");
    if (!std::isfinite(v)) return fail(name + " = " + shown() + ": not a finite number");
    if (duration && v < 0) return fail(name + " = " + shown() + ": negative");
    if (std::fabs(v) > max) return fail(name + " = " + shown() + ": too large (limit " + std::to_string(max) + ")");
    out = v;
    return true;
}

bool CaptureReader::next(FrameRecord& f) {
    if (json_) return next_json(f);
    std::string_view line;
    for (;;) {
        if (!read_line(line)) return false;
        if (!line.empty()) break;  // blank lines (a trailing one, say) carry nothing
    }
    if (!split(line)) return false;
    // A process killed while writing (or a full disk) leaves its last row cut short. pacer's own
    // writer ends every row with a line feed, so there an unterminated last line is always such a
    // fragment, even when it happens to parse ("16.17" of "16.487717"); other tools' files may just
    // lack the final line feed, so there only a row with too few fields is dropped. Either way the
    // file's frames up to it are read, and cut_last_line() says one was left out.
    if (unterminated_ && (format_ == CaptureFormat::pacer || fields_.size() < columns_.size()) &&
        !(short_row_ && fields_.size() == short_row_ && format_ != CaptureFormat::pacer)) {
        cut_last_line_ = true;
        return false;
    }
    if (fields_.size() != columns_.size() && !(short_row_ && fields_.size() == short_row_))
        return fail("row has " + std::to_string(fields_.size()) + " fields, the header has " +
                    std::to_string(columns_.size()) +
                    (short_row_ ? " (or " + std::to_string(short_row_) + " without the system columns)" : ""));
    f.line = line_;
    const double ms = kMaxMs;
    if (!number(kTime, f.time_s, false, kMaxSeconds / std::min(time_scale_, 1.0))) return false;
    f.time_s *= time_scale_;
    if (!number(kFrame, f.frame_ms, true, ms * 1000)) return false;
    if (!number(kFps, f.fps, true, 1e9)) return false;
    if (!frame_scale_known_ && std::isfinite(f.frame_ms) && f.frame_ms > 0 && std::isfinite(f.fps) && f.fps > 0) {
        frame_scale_ = f.fps * f.frame_ms > 3e4 ? 1e-3 : 1.0;  // ~1e6: us, ~1e3: ms
        frame_scale_known_ = true;
    }
    f.frame_ms *= frame_scale_;
    if (f.frame_ms > ms) return fail(columns_[static_cast<std::size_t>(col_[kFrame])] + ": frame time above one hour");
    {
        // A log's rows come in runs of one process: the id is parsed when its text changes.
        const int k = col_[kProcessId];
        const std::string_view pid = k >= 0 && static_cast<std::size_t>(k) < fields_.size()
                                         ? fields_[static_cast<std::size_t>(k)] : std::string_view();
        if (pid.empty() || !same_text(pid, last_pid_text_)) {
            if (!number(kProcessId, f.process_id, true, 4294967295.0)) return false;
            last_pid_text_.assign(pid.data(), pid.size());
            last_pid_ = f.process_id;
        } else {
            f.process_id = last_pid_;
        }
    }
    if (summary_only_) {
        f.wait_ms = f.in_present_ms = f.until_render_complete_ms = f.until_displayed_ms = f.frame_index =
            f.sleep_ms = f.spin_ms = f.oversleep_ms = f.margin_ms = f.skipped = f.sync_interval =
                f.wake_interval_ms = kNaN;
        if (!number(kTarget, f.target_ms, true, ms) || !number(kLateness, f.lateness_ms, true, ms) ||
            !number(kMissed, f.missed, true, 1) || !number(kDisplayChange, f.display_change_ms, true, ms) ||
            !number(kDropped, f.dropped, true, 1e18) || !number(kGpuBusy, f.gpu_busy_ms, true, ms) ||
            !number(kPcLatency, f.pc_latency_ms, true, ms) || !number(kInputToPhoton, f.input_to_photon_ms, true, ms))
            return false;
        // CPU busy only beside GPU busy (analyze reports the two together); a pacer capture's
        // MsCPUBusy is not parsed here, that would cost a tenth of the time.
        f.busy_ms = kNaN;
        if (col_[kGpuBusy] >= 0 && !number(kBusy, f.busy_ms, true, ms)) return false;
    } else if (!number(kBusy, f.busy_ms, true, ms) || !number(kWait, f.wait_ms, true, ms) ||
        !number(kDisplayChange, f.display_change_ms, true, ms) || !number(kInPresent, f.in_present_ms, true, ms) ||
        // "Until" columns count from the Present call: PresentMon writes negative ones when the GPU
        // finished before it (a real -10.4 ms in its own test output).
        !number(kRenderComplete, f.until_render_complete_ms, false, ms) ||
        !number(kDisplayed, f.until_displayed_ms, false, ms) || !number(kDropped, f.dropped, true, 1e18) ||
        !number(kFrameIndex, f.frame_index, true, 1.9e19) || !number(kTarget, f.target_ms, true, ms) ||
        !number(kLateness, f.lateness_ms, true, ms) || !number(kSleep, f.sleep_ms, true, ms) ||
        !number(kSpin, f.spin_ms, true, ms) || !number(kOversleep, f.oversleep_ms, true, ms) ||
        !number(kMargin, f.margin_ms, true, ms) || !number(kSkipped, f.skipped, true, 1e18) ||
        !number(kMissed, f.missed, true, 1) || !number(kSyncInterval, f.sync_interval, false, 1e6) ||
        !number(kGpuBusy, f.gpu_busy_ms, true, ms) || !number(kPcLatency, f.pc_latency_ms, true, ms) ||
        !number(kInputToPhoton, f.input_to_photon_ms, true, ms) || !number(kWake, f.wake_interval_ms, true, ms))
        return false;
    auto text = [&](int col) {
        const int k = col_[col];
        return k < 0 || static_cast<std::size_t>(k) >= fields_.size() ? std::string_view()
                                                                       : fields_[static_cast<std::size_t>(k)];
    };
    f.application = text(kApplication);
    f.swapchain = text(kSwapchain);
    f.wait_mode = text(kWaitMode);
    f.pacing_source = text(kPacingSource);
    return true;
}

// ---- CapFrameX JSON --------------------------------------------------------------------------

struct CaptureReader::Json {
    struct Run {
        std::uint64_t line = 0;  // of the MsBetweenPresents array
        std::vector<double> time, frame, in_present, display_change, render_complete, displayed,
            dropped, sync_interval, pc_latency, gpu_busy, cpu_busy;
    };
    std::string text;
    std::string application, process_name, game_name;
    std::vector<Run> runs;
    std::size_t run = 0, index = 0;
    double offset_s = 0;  // added to the current run's TimeInSeconds
};

namespace {

// Just enough JSON for a CapFrameX session: objects, arrays, strings, numbers, literals. Depth and
// size are bounded; an error says what was expected and where (byte offset, turned into a line).
class JsonParser {
public:
    explicit JsonParser(const std::string& s) : s_(s) {}
    std::size_t pos = 0;
    std::string error;
    std::size_t error_pos = 0;

    bool fail(const std::string& what) {
        if (error.empty()) {
            error = what;
            error_pos = pos;
        }
        return false;
    }
    void ws() {
        while (pos < s_.size() && (s_[pos] == ' ' || s_[pos] == '\t' || s_[pos] == '\n' || s_[pos] == '\r')) ++pos;
    }
    bool eat(char c) {
        ws();
        if (pos < s_.size() && s_[pos] == c) {
            ++pos;
            return true;
        }
        return false;
    }
    bool expect(char c) {
        return eat(c) || fail(std::string("expected '") + c + "'" + found());
    }
    std::string found() const {
        if (pos >= s_.size()) return " at the end of the file";
        const unsigned char c = static_cast<unsigned char>(s_[pos]);
        if (c < 0x20 || c >= 0x7f) return "";
        return std::string(", found '") + static_cast<char>(c) + "'";
    }
    std::uint64_t line_of(std::size_t p) const {
        return 1 + static_cast<std::uint64_t>(std::count(s_.begin(), s_.begin() + static_cast<std::ptrdiff_t>(std::min(p, s_.size())), '\n'));
    }
    bool string(std::string* out) {
        ws();
        if (pos >= s_.size() || s_[pos] != '"') return fail("expected a string" + found());
        ++pos;
        for (;;) {
            if (pos >= s_.size()) return fail("string not closed");
            const char c = s_[pos++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
            if (c != '\\') {
                if (out) *out += c;
                continue;
            }
            if (pos >= s_.size()) return fail("string not closed");
            const char e = s_[pos++];
            char plain = 0;
            switch (e) {
                case '"': plain = '"'; break;
                case '\\': plain = '\\'; break;
                case '/': plain = '/'; break;
                case 'b': plain = '\b'; break;
                case 'f': plain = '\f'; break;
                case 'n': plain = '\n'; break;
                case 'r': plain = '\r'; break;
                case 't': plain = '\t'; break;
                case 'u': {
                    unsigned v = 0;
                    for (int k = 0; k < 4; ++k, ++pos) {
                        if (pos >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos])))
                            return fail("bad \\u escape");
                        const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos])));
                        v = v * 16 + static_cast<unsigned>(h <= '9' ? h - '0' : h - 'a' + 10);
                    }
                    if (out) {  // UTF-8; a surrogate half becomes '?'
                        if (v < 0x80) *out += static_cast<char>(v);
                        else if (v < 0x800) {
                            *out += static_cast<char>(0xC0 | (v >> 6));
                            *out += static_cast<char>(0x80 | (v & 0x3F));
                        } else if (v >= 0xD800 && v < 0xE000) {
                            *out += '?';
                        } else {
                            *out += static_cast<char>(0xE0 | (v >> 12));
                            *out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
                            *out += static_cast<char>(0x80 | (v & 0x3F));
                        }
                    }
                    continue;
                }
                default: return fail("bad escape in a string");
            }
            if (out) *out += plain;
        }
    }
    bool literal(const char* word) {
        const std::size_t n = std::strlen(word);
        if (s_.compare(pos, n, word) != 0) return fail("expected a value" + found());
        pos += n;
        return true;
    }
    // A number token as a double; true/false as 1/0, null as NaN ("not measured").
    bool scalar(double& v) {
        ws();
        if (pos >= s_.size()) return fail("expected a value at the end of the file");
        const char c = s_[pos];
        if (c == 't') return v = 1, literal("true");
        if (c == 'f') return v = 0, literal("false");
        if (c == 'n') return v = kNaN, literal("null");
        std::size_t end = pos;
        while (end < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[end])) || s_[end] == '-' ||
                                   s_[end] == '+' || s_[end] == '.' || s_[end] == 'e' || s_[end] == 'E'))
            ++end;
        if (end == pos) return fail("expected a number" + found());
        const char* b = s_.data() + pos;
        const auto r = std::from_chars(b, s_.data() + end, v);
        if (r.ec == std::errc::result_out_of_range) return fail("number out of range");
        if (r.ec != std::errc() || r.ptr != s_.data() + end) return fail("not a number: " + std::string(b, std::min<std::size_t>(end - pos, 40)));
        pos = end;
        return true;
    }
    bool skip(int depth = 0) {
        if (depth > 64) return fail("nested deeper than 64 levels");
        ws();
        if (pos >= s_.size()) return fail("expected a value at the end of the file");
        const char c = s_[pos];
        if (c == '"') return string(nullptr);
        if (c == '{') {
            ++pos;
            if (eat('}')) return true;
            do {
                if (!string(nullptr) || !expect(':') || !skip(depth + 1)) return false;
            } while (eat(','));
            return expect('}');
        }
        if (c == '[') {
            ++pos;
            if (eat(']')) return true;
            do {
                if (!skip(depth + 1)) return false;
            } while (eat(','));
            return expect(']');
        }
        double v;
        return scalar(v);
    }
    // [numbers]: each checked (finite; >= 0 for a duration; |v| <= max). null is NaN.
    bool numbers(std::vector<double>& out, const char* name, bool duration, double max) {
        ws();
        if (eat('n')) {  // "null": no data
            --pos;
            out.clear();
            return literal("null");
        }
        if (!expect('[')) return false;
        out.clear();
        if (eat(']')) return true;
        do {
            ws();
            const std::size_t at = pos;
            double v;
            if (!scalar(v)) return false;
            if (!std::isnan(v) && ((duration && v < 0) || std::fabs(v) > max)) {
                pos = at;
                char b[64];
                std::snprintf(b, sizeof b, "%.17g", v);
                return fail(std::string(name) + "[" + std::to_string(out.size()) + "] = " + b +
                            (duration && v < 0 ? ": negative" : ": too large"));
            }
            out.push_back(v);
        } while (eat(','));
        return expect(']');
    }

private:
    const std::string& s_;
};

}  // namespace

Status CaptureReader::start_json() {
    auto json = std::make_unique<Json>();
    std::string& text = json->text;
    auto too_big = [&] {
        error_ = Status::error(name_ + ": a CapFrameX JSON file larger than " +
                               std::to_string(kMaxJsonBytes / (1024 * 1024)) + " MiB is not read");
        return error_;
    };
    if (file_) {  // a regular file's size is known: refuse before reading it
        std::error_code ec;
        const auto size = std::filesystem::file_size(name_, ec);
        if (!ec && size > kMaxJsonBytes) return too_big();
    }
    text.assign(buf_.get() + begin_, end_ - begin_);
    begin_ = end_;
    while (!eof_) {
        if (text.size() > kMaxJsonBytes) return too_big();
        if (!fill()) break;
        text.append(buf_.get() + begin_, end_ - begin_);
        begin_ = end_;
    }
    if (!error_.ok()) return error_;
    if (text.size() > kMaxJsonBytes) return too_big();
    buf_.reset();  // the text holds it all now
    cap_ = begin_ = end_ = 0;
    format_ = CaptureFormat::capframex_json;
    header_line_ = 1;

    JsonParser p(text);
    const double ms = kMaxMs;
    auto parse = [&]() -> bool {
        if (!p.expect('{')) return false;
        if (p.eat('}')) return true;
        do {
            std::string key;
            if (!p.string(&key) || !p.expect(':')) return false;
            if (ci_equal(key, "Info") && (p.ws(), p.pos < text.size() && text[p.pos] == '{')) {
                p.expect('{');
                if (p.eat('}')) continue;
                do {
                    std::string k;
                    if (!p.string(&k) || !p.expect(':')) return false;
                    p.ws();
                    std::string* into = ci_equal(k, "ProcessName") ? &json->process_name
                                        : ci_equal(k, "GameName")  ? &json->game_name
                                                                   : nullptr;
                    if (into && p.pos < text.size() && text[p.pos] == '"') {
                        if (!p.string(into)) return false;
                    } else if (!p.skip()) {
                        return false;
                    }
                } while (p.eat(','));
                if (!p.expect('}')) return false;
            } else if (ci_equal(key, "Runs") && (p.ws(), p.pos < text.size() && text[p.pos] == '[')) {
                p.expect('[');
                if (p.eat(']')) continue;
                do {
                    Json::Run run;
                    bool has_frames = false;
                    if (!p.expect('{')) return false;
                    if (!p.eat('}')) {
                        do {
                            std::string rk;
                            if (!p.string(&rk) || !p.expect(':')) return false;
                            p.ws();
                            if (!ci_equal(rk, "CaptureData") || p.pos >= text.size() || text[p.pos] != '{') {
                                if (!p.skip()) return false;
                                continue;
                            }
                            p.expect('{');
                            if (p.eat('}')) continue;
                            do {
                                std::string ck;
                                if (!p.string(&ck) || !p.expect(':')) return false;
                                p.ws();
                                const std::size_t at = p.pos;
                                struct Slot {
                                    const char* name;
                                    std::vector<double> Json::Run::*v;
                                    bool duration;
                                    double max;
                                };
                                static const Slot kSlots[] = {
                                    {"TimeInSeconds", &Json::Run::time, false, kMaxSeconds},
                                    {"MsBetweenPresents", &Json::Run::frame, true, ms},
                                    {"MsInPresentAPI", &Json::Run::in_present, true, ms},
                                    {"MsBetweenDisplayChange", &Json::Run::display_change, true, ms},
                                    {"MsUntilRenderComplete", &Json::Run::render_complete, false, ms},
                                    {"MsUntilDisplayed", &Json::Run::displayed, false, ms},
                                    {"Dropped", &Json::Run::dropped, true, 1},
                                    {"SyncInterval", &Json::Run::sync_interval, false, 1e6},
                                    {"PcLatency", &Json::Run::pc_latency, true, ms},
                                    {"GpuActive", &Json::Run::gpu_busy, true, ms},
                                    {"CpuActive", &Json::Run::cpu_busy, true, ms},
                                };
                                const Slot* slot = nullptr;
                                for (const Slot& sl : kSlots)
                                    if (ci_equal(ck, sl.name)) slot = &sl;
                                if (!slot) {
                                    if (!p.skip()) return false;
                                    continue;
                                }
                                if (!p.numbers(run.*(slot->v), slot->name, slot->duration, slot->max)) return false;
                                if (slot->v == &Json::Run::frame) {
                                    run.line = p.line_of(at);
                                    has_frames = true;
                                }
                            } while (p.eat(','));
                            if (!p.expect('}')) return false;
                        } while (p.eat(','));
                        if (!p.expect('}')) return false;
                    }
                    if (!has_frames)
                        return p.fail("run " + std::to_string(json->runs.size() + 1) +
                                      " has no CaptureData.MsBetweenPresents");
                    json->runs.push_back(std::move(run));
                } while (p.eat(','));
                if (!p.expect(']')) return false;
            } else if (!p.skip()) {
                return false;
            }
        } while (p.eat(','));
        if (!p.expect('}')) return false;
        p.ws();
        if (p.pos != text.size()) return p.fail("text after the end of the JSON object");
        return true;
    };
    if (!parse()) {
        line_ = p.line_of(p.error_pos);
        fail("CapFrameX JSON: " + p.error);
        return error_;
    }
    if (json->runs.empty()) {
        line_ = p.line_of(text.size());
        fail("CapFrameX JSON without Runs[].CaptureData.MsBetweenPresents");
        return error_;
    }
    json->application = !json->process_name.empty() ? json->process_name : json->game_name;
    json->text.clear();
    json->text.shrink_to_fit();
    json_ = std::move(json);
    return {};
}

bool CaptureReader::next_json(FrameRecord& f) {
    Json& j = *json_;
    while (j.run < j.runs.size() && j.index >= j.runs[j.run].frame.size()) {
        // The next run follows this one: its first frame one frame time after this run's last.
        const Json::Run& done = j.runs[j.run];
        const double end = done.time.empty() ? kNaN : done.time.back() + j.offset_s;
        ++j.run;
        j.index = 0;
        if (j.run < j.runs.size()) {
            const Json::Run& r = j.runs[j.run];
            const double t0 = r.time.empty() ? kNaN : r.time.front();
            const double f0 = r.frame.empty() ? kNaN : r.frame.front();
            j.offset_s = std::isfinite(end) && std::isfinite(t0) ? end - t0 + (std::isfinite(f0) ? f0 / 1000 : 0) : 0;
        }
    }
    if (j.run >= j.runs.size()) return false;
    const Json::Run& r = j.runs[j.run];
    const std::size_t i = j.index++;
    auto at = [i](const std::vector<double>& v) { return i < v.size() ? v[i] : kNaN; };
    f = FrameRecord();
    f.line = r.line;
    f.frame_ms = at(r.frame);
    f.time_s = at(r.time) + j.offset_s;
    f.in_present_ms = at(r.in_present);
    f.display_change_ms = at(r.display_change);
    f.until_render_complete_ms = at(r.render_complete);
    f.until_displayed_ms = at(r.displayed);
    f.dropped = at(r.dropped);
    f.sync_interval = at(r.sync_interval);
    f.pc_latency_ms = at(r.pc_latency);
    f.gpu_busy_ms = at(r.gpu_busy);
    f.busy_ms = at(r.cpu_busy);
    f.application = j.application;
    return true;
}

}  // namespace pacer::tools
