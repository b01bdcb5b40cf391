#include "capture_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace pacer::tools {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Alias {
    const char* name;
    int col;
    double time_scale;  // for time columns: unit -> seconds
};

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
            std::size_t len = end_ - begin_;
            begin_ = end_;
            if (len > 0 && b[len - 1] == '\r') --len;
            line = std::string_view(b, len);
            return true;
        }
        // Compact and refill. The buffer is 16 x kMaxLine (or holds the whole input), so a line fits.
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
    }
}

bool CaptureReader::split(std::string_view line) {
    fields_.clear();
    std::size_t pos = 0;
    for (;;) {
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

Status CaptureReader::start() {
    static const Alias kAliases[] = {
        {"Application", kApplication, 1}, {"TimeInSeconds", kTime, 1}, {"CPUStartTime", kTime, 1},
        {"CPUStartTimeInMs", kTime, 1e-3}, {"elapsed", kTime, 1e-9},
        {"MsBetweenPresents", kFrame, 1}, {"FrameTime", kFrame, 1}, {"MsBetweenAppStart", kFrame, 1},
        {"frametime", kFrame, 1},
        {"MsCPUBusy", kBusy, 1}, {"CPUBusy", kBusy, 1}, {"MsCPUWait", kWait, 1}, {"CPUWait", kWait, 1},
        {"MsBetweenDisplayChange", kDisplayChange, 1}, {"DisplayedTime", kDisplayChange, 1},
        {"MsInPresentAPI", kInPresent, 1}, {"MsUntilRenderComplete", kRenderComplete, 1},
        {"MsUntilDisplayed", kDisplayed, 1}, {"Dropped", kDropped, 1}, {"Frame", kFrameIndex, 1},
        {"MsTargetFrameTime", kTarget, 1}, {"MsLateness", kLateness, 1}, {"MsSleep", kSleep, 1},
        {"MsSpin", kSpin, 1}, {"MsOversleep", kOversleep, 1}, {"MsMargin", kMargin, 1},
        {"Skipped", kSkipped, 1}, {"Missed", kMissed, 1}, {"WaitMode", kWaitMode, 1},
        {"PacingSource", kPacingSource, 1}, {"SyncInterval", kSyncInterval, 1}, {"fps", kFps, 1},
    };
    std::string_view line;
    for (int i = 0; i < kMaxHeaderLines; ++i) {
        if (!read_line(line)) {
            if (!error_.ok()) return error_;
            if (line_ == 0) error_ = Status::error(name_ + ": empty file");
            else fail("no header with a frame-time column (MsBetweenPresents, FrameTime, "
                      "MsBetweenAppStart or frametime)");
            return error_;
        }
        if (!split(line)) return error_;
        std::fill(std::begin(col_), std::end(col_), -1);
        double time_scale = 1.0;
        for (std::size_t k = 0; k < fields_.size(); ++k) {
            for (const Alias& a : kAliases) {
                // The first column of a kind wins (MsBetweenPresents before MsBetweenAppStart).
                if (fields_[k] == a.name && col_[a.col] < 0) {
                    col_[a.col] = static_cast<int>(k);
                    if (a.col == kTime) time_scale = a.time_scale;
                }
            }
        }
        if (col_[kFrame] < 0) {
            // A PresentMon header without a frame-time column is an error here, not a skipped line.
            if (!fields_.empty() && fields_[0] == "Application")
                return fail("header has no frame-time column (MsBetweenPresents, FrameTime or "
                            "MsBetweenAppStart)"),
                       error_;
            continue;
        }
        header_line_ = line_;
        columns_.assign(fields_.begin(), fields_.end());
        has_gpu_busy_ = false;
        for (std::string_view c : fields_)
            has_gpu_busy_ = has_gpu_busy_ || c == "GPUBusy" || c == "MsGPUBusy" || c == "MsGPUActive";
        time_scale_ = time_scale;
        const std::string_view frame_name = fields_[static_cast<std::size_t>(col_[kFrame])];
        if (col_[kTarget] >= 0 || col_[kPacingSource] >= 0) format_ = CaptureFormat::pacer;
        else if (frame_name == "frametime") format_ = CaptureFormat::mangohud;
        else if (frame_name == "MsBetweenPresents") format_ = CaptureFormat::presentmon1;
        else format_ = CaptureFormat::presentmon2;
        frame_scale_known_ = format_ != CaptureFormat::mangohud;
        return {};
    }
    fail("no header with a frame-time column in the first " + std::to_string(kMaxHeaderLines) + " lines");
    return error_;
}

bool CaptureReader::number(int col, double& out, bool duration, double max) {
    out = kNaN;
    const int k = col_[col];
    if (k < 0) return true;
    const std::string_view s = fields_[static_cast<std::size_t>(k)];
    if (s.empty() || s == "NA") return true;
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
    std::string_view line;
    for (;;) {
        if (!read_line(line)) return false;
        if (!line.empty()) break;  // blank lines (a trailing one, say) carry nothing
    }
    if (!split(line)) return false;
    if (fields_.size() != columns_.size())
        return fail("row has " + std::to_string(fields_.size()) + " fields, the header has " +
                    std::to_string(columns_.size()));
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
    if (summary_only_) {
        f.wait_ms = f.in_present_ms = f.until_render_complete_ms = f.until_displayed_ms = f.frame_index =
            f.sleep_ms = f.spin_ms = f.oversleep_ms = f.margin_ms = f.skipped = f.sync_interval = kNaN;
        if (!number(kTarget, f.target_ms, true, ms) || !number(kLateness, f.lateness_ms, true, ms) ||
            !number(kMissed, f.missed, true, 1) || !number(kDisplayChange, f.display_change_ms, true, ms) ||
            !number(kDropped, f.dropped, true, 1e18))
            return false;
        // CPU busy only beside GPU busy (analyze reports the two together); a pacer capture's
        // MsCPUBusy is not parsed here, that would cost a tenth of the time.
        f.busy_ms = kNaN;
        if (has_gpu_busy_ && !number(kBusy, f.busy_ms, true, ms)) return false;
    } else if (!number(kBusy, f.busy_ms, true, ms) || !number(kWait, f.wait_ms, true, ms) ||
        !number(kDisplayChange, f.display_change_ms, true, ms) || !number(kInPresent, f.in_present_ms, true, ms) ||
        !number(kRenderComplete, f.until_render_complete_ms, true, ms) ||
        !number(kDisplayed, f.until_displayed_ms, true, ms) || !number(kDropped, f.dropped, true, 1e18) ||
        !number(kFrameIndex, f.frame_index, true, 1.9e19) || !number(kTarget, f.target_ms, true, ms) ||
        !number(kLateness, f.lateness_ms, true, ms) || !number(kSleep, f.sleep_ms, true, ms) ||
        !number(kSpin, f.spin_ms, true, ms) || !number(kOversleep, f.oversleep_ms, true, ms) ||
        !number(kMargin, f.margin_ms, true, ms) || !number(kSkipped, f.skipped, true, 1e18) ||
        !number(kMissed, f.missed, true, 1) || !number(kSyncInterval, f.sync_interval, true, 1e6))
        return false;
    auto text = [&](int col) {
        return col_[col] < 0 ? std::string_view() : fields_[static_cast<std::size_t>(col_[col])];
    };
    f.application = text(kApplication);
    f.wait_mode = text(kWaitMode);
    f.pacing_source = text(kPacingSource);
    return true;
}

}  // namespace pacer::tools
