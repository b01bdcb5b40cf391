#!/usr/bin/env bash
# pacer's own D-Bus client (pacer/src/platform/linux/bus.hpp: RealtimeKit and the xdg Realtime
# portal, libdbus loaded at run time) against the real daemons, as a desktop user meets them,
# without touching the machine's own D-Bus or /etc: the private system bus, polkitd with one rule
# allowing org.freedesktop.RealtimeKit1.*, rtkit-daemon and nobody's session bus of
# tests/priority/rtkit_env.sh. Every run is nobody's (RLIMIT_RTPRIO 0, RLIMIT_NICE 0: the process
# may raise nothing itself); bus_check.cpp says what each mode checks. The runs:
#   1. no portal on the session bus, then no session bus at all: RealtimeKit answers read_limits
#      (its defaults 20, -15, 200000); grants make_realtime (SCHED_RR 10 with
#      SCHED_RESET_ON_FORK, on a thread of its own, RLIMIT_RTTIME 200 ms) and make_high_priority
#      (nice -10); four threads at once are each granted (rtkit-daemon logged every grant);
#   2. xdg-desktop-portal started on the session bus (where installed; else these runs are
#      skipped, saying so): the same answered and granted by the Realtime portal, which forwards
#      to RealtimeKit (rtkit-daemon logged the grants);
#   3. no system bus (DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent) and no session bus:
#      unreachable, the error says so, back at once; and no libdbus (/dev/null bind-mounted over
#      libdbus-1.so.3 in a mount namespace of the run's own): unreachable, the error names it;
#   4. a system bus that does not answer (its dbus-daemon stopped, SIGSTOP) and no session bus:
#      unreachable, each call back within its timeout (300 ms per round trip) and a margin; then
#      RealtimeKit stopped behind a bus that answers: make_realtime's request waits with its
#      looks (bus::Waiting) until its own deadline, "did not answer", back within the margin;
#   5. polkitd restarted without the rule: refused, not unreachable, the error names
#      org.freedesktop.DBus.Error.AccessDenied, by RealtimeKit directly and through the portal;
#   6. rtkit-daemon gone, the portal started again without it: the portal answers limits of 0
#      (it reads them once, at its start), so read_limits asks RealtimeKit, which is not there:
#      not known; the requests are unreachable by way of the portal ("could not reach
#      RealtimeKit"). (A portal started before RealtimeKit left keeps answering its last limits:
#      the requests are what tell.)
#
# usage: bus_test.sh [--valgrind] BUS_CHECK   (exit 0 ok, 1 failed, 77 skipped, saying why)
#   --valgrind  every run of BUS_CHECK under valgrind --error-exitcode=1 --leak-check=full:
#               any invalid access or leak fails it, but glibc's own in the run without
#               libdbus (a dlopen that fails keeps the path it looked up: 37 bytes, once, as
#               bus.cpp loads libdbus once)
set -u
wrap=()
if [ "${1:-}" = --valgrind ]; then
  wrap=(valgrind --error-exitcode=1 --leak-check=full --quiet)
  shift
fi
check=$1
skip() {
  echo "skipped: $*"
  exit 77
}
# shellcheck source=tests/priority/rtkit_env.sh source-path=SCRIPTDIR/../..
. "$(dirname "$0")/rtkit_env.sh"

rtkit_env_check || skip "$rtkit_env_missing"
if [ ${#wrap[@]} -gt 0 ]; then command -v valgrind >/dev/null || skip "valgrind is not installed"; fi
trap rtkit_env_stop EXIT
fail() {
  echo "FAILED: $*"
  rtkit_env_logs
  exit 1
}
renice -n 0 -p $$ >/dev/null || skip "cannot set the script's nice value to 0"  # the checks start there
rtkit_env_start || fail "$rtkit_env_error"
echo "== private system bus $DBUS_SYSTEM_BUS_ADDRESS: polkitd $rtkit_env_polkitd, $rtkit_env_rtkit ($rtkit_env_rtkit_name)"
tmp=$rtkit_env_dir
cp "$check" "$tmp/bus_check"  # nobody cannot read a build tree under a private home
chmod 755 "$tmp/bus_check"
if [ ${#wrap[@]} -gt 0 ]; then
  cat >"$tmp/valgrind.supp" <<'EOF'
{
   glibc: a dlopen that fails keeps the path it found in ld.so.cache
   Memcheck:Leak
   match-leak-kinds: definite
   fun:malloc
   ...
   fun:_dl_load_cache_lookup
   fun:_dl_map_object
}
EOF
  chmod 644 "$tmp/valgrind.supp"
  wrap+=("--suppressions=$tmp/valgrind.supp")
fi
bus_check=("${wrap[@]}" "$tmp/bus_check")
session=$rtkit_env_session

failed=0
run() {  # title, then the command
  local title=$1 rc
  shift
  echo "== $title"
  "$@"
  rc=$?
  if [ "$rc" = 0 ]; then
    echo "== $title: ok"
  else
    echo "== $title: FAILED (exit $rc)"
    failed=1
  fi
}
# rtkit-daemon names the user by uid: it looks names up after its chroot into /proc.
rt_grants() { grep -Ec "Successfully made thread .* owned by '(nobody|65534)' RT at priority 10" "$tmp/rtkit.log"; }
nice_grants() {
  grep -Ec "Successfully made thread .* owned by '(nobody|65534)' high priority at nice level -10" "$tmp/rtkit.log"
}
expect_grants() {  # what, counter, count before, how many more
  local now
  now=$($2)
  if [ "$now" = $(($3 + $4)) ]; then
    echo "ok   rtkit-daemon logged $4 $1"
  else
    echo "FAIL rtkit-daemon logged $((now - $3)) $1, not $4"
    failed=1
  fi
}

# 1. RealtimeKit directly: a session bus without a portal, and none at all.
for bus in "$session" ""; do
  where="no portal on the session bus"
  [ -n "$bus" ] || where="no session bus"
  rt=$(rt_grants)
  hi=$(nice_grants)
  run "nobody, $where: RealtimeKit's limits" as_nobody "$bus" "${bus_check[@]}" limits realtimekit
  run "nobody, $where: make_realtime granted by RealtimeKit" as_nobody "$bus" "${bus_check[@]}" realtime realtimekit 10
  run "nobody, $where: make_high_priority granted by RealtimeKit" as_nobody "$bus" "${bus_check[@]}" high realtimekit -10
  expect_grants "SCHED_RR 10 grant to nobody" rt_grants "$rt" 1
  expect_grants "nice -10 grant to nobody" nice_grants "$hi" 1
done
hi=$(nice_grants)
run "nobody: four threads at once, each granted by RealtimeKit" \
  as_nobody "$session" "${bus_check[@]}" concurrent realtimekit -10
expect_grants "nice -10 grants to nobody" nice_grants "$hi" 4

# 2. The Realtime portal.
portal=false
if ! rtkit_env_check_portal; then
  echo "== the Realtime portal: skipped: $rtkit_env_missing"
elif ! rtkit_env_start_portal; then
  fail "$rtkit_env_error"
else
  portal=true
  echo "== xdg-desktop-portal $rtkit_env_portal on nobody's session bus"
  rt=$(rt_grants)
  hi=$(nice_grants)
  run "nobody, the portal running: its limits" as_nobody "$session" "${bus_check[@]}" limits portal
  run "nobody, the portal running: make_realtime granted by the portal" \
    as_nobody "$session" "${bus_check[@]}" realtime portal 10
  run "nobody, the portal running: make_high_priority granted by the portal" \
    as_nobody "$session" "${bus_check[@]}" high portal -10
  expect_grants "SCHED_RR 10 grant to nobody (the portal's request)" rt_grants "$rt" 1
  expect_grants "nice -10 grant to nobody (the portal's request)" nice_grants "$hi" 1
  hi=$(nice_grants)
  run "nobody, the portal running: four threads at once, each granted by the portal" \
    as_nobody "$session" "${bus_check[@]}" concurrent portal -10
  expect_grants "nice -10 grants to nobody (the portal's requests)" nice_grants "$hi" 4
fi

# 3. No system bus, no session bus: unreachable, at once (a missing socket fails the connect).
# Under valgrind the bounds are loose: it runs the calls 20-50 times slower.
bound=200
[ ${#wrap[@]} -gt 0 ] && bound=3000
DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent run "nobody, no system bus: unreachable, says so" \
  as_nobody "" "${bus_check[@]}" unreachable "no system bus: cannot connect to unix:path=/nonexistent" 300 $bound
libdbus=$(ldconfig -p | sed -n 's/^[[:space:]]*libdbus-1\.so\.3 .*=> //p' | head -1)
if [ -n "$libdbus" ]; then
  rtkit_env_nobody "$session"
  run "nobody, no libdbus ($libdbus hidden): unreachable, the error names it" \
    unshare -m --propagation private sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$libdbus" \
    "${rtkit_env_argv[@]}" "${bus_check[@]}" unreachable "libdbus-1.so.3 could not be loaded" 300 $bound
else
  echo "== nobody, no libdbus: skipped: ldconfig does not know libdbus-1.so.3"
fi

# 4. A system bus that does not answer: the connection's Hello waits its timeout, no longer.
system_bus_pid=${rtkit_env_pids[0]}  # rtkit_env_start starts the system bus first
kill -STOP "$system_bus_pid"
run "nobody, the system bus stopped: unreachable within the timeout" \
  as_nobody "" "${bus_check[@]}" unreachable "did not answer within 300 ms" 300 $((300 + bound + 200))
kill -CONT "$system_bus_pid"
kill -STOP "$rtkit_env_rtkit_pid"
run "nobody, RealtimeKit stopped: the request's looks run until its deadline" \
  as_nobody "" "${bus_check[@]}" silent 300 $((300 + bound + 200))
kill -CONT "$rtkit_env_rtkit_pid"

# 5. polkitd without the rule: RealtimeKit refuses, and so does the portal for it.
rtkit_env_restart_polkit "$tmp/no-rules.d" || fail "$rtkit_env_error"
rt=$(rt_grants)
hi=$(nice_grants)
run "nobody, polkitd without the rule: RealtimeKit refuses" \
  as_nobody "" "${bus_check[@]}" denied realtimekit "org.freedesktop.DBus.Error.AccessDenied"
if $portal; then
  run "nobody, polkitd without the rule: the portal refuses" \
    as_nobody "$session" "${bus_check[@]}" denied portal "org.freedesktop.DBus.Error.AccessDenied"
fi
expect_grants "SCHED_RR 10 grants after polkitd lost the rule" rt_grants "$rt" 0
expect_grants "nice -10 grants after polkitd lost the rule" nice_grants "$hi" 0

# 6. The portal without RealtimeKit behind it.
if $portal; then
  kill "$rtkit_env_rtkit_pid" "$rtkit_env_portal_pid"
  wait "$rtkit_env_rtkit_pid" "$rtkit_env_portal_pid" 2>/dev/null
  rtkit_env_wait_for 10 sh -c '! dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.RealtimeKit1 | grep -q "boolean true"' ||
    fail "rtkit-daemon did not leave the bus"
  rtkit_env_wait_for 10 eval '! rtkit_env_portal_up' || fail "xdg-desktop-portal did not leave the session bus"
  rtkit_env_start_portal || fail "$rtkit_env_error"
  run "nobody, the portal without RealtimeKit: no limits, unreachable by way of the portal" \
    as_nobody "$session" "${bus_check[@]}" orphaned
fi

if [ $failed != 0 ]; then
  fail "see above"
fi
echo PASS
