// tools/lib/display_report.hpp - `pacer display`: what one run against a real display measured, and the
// figures every source shares (the vblank stream, the present-at-time outcome, the report).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pacer/frame_pacer.hpp"

namespace pacer::tools {

// pacer::x11::PresentSource::kMaxAhead (display_x11.cpp checks it), here for builds without xcb.
inline constexpr int kX11MaxAhead = 8;

struct DisplayCmdOptions {
    std::string source = "x11-present";  // x11-present, wayland, swap
    double hz = 60;                      // the pacer's target rate
    bool present_at_time = false;        // x11-present: present pixmaps at their target counter
    int ahead = 1;                       // x11-present: NotifyMSC requests kept queued (pacer/x11_present.hpp)
    bool match_display = false;          // the pacer's PacerConfig::match_display
    double seconds = 10;                 // run time (with frames: the most it may take)
    long long frames = 0;                // present at time: stop once this many are judged (0: run `seconds`)
    bool json = false;
    std::string vblanks_csv;             // each observed vblank to this file (empty: none)
    std::string presents_csv;            // present at time: each judged present to this file
};

// The vblanks a source delivered and how well the display's fit predicted them.
class VblankJudge {
public:
    // Before waiting for the next vblank: the prediction in force (the fit's next vblank).
    void expect(const PacerStatus& before) noexcept;
    // A vblank with its counter (has_msc) and time; `after`: the status once it was reported.
    void vblank(bool has_msc, std::uint64_t msc, clock::time_point t, const PacerStatus& after);
    // The request sent after the last vblank (its counter, when), read at `woke` (kept stamps only).
    void requested(clock::time_point woke, std::uint64_t msc, clock::time_point at);

    std::uint64_t vblanks = 0;
    std::optional<std::uint64_t> lock_vblanks;  // vblanks until the fit first locked
    std::vector<double> errors_us;               // |observed - predicted|, after lock
    std::map<std::uint64_t, std::uint64_t> msc_steps;  // counter advance -> times
    struct Stamp {
        std::uint64_t msc;
        bool has_msc;
        clock::time_point time;
        bool predicted;                   // the fit was locked before this vblank came
        std::chrono::nanoseconds error;   // then: observed - the nearest predicted vblank
        // x11-present: when the tool woke to read it, and the next request it sent (the counter,
        // when); 0 when none followed (another stamp came in the same read).
        clock::time_point woke{};
        std::uint64_t requested_msc = 0;
        clock::time_point requested_at{};
    };
    bool keep_stamps = false;   // --vblanks-csv: keep every vblank in `stamps`
    std::vector<Stamp> stamps;  // every vblank, as the source gave it

private:
    clock::time_point predicted_{};
    std::chrono::nanoseconds period_{0};
    std::uint64_t last_msc_ = 0;
    bool has_last_ = false, has_prediction_ = false;
};

// Present at time: each frame's target counter against the counter it was shown at.
struct TargetJudge {
    struct Frame {
        std::uint64_t target = 0;          // the vblank counter it was presented for
        clock::time_point deadline{}, wake{}, sent{};  // FrameTiming's, and the present call
    };
    std::map<std::uint64_t, Frame> target_of;  // present id -> its frame
    std::uint64_t presented = 0, on_target = 0, late = 0, early = 0, skipped = 0;
    std::uint64_t untargeted = 0;  // frames paced after the warm-up while no lock named a target
    bool counting = false;  // false until the first lock has settled (the fit and the lead)
    // --presents-csv: every judged present, with the counter and time it was shown at.
    struct Outcome {
        Frame frame;
        bool shown = false;  // false: skipped (a newer present replaced it)
        std::uint64_t msc = 0;
        clock::time_point time{};
    };
    bool keep_outcomes = false;
    std::vector<Outcome> outcomes;

    void shown(std::uint64_t id, std::uint64_t msc, clock::time_point time);
    void dropped(std::uint64_t id);

private:
    bool take(std::uint64_t id, Frame* frame);
};

struct DisplayCmdResult {
    std::string source;
    int ahead = 0;        // x11-present: vblank requests kept queued (0: another source)
    PacerStatus status;
    VblankJudge vblanks;
    std::optional<TargetJudge> targets;
    double seconds = 0;   // wall time of the run
};

// JSON (--json) or text. The text says a value nobody measured one way, "unknown" (the JSON: null),
// and holds no JSON (display_report.cpp).
std::string format_display_result(const DisplayCmdResult& r, bool json);
// --vblanks-csv: "msc,time_ns,error_ns,woke_ns,requested_msc,requested_ns", a row per observed
// vblank: its counter (empty when the source has none), its time, the locked fit's error on it
// (empty before the first lock); x11-present: when the tool woke to read it and the next
// NotifyMSC it sent then (counter and time; empty when another stamp came in the same read).
std::string format_vblanks_csv(const VblankJudge& v);
// --presents-csv: a row per judged present: its target counter, its frame's deadline and wake-up,
// the present call, and the counter and time it was shown at (both empty: skipped).
std::string format_presents_csv(const TargetJudge& t);

// The sources: each opens its window on the current display, runs for opts.seconds and fills
// `out`; on a missing display or source: a message and false (exit 2).
bool run_x11_present(const DisplayCmdOptions& opts, DisplayCmdResult* out, std::string* error);
bool run_sdl_source(const DisplayCmdOptions& opts, DisplayCmdResult* out, std::string* error);  // wayland, swap

int display_main(int argc, char** argv);

}  // namespace pacer::tools
