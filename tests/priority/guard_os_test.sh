#!/usr/bin/env bash
# The real-time guard (pacer/guard.hpp) on the real Linux kernel, with the real-time class the
# process grants itself (root; guard_check.cpp says what each run checks):
#   1-2. thread and automatic under RLIMIT_RTTIME 200 ms soft and hard, as RealtimeKit demands: a
#        500 ms frame is put back while it computes, gets no SIGXCPU and no SIGKILL (the exit
#        status), and light frames raise the thread again;
#   3-4. thread and automatic with frames that compute 120 % of the period: a busy thread on the
#        pacer's core keeps at least 90 % of its share beside the normal pacer.
# RealtimeKit's grant, as nobody, is checked the same way in realtimekit_test.sh.
#
# usage: guard_os_test.sh GUARD_CHECK   (exit 0 ok, 1 failed, 77 nothing could run)
set -u
check=$1
. "$(dirname "$0")/as_users.sh"

if ! chrt -f 5 true 2>/dev/null; then
  echo "skipped: this user may not set a real-time class (the guard watches only what pacer raised)"
  exit 77
fi
if [ "$(nproc)" -lt 2 ]; then
  echo "skipped: one CPU (automatic raises nothing there)"
  exit 77
fi
for mode in thread automatic; do
  run "$mode, RLIMIT_RTTIME 200/200 ms: a 500 ms frame is put back, unsignalled, and raised again" \
    prlimit --rttime=200000:200000 "$check" long-frame $mode "SCHED_FIFO 5"
done
for mode in thread automatic; do
  run "$mode, frames computing 120 % of the period: busy threads on every CPU keep their share" \
    "$check" cpu-bound $mode
done
[ $fail = 0 ] && echo PASS
exit $fail
