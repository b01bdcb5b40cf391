// pacer/spdlog.hpp - route pacer's log lines into an spdlog logger (optional target pacer::spdlog).
//
//   target_link_libraries(game PRIVATE pacer::pacer pacer::spdlog)
//
//   pacer::log_to_spdlog(spdlog::default_logger());   // or the engine's own logger
//   pacer::set_log_level(pacer::LogLevel::info);       // pacer's filter still applies first
//
// Header-only on purpose: it compiles in the engine's own build against the engine's own spdlog
// and {fmt}, so the pacer library never carries a second copy of either (pacer/log.hpp).
#pragma once

#include <memory>
#include <utility>

#include <spdlog/spdlog.h>

#include "pacer/log.hpp"

namespace pacer {

// Sends every line pacer emits to `logger` at the matching spdlog level; nullptr silences pacer.
// The logger is kept alive until the next call.
inline void log_to_spdlog(std::shared_ptr<spdlog::logger> logger) {
    static std::shared_ptr<spdlog::logger> held;
    if (!logger) {
        set_log_function(nullptr);
    } else {
        set_log_function(
            [](LogLevel level, const char* message, void* user) {
                const auto lvl = level == LogLevel::error ? spdlog::level::err
                               : level == LogLevel::warn  ? spdlog::level::warn
                               : level == LogLevel::info  ? spdlog::level::info
                                                          : spdlog::level::debug;
                static_cast<spdlog::logger*>(user)->log(lvl, "{}", message);
            },
            logger.get());
    }
    // set_log_function() returned: no line is being handed to the previous logger any more.
    held = std::move(logger);
}

}  // namespace pacer
