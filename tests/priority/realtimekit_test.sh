#!/usr/bin/env bash
# pacer::sdl2::request_realtime() and request_high() against the real RealtimeKit, as a desktop user would meet it,
# without touching the machine's own D-Bus or /etc. The script starts, all its own, with
# tests/priority/rtkit_env.sh (which says how):
#   - a system bus, dbus-daemon on $tmp/system_bus_socket, with the policies of
#     /usr/share/dbus-1/system.d (rtkit's and polkit's bus names) and no service activation;
#   - polkitd on it, inside a mount namespace of its own where $tmp/rules.d is bind-mounted over
#     /etc/polkit-1/rules.d and an empty directory over /usr/share/polkit-1/rules.d: the only rule
#     is the test's (polkitd reads rules from those two directories only);
#   - rtkit-daemon on it (--no-canary --no-limit-resources; it starts as root and drops to the
#     rtkit user, as systemd starts it), logging to $tmp/rtkit.log;
#   - a session bus for nobody: SDL 2 uses D-Bus only when it can reach a session bus.
# realtimekit_check.cpp says what each run checks. The runs:
#   1. root, no RealtimeKit reachable: refused, and the reason says the process may raise itself
#      (SDL 2 asks RealtimeKit even for root);
#   2. nobody (RLIMIT_RTPRIO 0, as a login session has it), polkit rule allowing
#      org.freedesktop.RealtimeKit1.*: granted SCHED_RR 20 with SCHED_RESET_ON_FORK, what rtkit
#      logged agrees; pacer with normal keeps it, thread is refused and keeps it;
#   3. the same, spinning: RLIMIT_RTTIME ends the process (SIGXCPU, then SIGKILL);
#   4. nobody without a session bus: refused, the reason says so;
#   5. nobody with polkitd restarted without the rule: refused; the bus shows RealtimeKit's
#      answer, org.freedesktop.DBus.Error.AccessDenied (SDL drops it: its error text is generic).
# request_high() (the weight, nice -15), each beside the run above it:
#   1. root, no RealtimeKit reachable: granted through setpriority() directly, SCHED_RESET_ON_FORK
#      set by request_high (SDL does not), a forked child starts at nice 0;
#   2. nobody, polkit allowing RealtimeKit: granted at nice -15, rtkit logged three grants (SDL's
#      call alone on a thread of its own first: rtkit sets SCHED_RESET_ON_FORK itself; then
#      request_high's, and request_high's on a thread that set the flag before); pacer's default
#      priority (automatic) keeps it and the thread reads nice -15 after end_pacing(); a forked
#      child starts at nice 0; given back with setpriority();
#   2b. nobody granted again while a FramePacer keeps it, then root asks rtkit ResetKnown (what
#      rtkitctl --reset-known sends): the thread reads nice 0, the pacer's status still the kept
#      grant (pacer does not watch), and request_high() gets it back; rtkit logged the demotion;
#   4. nobody without a session bus: refused, the reason says so;
#   5. nobody with polkitd restarted without the rule: refused, still nice 0, AccessDenied on the bus.
# Every run starts at nice 0 (the script's own nice value is set to 0 first).
#
# usage: realtimekit_test.sh REALTIMEKIT_CHECK   (exit 0 ok, 1 failed, 77 skipped, saying why)
set -u
check=$1
skip() {
  echo "skipped: $*"
  exit 77
}

# shellcheck source=tests/priority/rtkit_env.sh source-path=SCRIPTDIR/../..
. "$(dirname "$0")/rtkit_env.sh"
rtkit_env_check || skip "$rtkit_env_missing"
trap rtkit_env_stop EXIT
fail() {
  echo "FAILED: $*"
  rtkit_env_logs
  exit 1
}
renice -n 0 -p $$ >/dev/null || skip "cannot set the script's nice value to 0"  # the checks start there
rtkit_env_start || fail "$rtkit_env_error"
tmp=$rtkit_env_dir
session=$rtkit_env_session
rtkit_name=$rtkit_env_rtkit_name
cp "$check" "$tmp/realtimekit_check"  # nobody cannot read a build tree under a private home
chmod 755 "$tmp/realtimekit_check"
echo "== private system bus $DBUS_SYSTEM_BUS_ADDRESS: polkitd $rtkit_env_polkitd, $rtkit_env_rtkit ($rtkit_name)"

failed=0
run() {  # title, expected exit status, then the command
  local title=$1 want=$2 rc
  shift 2
  echo "== $title"
  "$@"
  rc=$?
  if [ "$rc" = "$want" ]; then
    echo "== $title: ok"
  else
    echo "== $title: FAILED (exit $rc, expected $want)"
    failed=1
  fi
}
# rtkit-daemon names the user by uid: it looks names up after its chroot into /proc.
successes() { grep -Ec "Successfully made thread .* owned by '(nobody|65534)' RT at priority" "$tmp/rtkit.log"; }
high_successes() {
  grep -Ec "Successfully made thread .* owned by '(nobody|65534)' high priority at nice level -15" "$tmp/rtkit.log"
}

run "root, no RealtimeKit reachable: refused, may raise itself" 0 \
  env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no_bus "$tmp/realtimekit_check" refused \
  "this process may raise itself"
run "root, no RealtimeKit reachable: request_high granted through setpriority" 0 \
  env -i PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no_bus "$tmp/realtimekit_check" high-granted \
  "nice -15 (setpriority)"

before=$(successes)
run "nobody, polkit allows RealtimeKit: granted" 0 \
  as_nobody "$session" "$tmp/realtimekit_check" granted "SCHED_RR 20 (RealtimeKit, RLIMIT_RTTIME 100 ms)"
if [ "$(successes)" = $((before + 1)) ]; then
  echo "ok   rtkit-daemon logged the grant: $(grep "Successfully made thread" "$tmp/rtkit.log" | tail -1)"
else
  echo "FAIL rtkit-daemon did not log one grant to nobody"
  failed=1
fi

before=$(high_successes)
run "nobody, polkit allows RealtimeKit: request_high granted" 0 \
  as_nobody "$session" "$tmp/realtimekit_check" high-granted "nice -15 (RealtimeKit)"
# SDL's alone, request_high's (its second asks nothing), request_high's on a thread with the flag set before
if [ "$(high_successes)" = $((before + 3)) ]; then
  echo "ok   rtkit-daemon logged the grants: $(grep "high priority at nice level" "$tmp/rtkit.log" | tail -1)"
else
  echo "FAIL rtkit-daemon did not log three nice grants to nobody (SDL's alone, request_high's twice)"
  failed=1
fi

# RealtimeKit takes its grants back (reset_known(): ResetKnown here, its watchdog or its exit
# elsewhere); root alone may ask it (rtkit's bus policy). high-reset says when it holds one.
demotions() { grep -c "Successfully demoted thread" "$tmp/rtkit.log"; }
title="nobody granted nice -15, RealtimeKit's ResetKnown: taken back"
echo "== $title"
before=$(demotions)
install -m 644 -o 65534 -g 65534 /dev/null "$tmp/reset.sync"
as_nobody "$session" "$tmp/realtimekit_check" high-reset "$tmp/reset.sync" &
reset_pid=$!
if rtkit_env_wait_for 10 grep -qx granted "$tmp/reset.sync"; then
  dbus-send --system --print-reply --dest=org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1 \
    org.freedesktop.RealtimeKit1.ResetKnown >/dev/null || echo "FAIL ResetKnown was not answered"
  echo reset >"$tmp/reset.sync"
fi
wait "$reset_pid"
rc=$?
demoted=$(($(demotions) - before))
if [ "$rc" = 0 ] && [ "$demoted" -ge 1 ]; then
  echo "== $title: ok (rtkit-daemon: $(grep "Successfully demoted thread" "$tmp/rtkit.log" | tail -1))"
else
  echo "== $title: FAILED (exit $rc; rtkit-daemon logged $demoted demotions)"
  failed=1
fi

# SIGXCPU at the soft limit (100 ms), SIGKILL at the hard one (200 ms): exit 128 + 9.
title="nobody granted, spinning: RLIMIT_RTTIME ends it"
echo "== $title"
install -m 644 -o 65534 -g 65534 /dev/null "$tmp/budget.cpu"
as_nobody "$session" "$tmp/realtimekit_check" budget "$tmp/budget.cpu" | tee "$tmp/budget.log"
rc=${PIPESTATUS[0]}
xcpu=$(sed -n 's/.*SIGXCPU after \([0-9]*\) ms.*/\1/p' "$tmp/budget.log")
killed=$(tr -d '\n' <"$tmp/budget.cpu")
if [ "$rc" = 137 ] && [ -n "$xcpu" ] && [ "$xcpu" -ge 95 ] && [ "$xcpu" -lt 200 ] && [ -n "$killed" ] &&
  [ "$killed" -ge 195 ] && [ "$killed" -lt 400 ]; then
  echo "== $title: ok (SIGXCPU after $xcpu ms of CPU, SIGKILL after $killed ms)"
else
  echo "== $title: FAILED (exit $rc, expected 137 for SIGKILL; SIGXCPU after ${xcpu:-no} ms, expected 95-199;" \
    "SIGKILL after ${killed:-no} ms, expected 195-399)"
  failed=1
fi

run "nobody without a session bus: refused, says so" 0 \
  as_nobody "" "$tmp/realtimekit_check" refused "no D-Bus session bus"
run "nobody without a session bus: request_high refused, says so" 0 \
  as_nobody "" "$tmp/realtimekit_check" high-refused "no D-Bus session bus"

rtkit_env_restart_polkit "$tmp/no-rules.d" || fail "$rtkit_env_error"
dbus-monitor --address "$DBUS_SYSTEM_BUS_ADDRESS" "type='error'" >"$tmp/monitor.log" 2>&1 &
monitor=$!
rtkit_env_pids+=("$monitor")
sleep 0.5  # dbus-monitor becomes a monitor (BecomeMonitor) before anything is asked
before=$(successes)
before_high=$(high_successes)
run "nobody, polkitd without the rule: refused" 0 \
  as_nobody "$session" "$tmp/realtimekit_check" refused \
  "install and run rtkit-daemon, and allow org.freedesktop.RealtimeKit1 for this user in polkit"
run "nobody, polkitd without the rule: request_high refused" 0 \
  as_nobody "$session" "$tmp/realtimekit_check" high-refused \
  "install and run rtkit-daemon, and allow org.freedesktop.RealtimeKit1 for this user in polkit"
sleep 0.2
kill "$monitor"
wait "$monitor" 2>/dev/null
access_denied="^error .*sender=$rtkit_name .*error_name=org.freedesktop.DBus.Error.AccessDenied"
denied=$(grep -A1 "$access_denied" "$tmp/monitor.log")
n_denied=$(grep -c "$access_denied" "$tmp/monitor.log")
if [ "$n_denied" = 2 ]; then  # request_realtime's and request_high's
  echo "ok   RealtimeKit answered twice: $(echo "$denied" | tr -s ' \n' ' ')"
else
  echo "FAIL not two AccessDenied from RealtimeKit ($rtkit_name) on the bus ($n_denied):"
  cat "$tmp/monitor.log"
  failed=1
fi
[ "$(successes)" = "$before" ] || { echo "FAIL rtkit-daemon logged a grant"; failed=1; }
[ "$(high_successes)" = "$before_high" ] || { echo "FAIL rtkit-daemon logged a nice grant"; failed=1; }

if [ $failed != 0 ]; then
  fail "see above"
fi
echo PASS
