// CPU pause hint shared by the POSIX backends (Windows has YieldProcessor).
#pragma once

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#include <immintrin.h>
#define PACER_RELAX() _mm_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define PACER_RELAX() __asm__ __volatile__("yield")
#else
#define PACER_RELAX() ((void)0)
#endif
