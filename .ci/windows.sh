#!/usr/bin/env bash
# CI, Windows: cross-build pacer and its unit tests with mingw-w64 and run them under Wine.
#
#   .ci/windows.sh            install what is missing, configure, build (-j2, warnings are errors),
#                             ctest under Wine
#
# Everything comes from Debian 12 packages (docs/platforms.md). Exits non-zero when a step or a
# test fails; prints ctest's summary, the per-rung sleep measurements of
# tests/windows_platform_test.cpp, and last a "wine: N passed, N failed" line. About 3-5 minutes on 2 cores, package install included.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake
  g++-mingw-w64-x86-64-posix   # the cross compiler; "posix" threads for std::thread/std::mutex
  wine64 wine                  # runs the .exe files (wine64 alone has /usr/lib/wine/wine64)
  libspdlog-dev libfmt-dev     # used header-only by the cross build
  googletest                   # GoogleTest sources, built with the cross compiler
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "windows.sh: installing ${missing[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
fi

build_dir=build-windows
cmake --preset windows-mingw -DPACER_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build --preset windows-mingw

# A private Wine prefix in the build tree, created once (cmake/windows/wine-run.sh does it), and
# one wineserver kept alive for the whole run: each test process then starts in ~0.1 s instead
# of paying Wine's start-up and shut-down (seconds) per test.
export WINEPREFIX="$PWD/$build_dir/wine-prefix"
# Wine keeps its server's socket in $TMPDIR/wine-XXXXXX and leaves that directory behind when the
# server stops: in the build tree, not in the machine's /tmp.
export TMPDIR="$PWD/$build_dir/wine-tmp"
mkdir -p -m 700 "$TMPDIR"
export WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
echo "windows.sh: Wine $(wine --version 2>/dev/null || /usr/lib/wine/wine64 --version), prefix $WINEPREFIX"
cmake/windows/wine-run.sh --init-prefix
"$wineserver" -p || echo "windows.sh: no persistent wineserver (one is running); tests start slower"
trap '"$wineserver" -k 2>/dev/null || true' EXIT

log="$build_dir/ctest-wine.log"
status=0
ctest --preset windows-mingw 2>&1 | tee "$log" || status=$?

echo
echo "windows.sh: Windows sleep ladder under Wine (tests/windows_platform_test.cpp):"
grep -h '^\[ measure \]' "$build_dir/Testing/Temporary/LastTest.log" | sort -u || true
# Last line: the counts of ctest's summary ("100% tests passed, 0 tests failed out of 108") as
# a plain "N passed, N failed" line, so the run's closing line is a test summary.
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1 || true)
if [ -n "$summary" ]; then
  failed=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$summary")
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary")
  echo "wine: $((total - failed)) passed, $failed failed"
else
  echo "windows.sh: no ctest summary (see $log)" >&2
  [ $status -ne 0 ] || status=1
fi
exit $status
