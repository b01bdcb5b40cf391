#!/usr/bin/env bash
# The weight (ThreadPriority::high; automatic where a real-time class is refused) on the real Linux
# kernel, by who runs the pacer and where (weight_check.cpp says what each run checks):
#   1. as this user (root in CI): granted, nice -15;
#   2. as nobody (setpriv --reuid=65534, RLIMIT_NICE 0 as a login session has it): refused,
#      "RLIMIT_NICE", pacing unchanged;
#   3. as nobody with CAP_SYS_NICE as an ambient capability: granted, nice -15;
#   4. as nobody with RLIMIT_NICE 30 (prlimit; nice down to -10): granted at -10, the lowest the
#      limit allows;
#   5. on one CPU (taskset): automatic does not raise, high does;
#   6. on one CPU, a frame that spin-waits on a worker: beside automatic the worker keeps at
#      least half its throughput beside normal (high's figure printed);
#   7. idle at 144 Hz: automatic no worse than normal, interleaved.
# Paths 2-4 need root (setpriv changes the user); as another user they are skipped, saying so.
#
# usage: weight_os_test.sh WEIGHT_CHECK   (exit 0 ok, 1 failed, 77 nothing could run)
set -u
check=$1
. "$(dirname "$0")/as_users.sh"
ncpu=$(nproc --all)
one_cpu() { taskset -c "$(taskset -cp $$ | sed 's/.*: //; s/[,-].*//')" "$@"; }

if [ "$(id -u)" = 0 ]; then
  run "root: granted" prlimit --nice=0:0 "$check" granted "nice -15"
  copy_for_nobody "$check"
  run "nobody: refused" prlimit --nice=0:0 "${nobody[@]}" "$copy" refused "RLIMIT_NICE 0"
  run "nobody with CAP_SYS_NICE: granted" prlimit --nice=0:0 "${nobody[@]}" --inh-caps=+sys_nice \
    --ambient-caps=+sys_nice "$copy" granted "nice -15"
  if prlimit --nice=30:30 true 2>/dev/null; then
    run "nobody with RLIMIT_NICE 30: granted at -10" prlimit --nice=30:30 "${nobody[@]}" "$copy" \
      granted "nice -10 (RLIMIT_NICE)"
  else
    echo "== nobody with RLIMIT_NICE 30: skipped: this host does not let RLIMIT_NICE be raised (no CAP_SYS_RESOURCE)"
  fi
else
  echo "== not root: the paths as other users are skipped (they need setpriv as root)"
  if ! renice -n -1 -p $$ >/dev/null 2>&1; then
    run "this user: refused" "$check" refused "refused"
    exit $((fail ? 1 : 77))
  fi
  renice -n 0 -p $$ >/dev/null
  run "this user: granted" "$check" granted "nice -15"
fi
run "one CPU: automatic does not raise, high does" one_cpu "$check" one-cpu
run "one CPU: a frame spinning on a worker" one_cpu "$check" spin-hazard
if [ "$ncpu" -ge 2 ]; then
  run "idle: automatic no worse than normal" "$check" idle
else
  echo "== idle: skipped: one CPU, where automatic does not raise"
fi
[ $fail = 0 ] && echo PASS
exit $fail
