#!/usr/bin/env bash
# Fuzz the capture reader for a bounded time (clang + libFuzzer + ASan/UBSan): `./dev fuzz`.
#   bash .ci/fuzz.sh [seconds]      (default 30; PACER_FUZZ_SECONDS in the environment works too)
# `./dev test --all` (.ci/run) calls it: the fuzz run is part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
exec ./dev fuzz "${1:-${PACER_FUZZ_SECONDS:-30}}"
