// pacer/version.hpp - library version.
#pragma once

#define PACER_VERSION_MAJOR 0
#define PACER_VERSION_MINOR 1
#define PACER_VERSION_PATCH 0

namespace pacer {
inline constexpr const char* kVersion = "0.1.0";
}
