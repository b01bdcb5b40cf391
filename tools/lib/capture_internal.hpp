// tools/lib/capture_internal.hpp - what the capture reader's pieces share (not a public header):
// the column table's record members, units' limits and aliases (capture_aliases.cpp), and the
// CapFrameX session a JSON file is read into (capture_capframex.cpp); capture_csv.cpp reads CSV.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "capture_reader.hpp"

namespace pacer::tools {

namespace detail {

using pacer::CaptureColumnId;
using pacer::CaptureUnit;

// The values a column of this unit may hold; anything else is refused with file:line.
struct Limits {
    bool non_negative;
    double max;  // of |v|
};

constexpr Limits limits_of(CaptureUnit u) noexcept {
    switch (u) {
        case CaptureUnit::id: return {true, 4294967295.0};
        case CaptureUnit::flag: return {true, 1.0};
        case CaptureUnit::count: return {true, 1.9e19};  // a 64-bit frame index
        case CaptureUnit::swap_interval: return {false, 1e6};
        case CaptureUnit::seconds: return {false, CaptureReader::kMaxSeconds};
        case CaptureUnit::ms: return {true, CaptureReader::kMaxMs};
        case CaptureUnit::ms_signed: return {false, CaptureReader::kMaxMs};
        case CaptureUnit::hz: return {true, 1e9};
        case CaptureUnit::text: break;
    }
    return {false, 0.0};
}

constexpr std::size_t col_index(CaptureColumnId c) noexcept { return static_cast<std::size_t>(c); }
constexpr CaptureUnit unit_of(CaptureColumnId c) noexcept { return pacer::capture_column(c).unit; }

// The record's member for each column, in the table's order: a number or a text.
struct Member {
    double FrameRecord::*number;
    std::string_view FrameRecord::*text;
};
constexpr Member member(double FrameRecord::*m) noexcept { return {m, nullptr}; }
constexpr Member member(std::string_view FrameRecord::*m) noexcept { return {nullptr, m}; }
inline constexpr Member kMembers[] = {
#define PACER_RECORD_MEMBER(name_, name, aliases, unit, origin, timing, value) member(&FrameRecord::name_),
    PACER_CAPTURE_COLUMNS(PACER_RECORD_MEMBER)
#undef PACER_RECORD_MEMBER
};

// One name a column goes by: its own or another tool's, and that name's unit -> the column's.
struct Alias {
    std::string_view name;
    CaptureColumnId column;
    double scale;  // 1, or 1e-3 for "Name:ms", 1e-9 for "Name:ns" (time stamps into seconds)
};

// The alias a header field names (case-insensitive), or nullptr.
const Alias* find_alias(std::string_view field);

class JsonParser;  // capture_capframex.cpp

}  // namespace detail

// A CapFrameX session: {"Info": {"ProcessName", "GameName", ...}, "Runs": [{"CaptureData":
// {"MsBetweenPresents": [...], ...}}, ...]}. CaptureData's arrays are the table's columns, found
// by name or alias like a CSV header's.
struct CaptureReader::Json {
    struct Run {
        std::uint64_t line = 0;  // of the frame-time array (0: the run has none)
        double time_scale = 1.0;
        std::vector<double> values[pacer::kCaptureColumnCount];  // by column; empty: not in the run
    };
    std::string text;
    std::string application, process_name, game_name;
    std::vector<Run> runs;
    std::size_t current = 0, index = 0;  // the run and the frame next_json() reads next
    double offset_s = 0;  // added to the current run's TimeInSeconds

    bool session(detail::JsonParser& p);
    bool info(detail::JsonParser& p);
    bool all_runs(detail::JsonParser& p);
    bool one_run(detail::JsonParser& p);
    bool capture_data(detail::JsonParser& p, Run& run);
    bool array(detail::JsonParser& p, const std::string& key, Run& run);
    void next_run();  // past the runs whose frames were all read, moving the time stamps on
};

}  // namespace pacer::tools
