// pacer/version.hpp - library version. The one place it is written: CMake reads it from here.
//
//   PACER_VERSION_MAJOR, _MINOR, _PATCH   the numbers, for the preprocessor
//   kVersion, version()                    "MAJOR.MINOR.PATCH" of the headers compiled against
#pragma once

#define PACER_VERSION_MAJOR 0
#define PACER_VERSION_MINOR 1
#define PACER_VERSION_PATCH 0

#define PACER_VERSION_STRINGIFY_(x) #x
#define PACER_VERSION_STRING_(a, b, c) \
    PACER_VERSION_STRINGIFY_(a) "." PACER_VERSION_STRINGIFY_(b) "." PACER_VERSION_STRINGIFY_(c)

namespace pacer {
// "MAJOR.MINOR.PATCH"
inline constexpr const char* kVersion =
    PACER_VERSION_STRING_(PACER_VERSION_MAJOR, PACER_VERSION_MINOR, PACER_VERSION_PATCH);
// The same, as a function: the version of the headers compiled against (header-only on purpose).
constexpr const char* version() noexcept { return kVersion; }
}  // namespace pacer
