// tools/cli_util.hpp - strict option parsing for the `pacer` tool: a number is the whole argument
// (std::from_chars, C locale), finite and inside the stated range; anything else is refused with
// the option's name.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pacer/status.hpp"

namespace pacer::tools {

inline Status parse_number(std::string_view text, const char* option, double lo, double hi, double& out) {
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v))
        return Status::error(std::string(option) + ": \"" + std::string(text) + "\" is not a number");
    if (v < lo || v > hi)
        return Status::error(std::string(option) + " = " + std::string(text) + ": must be in [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out = v;
    return {};
}

inline Status parse_int(std::string_view text, const char* option, long long lo, long long hi, long long& out) {
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        return Status::error(std::string(option) + ": \"" + std::string(text) + "\" is not a whole number");
    if (v < lo || v > hi)
        return Status::error(std::string(option) + " = " + std::string(text) + ": must be in [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out = v;
    return {};
}

// "1,2.5,10" -> {1, 2.5, 10}; each in [lo, hi].
inline Status parse_list(std::string_view text, const char* option, double lo, double hi, std::vector<double>& out) {
    out.clear();
    std::size_t pos = 0;
    for (;;) {
        const std::size_t comma = text.find(',', pos);
        const std::string_view item = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        double v = 0;
        if (Status st = parse_number(item, option, lo, hi, v); !st) return st;
        out.push_back(v);
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return {};
}

}  // namespace pacer::tools
