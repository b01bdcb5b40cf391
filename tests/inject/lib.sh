# Shared by the tests that pace real programs from outside (tests/vulkan/layer_test.sh,
# tests/gl/gl_test.sh): sourced once $mode, $pacer (the pacer tool) and $work (the run's folder,
# made here afresh) are set.
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

xvfb() {  # command...: under a private Xvfb (60 Hz fake screen)
  xvfb-run -a -s "-screen 0 640x480x24 -noreset" "$@"
}

fps_of() {  # capture -> "avg_fps rows"
  "$pacer" analyze --json "$1" >"$work/analyze.json" 2>"$work/analyze.err" || { cat "$work/analyze.err"; fail "pacer analyze $1"; }
  python3 - "$work/analyze.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d[0] if isinstance(d, list) else d
print(c["avg_fps"], c.get("frames", 0))
PY
}

within() {  # value lo hi
  awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

start_weston() {  # socket: weston's headless backend on a socket of its own, stopped at exit
  command -v weston >/dev/null || skip "no weston"
  export XDG_RUNTIME_DIR
  XDG_RUNTIME_DIR=$(mktemp -d "$work/xdg.XXXXXX")
  chmod 700 "$XDG_RUNTIME_DIR"
  setsid weston --backend=headless-backend.so --idle-time=0 --socket="$1" >"$work/weston.log" 2>&1 &
  wpid=$!
  trap 'kill -- -$wpid 2>/dev/null; kill $wpid 2>/dev/null' EXIT
  for _ in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/$1" ] && break; sleep 0.1; done
  [ -S "$XDG_RUNTIME_DIR/$1" ] || { cat "$work/weston.log"; fail "weston did not start"; }
}
