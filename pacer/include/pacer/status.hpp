// pacer/status.hpp - how pacer reports configuration mistakes.
//
//   Status                ok, or a one-line message naming the field, the value and the range
//   ConfigError           thrown by constructors; what() is the Status message
//
// Two doors, same checks:
//   * Constructors (FramePacer, HybridWaiter, FixedStep) throw pacer::ConfigError for an invalid
//     configuration, because an object that cannot pace must not exist.
//   * Run-time setters (FramePacer::set_target_hz, set_config, ...) return a pacer::Status and keep
//     the previous, valid settings when the new ones are rejected, so a UI slider or a console
//     command can never put a running loop into an undefined state.
//   * validate(...) overloads return the same Status without side effects, for engines built
//     without exceptions: validate first, then construct.
//
// Messages name the field, the value and the accepted range, e.g.
//   "target_hz = nan: must be a finite number in (0, 10000]".
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace pacer {

class [[nodiscard]] Status {
public:
    Status() = default;  // success
    static Status error(std::string message) {
        Status s;
        s.message_ = std::move(message);
        if (s.message_.empty()) s.message_ = "error";
        return s;
    }
    bool ok() const noexcept { return message_.empty(); }
    explicit operator bool() const noexcept { return ok(); }
    // Empty when ok(); otherwise one line, no trailing newline.
    const std::string& message() const noexcept { return message_; }

private:
    std::string message_;
};

// Thrown by constructors for an invalid configuration; what() is the Status message.
class ConfigError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace pacer
