// demo/replay.hpp - a capture file shown in the demo's panels (--replay FILE, or the panel's Load).
//
// Any format the `pacer` tool reads (tools/lib/capture_reader.hpp: pacer's own captures, PresentMon
// 1.x and 2.x, MangoHud, ...). Each row with a frame time becomes a pacer::FrameTiming, so the
// frame-time graph, the histograms and the statistics show the file exactly as they show live
// frames:
//   interval   the file's frame time (MsBetweenPresents, FrameTime, frametime)
//   lateness, work (MsCPUBusy), slept, spun, skipped, missed, index   the file's, where it has them, else 0
//   period     MsTargetFrameTime where the file has it; else the file's median frame time, which
//              the panels then draw as the target line
// Rows without a frame time (NA) are left out, as the tool's analysis leaves them out.
//
// The whole file is read at load() (about 120 bytes per frame: an hour at 144 Hz is 60 MB);
// a bad file is refused whole, with the reader's "file:line: what" message.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "pacer/frame_timing.hpp"
#include "pacer/status.hpp"

namespace pacer_demo {

class Replay {
public:
    static constexpr std::size_t kMaxFrames = 20'000'000;

    // Reads path. On an error nothing is kept and the message says where and what.
    pacer::Status load(const std::string& path);

    std::size_t size() const noexcept { return frames_.size(); }
    const pacer::FrameTiming& operator[](std::size_t i) const noexcept { return frames_[i]; }
    const std::string& path() const noexcept { return path_; }
    const std::string& format() const noexcept { return format_; }  // "pacer", "presentmon1", ...
    const std::string& mode() const noexcept { return mode_; }      // pacer's WaitMode column, else ""
    std::chrono::nanoseconds target() const noexcept { return target_; }
    bool has_target() const noexcept { return has_target_; }        // MsTargetFrameTime in the file
    bool has_lateness() const noexcept { return has_lateness_; }    // MsLateness in the file
    bool has_missed() const noexcept { return has_missed_; }        // Missed in the file
    std::chrono::nanoseconds duration() const noexcept { return duration_; }  // sum of frame times

private:
    std::vector<pacer::FrameTiming> frames_;
    std::string path_, format_, mode_;
    std::chrono::nanoseconds target_{0}, duration_{0};
    bool has_target_ = false, has_lateness_ = false, has_missed_ = false;
};

// Headless --replay: reads the file and prints the `summary:` line of its frames, the figures the
// live summary gives (the whole file, not a window), NA where the file has no such column:
//   summary: frames=59 seconds=0.98 ui=replay hz=NA mode=NA avg_fps=60.00 p50_interval_ms=16.667
//            p99_interval_ms=17.333 p99_lateness_ms=NA max_lateness_ms=NA missed=NA stutters=0
//            file="presentmon1.csv" format="PresentMon 1.x" (one line)
// Returns 0, or 1 with "pacer_demo: file:line: what" on stderr.
int print_replay_summary(const std::string& path);

}  // namespace pacer_demo
