#!/usr/bin/env bash
# `./dev demo` builds the demo alone (cmake --build --preset default --target pacer_demo), not the
# whole test suite. The script runs from a scratch copy with stand-ins on PATH: cmake (logs its
# arguments), dpkg-query (every package installed: nothing to install) and the demo (says it ran).
#   dev_demo_test.sh DEV_SCRIPT WORK_DIR
set -euo pipefail
dev=$1
work=$2
rm -rf "$work"
mkdir -p "$work/bin" "$work/tree/build/demo"
cp "$dev" "$work/tree/dev"
cat >"$work/bin/cmake" <<'STUB'
#!/bin/sh
echo "cmake $*" >>"$CMAKE_LOG"
STUB
cat >"$work/bin/dpkg-query" <<'STUB'
#!/bin/sh
printf 'install ok installed'
STUB
cat >"$work/tree/build/demo/pacer_demo" <<'STUB'
#!/bin/sh
echo "pacer_demo ran: $*"
STUB
chmod +x "$work/bin/cmake" "$work/bin/dpkg-query" "$work/tree/build/demo/pacer_demo"

log=$work/cmake.log
out=$(CMAKE_LOG=$log PATH="$work/bin:$PATH" bash "$work/tree/dev" demo --headless --frames 1)
fail=0
if [ "$out" != "pacer_demo ran: --headless --frames 1" ]; then
  echo "FAIL: ./dev demo did not run the demo with its options; it printed: $out"
  fail=1
fi
builds=$(grep -e '--build' "$log" || true)
if [ "$builds" != "cmake --build --preset default --target pacer_demo" ]; then
  echo "FAIL: ./dev demo should build the demo alone (cmake --build --preset default --target pacer_demo); its builds:"
  echo "${builds:-(none)}"
  fail=1
fi
if ! grep -qx -e 'cmake --preset default' "$log"; then
  echo "FAIL: ./dev demo did not configure with the default preset; its cmake calls:"
  cat "$log"
  fail=1
fi
[ $fail -eq 0 ] && echo "ok: ./dev demo configured, built pacer_demo alone and ran it"
exit $fail
