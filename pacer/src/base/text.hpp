// Number formatting for pacer's messages, without {fmt}: the shortest text that reads back as
// the same value (std::to_chars), C locale whatever the global locale. "nan", "inf", "1e+06".
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace pacer::detail {

inline std::string num(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

inline std::string num(std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

inline std::string num(int v) { return num(static_cast<std::int64_t>(v)); }

}  // namespace pacer::detail
