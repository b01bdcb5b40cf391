#!/bin/bash
# Run a Windows executable under Wine, non-interactively: the CMAKE_CROSSCOMPILING_EMULATOR of the
# mingw-w64 toolchain (cmake/toolchains/mingw-w64-x86_64.cmake), so ctest and
# gtest_discover_tests call `wine-run.sh test.exe args...`.
#
#   WINEPREFIX   Wine's fake C: drive; default ${TMPDIR:-/tmp}/pacer-wine-$UID. Created on first
#                use (~10-30 s), serialised with flock so parallel ctest jobs do not race.
#   PACER_WINE   the Wine loader; default `wine`, else /usr/lib/wine/wine64 (Debian's wine64).
#
# `wine-run.sh --init-prefix` only creates the prefix (and returns once Wine has shut down).
#
# Wine's own diagnostics are silenced (WINEDEBUG=-all), Mono and Gecko installs are disabled
# (WINEDLLOVERRIDES) and DISPLAY is dropped, so nothing prompts. Carriage returns are removed
# from the output: Windows text-mode stdout writes CRLF, and CMake's GoogleTestAddTests parser
# would keep the CR in the test-suite names.

export WINEDEBUG=${WINEDEBUG:--all}
export WINEARCH=win64
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
export WINEPREFIX=${WINEPREFIX:-${TMPDIR:-/tmp}/pacer-wine-$(id -u)}
unset DISPLAY WAYLAND_DISPLAY

wine=${PACER_WINE:-}
if [ -z "$wine" ]; then
  if command -v wine >/dev/null 2>&1; then wine=wine
  elif [ -x /usr/lib/wine/wine64 ]; then wine=/usr/lib/wine/wine64
  else echo "wine-run.sh: no Wine found (apt-get install wine64 wine)" >&2; exit 127
  fi
fi

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  mkdir -p "$(dirname "$WINEPREFIX")"
  (
    flock 9
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
      "$wine" wineboot --init </dev/null >/dev/null 2>&1
      # wineboot returns before the registry is written; wait for the prefix's server to finish.
      WINEPREFIX=$WINEPREFIX "${wine%wine*}wineserver" -w 2>/dev/null || true
    fi
  ) 9>"$WINEPREFIX.lock"
fi

[ "${1:-}" = --init-prefix ] && exit 0

# Output goes through files, not pipes: the first Wine process of a prefix starts Wine's service
# processes (services.exe, winedevice.exe, ...), which inherit its stdout and stderr and live on
# for seconds (or as long as a persistent wineserver); a pipe would stay open, and ctest would
# wait for them (a test discovery time-out here).
out=$(mktemp) && err=$(mktemp) || exit 125
trap 'rm -f "$out" "$err"' EXIT
"$wine" "$@" </dev/null >"$out" 2>"$err"
rc=$?
# A launch that failed before the program ran: non-zero status and not one byte of output (every
# executable run here, gtest's above all, prints before it can fail). Seen once in ~1000 launches
# with a persistent wineserver and two ctest jobs (no output, status != 0 after 0.08 s; three
# repeats of the whole suite did not reproduce it). That is Wine's start-up, not the test: say
# so and launch once more. A program that really fails without output fails twice.
if [ $rc -ne 0 ] && [ ! -s "$out" ] && [ ! -s "$err" ]; then
  echo "wine-run.sh: Wine exited with status $rc before the program printed anything; launching again" >&2
  "$wine" "$@" </dev/null >"$out" 2>>"$err"
  rc=$?
fi
tr -d '\r' <"$out"
tr -d '\r' <"$err" >&2
exit $rc
