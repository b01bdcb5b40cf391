// tools/lib/capture_aliases.cpp - the names a capture's columns go by (pacer's own, and every
// tool's aliases with their units), the formats' names, and the one case-insensitive compare.
#include <cctype>

#include "capture_internal.hpp"

namespace pacer::tools {

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

bool ci_equal(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
        if (x != y && std::tolower(x) != std::tolower(y)) return false;
    }
    return true;
}

namespace detail {

namespace {

std::vector<Alias> all_aliases() {
    std::vector<Alias> out;
    for (std::size_t c = 0; c < pacer::kCaptureColumnCount; ++c) {
        const auto id = static_cast<CaptureColumnId>(c);
        out.push_back({pacer::kCaptureColumns[c].name, id, 1.0});
        std::string_view rest = pacer::kCaptureColumns[c].aliases;
        while (!rest.empty()) {
            const std::size_t bar = rest.find('|');
            std::string_view a = rest.substr(0, bar);
            rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
            double scale = 1.0;
            if (const std::size_t colon = a.find(':'); colon != std::string_view::npos) {
                scale = a.substr(colon + 1) == "ns" ? 1e-9 : a.substr(colon + 1) == "us" ? 1e-6 : 1e-3;
                a = a.substr(0, colon);
            }
            out.push_back({a, id, scale});
        }
    }
    return out;
}

}  // namespace

const Alias* find_alias(std::string_view field) {
    static const std::vector<Alias> kAliases = all_aliases();
    for (const Alias& a : kAliases)
        if (ci_equal(field, a.name)) return &a;
    return nullptr;
}

}  // namespace detail

}  // namespace pacer::tools
