// What the C API's files (c_api*.cpp) share: the pacer object, the thread's last error, the guard
// that keeps exceptions from reaching C, and the conversions between the C structs and the C++
// ones. Not installed; tests/c_api_test.cpp includes it to run a C pacer in virtual time.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/config.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/pacer.h"
#include "pacer/present.hpp"
#include "pacer/time_source.hpp"

struct pacer_frame_pacer {
    pacer::FramePacer impl;
};

namespace pacer::capi {

// Sets the calling thread's last error (a fixed buffer: reporting std::bad_alloc must not
// allocate) and returns code.
int fail(int code, const char* message) noexcept;
// The calling thread's last error ("" if none).
const char* last_error() noexcept;
// "<function>: <what> is NULL", PACER_ERROR_INVALID_ARGUMENT.
int null_argument(const char* function, const char* what) noexcept;

// Inside a catch block: the code and last error for the exception being handled.
int exception_code() noexcept;
// Runs f (returning an int code) and maps whatever it throws to an error code: no exception may
// unwind into a C caller (undefined behaviour, in practice a crash).
template <class F>
int guarded(F&& f) noexcept {
    try {
        return f();
    } catch (...) {
        return exception_code();
    }
}

// Durations as C's int64 nanoseconds and back.
inline std::int64_t ns(std::chrono::nanoseconds d) noexcept { return static_cast<std::int64_t>(d.count()); }
inline std::chrono::nanoseconds dur(std::int64_t n) noexcept { return std::chrono::nanoseconds(n); }

// Conversions. Choices are checked where C hands them in (check_timing); the config's are checked
// by pacer::validate, which names the field.
PacerConfig to_cpp(const pacer_config& c) noexcept;
pacer_config to_c(const PacerConfig& c) noexcept;
pacer_frame_timing to_c(const FrameTiming& t) noexcept;
FrameTiming to_cpp(const pacer_frame_timing& t) noexcept;  // the inverse of to_c, field by field
PresentInfo to_cpp(const pacer_present& p) noexcept;
// PACER_OK, or PACER_ERROR_INVALID_ARGUMENT naming the first field with an unknown enum value.
int check_timing(const pacer_frame_timing& t, const char* function) noexcept;

// A C pacer on another clock and OS (a SimulatedOs in the tests); config NULL: the defaults.
// NULL with the last error set, as pacer_create.
pacer_frame_pacer* create(const pacer_config* config, TimeSource* ts) noexcept;

}  // namespace pacer::capi
