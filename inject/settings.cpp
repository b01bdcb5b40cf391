#include "settings.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pacer_layer {
namespace {

bool fail(Settings& s, const char* var, const char* value, const char* takes) {
    s.on = false;
    s.error = std::string(var) + "=\"" + value + "\": " + takes + "; pacer is off, the program runs unpaced";
    return false;
}

bool read_hz(Settings& s, const char* v) {
    if (v == nullptr || *v == '\0') return true;
    char* end = nullptr;
    errno = 0;
    const double hz = std::strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !std::isfinite(hz))
        return fail(s, "PACER_HZ", v, "not a number (frames per second, 0 for no limit)");
    if (hz < 0 || hz > pacer::kMaxTargetHz) return fail(s, "PACER_HZ", v, "must be 0 (no limit) or in (0, 10000]");
    s.hz = hz;
    return true;
}

// A variable that takes one of two words, a or b: *out becomes when_a for a, its opposite for b;
// unset keeps it.
bool read_choice(Settings& s, const char* var, const char* v, const char* a, const char* b, bool when_a, bool* out) {
    if (v == nullptr || *v == '\0') return true;
    const std::string w = v;
    if (w == a || w == b) {
        *out = (w == a) == when_a;
        return true;
    }
    return fail(s, var, v, (std::string("is not ") + a + " or " + b).c_str());
}

bool read_priority(Settings& s, const char* v) {
    if (v == nullptr || *v == '\0') return true;
    if (pacer::parse_thread_priority(v, &s.priority)) return true;
    return fail(s, "PACER_PRIORITY", v, "is not normal, wait, thread, high or automatic");
}

bool read_log(Settings& s, const char* v) {
    if (v == nullptr || *v == '\0') return true;
    for (pacer::LogLevel l : {pacer::LogLevel::debug, pacer::LogLevel::info, pacer::LogLevel::warn,
                              pacer::LogLevel::error, pacer::LogLevel::off}) {
        if (std::string(v) == pacer::to_string(l)) {
            s.log = l;
            return true;
        }
    }
    return fail(s, "PACER_LOG", v, "is not debug, info, warn, error or off");
}

}  // namespace

Settings read_settings(Getenv get) {
    Settings s;
    // The log level first, so that a later error is written at the level asked for.
    if (read_log(s, get("PACER_LOG")) && read_hz(s, get("PACER_HZ")) &&
        read_choice(s, "PACER_PLACEMENT", get("PACER_PLACEMENT"), "before", "after", true, &s.before) &&
        read_priority(s, get("PACER_PRIORITY")) &&
        read_choice(s, "PACER_WAIT", get("PACER_WAIT"), "hybrid", "sleep", false, &s.sleep_only)) {
        const char* c = get("PACER_CAPTURE");
        if (c != nullptr) s.capture = c;
    }
    return s;
}

std::string capture_path(const std::string& base, int n) {
    if (n <= 1) return base;
    const std::size_t slash = base.find_last_of('/');
    std::size_t dot = base.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = base.size();
    // Appended piece by piece: g++ 12 at -O2 warns (-Wrestrict, a false positive) on "-" + string.
    std::string path = base.substr(0, dot);
    path += '-';
    path += std::to_string(n);
    path.append(base, dot, std::string::npos);
    return path;
}

void say_started(const char* who, const Settings& s, const char* app, const std::string& capture) {
    if (s.log >= pacer::LogLevel::off) return;
    const std::string where = capture.empty() ? "no capture (PACER_CAPTURE unset)" : "capture " + capture;
    if (s.hz > 0)
        std::fprintf(stderr, "%s: pacing %s at %g Hz (placement %s, wait %s, priority %s), %s\n", who, app, s.hz,
                     s.before ? "before" : "after", s.sleep_only ? "sleep" : "hybrid", pacer::to_string(s.priority),
                     where.c_str());
    else
        std::fprintf(stderr, "%s: not pacing %s (PACER_HZ unset), %s\n", who, app, where.c_str());
}

}  // namespace pacer_layer
