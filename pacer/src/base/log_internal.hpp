// pacer's own side of pacer/log.hpp: printf-style formatting into a stack buffer, filtered by
// level before any formatting, never throwing, never allocating.
#pragma once

#include "pacer/log.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define PACER_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define PACER_PRINTF(fmt_index, first_arg)
#endif

namespace pacer::detail {

bool log_enabled(LogLevel level) noexcept;
// Formats with vsnprintf (lines longer than 511 bytes are cut) and hands the line on.
void log(LogLevel level, const char* format, ...) noexcept PACER_PRINTF(2, 3);

}  // namespace pacer::detail
