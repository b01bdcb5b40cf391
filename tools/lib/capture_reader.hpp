// tools/lib/capture_reader.hpp - streaming reader of frame-time captures: pacer's own, PresentMon
// 1.x and 2.x, OCAT, CapFrameX (CSV export and JSON session), MangoHud and NVIDIA FrameView.
//
//   pacer::tools::CaptureReader r;
//   if (pacer::Status st = r.open("capture.csv"); !st) { puts(st.message().c_str()); return 1; }
//   pacer::tools::FrameRecord f;
//   while (r.next(f)) use(f.frame_ms);
//   if (!r.error().ok()) { puts(r.error().message().c_str()); return 1; }   // "file:line: ..."
//
// Streaming (CSV): one buffer of kBufferBytes, lines of at most kMaxLine bytes (a longer line is
// an error, so a binary or corrupt file costs at most one buffer), nothing kept between rows, no
// read past the end of the data. Memory does not grow with the file. A CapFrameX JSON session
// (the file starts with '{') is read whole, up to kMaxJsonBytes; a larger one is refused.
//
// CSV: a UTF-8 byte-order mark is skipped, CR LF and LF both end a line, a field in double quotes
// follows RFC 4180 (a comma inside, "" for a quote; the field must end on its line), column names
// match whatever their case (PresentMon 1.6 wrote MsBetweenPresents, 1.7 to 2.x --v1_metrics
// msBetweenPresents). Lines starting with "//" before the header (CapFrameX's "//Key=Value"
// preamble) are skipped, however many; the header is the first other line that names a frame-time
// column, searched in the first kMaxHeaderLines such lines. A file whose first such line is
// "Key,Value" is pacer's stats sidecar (pacer/capture.hpp), not a capture: open() refuses it
// ("file:1: pacer's stats sidecar of capture.csv (Key,Value rows), not a capture") and
// stats_sidecar() says so, for tools that skip it. Formats, told apart by the header:
//   pacer         classic PresentMon columns + MsTargetFrameTime / PacingSource (pacer/capture.hpp)
//   presentmon1   MsBetweenPresents (PresentMon 1.x, and 2.x with --v1_metrics)
//   presentmon2   FrameTime, CPUBusy, ... (PresentMon 2.x); MsBetweenPresents with 2.x-only columns
//                 (MsBetweenAppStart, FrameType, CPUStartQPC / CPUStartTime); MsBetweenAppStart alone
//   ocat          presentmon1 + system columns from Motherboard on, filled in the first data row
//                 only: the other rows may stop before Motherboard
//   capframex_csv presentmon1 after a "//" preamble
//   frameview     presentmon1 + FrameView's columns (Render Queue Depth, GPU0Clk(MHz), ...)
//   mangohud      two system-info lines ("os,cpu,gpu,...") then fps,frametime,...,elapsed. MangoHud
//                 writes frametime in microseconds in some versions and milliseconds in others;
//                 the unit is taken from the first row: fps x frametime ~ 1e6 -> us, ~ 1e3 -> ms.
//                 elapsed is ns since the log started. A log written with log_interval > 0 has one
//                 row per interval, not per frame: sampled() says so (see there).
//
// CapFrameX JSON (CapFrameX's own session files): {"Info": {"ProcessName", "GameName", ...},
// "Runs": [{"CaptureData": {"TimeInSeconds": [...], "MsBetweenPresents": [...], ...}}, ...]}.
// Runs are read one after another (CapFrameX aggregates them the same way), each run's time
// stamps moved to follow the previous run's; application is Info.ProcessName (else GameName).
// FrameRecord::line is the line where the run's MsBetweenPresents array starts; an error names
// the line of the bad value.
//
// A last line without a line feed that is a fragment of a row (pacer captures: always; other
// files: when it has too few fields) is left out, not an error: cut_last_line().
//
// Numbers: std::from_chars (C locale), the whole field; NA (and an empty field in an optional
// column) is "not measured" = NaN. Rejected with file:line: text, NaN, infinity, negative
// durations, values above kMaxMs (a frame time of over an hour is corrupt data).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pacer/capture_columns.hpp"
#include "pacer/status.hpp"

namespace pacer::tools {

// Equality of short texts (a process id, an exe name, a swap chain address) without a call to
// memcmp: up to 16 bytes as two overlapping 8-byte words.
inline bool same_text(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n >= 8 && n <= 16) {
        std::uint64_t x0, y0, x1, y1;
        std::memcpy(&x0, a.data(), 8);
        std::memcpy(&y0, b.data(), 8);
        std::memcpy(&x1, a.data() + n - 8, 8);
        std::memcpy(&y1, b.data() + n - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n < 8) {
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    return std::memcmp(a.data(), b.data(), n) == 0;
}



// What wrote the file. ocat: PresentMon 1.x columns plus OCAT's system-information columns, filled
// in the first data row only. capframex_csv: CapFrameX's CSV export (a "//Key=Value" preamble, then
// a PresentMon header); capframex_json: CapFrameX's own session format. frameview: NVIDIA FrameView.
enum class CaptureFormat {
    pacer, presentmon1, presentmon2, ocat, capframex_csv, capframex_json, mangohud, frameview
};
const char* to_string(CaptureFormat f) noexcept;

// Column names and Application names compare case-insensitively (ASCII), as the tools that write
// them do not agree on case.
bool ci_equal(std::string_view a, std::string_view b) noexcept;

namespace detail {
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // a value the row lacks
}  // namespace detail

template <pacer::CaptureUnit U>
using RecordField = std::conditional_t<U == pacer::CaptureUnit::text, std::string_view, double>;

// What a field holds before a row fills it: NaN for a number, "" for a text.
template <pacer::CaptureUnit U>
constexpr RecordField<U> blank_field() noexcept {
    if constexpr (U == pacer::CaptureUnit::text) {
        return {};
    } else {
        return std::numeric_limits<double>::quiet_NaN();
    }
}

// One row: a field per column of the table (pacer/capture_columns.hpp), named as its `member`:
// a number (double; durations in ms, time stamps in s) or a text (valid until the next next()).
// NaN where the file has no such column or says NA. A default-constructed record is line 0,
// every number NaN ("not measured", the same value the reader gives a missing column) and every
// text empty, so a record that next() never filled cannot pass for a measured 0 ms frame.
//   time_s      TimeInSeconds / CPUStartTime (s) / elapsed       frame_ms  MsBetweenPresents /
//   busy_ms     MsCPUBusy / CPUBusy / CpuActive                            FrameTime / frametime
//   gpu_busy_ms GPUBusy / MsGPUActive / GpuActive   display_change_ms  MsBetweenDisplayChange /
//   input_to_photon_ms  MsAllInputToPhotonLatency, ...                     DisplayedTime
struct FrameRecord {
    std::uint64_t line = 0;  // 1-based line in the file
#define PACER_RECORD_FIELD(member, name, aliases, unit, origin, timing, value) \
    RecordField<pacer::CaptureUnit::unit> member = blank_field<pacer::CaptureUnit::unit>();
    PACER_CAPTURE_COLUMNS(PACER_RECORD_FIELD)
#undef PACER_RECORD_FIELD
};

// The fields of a row: views into the reader's buffer, valid until the next read.
class FieldList {
public:
    FieldList() = default;
    FieldList(const std::string_view* data, std::size_t n) noexcept : data_(data), n_(n) {}
    std::size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }
    const std::string_view& operator[](std::size_t i) const noexcept { return data_[i]; }
    const std::string_view* begin() const noexcept { return data_; }
    const std::string_view* end() const noexcept { return data_ + n_; }

private:
    const std::string_view* data_ = nullptr;
    std::size_t n_ = 0;
};

class CaptureReader {
public:
    static constexpr std::size_t kMaxFields = 4096;       // per line
    static constexpr std::size_t kPadding = 16;           // bytes after the buffer: a block read past a line
    static constexpr std::size_t kMaxLine = 64 * 1024;
    static constexpr std::size_t kBufferBytes = 1024 * 1024;
    static constexpr int kMaxHeaderLines = 8;             // "//" preamble lines not counted
    static constexpr std::size_t kMaxJsonBytes = 256u * 1024 * 1024;  // CapFrameX JSON, read whole
    static constexpr double kMaxMs = 3'600'000.0;         // 1 hour
    static constexpr double kMaxSeconds = 1e9;            // 31 years of TimeInSeconds

    CaptureReader();
    ~CaptureReader();
    CaptureReader(const CaptureReader&) = delete;
    CaptureReader& operator=(const CaptureReader&) = delete;

    // Opens a file and reads its header. Errors name the file (and line).
    Status open(const std::string& path);
    // The same from memory (tests, fuzzing); name is used in messages. data must outlive the reader.
    Status open_memory(std::string_view data, const std::string& name);

    // Next row: true with f filled; false at the end or on an error (then error() is not ok).
    bool next(FrameRecord& f);

    // Parse only the columns `analyze` reads (frame time, time, target, lateness, missed, process
    // id, display change, dropped, GPU busy, latency, and CPU busy when there is a GPU busy column;
    // the application and swap chain texts; the others read as NaN and are not checked): about
    // twice as fast. Call after open().
    // with_time false: the time column is not read either (nothing analyze computes needs it
    // but a sampled log's span and the per-frame series).
    void set_summary_only(bool on, bool with_time = true);

    const Status& error() const noexcept { return error_; }
    CaptureFormat format() const noexcept { return format_; }
    const std::vector<std::string>& columns() const noexcept { return columns_; }
    std::uint64_t header_line() const noexcept { return header_line_; }
    // About how many rows the input holds, from its size and the first row's length (after the
    // first next()): what to reserve for per-row columns. 0 when unknown (a pipe, no row yet).
    std::uint64_t rows_hint() const noexcept {
        return first_row_bytes_ ? std::min<std::uint64_t>(input_bytes_ / first_row_bytes_ + 1, kMaxRowsHint) : 0;
    }
    static constexpr std::uint64_t kMaxRowsHint = std::uint64_t{1} << 27;  // 512 MB of 4-byte values
    // The header's field that holds a column of the table (the first such field); -1: none.
    int field_of(pacer::CaptureColumnId c) const noexcept { return col_[static_cast<std::size_t>(c)]; }
    bool has(pacer::CaptureColumnId c) const noexcept { return field_of(c) >= 0; }
    bool has_target() const noexcept { return has(pacer::CaptureColumnId::target_ms); }
    bool has_lateness() const noexcept { return has(pacer::CaptureColumnId::lateness_ms); }
    bool has_process_id() const noexcept { return has(pacer::CaptureColumnId::process_id); }
    bool has_swapchain() const noexcept { return has(pacer::CaptureColumnId::swapchain); }
    const std::string& name() const noexcept { return name_; }
    // True for a log of samples rather than frames (MangoHud with log_interval > 0: one row per
    // interval, its frame time an average): consecutive rows are not consecutive frames. Known
    // once open() returns: decided from the first rows (up to kSampledProbeRows), where most steps
    // of the elapsed column are longer than 2 x the row's frame time + 1 ms.
    bool sampled() const noexcept { return sampled_; }
    // The file's last line had no line feed and was left out as a fragment of a row (a writer
    // killed mid-row, a full disk): see next(). Known once next() has returned false.
    bool cut_last_line() const noexcept { return cut_last_line_; }
    std::uint64_t line() const noexcept { return line_; }  // lines read so far (1-based: the last one)
    // open() refused the file as pacer's stats sidecar ("Key,Value" header), and the capture its
    // Capture key names ("" when it names none).
    bool stats_sidecar() const noexcept { return stats_sidecar_; }
    const std::string& sidecar_of() const noexcept { return sidecar_of_; }
    static constexpr int kSampledProbeRows = 33;
    // Raw fields of the row next() returned last (valid until the next call); quoted fields
    // unquoted. Empty for a CapFrameX JSON session.
    const FieldList& fields() const noexcept { return fields_; }

private:
    struct Json;  // a CapFrameX session, parsed (capture_reader.cpp)
    // A column next() parses: the field it is in and the record's member it fills.
    struct Parse {
        std::size_t field;
        double FrameRecord::*number;           // nullptr for a text
        std::string_view FrameRecord::*text;   // nullptr for a number
        bool non_negative;                     // the unit's limits (a number)
        double max;
    };
    Status start();
    Status find_header();
    Status refuse_sidecar();
    bool match_columns(double& time_scale);
    void detect_format(bool preamble);
    Status start_json();
    Status read_whole(std::string& text);
    bool next_json(FrameRecord& f);
    bool fill();                              // more bytes into the buffer; false at the end / error
    bool read_line(std::string_view& line);  // false at the end or on an error
    bool fail(const std::string& what);       // sets error_ for the current line; returns false
    bool next_row();                          // the next non-blank row, split and checked
    bool split(std::string_view line);
    bool split_quoted(std::string_view line);
    void plan_parsing();
    bool read_time_and_frame(FrameRecord& f);
    bool read_process_id(FrameRecord& f);
    // Column c's field of the row, checked against its unit's limits times widen (a time stamp
    // in ms, a frame time in us may be larger).
    bool number(pacer::CaptureColumnId c, double& out, double widen = 1.0);
    bool number(std::size_t field, double& out, bool non_negative, double max);
    bool number_slow(std::size_t field, std::string_view s, bool non_negative, double max, double& out);
    void probe_sampled();

    std::string name_;
    std::FILE* file_ = nullptr;
    std::string_view mem_;
    std::size_t mem_pos_ = 0;
    std::unique_ptr<char[]> buf_;
    std::size_t cap_ = 0;  // kBufferBytes, or less for a smaller in-memory input
    std::size_t begin_ = 0, end_ = 0;
    bool eof_ = false;
    std::uint64_t line_ = 0, header_line_ = 0;
    bool stats_sidecar_ = false;
    std::string sidecar_of_;
    std::uint64_t input_bytes_ = 0, first_row_bytes_ = 0;  // rows_hint()
    Status error_;
    CaptureFormat format_ = CaptureFormat::presentmon1;
    std::vector<std::string> columns_;
    FieldList fields_;
    std::unique_ptr<std::string_view[]> field_buf_;  // the fields of a row without quotes
    std::vector<std::string_view> quoted_;           // ... and of one with quotes, into unquoted_
    std::string unquoted_;        // the fields of a row with quotes, unquoted
    std::size_t short_row_ = 0;   // ocat: rows may have this many fields (up to Motherboard)
    std::string last_pid_text_;   // ProcessID of the previous row, and its value
    double last_pid_ = 0;
    std::unique_ptr<Json> json_;
    int col_[pacer::kCaptureColumnCount];
    std::vector<Parse> parse_;    // the columns next() parses besides time, frame and process id
    double time_scale_ = 1.0;     // elapsed ns -> s for MangoHud, ms -> s for CPUStartTimeInMs
    double frame_scale_ = 1.0;    // MangoHud us -> ms, decided on the first row
    bool frame_scale_known_ = true;
    bool summary_only_ = false, summary_time_ = true;
    bool sampled_ = false;
    bool unterminated_ = false, cut_last_line_ = false;
};

}  // namespace pacer::tools
