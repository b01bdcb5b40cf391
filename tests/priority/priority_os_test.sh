#!/usr/bin/env bash
# The thread priority on the real Linux kernel, by who runs the pacer (priority_check.cpp says
# what each run checks):
#   1. as this user (root in CI): granted, SCHED_FIFO 5;
#   2. as nobody (setpriv --reuid=65534): refused, "RLIMIT_RTPRIO is 0", pacing unchanged;
#   3. as nobody with CAP_SYS_NICE as an ambient capability: granted;
#   4. as nobody with RLIMIT_RTPRIO 3 (prlimit): granted at 3, the most the limit allows; where
#      the host cannot raise the hard limit (no CAP_SYS_RESOURCE even for root), that path alone
#      is skipped, saying so;
#   5. a busy thread on the pacer's core keeps most of it while the pacer runs raised at 1 kHz.
# Paths 2-4 need root (setpriv changes the user); as another user they are skipped, saying so.
#
# usage: priority_os_test.sh PRIORITY_CHECK   (exit 0 ok, 1 failed, 77 nothing could run)
set -u
check=$1
. "$(dirname "$0")/as_users.sh"
# What the process may do by itself: no RealtimeKit to ask (automatic and thread would ask it).
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent

if [ "$(id -u)" = 0 ]; then
  run "root: granted" "$check" granted "SCHED_FIFO 5"
  copy_for_nobody "$check"
  # RLIMIT_RTPRIO 0 as a login session has it by default (root's shell may have inherited more).
  run "nobody: refused" prlimit --rtprio=0:0 "${nobody[@]}" "$copy" refused "RLIMIT_RTPRIO is 0"
  run "nobody with CAP_SYS_NICE: granted" prlimit --rtprio=0:0 "${nobody[@]}" --inh-caps=+sys_nice \
    --ambient-caps=+sys_nice "$copy" granted "SCHED_FIFO 5"
  if prlimit --rtprio=3:3 true 2>/dev/null; then
    run "nobody with RLIMIT_RTPRIO 3: granted at 3" prlimit --rtprio=3:3 "${nobody[@]}" "$copy" \
      granted "SCHED_FIFO 3"
  else
    echo "== nobody with RLIMIT_RTPRIO 3: skipped: this host does not let RLIMIT_RTPRIO be raised (no CAP_SYS_RESOURCE)"
  fi
  run "a busy thread beside the pacer raised at 1 kHz" "$check" share
else
  echo "== not root: the paths as other users are skipped (they need setpriv as root)"
  if chrt -f 5 true 2>/dev/null; then
    run "this user: granted" "$check" granted "SCHED_FIFO 5"
    run "a busy thread beside the pacer raised at 1 kHz" "$check" share
  else
    run "this user: refused" "$check" refused "refused"
    exit $((fail ? 1 : 77))
  fi
fi
[ $fail = 0 ] && echo PASS
exit $fail
