#include "base/log_internal.hpp"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace pacer {
namespace {

struct Sink {
    LogFunction fn = log_to_stderr;
    void* user = nullptr;
};

// The level is read on every event (and by log_enabled() before formatting): an atomic. The
// function and its user pointer change together: a mutex, taken only when a line is emitted.
std::atomic<int> g_level{static_cast<int>(LogLevel::warn)};
std::mutex g_mutex;
Sink g_sink;

}  // namespace

const char* to_string(LogLevel level) noexcept {
    switch (level) {
        case LogLevel::debug: return "debug";
        case LogLevel::info: return "info";
        case LogLevel::warn: return "warn";
        case LogLevel::error: return "error";
        case LogLevel::off: return "off";
    }
    return "?";
}

void set_log_function(LogFunction fn, void* user) noexcept {
    try {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_sink = {fn, user};
    } catch (...) {  // std::mutex::lock may throw in theory; the old sink stays
    }
}

void set_log_level(LogLevel min_level) noexcept { g_level.store(static_cast<int>(min_level)); }

LogLevel log_level() noexcept { return static_cast<LogLevel>(g_level.load()); }

void log_to_stderr(LogLevel level, const char* message, void*) noexcept {
    const char* tag = level == LogLevel::error ? "error"
                    : level == LogLevel::warn  ? "warning"
                    : level == LogLevel::info  ? "info"
                                               : "debug";
    char line[600];
    const int n = std::snprintf(line, sizeof line, "pacer: %s: %s\n", tag, message ? message : "");
    if (n > 0) std::fwrite(line, 1, static_cast<std::size_t>(n) < sizeof line ? static_cast<std::size_t>(n) : sizeof line - 1, stderr);
}

namespace detail {

bool log_enabled(LogLevel level) noexcept {
    return level != LogLevel::off && static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

void log(LogLevel level, const char* format, ...) noexcept {
    if (!log_enabled(level)) return;
    char line[512];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0) return;
    try {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_sink.fn) g_sink.fn(level, line, g_sink.user);
    } catch (...) {  // a throwing log function must not break the frame loop
    }
}

}  // namespace detail
}  // namespace pacer
