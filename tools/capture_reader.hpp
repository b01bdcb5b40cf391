// tools/capture_reader.hpp - streaming reader of frame-time captures: pacer's own, PresentMon
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
// column, searched in the first kMaxHeaderLines such lines. Formats, told apart by the header:
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
#include <vector>

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

// One row; NaN where the file has no such column or says NA. Durations in ms.
// A default-constructed record is line 0, every number NaN ("not measured", the same value the
// reader gives a missing column) and every text empty, so a record that next() never filled
// cannot pass for a measured 0 ms frame.
struct FrameRecord {
    static constexpr double kNA = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t line = 0;                     // 1-based line in the file
    double time_s = kNA;                        // TimeInSeconds / CPUStartTime (s) / elapsed
    double frame_ms = kNA;                      // frame time: MsBetweenPresents / FrameTime / frametime
    double busy_ms = kNA, wait_ms = kNA;        // MsCPUBusy|CPUBusy, MsCPUWait|CPUWait
    double display_change_ms = kNA;             // MsBetweenDisplayChange / DisplayedTime
    double in_present_ms = kNA, until_render_complete_ms = kNA, until_displayed_ms = kNA;
    double dropped = kNA;                       // Dropped (0/1)
    double frame_index = kNA;                   // pacer: Frame
    double target_ms = kNA, lateness_ms = kNA, sleep_ms = kNA, spin_ms = kNA;  // pacer
    double oversleep_ms = kNA, margin_ms = kNA;                                 // pacer
    double skipped = kNA, missed = kNA;         // pacer
    double sync_interval = kNA;
    double fps = kNA;                           // MangoHud's own fps column
    double process_id = kNA;                    // ProcessID
    double gpu_busy_ms = kNA;                   // GPUBusy (2.x), MsGPUBusy / MsGPUActive
    double pc_latency_ms = kNA;                 // MsPCLatency / PCLatency (2.x)
    double input_to_photon_ms = kNA;            // MsAllInputToPhotonLatency, MsClickToPhotonLatency, ...
    double wake_interval_ms = kNA;              // pacer: MsBetweenWakes (wake to wake)
    // Text fields: valid until the next next().
    std::string_view application, swapchain, wait_mode, pacing_source;  // swapchain: SwapChainAddress
};

class CaptureReader {
public:
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
    void set_summary_only(bool on) noexcept { summary_only_ = on; }

    const Status& error() const noexcept { return error_; }
    CaptureFormat format() const noexcept { return format_; }
    const std::vector<std::string>& columns() const noexcept { return columns_; }
    std::uint64_t header_line() const noexcept { return header_line_; }
    bool has_target() const noexcept { return col_[kTarget] >= 0; }      // MsTargetFrameTime
    bool has_lateness() const noexcept { return col_[kLateness] >= 0; }  // MsLateness
    bool has_process_id() const noexcept { return col_[kProcessId] >= 0; }  // ProcessID
    bool has_swapchain() const noexcept { return col_[kSwapchain] >= 0; }   // SwapChainAddress
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
    static constexpr int kSampledProbeRows = 33;
    // Raw fields of the row next() returned last (valid until the next call); quoted fields
    // unquoted. Empty for a CapFrameX JSON session.
    const std::vector<std::string_view>& fields() const noexcept { return fields_; }

private:
    enum Col {
        kApplication, kTime, kFrame, kBusy, kWait, kDisplayChange, kInPresent, kRenderComplete,
        kDisplayed, kDropped, kFrameIndex, kTarget, kLateness, kSleep, kSpin, kOversleep, kMargin,
        kSkipped, kMissed, kWaitMode, kPacingSource, kSyncInterval, kFps, kProcessId, kSwapchain,
        kGpuBusy, kPcLatency, kInputToPhoton, kWake, kCols
    };
    struct Json;  // a CapFrameX session, parsed (capture_reader.cpp)
    Status start();
    Status start_json();
    bool next_json(FrameRecord& f);
    bool fill();                              // more bytes into the buffer; false at the end / error
    bool read_line(std::string_view& line);  // false at the end or on an error
    bool fail(const std::string& what);       // sets error_ for the current line; returns false
    bool split(std::string_view line);
    bool split_quoted(std::string_view line);
    bool number(int col, double& out, bool duration, double max);
    bool number_slow(int k, std::string_view s, bool duration, double max, double& out);
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
    Status error_;
    CaptureFormat format_ = CaptureFormat::presentmon1;
    std::vector<std::string> columns_;
    std::vector<std::string_view> fields_;
    std::string unquoted_;        // the fields of a row with quotes, unquoted
    std::size_t short_row_ = 0;
    std::string last_pid_text_;   // ProcessID of the previous row, and its value
    double last_pid_ = 0;   // ocat: rows may have this many fields (up to Motherboard)
    std::unique_ptr<Json> json_;
    int col_[kCols];
    double time_scale_ = 1.0;     // elapsed ns -> s for MangoHud, ms -> s for CPUStartTime
    double frame_scale_ = 1.0;    // MangoHud us -> ms, decided on the first row
    bool frame_scale_known_ = true;
    bool summary_only_ = false;
    bool sampled_ = false;
    bool unterminated_ = false, cut_last_line_ = false;
};

}  // namespace pacer::tools
