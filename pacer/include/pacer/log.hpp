// pacer/log.hpp - where pacer's diagnostics go.
//
// pacer logs through spdlog, and only on events: a mode or rate change, a rejected setting, a
// fallback of the OS layer, a timer-resolution request. Nothing is logged per frame.
//
//   pacer::set_logger(my_engine_logger);    // route into the engine's spdlog logger
//   pacer::set_logger(nullptr);             // silence pacer completely
//
// By default pacer uses the spdlog logger registered as "pacer", creating one that writes to
// stderr (level info) on first use. Call set_logger() before constructing pacer objects to make
// sure nothing reaches stderr.
#pragma once

#include <memory>

namespace spdlog {
class logger;
}

namespace pacer {

void set_logger(std::shared_ptr<spdlog::logger> logger);
// The logger in use; nullptr when silenced.
std::shared_ptr<spdlog::logger> logger();

}  // namespace pacer
