#!/usr/bin/env bash
# CI, sanitizers: the test suite under AddressSanitizer + UBSan, and the tests that start threads
# under ThreadSanitizer.
#
#   .ci/sanitizers.sh         configure, build (-j2) and test both; exits non-zero on any finding
#
#   asan  Debug, -fsanitize=address,undefined -fno-sanitize-recover=all: a UBSan finding aborts
#         the test like an ASan one. Every test but the labels soak and package (ctest --preset
#         asan). Debug also runs the debug-only checks, e.g. the death test of a second pacing
#         thread.
#   tsan  RelWithDebInfo, -fsanitize=thread, only the test binaries that start threads
#         (pacer_tests, the demo's pacer_demo_tests) and, by name, only the tests about threads:
#         FramePacerThreads.* and demo.BusyThreads.* start them; RealClock.* (per-thread timer
#         settings) and the demo's Session tests (the loop that owns the busy threads) come along
#         (see the tsan test preset). The demo's core builds without a window but its directory
#         needs SDL2 and Dear ImGui at configure time: ./dev test installs them first.
#
# Uses the compilers and packages ./dev installs (g++ with its libasan, libubsan, libtsan).
# About 3-4 minutes on 2 cores from scratch, most of it building (the tests: ~40 s).
set -euo pipefail
cd "$(dirname "$0")/.."

werror=OFF
[ "${CI:-}" = true ] && werror=ON

start=$SECONDS
for preset in asan tsan; do
  echo "sanitizers.sh: $preset"
  cmake --preset "$preset" -DPACER_WARNINGS_AS_ERRORS=$werror >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
  echo "sanitizers.sh: $preset done at $((SECONDS - start)) s"
done
