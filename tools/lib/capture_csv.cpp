// tools/lib/capture_csv.cpp - the streaming CSV reader: pacer's own captures, PresentMon 1.x and
// 2.x, OCAT, CapFrameX's CSV export, MangoHud, FrameView (the formats: capture_reader.hpp).
#include "capture_reader.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <limits>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

#include "capture_internal.hpp"

namespace pacer::tools {

using namespace detail;

namespace {

bool ci_starts_with(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && ci_equal(s.substr(0, prefix.size()), prefix);
}


// [-]digits[.digits] with at most 19 digits whose value is below 2^53: m / 10^k in one IEEE
// division, exact in both operands and so correctly rounded (Clinger's fast path), the same
// double std::from_chars gives. Anything else (exponents, long mantissas, text) returns false and
// goes to std::from_chars. Captures are almost all such numbers: this halves the time per field.
inline bool fast_decimal(const char* p, const char* end, double& v) {
    static constexpr double kScale[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
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
    v = frac > 0 ? x / kScale[frac] : x;
    if (neg) v = -v;
    return true;
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

// Which of 16 bytes are commas and which are quotes: bit i for byte i.
struct Block {
    std::uint32_t commas, quotes;
};

#if defined(__SSE2__) || defined(_M_X64)
inline Block scan16(const char* p) noexcept {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return {static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')))),
            static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))))};
}
#else
// Bytes of w equal to c: 0x80 in each such byte (exact: no carry between bytes), gathered to one
// bit per byte.
inline std::uint32_t bytes_equal(std::uint64_t w, std::uint64_t c) noexcept {
    constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
    const std::uint64_t x = w ^ (c * 0x0101010101010101ULL);
    const std::uint64_t hi = ~(((x & kLow7) + kLow7) | x | kLow7);
    return static_cast<std::uint32_t>(((hi >> 7) * 0x0102040810204080ULL) >> 56);
}
inline Block scan16(const char* p) noexcept {
    std::uint64_t lo, hi;
    std::memcpy(&lo, p, 8);
    std::memcpy(&hi, p + 8, 8);
    if constexpr (std::endian::native == std::endian::big) {
        lo = __builtin_bswap64(lo);
        hi = __builtin_bswap64(hi);
    }
    return {bytes_equal(lo, ',') | bytes_equal(hi, ',') << 8, bytes_equal(lo, '"') | bytes_equal(hi, '"') << 8};
}
#endif

}  // namespace

CaptureReader::CaptureReader() : field_buf_(new std::string_view[kMaxFields + 16]) {
    std::fill(std::begin(col_), std::end(col_), -1);
}

CaptureReader::~CaptureReader() {
    if (file_) std::fclose(file_);
}

Status CaptureReader::open(const std::string& path) {
    name_ = path;
    cap_ = kBufferBytes;
    buf_.reset(new char[cap_ + kPadding]());
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) {
        error_ = Status::error(path + ": cannot open: " + std::strerror(errno));
        return error_;
    }
    // The reader's buffer is the only one: each fill() is one read() of up to kBufferBytes.
    std::setvbuf(file_, nullptr, _IONBF, 0);
    if (std::fseek(file_, 0, SEEK_END) == 0) {  // the size, for rows_hint(); a pipe has none
        const long size = std::ftell(file_);
        input_bytes_ = size > 0 ? static_cast<std::uint64_t>(size) : 0;
        if (std::fseek(file_, 0, SEEK_SET) != 0) {
            error_ = Status::error(path + ": cannot read: " + std::strerror(errno));
            return error_;
        }
    }
    return start();
}

Status CaptureReader::open_memory(std::string_view data, const std::string& name) {
    name_ = name;
    mem_ = data;
    input_bytes_ = data.size();
    // All of a small input fits at once; a large one streams through kBufferBytes like a file.
    cap_ = std::min(kBufferBytes, data.size() + 1);
    buf_.reset(new char[cap_ + kPadding]());
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

// Fields end at commas, found 16 bytes at a time. A field that starts with a quote sends the
// row to the RFC 4180 path (a quote inside an unquoted field is kept as it is).
bool CaptureReader::split(std::string_view line) {
    const char* const b = line.data();
    const std::size_t n = line.size();
    std::string_view* const out = field_buf_.get();  // room for kMaxFields + 16: a block's commas
    std::size_t k = 0, start = 0;
    bool quotes = false;
    // The buffer has kPadding bytes after its end, so a block may run past the line's.
    for (std::size_t i = 0; i < n && k < kMaxFields; i += 16) {
        const Block blk = scan16(b + i);
        quotes |= blk.quotes != 0;
        std::uint32_t m = blk.commas;
        if (n - i < 16) m &= (1u << (n - i)) - 1;
        for (; m != 0; m &= m - 1) {
            const std::size_t at = i + static_cast<std::size_t>(std::countr_zero(m));
            out[k++] = std::string_view(b + start, at - start);
            start = at + 1;
        }
    }
    if (k >= kMaxFields) return fail("more than " + std::to_string(kMaxFields) + " fields");
    out[k++] = std::string_view(b + start, n - start);
    fields_ = FieldList(out, k);
    if (quotes) {
        for (const std::string_view& f : fields_)
            if (!f.empty() && f[0] == '"') return split_quoted(line);
    }
    return true;
}

// RFC 4180 on one line: a field that starts with a quote runs to the next lone quote ("" is a
// quote) and must be followed by a comma or the end of the line. Other fields are taken as they are.
bool CaptureReader::split_quoted(std::string_view line) {
    quoted_.clear();
    unquoted_.clear();
    unquoted_.reserve(line.size());  // never more than the line: views into it stay valid
    std::size_t pos = 0;
    for (;;) {
        if (quoted_.size() >= kMaxFields) return fail("more than " + std::to_string(kMaxFields) + " fields");
        const std::size_t first = unquoted_.size();
        if (pos < line.size() && line[pos] == '"') {
            std::size_t i = pos + 1;
            for (;; ++i) {
                if (i >= line.size())
                    return fail("field " + std::to_string(quoted_.size() + 1) + ": quoted field not closed on its line");
                if (line[i] != '"') {
                    unquoted_ += line[i];
                } else if (i + 1 < line.size() && line[i + 1] == '"') {
                    unquoted_ += line[++i];
                } else {
                    break;
                }
            }
            quoted_.push_back(std::string_view(unquoted_.data() + first, unquoted_.size() - first));
            if (++i == line.size()) break;  // past the closing quote
            if (line[i] != ',') return fail("field " + std::to_string(quoted_.size()) + ": text after the closing quote");
            pos = i + 1;
            continue;
        }
        const std::size_t comma = line.find(',', pos);
        const std::string_view raw = line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        unquoted_.append(raw.data(), raw.size());
        quoted_.push_back(std::string_view(unquoted_.data() + first, raw.size()));
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    fields_ = FieldList(quoted_.data(), quoted_.size());
    return true;
}

Status CaptureReader::start() {
    if (!fill() && !error_.ok()) return error_;
    if (end_ - begin_ >= 3 && std::memcmp(buf_.get() + begin_, "\xEF\xBB\xBF", 3) == 0) begin_ += 3;  // UTF-8 BOM
    std::size_t q = begin_;
    while (q < end_ && std::isspace(static_cast<unsigned char>(buf_[q]))) ++q;
    if (q < end_ && buf_[q] == '{') return start_json();
    return find_header();
}

// The header: the first line, past "//" preamble lines, that names a frame-time column.
Status CaptureReader::find_header() {
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
        if (i == 1 && fields_.size() == 2 && fields_[0] == "Key" && fields_[1] == "Value") return refuse_sidecar();
        double time_scale = 1.0;
        if (!match_columns(time_scale)) {
            // A PresentMon header (the first line past the preamble) without a frame-time column is
            // an error here, not a skipped line; a later line that starts so is no header.
            if (i == 1 && !fields_.empty() && ci_equal(fields_[0], "Application"))
                return fail("header has no frame-time column (MsBetweenPresents, FrameTime or MsBetweenAppStart)"), error_;
            continue;
        }
        header_line_ = line_;
        columns_.assign(fields_.begin(), fields_.end());
        time_scale_ = time_scale;
        detect_format(preamble);
        plan_parsing();
        return {};
    }
    fail("no header with a frame-time column in the first " + std::to_string(kMaxHeaderLines) + " lines");
    return error_;
}

// pacer's stats sidecar (pacer/capture.hpp, "Sidecar"): "Key,Value", then "Capture,<its capture>".
// Not a capture: refused naming its header line and the capture it summarises.
Status CaptureReader::refuse_sidecar() {
    stats_sidecar_ = true;
    const std::uint64_t header = line_;
    std::string_view line;
    if (read_line(line) && split(line) && fields_.size() == 2 && fields_[0] == "Capture")
        sidecar_of_ = std::string(fields_[1]);
    error_ = Status::error(name_ + ":" + std::to_string(header) + ": pacer's stats sidecar" +
                           (sidecar_of_.empty() ? std::string() : " of " + sidecar_of_) +
                           " (Key,Value rows), not a capture");
    return error_;
}

// The table's columns among the fields (the first field of a column wins: MsBetweenPresents
// before MsBetweenAppStart). True when there is a frame-time column.
bool CaptureReader::match_columns(double& time_scale) {
    std::fill(std::begin(col_), std::end(col_), -1);
    for (std::size_t k = 0; k < fields_.size(); ++k) {
        const Alias* a = find_alias(fields_[k]);
        if (!a || col_[col_index(a->column)] >= 0) continue;
        col_[col_index(a->column)] = static_cast<int>(k);
        if (a->column == CaptureColumnId::time_s) time_scale = a->scale;
    }
    return has(CaptureColumnId::frame_ms);
}

void CaptureReader::detect_format(bool preamble) {
    auto find = [&](std::string_view n) {
        for (std::size_t k = 0; k < columns_.size(); ++k)
            if (ci_equal(columns_[k], n)) return static_cast<int>(k);
        return -1;
    };
    auto any_prefix = [&](std::string_view p) {
        return std::any_of(columns_.begin(), columns_.end(), [&](const std::string& c) { return ci_starts_with(c, p); });
    };
    const int frame_col = field_of(CaptureColumnId::frame_ms);
    const std::string& frame_name = columns_[static_cast<std::size_t>(frame_col)];
    const int motherboard = find("Motherboard");
    if (motherboard > frame_col) short_row_ = static_cast<std::size_t>(motherboard);
    if (has(CaptureColumnId::target_ms) || has(CaptureColumnId::pacing_source)) format_ = CaptureFormat::pacer;
    else if (frame_name == "frametime" || (has(CaptureColumnId::fps) && find("elapsed") >= 0))
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
}

// MangoHud: a per-frame log's elapsed steps by the row's frame time; an interval log's by the
// interval (100 ms, say) whatever the frame time. Looks at the rows already in the buffer (all of
// a small file, thousands of rows of a large one) without consuming them.
void CaptureReader::probe_sampled() {
    const int ft_col = field_of(CaptureColumnId::frame_ms), t_col = field_of(CaptureColumnId::time_s),
              fps_col = field_of(CaptureColumnId::fps);
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

void CaptureReader::set_summary_only(bool on, bool with_time) {
    summary_only_ = on;
    summary_time_ = with_time;
    plan_parsing();
}

// What next() parses besides time, frame and process id (read_time_and_frame, read_process_id):
// every other column of the table the file has, or, summary only, what `analyze` reads.
void CaptureReader::plan_parsing() {
    parse_.clear();
    if (json_) return;
    using C = CaptureColumnId;
    const C summary[] = {C::target_ms, C::lateness_ms, C::missed, C::display_change_ms, C::dropped, C::gpu_busy_ms,
                         C::pc_latency_ms, C::input_to_photon_ms, C::application, C::swapchain};
    for (std::size_t c = 0; c < pacer::kCaptureColumnCount; ++c) {
        const auto id = static_cast<C>(c);
        if (col_[c] < 0 || id == C::time_s || id == C::frame_ms || id == C::fps || id == C::process_id) continue;
        // CPU busy only beside GPU busy (analyze reports the two together); a pacer capture's
        // MsCPUBusy is not parsed there, that would cost a tenth of the time.
        const bool wanted = std::find(std::begin(summary), std::end(summary), id) != std::end(summary) ||
                            (id == C::busy_ms && has(C::gpu_busy_ms));
        if (summary_only_ && !wanted) continue;
        const Limits lim = limits_of(unit_of(id));
        parse_.push_back({static_cast<std::size_t>(col_[c]), kMembers[c].number, kMembers[c].text, lim.non_negative, lim.max});
    }
}

inline bool CaptureReader::number(std::size_t field, double& out, bool non_negative, double max) {
    out = kNaN;
    if (field >= fields_.size()) return true;
    const std::string_view s = fields_[field];
    double v = 0;
    if (fast_decimal(s.data(), s.data() + s.size(), v) && !(non_negative && v < 0) && std::fabs(v) <= max) {
        out = v;
        return true;
    }
    if (s.empty() || s == "NA") return true;
    return number_slow(field, s, non_negative, max, out);
}

bool CaptureReader::number(CaptureColumnId c, double& out, double widen) {
    const Limits lim = limits_of(unit_of(c));
    return number(static_cast<std::size_t>(field_of(c)), out, lim.non_negative, lim.max * widen);  // none: NaN
}

bool CaptureReader::number_slow(std::size_t field, std::string_view s, bool non_negative, double max, double& out) {
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    const std::string& name = columns_[field];
    auto shown = [&] { return std::string(s.substr(0, 40)) + (s.size() > 40 ? "..." : ""); };
    if (r.ec == std::errc::result_out_of_range) return fail(name + " = " + shown() + ": number out of range");
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        return fail(name + " = \"" + shown() + "\": not a number");
    if (!std::isfinite(v)) return fail(name + " = " + shown() + ": not a finite number");
    if (non_negative && v < 0) return fail(name + " = " + shown() + ": negative");
    if (std::fabs(v) > max) return fail(name + " = " + shown() + ": too large (limit " + std::to_string(max) + ")");
    out = v;
    return true;
}

// The next row with something in it, split; false at the end, on an error, and for a last line
// that is a fragment of a row.
bool CaptureReader::next_row() {
    std::string_view line;
    do {
        if (!read_line(line)) return false;
    } while (line.empty());  // blank lines (a trailing one, say) carry nothing
    if (!split(line)) return false;
    if (first_row_bytes_ == 0) first_row_bytes_ = line.size() + 1;
    // A process killed while writing (or a full disk) leaves its last row cut short. pacer's own
    // writer ends every row with a line feed, so there an unterminated last line is always such a
    // fragment, even when it happens to parse ("16.17" of "16.487717"); other tools' files may just
    // lack the final line feed, so there only a row with too few fields is dropped. Either way the
    // file's frames up to it are read, and cut_last_line() says one was left out.
    const bool short_ok = short_row_ && fields_.size() == short_row_;
    if (unterminated_ && (format_ == CaptureFormat::pacer || fields_.size() < columns_.size()) &&
        !(short_ok && format_ != CaptureFormat::pacer)) {
        cut_last_line_ = true;
        return false;
    }
    if (fields_.size() != columns_.size() && !short_ok)
        return fail("row has " + std::to_string(fields_.size()) + " fields, the header has " +
                    std::to_string(columns_.size()) +
                    (short_row_ ? " (or " + std::to_string(short_row_) + " without the system columns)" : ""));
    return true;
}

// The time stamp in seconds, and the frame time in ms: MangoHud's unit decided on the first row.
bool CaptureReader::read_time_and_frame(FrameRecord& f) {
    using C = CaptureColumnId;
    // A time stamp in ms or ns may be 1e3 or 1e9 x the limit in seconds.
    if (summary_time_ || !summary_only_) {
        if (!number(C::time_s, f.time_s, 1.0 / std::min(time_scale_, 1.0))) return false;
        f.time_s *= time_scale_;
    }
    // MangoHud writes microseconds in some versions: the number may be 1000 x the limit in ms.
    if (!number(C::frame_ms, f.frame_ms, 1000.0) || !number(C::fps, f.fps)) return false;
    if (!frame_scale_known_ && std::isfinite(f.frame_ms) && f.frame_ms > 0 && std::isfinite(f.fps) && f.fps > 0) {
        frame_scale_ = f.fps * f.frame_ms > 3e4 ? 1e-3 : 1.0;  // ~1e6: us, ~1e3: ms
        frame_scale_known_ = true;
    }
    f.frame_ms *= frame_scale_;
    if (f.frame_ms > kMaxMs) return fail(columns_[static_cast<std::size_t>(field_of(C::frame_ms))] + ": frame time above one hour");
    return true;
}

// A log's rows come in runs of one process: the id is parsed when its text changes.
bool CaptureReader::read_process_id(FrameRecord& f) {
    const int k = field_of(CaptureColumnId::process_id);
    const std::string_view pid = k >= 0 && static_cast<std::size_t>(k) < fields_.size()
                                     ? fields_[static_cast<std::size_t>(k)] : std::string_view();
    if (!pid.empty() && same_text(pid, last_pid_text_)) {
        f.process_id = last_pid_;
        return true;
    }
    if (!number(CaptureColumnId::process_id, f.process_id)) return false;
    last_pid_text_.assign(pid.data(), pid.size());
    last_pid_ = f.process_id;
    return true;
}

bool CaptureReader::next(FrameRecord& f) {
    if (json_) return next_json(f);
    if (!next_row()) return false;
    f = FrameRecord();
    f.line = line_;
    if (!read_time_and_frame(f) || !read_process_id(f)) return false;
    for (const Parse& p : parse_) {
        if (p.text) {
            f.*p.text = p.field < fields_.size() ? fields_[p.field] : std::string_view();
        } else if (!number(p.field, f.*p.number, p.non_negative, p.max)) {
            return false;
        }
    }
    return true;
}
}  // namespace pacer::tools
