// Collects pacer's log lines while in scope (level debug), and restores the defaults after;
// LogSilenced drops them.
#pragma once

#include <string>
#include <vector>

#include "pacer/log.hpp"

namespace pacer_test {

struct LogCapture {
    std::vector<std::string> lines;  // "<level>: <message>"
    explicit LogCapture(pacer::LogLevel level = pacer::LogLevel::debug) {
        pacer::set_log_level(level);
        pacer::set_log_function(
            [](pacer::LogLevel lvl, const char* message, void* user) {
                static_cast<LogCapture*>(user)->lines.push_back(std::string(pacer::to_string(lvl)) + ": " + message);
            },
            this);
    }
    ~LogCapture() {
        pacer::set_log_function(pacer::log_to_stderr);
        pacer::set_log_level(pacer::LogLevel::warn);
    }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    std::string text() const {
        std::string s;
        for (const std::string& l : lines) s += l + "\n";
        return s;
    }
    int count(const std::string& needle) const {
        int n = 0;
        for (const std::string& l : lines) n += l.find(needle) != std::string::npos ? 1 : 0;
        return n;
    }
};

// No log lines while in scope (nothing written); the default function (stderr) after.
struct LogSilenced {
    LogSilenced() { pacer::set_log_function(nullptr); }
    ~LogSilenced() { pacer::set_log_function(pacer::log_to_stderr); }
    LogSilenced(const LogSilenced&) = delete;
    LogSilenced& operator=(const LogSilenced&) = delete;
};

}  // namespace pacer_test
