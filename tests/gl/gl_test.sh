#!/usr/bin/env bash
# The GL interposer (gl_preload/) preloaded into real GL programs, as a player runs them: through
# pacer-run, on llvmpipe (Mesa's CPU GL driver) under Xvfb, whose swap does not wait (the programs
# alone run at hundreds of frames per second or more).
#
#   glxgears HZ     glxgears (mesa-utils), unmodified, `pacer-run --hz HZ --capture ...`, stopped by
#                   SIGTERM after 4 s as a player stops a game: one start-up line; its capture, read
#                   by `pacer analyze`, holds 0.8-1.01x HZ; the stats sidecar is written.
#   es2gears        es2gears_x11 (EGL on X11) at 60 Hz, the same checks.
#   wayland         es2gears_wayland (EGL on Wayland) under weston's headless backend at 20 Hz
#                   (below weston's repaint rate): 17-21 fps.
#   probe           tests/gl/swap_probe.c, which swaps through a swap it resolves itself: with
#                   dlopen + dlsym (as SDL2 and Wine do), with glXGetProcAddressARB only, and
#                   called directly. Each gets the interposer's swap and 60 frames take 0.9 s or
#                   more at 60 Hz.
#   next            tests/gl/next_probe.c: dlsym(RTLD_NEXT) from a library resolves relative to
#                   that library, and dlerror() says the same, with the interposer as without it.
#   two_hooks       a second preloaded dlsym hook (tests/gl/second_dlsym.c, as Steam's overlay
#                   has one), before and after the interposer: both see the calls, and the swap
#                   that swap_probe resolves with dlsym is paced.
#   demo            the SDL2 + GL demo with its own pacing off (--mode vsync, the swap does not
#                   wait under Xvfb): paced by the interposer at 60 Hz, 0.8-1.01x.
#   bad_env         PACER_HZ=abc, -1, nan, 1e9, PACER_PLACEMENT=middle, PACER_PRIORITY=realtime,
#                   PACER_WAIT=spin, an unwritable PACER_CAPTURE: one line on stderr naming the
#                   variable, the program exits 0, unpaced, no capture.
#   symbols         the shim exports the hooked calls and dlsym, nothing else; the pacing library
#                   one entry; neither needs a shared library but libc's (and libm).
#   installed BUILD the interposer and pacer-run installed (cmake --install BUILD --component
#                   gl_preload and vulkan_layer --prefix P), the tree moved elsewhere: the moved
#                   pacer-run paces glxgears and vkcube (50-61 fps at 60 Hz), each with its line.
#   unpacked ROOT   the same from the Debian package unpacked into ROOT (tests/package/run.cmake).
#   system          the same from the package installed with apt (/usr/bin/pacer-run, which
#                   preloads the interposer by its bare name from the system's folders;
#                   .ci/package.sh).
#   i386 BUILD      the 32-bit shim (build/i386, cmake/PacerI386.cmake) under a 32-bit next_probe,
#                   preloaded with the 64-bit one (which ld.so refuses): RTLD_NEXT and dlerror() as
#                   without it; with Debian's i386 multiarch GL, a 32-bit swap_probe (each way of
#                   resolving the swap) under the installed 64-bit pacer-run: the 32-bit shim, paced.
#   valgrind        a paced swap_probe (dlsym) under memcheck: no error and no definite leak whose stack
#                   starts in pacer (tests/vulkan/valgrind_check.py).
#
# usage: gl_test.sh MODE PACER_CLI BUILD_DIR WORK_DIR [ARG]
set -u
mode=$1
pacer=$2
build=$3
work=$4/$mode${5:+_$(basename "$5")}
arg=${5:-}
# shellcheck source=../inject/lib.sh
. "$(dirname "$0")/../inject/lib.sh"  # the run's folder, fail, skip, xvfb, fps_of, within, start_weston

run=$build/inject/pacer-run
probes=$build/tests
[ -x "$run" ] || fail "no $run"
unset PACER_HZ PACER_PLACEMENT PACER_PRIORITY PACER_WAIT PACER_CAPTURE PACER_LOG PACER_LAYER LD_PRELOAD
export LIBGL_ALWAYS_SOFTWARE=1

# name hz launcher command...: the command under the launcher, stopped by SIGTERM after 4 s; its
# capture paced at hz, one start-up line, the sidecar.
paced_for_4s() {
  local name=$1 hz=$2 launcher=$3
  shift 3
  xvfb "$launcher" --hz "$hz" --capture "$work/$name.csv" -- timeout -s TERM 4 "$@" >"$work/$name.out" 2>"$work/$name.err"
  local code=$?
  [ $code = 124 ] || { cat "$work/$name.err"; fail "$name: ended with $code, not stopped by SIGTERM (124)"; }
  [ -s "$work/$name.csv" ] || { cat "$work/$name.err"; fail "$name: no capture"; }
  grep -q '^Frames,[1-9]' "$work/$name-stats.csv" 2>/dev/null || { cat "$work/$name.err"; fail "$name: no stats sidecar"; }
  [ "$(grep -c '^pacer \(gl\|layer\):' "$work/$name.err")" = 1 ] || { cat "$work/$name.err"; fail "$name: not one line from pacer"; }
  grep -q "^pacer \(gl\|layer\): pacing .* at $hz Hz (placement before, wait sleep, priority automatic), capture $work/$name.csv\$" \
    "$work/$name.err" || { cat "$work/$name.err"; fail "$name: no start-up line"; }
  read -r fps frames <<<"$(fps_of "$work/$name.csv")"
  echo "$name at $hz Hz: $fps fps over $frames frames; $(grep '^pacer' "$work/$name.err")"
  within "$fps" "$(awk -v h="$hz" 'BEGIN { print 0.8 * h }')" "$(awk -v h="$hz" 'BEGIN { print 1.01 * h }')" ||
    fail "$name: $fps fps at $hz Hz"
}

case "$mode" in
  glxgears)
    command -v glxgears >/dev/null || skip "no glxgears: mesa-utils"
    paced_for_4s glxgears "$arg" "$run" glxgears -geometry 160x120
    ;;
  es2gears)
    command -v es2gears_x11 >/dev/null || skip "no es2gears_x11: mesa-utils"
    paced_for_4s es2gears 60 "$run" es2gears_x11
    ;;
  wayland)
    command -v es2gears_wayland >/dev/null || skip "no es2gears_wayland: mesa-utils"
    start_weston pacer-gl
    WAYLAND_DISPLAY=pacer-gl "$run" --hz 20 --capture "$work/w.csv" -- timeout -s TERM 4 es2gears_wayland \
      >"$work/out" 2>"$work/err"
    code=$?
    [ $code = 124 ] || { cat "$work/err"; fail "es2gears_wayland ended with $code"; }
    [ -s "$work/w.csv" ] || { cat "$work/err"; fail "no capture: eglSwapBuffers was not hooked"; }
    read -r fps frames <<<"$(fps_of "$work/w.csv")"
    echo "es2gears_wayland under weston, PACER_HZ=20: $fps fps over $frames frames"
    within "$fps" 17 21 || fail "$fps fps at PACER_HZ=20"
    ;;
  probe)
    for how in dlsym gpa direct; do
      xvfb env PACER_HZ=60 "$run" --no-vulkan -- "$probes/pacer_gl_swap_probe" "$how" 60 >"$work/$how.out" 2>"$work/$how.err" ||
        { cat "$work/$how.err"; fail "swap_probe $how"; }
      grep -q '^swap in .*/libpacer_gl\.so$' "$work/$how.out" || { cat "$work/$how.out"; fail "$how: the swap it resolved is not the interposer's"; }
      s=$(awk '/^frames/ { print $4 }' "$work/$how.out")
      echo "swap resolved by $how: $(head -1 "$work/$how.out"), 60 frames in $s s at 60 Hz"
      within "$s" 0.9 3 || fail "$how: 60 frames in $s s: not paced at 60 Hz"
    done
    ;;
  next)
    "$probes/pacer_gl_next_probe" >"$work/without.txt" 2>&1 || { cat "$work/without.txt"; fail "next_probe alone"; }
    "$run" --no-vulkan -- "$probes/pacer_gl_next_probe" >"$work/with.txt" 2>&1 || { cat "$work/with.txt"; fail "next_probe under pacer-run"; }
    cat "$work/with.txt"
    grep -qx 'RTLD_NEXT from b finds c' "$work/with.txt" || fail "RTLD_NEXT resolved relative to the interposer"
    diff "$work/without.txt" "$work/with.txt" || fail "dlsym and dlerror differ with the interposer"
    ;;
  two_hooks)
    second=$probes/libpacer_gl_second_dlsym.so
    for order in after before; do
      export PACER_PROBE_SECOND_DLSYM_REPORT=1
      if [ "$order" = after ]; then
        xvfb env LD_PRELOAD="$second" PACER_HZ=60 "$run" --no-vulkan -- "$probes/pacer_gl_swap_probe" dlsym 30 >"$work/$order.out" 2>"$work/$order.err"
      else  # the second hook ahead of the interposer: pacer-run's preload appended after it
        xvfb env PACER_HZ=60 "$run" --no-vulkan -- env LD_PRELOAD="$second:$build/gl_preload/libpacer_gl.so" \
          "$probes/pacer_gl_swap_probe" dlsym 30 >"$work/$order.out" 2>"$work/$order.err"
      fi
      code=$?
      [ $code = 0 ] || { cat "$work/$order.err"; fail "the second hook $order the interposer: exit $code"; }
      grep -q '^swap in .*/libpacer_gl\.so$' "$work/$order.out" || { cat "$work/$order.out"; fail "$order: the swap is not hooked"; }
      s=$(awk '/^frames/ { print $4 }' "$work/$order.out")
      calls=$(grep -v ': 0 calls' "$work/$order.err" | awk '/^second dlsym:/ { print $3 }' | head -1)
      echo "the second dlsym hook $order the interposer's (in LD_PRELOAD): ${calls:-0} calls through it, 30 frames in $s s"
      [ "${calls:-0}" -gt 0 ] || { cat "$work/$order.err"; fail "$order: the second hook saw no call: not chained"; }
      within "$s" 0.43 3 || fail "$order: 30 frames in $s s: not paced at 60 Hz"
    done
    ;;
  demo)
    [ -x "$arg" ] || skip "no demo"
    xvfb "$run" --hz 60 --no-vulkan --capture "$work/demo.csv" -- "$arg" --mode sleep --seconds 4 --hz 1000 \
      >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "the demo under pacer-run"; }
    read -r fps frames <<<"$(fps_of "$work/demo.csv")"
    echo "pacer_demo (its own rate 1000 Hz, the swap not waiting) under the interposer at 60 Hz: $fps fps over $frames frames"
    within "$fps" 48 60.6 || fail "the demo at $fps fps: not paced at 60 Hz by the interposer"
    ;;
  bad_env)
    check() {  # name regex, then VAR=value ...
      local name=$1 re=$2
      shift 2
      local start end
      start=$(date +%s.%N)
      (export "$@" PACER_CAPTURE="${PACER_CAPTURE_OVERRIDE:-$work/$name.csv}"
       xvfb "$run" --no-vulkan -- "$probes/pacer_gl_swap_probe" direct 100) >"$work/$name.out" 2>"$work/$name.err"
      local code=$?
      end=$(date +%s.%N)
      [ $code -eq 0 ] || { cat "$work/$name.err"; fail "$name: exit status $code"; }
      [ "$(grep -c '^pacer gl:' "$work/$name.err")" = 1 ] || { cat "$work/$name.err"; fail "$name: not one line"; }
      grep -Eq "$re" "$work/$name.err" || { cat "$work/$name.err"; fail "$name: the line does not match $re"; }
      [ ! -s "$work/$name.csv" ] || fail "$name: a capture was written"
      awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s < 4.0) }' || fail "$name: paced"
      echo "$name: $(grep '^pacer gl:' "$work/$name.err")"
    }
    check abc 'pacer gl: error: PACER_HZ="abc": not a number.*the program runs unpaced' PACER_HZ=abc
    check minus 'PACER_HZ="-1": must be 0 \(no limit\) or in \(0, 10000\]' PACER_HZ=-1
    check nan 'PACER_HZ="nan": not a number' PACER_HZ=nan
    check huge 'PACER_HZ="1e9": must be 0 \(no limit\) or in \(0, 10000\]' PACER_HZ=1e9
    check placement 'PACER_PLACEMENT="middle": is not before or after' PACER_HZ=20 PACER_PLACEMENT=middle
    check priority 'PACER_PRIORITY="realtime": is not normal' PACER_HZ=20 PACER_PRIORITY=realtime
    check wait 'PACER_WAIT="spin": is not hybrid or sleep' PACER_HZ=20 PACER_WAIT=spin
    PACER_CAPTURE_OVERRIDE=/nonexistent-dir-of-pacer/c.csv check unwritable \
      'PACER_CAPTURE="/nonexistent-dir-of-pacer/c.csv": .*cannot open.*the program runs unpaced' PACER_HZ=20
    # pacer-run's own errors: the usage, exit 2, nothing run
    "$run" --hz >"$work/usage.out" 2>&1 && fail "pacer-run --hz without a value ran"
    grep -q 'pacer-run: --hz needs a value' "$work/usage.out" || { cat "$work/usage.out"; fail "pacer-run --hz: no clear error"; }
    "$run" --frobnicate true >"$work/usage.out" 2>&1 && fail "pacer-run with an unknown option ran"
    grep -q 'pacer-run: unknown option --frobnicate' "$work/usage.out" || fail "pacer-run: no clear error for an unknown option"
    "$run" --help | grep -q 'PACER_HZ' || fail "pacer-run --help does not name the settings"
    echo "pacer-run: a missing value and an unknown option are one line and exit 2; --help names the settings"
    ;;
  symbols)
    shim=$build/gl_preload/libpacer_gl.so
    pacing=$build/gl_preload/pacer/libpacer_gl_pacing.so
    got=$(nm -D --defined-only "$shim" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u | tr '\n' ' ')
    want="dlsym eglGetProcAddress eglSwapBuffers eglSwapBuffersWithDamageEXT eglSwapBuffersWithDamageKHR eglSwapInterval glXGetProcAddress glXGetProcAddressARB glXSwapBuffers glXSwapBuffersMscOML glXSwapIntervalEXT glXSwapIntervalMESA glXSwapIntervalSGI "
    [ "$got" = "$want" ] || fail "the shim exports: $got; expected: $want"
    got=$(nm -D --defined-only "$pacing" | awk '$2 == "T" { print $3 }' | tr '\n' ' ')
    [ "$got" = "pacer_gl_pacing_v1 " ] || fail "the pacing library exports: $got"
    for lib in "$shim" "$pacing"; do
      needed=$(readelf -d "$lib" | awk '/NEEDED/ { gsub(/[][]/, "", $5); print $5 }' | tr '\n' ' ')
      for n in $needed; do
        case "$n" in libc.so.*|libm.so.*|ld-linux*|libdl.so.*|libpthread.so.*) ;;
          *) fail "$(basename "$lib") needs $n" ;; esac
      done
      echo "$(basename "$lib"): needs $needed"
    done
    echo "shim exports: $want"
    ;;
  installed|unpacked|system)
    if [ "$mode" = system ]; then  # the Debian package installed with apt (.ci/package.sh)
      launcher=/usr/bin/pacer-run
    elif [ "$mode" = installed ]; then
      for c in gl_preload vulkan_layer; do
        cmake --install "$arg" --component "$c" --prefix "$work/prefix" >>"$work/install.log" 2>&1 ||
          { cat "$work/install.log"; fail "cmake --install --component $c"; }
      done
      mv "$work/prefix" "$work/moved"
      launcher=$work/moved/bin/pacer-run
    else  # the Debian package unpacked into ARG (tests/package/run.cmake)
      launcher=$arg/usr/bin/pacer-run
    fi
    [ -x "$launcher" ] || fail "no $launcher"
    paced_for_4s glxgears 60 "$launcher" glxgears -geometry 160x120
    if [ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] && command -v vkcube >/dev/null; then
      VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json paced_for_4s vkcube 60 "$launcher" \
        vkcube --width 160 --height 120
    fi
    ;;
  i386)
    shim32=$build/i386/gl_preload/libpacer_gl.so
    [ -e "$shim32" ] || skip "no 32-bit build (cmake/PacerI386.cmake)"
    readelf -h "$shim32" | grep -q 'Class: *ELF32' || fail "$shim32 is not a 32-bit library"
    "$probes/pacer_gl_next_probe32" >"$work/without.txt" 2>&1 || { cat "$work/without.txt"; fail "next_probe32 alone"; }
    LD_PRELOAD="$build/gl_preload/libpacer_gl.so:$shim32" "$probes/pacer_gl_next_probe32" >"$work/with.txt" 2>"$work/err" ||
      { cat "$work/with.txt" "$work/err"; fail "next_probe32 with the shims"; }
    grep -q 'wrong ELF class' "$work/err" || { cat "$work/err"; fail "the 64-bit shim was not refused by the 32-bit process"; }
    grep -qx 'RTLD_NEXT from b finds c' "$work/with.txt" || fail "32-bit: RTLD_NEXT resolved relative to the shim"
    diff "$work/without.txt" "$work/with.txt" || fail "32-bit: dlsym and dlerror differ with the shim"
    nm -D --defined-only "$shim32" | grep -q ' dlsym@GLIBC_2.0$' || fail "the 32-bit shim has no dlsym@GLIBC_2.0"
    echo "32-bit next_probe under the 32-bit shim (the 64-bit one refused by ld.so): RTLD_NEXT and dlerror() as without it"
    # A 32-bit GL program from a 64-bit pacer-run, installed: $LIB leads each process to its own
    # ABI's shim (needs Debian's i386 multiarch GL: then tests/CMakeLists.txt builds the probe).
    probe32=$probes/pacer_gl_swap_probe32
    if [ -x "$probe32" ]; then
      for c in gl_preload vulkan_layer; do
        cmake --install "$arg" --component "$c" --prefix "$work/prefix" >>"$work/install.log" 2>&1 ||
          { cat "$work/install.log"; fail "cmake --install --component $c"; }
      done
      for how in dlsym gpa direct; do
        xvfb "$work/prefix/bin/pacer-run" --hz 60 --capture "$work/$how.csv" -- "$probe32" "$how" 60 \
          >"$work/$how.out" 2>"$work/$how.err" || { cat "$work/$how.err"; fail "swap_probe32 $how"; }
        grep -q '^swap in .*/lib/i386-linux-gnu/libpacer_gl\.so$' "$work/$how.out" ||
          { cat "$work/$how.out" "$work/$how.err"; fail "32-bit $how: the swap is not the 32-bit interposer's"; }
        s=$(awk '/^frames/ { print $4 }' "$work/$how.out")
        read -r fps frames <<<"$(fps_of "$work/$how.csv")"
        echo "32-bit swap_probe ($how) under the installed pacer-run at 60 Hz: 60 frames in $s s, capture $fps fps"
        within "$s" 0.9 3 || fail "32-bit $how: 60 frames in $s s: not paced"
      done
    else
      echo "no 32-bit GL program run: Debian's i386 multiarch GL is not installed (libgl1:i386, libgl1-mesa-dri:i386)"
    fi
    ;;
  valgrind)
    command -v valgrind >/dev/null || skip "no valgrind"
    xvfb "$run" --hz 30 --no-vulkan --capture "$work/v.csv" -- valgrind --error-exitcode=0 --fullpath-after= \
      --keep-debuginfo=yes --leak-check=full --log-file="$work/memcheck.log" "$probes/pacer_gl_swap_probe" dlsym 60 \
      >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "valgrind run"; }
    [ -s "$work/v.csv" ] || { cat "$work/err"; fail "no capture under valgrind"; }
    python3 "$(dirname "$0")/../vulkan/valgrind_check.py" "$work/memcheck.log" libpacer_gl gl_preload/ pacer/ inject/ ||
      fail "memcheck found an error of pacer's ($work/memcheck.log)"
    echo "memcheck: nothing of pacer's ($(grep -c . "$work/memcheck.log") log lines)"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo PASS
