// pacer/log.hpp - where pacer's diagnostics go.
//
//   LogLevel, to_string   debug, info, warn, error, off
//   set_log_function(fn, user)   where the lines go; nullptr silences pacer; thread-safe
//   set_log_level, log_level     the lowest level written (default warn); thread-safe
//   log_to_stderr        the default: "pacer: <level>: <message>" on stderr
//
// pacer reports events, never frames: a rejected setting, a vsync decision that changed, a failed
// present, a fallback of the OS layer. Each event is one line handed to a plain function, the way
// SDL routes its log (SDL_LogSetOutputFunction), so the library needs no logging dependency and an
// engine can send the lines wherever its own log goes:
//
//   void to_engine_log(pacer::LogLevel level, const char* message, void* user) {
//       static_cast<Engine*>(user)->log(level >= pacer::LogLevel::warn, message);
//   }
//   pacer::set_log_function(to_engine_log, &engine);
//   pacer::set_log_function(nullptr);                // silence pacer completely
//   pacer::set_log_level(pacer::LogLevel::info);     // also the informational lines
//
// Defaults: warnings and errors only, written to stderr as "pacer: warning: <message>" by
// log_to_stderr(). Informational lines (the rate and mode at start, each vsync decision) appear
// when the level is lowered to info; debug adds the OS layer's choices (which Windows timer).
// Optional header-only adapters (pacer/adapters/include, each its own CMake target) route these
// lines into common logging libraries, compiled in the engine's build against its own copy.
//
// The message is a NUL-terminated line without a trailing newline, valid during the call only.
// The function is called on the thread where the event happened (usually the pacing thread),
// one call at a time; it must not call back into pacer's log settings. An exception thrown by it
// is swallowed: logging never breaks a frame loop.
#pragma once

namespace pacer {

enum class LogLevel { debug, info, warn, error, off };
// "debug", "info", "warn", "error", "off".
const char* to_string(LogLevel level) noexcept;

using LogFunction = void (*)(LogLevel level, const char* message, void* user);

// Routes pacer's lines to fn (called with user). nullptr silences pacer. Thread-safe.
void set_log_function(LogFunction fn, void* user = nullptr) noexcept;
// Lines below this level are dropped before they are formatted. Default LogLevel::warn.
void set_log_level(LogLevel min_level) noexcept;
LogLevel log_level() noexcept;

// The default function: "pacer: <level>: <message>\n" on stderr, one write per line.
void log_to_stderr(LogLevel level, const char* message, void* user) noexcept;

}  // namespace pacer
