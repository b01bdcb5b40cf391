// tools/lib/format.cpp - numbers as the tools write them (format.hpp).
#include "format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace pacer::tools {

std::string fixed(double v, int decimals) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

std::string json_number(double v) {
    if (!std::isfinite(v)) return "null";
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

std::string json_number(std::optional<double> v, int decimals) {
    if (!v || !std::isfinite(*v)) return "null";
    return fixed(*v, decimals);
}

std::string json_shortest(double v) {
    if (!std::isfinite(v)) return "null";
    char b[64];
    const auto r = std::to_chars(b, b + sizeof b, v);
    return std::string(b, r.ptr);
}

}  // namespace pacer::tools
