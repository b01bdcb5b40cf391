#!/usr/bin/env bash
# VK_LAYER_pacer_frame_pacing loaded into Debian's vkcube for real, on lavapipe (Mesa's CPU
# Vulkan driver), as a user would load it: through the loader's own variables.
#
#   xvfb PLACEMENT  vkcube under Xvfb, whose FIFO swap does not wait (vkcube alone runs at hundreds
#                   of frames per second): PACER_HZ=60 with PACER_PLACEMENT (before-hybrid: before,
#                   with PACER_WAIT=hybrid; else the default, sleep), the capture read back
#                   by `pacer analyze`: 50-61 fps (the layer alone holds the rate; on a loaded
#                   2-core machine lavapipe may fall below 60, never the limit above it).
#   weston          vkcube-wayland under weston's headless backend, whose swap waits for the
#                   compositor's repaint: at PACER_HZ=20 (below the compositor's rate) the layer
#                   holds 17-21 fps; at PACER_HZ=144 (above it) the rate is the swap's, never above 145.
#   implicit        the implicit manifest: PACER_LAYER=1 loads it, DISABLE_PACER_LAYER=1 keeps it out.
#   bad_env         PACER_HZ=abc, -1, nan, 1e9, PACER_PLACEMENT=middle, PACER_PRIORITY=realtime,
#                   PACER_WAIT=spin, an unwritable PACER_CAPTURE:
#                   one line on stderr naming the variable, vkcube exits 0, unpaced (no capture
#                   written; 100 frames in less than the 5 s that 20 Hz would take).
#   churn PROGRAM   tests/vulkan/swapchain_churn.cpp (pacer embedded through pacer/vulkan.hpp) with
#                   the layer at PACER_HZ=60: two threads creating, recreating and destroying
#                   swapchains, one swapchain taken over by a third thread. It exits 0 and says
#                   PASS, the layer says nothing, and each swapchain not made from an old one
#                   has its capture (3), which `pacer analyze` reads; the recreated and handed-over
#                   one holds all of its 90 presents but the first.
#   installed BUILD the layer installed as a user installs it (cmake --install BUILD --component
#                   vulkan_layer --prefix P), the tree then moved elsewhere: its manifest names the
#                   library relative to itself, and vkcube under Xvfb, loaded from the moved tree
#                   alone and stopped by SIGTERM as a player stops a game, is paced (50-61 fps in its
#                   capture, read by `pacer analyze`) and its stats sidecar is written; the layer says
#                   one line at start-up (what, rate, placement, wait, priority, capture), none with
#                   PACER_LOG=off; stopped by SIGINT (Ctrl+C), the sidecar is written too.
#   valgrind        a layered vkcube under valgrind's memcheck: no error and no definite leak whose
#                   stack starts in the layer (tests/vulkan/valgrind_check.py).
#
# usage: layer_test.sh MODE PACER_CLI LAYER_DIR WORK_DIR [ARG]
set -u
mode=$1
pacer=$2
layer_dir=$3
work=$4/$mode${5:+_$(basename "$5")}
arg=${5:-}
# shellcheck source=../inject/lib.sh
. "$(dirname "$0")/../inject/lib.sh"  # the run's folder, fail, skip, xvfb, fps_of, within, start_weston

export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -e "$VK_ICD_FILENAMES" ] || skip "no lavapipe ($VK_ICD_FILENAMES): mesa-vulkan-drivers"
command -v vkcube >/dev/null || skip "no vkcube: vulkan-tools"
export VK_ADD_LAYER_PATH=$layer_dir
layered=(env VK_INSTANCE_LAYERS=VK_LAYER_pacer_frame_pacing)
small=(--width 160 --height 120)
unset PACER_HZ PACER_PLACEMENT PACER_PRIORITY PACER_WAIT PACER_CAPTURE PACER_LOG PACER_LAYER DISABLE_PACER_LAYER

case "$mode" in
  xvfb)
    wait_mode="sleep (unset, the default)" wait=()
    case "$arg" in *-hybrid) wait_mode=hybrid wait=(PACER_WAIT=hybrid) arg=${arg%-hybrid} ;; esac
    PACER_HZ=60 PACER_PLACEMENT=$arg PACER_CAPTURE=$work/cube.csv xvfb "${layered[@]}" "${wait[@]}" vkcube --c 240 "${small[@]}" \
      >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "vkcube exit status"; }
    [ -s "$work/cube.csv" ] || { cat "$work/err"; fail "no capture written"; }
    read -r fps frames <<<"$(fps_of "$work/cube.csv")"
    echo "placement $arg, PACER_WAIT=$wait_mode: $fps fps over $frames frames (PACER_HZ=60)"
    within "$fps" 50 61 || fail "$fps fps at PACER_HZ=60"
    within "$frames" 200 240 || fail "$frames frames in the capture of 240"
    # The capture names the wait as the setting does: PacingSource sleep by default, hybrid with
    # PACER_WAIT=hybrid, on most rows (the first is unpaced).
    want=${wait_mode%% *}
    most=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "PacingSource") c = i; next }
                    c { n[$c]++ } END { for (k in n) if (n[k] > best) { best = n[k]; m = k } print m }' "$work/cube.csv")
    [ "$most" = "$want" ] || fail "the capture's PacingSource is mostly '$most', not '$want' (PACER_WAIT)"
    # The sidecar: written at vkDestroySwapchainKHR.
    [ -s "$work/cube-stats.csv" ] || fail "no capture-stats.csv"
    ;;
  weston)
    start_weston pacer-vk
    for hz in 20 144; do
      WAYLAND_DISPLAY=pacer-vk PACER_HZ=$hz PACER_CAPTURE=$work/w$hz.csv timeout 60 "${layered[@]}" vkcube-wayland \
        --c 80 "${small[@]}" >"$work/out$hz" 2>"$work/err$hz" || { cat "$work/err$hz"; fail "vkcube-wayland at $hz Hz"; }
      read -r fps frames <<<"$(fps_of "$work/w$hz.csv")"
      echo "weston, PACER_HZ=$hz: $fps fps over $frames frames"
      if [ "$hz" = 20 ]; then within "$fps" 17 21 || fail "$fps fps at PACER_HZ=20"; fi
      if [ "$hz" = 144 ]; then within "$fps" 1 145 || fail "$fps fps at PACER_HZ=144"; fi
    done
    ;;
  implicit)
    data=$layer_dir/share:/usr/local/share:/usr/share
    unset VK_ADD_LAYER_PATH
    XDG_DATA_DIRS=$data PACER_LAYER=1 PACER_HZ=30 PACER_CAPTURE=$work/on.csv xvfb vkcube --c 90 "${small[@]}" \
      >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "vkcube with PACER_LAYER=1"; }
    [ -s "$work/on.csv" ] || { cat "$work/err"; fail "PACER_LAYER=1 did not load the implicit layer"; }
    read -r fps frames <<<"$(fps_of "$work/on.csv")"
    echo "implicit, PACER_LAYER=1 PACER_HZ=30: $fps fps"
    within "$fps" 25 31 || fail "$fps fps at PACER_HZ=30"
    XDG_DATA_DIRS=$data PACER_LAYER=1 DISABLE_PACER_LAYER=1 PACER_CAPTURE=$work/off.csv xvfb vkcube --c 30 "${small[@]}" \
      >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "vkcube with DISABLE_PACER_LAYER=1"; }
    [ ! -e "$work/off.csv" ] || fail "DISABLE_PACER_LAYER=1 still loaded the layer"
    echo "implicit, DISABLE_PACER_LAYER=1: not loaded"
    ;;
  bad_env)
    check() {  # name regex, then VAR=value ...
      local name=$1 re=$2
      shift 2
      local start end
      start=$(date +%s.%N)
      (export "$@" PACER_CAPTURE="${PACER_CAPTURE_OVERRIDE:-$work/$name.csv}"
       xvfb "${layered[@]}" vkcube --c 100 "${small[@]}") >"$work/$name.out" 2>"$work/$name.err"
      local code=$?
      end=$(date +%s.%N)
      [ $code -eq 0 ] || { cat "$work/$name.err"; fail "$name: vkcube exit status $code"; }
      local lines
      lines=$(grep -c '^pacer layer:' "$work/$name.err")
      [ "$lines" = 1 ] || { cat "$work/$name.err"; fail "$name: $lines lines from the layer, not one"; }
      grep -Eq "$re" "$work/$name.err" || { cat "$work/$name.err"; fail "$name: the line does not match $re"; }
      [ ! -s "$work/$name.csv" ] || fail "$name: a capture was written by a layer that should be off"
      awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s < 5.0) }' || fail "$name: paced (took $(awk -v s="$start" -v e="$end" 'BEGIN{print e-s}') s)"
      echo "$name: $(grep '^pacer layer:' "$work/$name.err")"
    }
    check abc 'PACER_HZ="abc": not a number' PACER_HZ=abc
    check minus 'PACER_HZ="-1": must be 0 \(no limit\) or in \(0, 10000\]' PACER_HZ=-1
    check nan 'PACER_HZ="nan": not a number' PACER_HZ=nan
    check huge 'PACER_HZ="1e9": must be 0 \(no limit\) or in \(0, 10000\]' PACER_HZ=1e9
    check placement 'PACER_PLACEMENT="middle": is not before or after' PACER_HZ=20 PACER_PLACEMENT=middle
    check priority 'PACER_PRIORITY="realtime": is not normal' PACER_HZ=20 PACER_PRIORITY=realtime
    check wait 'PACER_WAIT="spin": is not hybrid or sleep' PACER_HZ=20 PACER_WAIT=spin
    PACER_CAPTURE_OVERRIDE=/nonexistent-dir-of-pacer/c.csv check unwritable \
      'PACER_CAPTURE="/nonexistent-dir-of-pacer/c.csv": .*cannot open.*the layer is off for this swapchain' PACER_HZ=20
    ;;
  churn)
    PACER_HZ=60 PACER_CAPTURE=$work/c.csv xvfb "${layered[@]}" timeout 60 "$arg" >"$work/out" 2>"$work/err"
    code=$?
    cat "$work/out"
    [ $code -eq 0 ] || { cat "$work/err"; fail "swapchain_churn exit status $code"; }
    grep -q '^PASS$' "$work/out" || fail "swapchain_churn did not pass"
    ! grep '^pacer layer:' "$work/err" | grep -vq '^pacer layer: pacing ' || { cat "$work/err"; fail "the layer complained"; }
    [ "$(grep -c '^pacer layer: pacing ' "$work/err")" = 3 ] || { cat "$work/err"; fail "not one start-up line per capture"; }
    [ -e "$work/c-4.csv" ] && fail "a fourth capture: a recreated swapchain did not keep its capture"
    most=0
    for f in c c-2 c-3; do
      [ -s "$work/$f.csv" ] || fail "no capture $f.csv"
      read -r fps frames <<<"$(fps_of "$work/$f.csv")"
      echo "$f.csv: $frames frames, $fps fps"
      [ "$frames" -gt "$most" ] && most=$frames
    done
    [ "$most" -ge 85 ] || fail "no capture holds the recreated swapchain's 90 presents (most: $most)"
    ;;
  installed)
    cmake --install "$arg" --component vulkan_layer --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
      { cat "$work/install.log"; fail "cmake --install"; }
    mv "$work/prefix" "$work/moved"  # a relocated tree: nothing may name where it was installed
    manifest=$work/moved/share/vulkan/explicit_layer.d/VkLayer_pacer_frame_pacing.json
    [ -e "$manifest" ] || manifest=$(find "$work/moved" -name 'VkLayer_pacer_frame_pacing.json' -path '*explicit*' | head -1)
    [ -s "$manifest" ] || fail "no explicit manifest installed"
    grep -q '"library_path": "\.\./' "$manifest" || { cat "$manifest"; fail "the manifest's library_path is not relative to it"; }
    run_installed() {  # name signal, then VAR=value ...: vkcube, stopped by the signal after 4 s
      local name=$1 sig=$2
      shift 2
      (export VK_ADD_LAYER_PATH="$(dirname "$manifest")" PACER_HZ=60 PACER_CAPTURE="$work/$name.csv" "$@"
       xvfb "${layered[@]}" timeout -s "$sig" 4 vkcube "${small[@]}") >"$work/$name.out" 2>"$work/$name.err"
      local code=$?
      [ $code = 124 ] || { cat "$work/$name.err"; fail "$name: vkcube ended with $code, not stopped by SIG$sig (124)"; }
      [ -s "$work/$name.csv" ] || { cat "$work/$name.err"; fail "$name: no capture: the installed layer did not load"; }
      # The sidecar too: the layer closes its captures at the signal, then lets it end the game.
      grep -q '^Frames,[1-9]' "$work/$name-stats.csv" 2>/dev/null ||
        { cat "$work/$name.err"; fail "$name: no stats sidecar with frames after SIG$sig"; }
      echo "$name: stopped by SIG$sig: capture and sidecar ($(grep '^Frames,' "$work/$name-stats.csv"))"
    }
    run_installed cube TERM
    read -r fps frames <<<"$(fps_of "$work/cube.csv")"
    echo "installed and moved, PACER_HZ=60, stopped by SIGTERM: $fps fps over $frames frames"
    within "$fps" 50 61 || fail "$fps fps at PACER_HZ=60"
    [ "$(grep -c '^pacer layer:' "$work/cube.err")" = 1 ] || { cat "$work/cube.err"; fail "not one line from the layer"; }
    line="pacer layer: pacing vkcube at 60 Hz (placement before, wait sleep, priority automatic), capture $work/cube.csv"
    grep -qxF "$line" "$work/cube.err" || { cat "$work/cube.err"; fail "the start-up line is not: $line"; }
    echo "start-up line: $line"
    run_installed quiet INT PACER_LOG=off
    ! grep -q '^pacer layer:' "$work/quiet.err" || { cat "$work/quiet.err"; fail "PACER_LOG=off: the layer spoke"; }
    ;;
  valgrind)
    command -v valgrind >/dev/null || skip "no valgrind"
    PACER_HZ=60 PACER_CAPTURE=$work/vg.csv xvfb "${layered[@]}" valgrind --log-file="$work/valgrind.log" --fullpath-after= --keep-debuginfo=yes \
      --leak-check=full --show-leak-kinds=definite --num-callers=40 vkcube --c 20 --width 64 --height 48 \
      >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "vkcube under valgrind"; }
    [ -s "$work/vg.csv" ] || fail "the layer was not loaded under valgrind"
    python3 "$(dirname "$0")/valgrind_check.py" "$work/valgrind.log" libVkLayer_pacer_frame_pacing "$(cd "$(dirname "$0")/../.." && pwd)/" || fail "valgrind"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo PASS
