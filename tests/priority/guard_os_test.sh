#!/usr/bin/env bash
# The real-time guard (pacer/guard.hpp) on the real Linux kernel (guard_check.cpp says what each
# run checks), with the real-time class the process grants itself (root) and, as nobody, the one
# the real RealtimeKit grants (rtkit-daemon and polkitd on a private system bus:
# tests/priority/rtkit_env.sh, as in priority.realtimekit):
#   1-2. root, thread and automatic under RLIMIT_RTTIME 200 ms soft and hard (what RealtimeKit
#        demands): a 500 ms frame is put back while it computes, gets no SIGXCPU and no SIGKILL
#        (the exit status), and light frames raise the thread again;
#   3-4. root, thread and automatic with frames that compute 120 % of the period (they never
#        sleep): busy threads, one on each CPU, keep at least 90 % of their share beside the
#        normal pacer;
#   5-6. nobody, automatic, RealtimeKit's SCHED_RR 5 (pacer sets RLIMIT_RTTIME 200/200 ms for
#        it): the same long frame, and the same overrunning frames, each raise by RealtimeKit
#        carrying the kernel's RLIMIT_RTTIME count on (no sleep resets it): unsignalled, unkilled;
#   7.   nobody with xdg-desktop-portal on its session bus: the grant comes from the Realtime
#        portal (asked first where it answers), and the long frame is put back the same way.
# Runs 5-7 are skipped, saying why, where the private RealtimeKit (or the portal) cannot run (not
# root, no rtkit-daemon, polkitd or xdg-desktop-portal, no mount namespace, no D-Bus headers at
# build time).
#
# usage: guard_os_test.sh GUARD_CHECK [DBUS]   (DBUS: ON when the library was built with the D-Bus
#        headers; exit 0 ok, 1 failed, 77 nothing could run)
set -u
check=$1
dbus=${2:-ON}
here=$(dirname "$0")
. "$here/as_users.sh"

if ! chrt -f 5 true 2>/dev/null; then
  echo "skipped: this user may not set a real-time class (the guard watches only what pacer raised)"
  exit 77
fi
if [ "$(nproc)" -lt 2 ]; then
  echo "skipped: one CPU (automatic raises nothing there)"
  exit 77
fi
for mode in thread automatic; do
  run "root, $mode, RLIMIT_RTTIME 200/200 ms: a 500 ms frame is put back, unsignalled, and raised again" \
    prlimit --rttime=200000:200000 "$check" long-frame $mode "SCHED_FIFO 5"
done
for mode in thread automatic; do
  run "root, $mode, frames computing 120 % of the period: busy threads on every CPU keep their share" \
    "$check" cpu-bound $mode
done

. "$here/rtkit_env.sh"
if [ "$dbus" != ON ]; then
  echo "== nobody through RealtimeKit: skipped: pacer was built without the D-Bus headers (libdbus-1-dev)"
elif ! rtkit_env_check; then
  echo "== nobody through RealtimeKit: skipped: $rtkit_env_missing"
else
  trap rtkit_env_stop EXIT
  if ! rtkit_env_start; then
    echo "== nobody through RealtimeKit: FAILED to start: $rtkit_env_error"
    rtkit_env_logs
    exit 1
  fi
  copy_for_nobody "$check"
  trap 'rtkit_env_stop; rm -rf "$as_users_tmp"' EXIT
  run "nobody, automatic from RealtimeKit: a 500 ms frame is put back, unsignalled, and raised again" \
    as_nobody "" "$copy" long-frame automatic "SCHED_RR 5 (RealtimeKit, RLIMIT_RTTIME 200 ms)"
  run "nobody, automatic from RealtimeKit, frames computing 120 % of the period: unkilled, busy threads keep their share" \
    as_nobody "" "$copy" cpu-bound automatic
  # The portal first where it answers (a Flatpak's only way to RealtimeKit): the same long frame.
  if ! rtkit_env_check_portal; then
    echo "== nobody through the Realtime portal: skipped: $rtkit_env_missing"
  elif ! rtkit_env_start_portal; then
    echo "== nobody through the Realtime portal: FAILED to start: $rtkit_env_error"
    fail=1
  else
    run "nobody, automatic from the Realtime portal: a 500 ms frame is put back, unsignalled, and raised again" \
      as_nobody "$rtkit_env_session" "$copy" long-frame automatic "SCHED_RR 5 (the Realtime portal, RLIMIT_RTTIME 200 ms)"
  fi
  [ $fail = 0 ] || rtkit_env_logs
fi
[ $fail = 0 ] && echo PASS
exit $fail
