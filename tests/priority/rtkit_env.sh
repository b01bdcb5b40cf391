# A private RealtimeKit, as a desktop user meets it, without touching the machine's own D-Bus or
# /etc. Sourced by tests/priority/realtimekit_test.sh, tests/priority/bus_test.sh and
# tools/dev/desktop_user.sh (bash, root). It starts, all its own, in a directory of its own:
#   - a system bus, dbus-daemon on $rtkit_env_dir/system_bus_socket, with the policies of
#     /usr/share/dbus-1/system.d (rtkit's and polkit's bus names) and no service activation;
#   - polkitd on it, inside a mount namespace of its own where a rules directory is bind-mounted
#     over /etc/polkit-1/rules.d and an empty directory over /usr/share/polkit-1/rules.d: the only
#     rules are that directory's (polkitd reads rules from those two directories only);
#   - rtkit-daemon on it (--no-canary --no-limit-resources; it starts as root and drops to the
#     rtkit user, as systemd starts it), logging to $rtkit_env_dir/rtkit.log;
#   - a session bus for nobody (SDL 2 uses D-Bus only when it can reach a session bus), its socket
#     in nobody's runtime directory $rtkit_env_dir/session (as /run/user/UID/bus is);
#   - on request, xdg-desktop-portal as nobody on that session bus (its Realtime portal forwards
#     to the private rtkit-daemon).
#
#   rtkit_env_check [--no-rtkit]  0 when all of it can run here; else 1, the reason in
#                                 $rtkit_env_missing (the tests skip with it). --no-rtkit: rtkit
#                                 need not be installed
#   rtkit_env_start [RULES_DIR] [--no-rtkit]
#                                 starts the buses, polkitd with RULES_DIR's rules (default
#                                 $rtkit_env_dir/rules.d: one rule allowing
#                                 org.freedesktop.RealtimeKit1.* to anyone) and rtkit-daemon
#                                 (unless --no-rtkit); exports DBUS_SYSTEM_BUS_ADDRESS (the
#                                 private bus) and unsets DBUS_SESSION_BUS_ADDRESS, so that
#                                 nothing run from the script reaches the machine's own buses.
#                                 1 on failure, the reason in $rtkit_env_error
#   rtkit_env_restart_polkit RULES_DIR
#                                 polkitd again, with RULES_DIR's rules only ($rtkit_env_dir/
#                                 no-rules.d is empty: nothing allowed)
#   rtkit_env_check_portal        0 when rtkit_env_start_portal can work here; else 1, the reason
#                                 in $rtkit_env_missing
#   rtkit_env_start_portal        xdg-desktop-portal as nobody on the session bus (1 on failure,
#                                 the reason in $rtkit_env_error)
#   rtkit_env_stop                stops everything started, removes $rtkit_env_dir (callers trap
#                                 it: EXIT, and INT and TERM where a user may interrupt)
#   rtkit_env_logs                prints the daemons' logs (for a failure's report)
#   as_nobody BUS COMMAND...      runs COMMAND as nobody in a login session's environment,
#                                 nothing inherited: RLIMIT_RTPRIO 0 and RLIMIT_NICE 0, PATH, the
#                                 private system bus and, when BUS is not "", that session bus with
#                                 XDG_RUNTIME_DIR; ASAN_OPTIONS and UBSAN_OPTIONS when set, and
#                                 whatever NAME=VALUE the array rtkit_env_pass holds
#   rtkit_env_nobody BUS          sets the array rtkit_env_argv to as_nobody's command line before
#                                 COMMAND: "${rtkit_env_argv[@]}" COMMAND & gives $! COMMAND's pid
#   rtkit_env_wait_for SECONDS COMMAND...
#                                 waits until COMMAND succeeds (1 when it did not in time)
#
# What it sets: rtkit_env_dir (mode 755, for nobody: logs dbus-system.log, dbus-session.log,
# polkitd.log, rtkit.log, portal.log), rtkit_env_session (the session bus's address),
# rtkit_env_rtkit and rtkit_env_polkitd (the daemons' paths), rtkit_env_portal (the portal's path,
# after rtkit_env_check_portal), rtkit_env_rtkit_name (rtkit-daemon's unique bus name),
# rtkit_env_system_bus_pid, rtkit_env_rtkit_pid, rtkit_env_portal_pid (to stop or end one of
# them), rtkit_env_pids (what rtkit_env_stop ends; a caller may add its own).
# shellcheck shell=bash disable=SC2034  # sourced: its variables are for the scripts that source it
rtkit_env_dir=""
rtkit_env_session=""
rtkit_env_rtkit=""
rtkit_env_polkitd=""
rtkit_env_portal=""
rtkit_env_rtkit_name=""
rtkit_env_missing=""
rtkit_env_error=""
rtkit_env_pids=()
rtkit_env_pass=()
rtkit_env_argv=()
rtkit_env_polkitd_pid=""
rtkit_env_system_bus_pid=""
rtkit_env_rtkit_pid=""
rtkit_env_portal_pid=""

rtkit_env_check() {  # [--no-rtkit]
  local f tool err
  rtkit_env_missing=""
  if [ "$(id -u)" != 0 ]; then
    rtkit_env_missing="not root (the private buses, polkitd, rtkit-daemon and the runs as nobody need root)"
    return 1
  fi
  if [ "${1:-}" != --no-rtkit ]; then
    for f in /usr/libexec/rtkit-daemon /usr/lib/rtkit/rtkit-daemon; do [ -x "$f" ] && rtkit_env_rtkit=$f && break; done
    if [ -z "$rtkit_env_rtkit" ]; then
      rtkit_env_missing="rtkit-daemon is not installed (Debian: apt-get install rtkit)"
      return 1
    fi
  fi
  for f in /usr/lib/polkit-1/polkitd /usr/libexec/polkitd /usr/libexec/polkit-1/polkitd; do
    [ -x "$f" ] && rtkit_env_polkitd=$f && break
  done
  if [ -z "$rtkit_env_polkitd" ]; then
    rtkit_env_missing="polkitd is not installed (Debian: apt-get install polkitd)"
    return 1
  fi
  for tool in dbus-daemon dbus-send dbus-monitor unshare setpriv prlimit; do
    if ! command -v $tool >/dev/null; then
      rtkit_env_missing="$tool is not installed"
      return 1
    fi
  done
  if ! [ -d /etc/polkit-1/rules.d ] || ! [ -d /usr/share/polkit-1/rules.d ]; then
    rtkit_env_missing="no /etc/polkit-1/rules.d or /usr/share/polkit-1/rules.d to bind-mount over"
    return 1
  fi
  # The mount namespace polkitd will run in: allowed here? (A bind mount of the other rules
  # directory, in a namespace of its own: nothing outside it sees it.)
  if ! err=$(unshare -m --propagation private sh -c 'mount --bind /usr/share/polkit-1/rules.d /etc/polkit-1/rules.d' 2>&1); then
    rtkit_env_missing="no private mount namespace here (unshare -m; mount --bind: $err)"
    return 1
  fi
}

rtkit_env_wait_for() {  # seconds, then a command that succeeds once it is ready
  local tries=$(($1 * 10))
  shift
  while ! "$@" >/dev/null 2>&1; do
    tries=$((tries - 1))
    [ $tries -gt 0 ] || return 1
    sleep 0.1
  done
}
rtkit_env_has_owner() {  # bus name: owned on the private system bus?
  dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner "string:$1" | grep -q "boolean true"
}
rtkit_env_name_owner() {
  dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetNameOwner "string:$1" | tr -d ' '
}

# The files: the rules directories, the buses' configurations.
rtkit_env_write_files() {
  local d=$rtkit_env_dir
  chmod 755 "$d"  # nobody runs programs from here and connects to the sockets
  mkdir -m 755 "$d/rules.d" "$d/no-rules.d" "$d/empty"
  mkdir -m 700 "$d/session" && chown 65534:65534 "$d/session"
  cat >"$d/rules.d/50-realtimekit.rules" <<'EOF'
// The only rule: RealtimeKit for anyone.
polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.freedesktop.RealtimeKit1.") == 0) return polkit.Result.YES;
});
EOF
  chmod 644 "$d/rules.d/50-realtimekit.rules"
  # /usr/share/dbus-1/system.conf's default policy, on a socket of its own.
  cat >"$d/system.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <auth>EXTERNAL</auth>
  <listen>unix:path=$d/system_bus_socket</listen>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
          send_member="UpdateActivationEnvironment"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <includedir>/usr/share/dbus-1/system.d</includedir>
</busconfig>
EOF
  # A user's session bus: its own user only, no services to start.
  cat >"$d/session.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <auth>EXTERNAL</auth>
  <listen>unix:path=$d/session/session_bus_socket</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
}

# polkitd with the rules of $1 only. Not --no-debug: its log (rules loaded, errors) is the
# evidence when something fails.
rtkit_env_start_polkitd() {
  unshare -m --propagation private sh -c \
    'mount --bind "$1" /etc/polkit-1/rules.d && mount --bind "$2" /usr/share/polkit-1/rules.d && exec "$3"' \
    sh "$1" "$rtkit_env_dir/empty" "$rtkit_env_polkitd" >>"$rtkit_env_dir/polkitd.log" 2>&1 &
  rtkit_env_polkitd_pid=$!
  rtkit_env_pids+=("$rtkit_env_polkitd_pid")
  rtkit_env_wait_for 20 rtkit_env_has_owner org.freedesktop.PolicyKit1 ||
    { rtkit_env_error="polkitd did not take org.freedesktop.PolicyKit1"; return 1; }
}
rtkit_env_restart_polkit() {  # rules directory
  kill "$rtkit_env_polkitd_pid" && wait "$rtkit_env_polkitd_pid" 2>/dev/null
  rtkit_env_wait_for 10 sh -c '! dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.PolicyKit1 | grep -q "boolean true"' ||
    { rtkit_env_error="polkitd did not leave the bus"; return 1; }
  rtkit_env_start_polkitd "$1"
}

rtkit_env_start() {  # [rules directory] [--no-rtkit]
  local rules="" with_rtkit=true arg
  for arg in "$@"; do
    if [ "$arg" = --no-rtkit ]; then with_rtkit=false; else rules=$arg; fi
  done
  rtkit_env_dir=$(mktemp -d) || { rtkit_env_error="mktemp -d failed"; return 1; }
  rtkit_env_write_files
  [ -n "$rules" ] || rules=$rtkit_env_dir/rules.d
  export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$rtkit_env_dir/system_bus_socket
  unset DBUS_SESSION_BUS_ADDRESS
  rtkit_env_session=unix:path=$rtkit_env_dir/session/session_bus_socket

  # umask 000: the socket must be writable (connectable) by nobody.
  (umask 000 && exec dbus-daemon --config-file="$rtkit_env_dir/system.conf" --nofork --nopidfile) \
    >"$rtkit_env_dir/dbus-system.log" 2>&1 &
  rtkit_env_system_bus_pid=$!
  rtkit_env_pids+=("$rtkit_env_system_bus_pid")
  rtkit_env_wait_for 10 test -S "$rtkit_env_dir/system_bus_socket" ||
    { rtkit_env_error="the private system bus did not start"; return 1; }
  setpriv --reuid=65534 --regid=65534 --clear-groups dbus-daemon --config-file="$rtkit_env_dir/session.conf" \
    --nofork --nopidfile >"$rtkit_env_dir/dbus-session.log" 2>&1 &
  rtkit_env_pids+=("$!")
  rtkit_env_wait_for 10 test -S "$rtkit_env_dir/session/session_bus_socket" ||
    { rtkit_env_error="the session bus did not start"; return 1; }

  rtkit_env_start_polkitd "$rules" || return 1
  $with_rtkit || return 0
  "$rtkit_env_rtkit" --no-canary --no-limit-resources --stderr >"$rtkit_env_dir/rtkit.log" 2>&1 &
  rtkit_env_rtkit_pid=$!
  rtkit_env_pids+=("$rtkit_env_rtkit_pid")
  rtkit_env_wait_for 20 rtkit_env_has_owner org.freedesktop.RealtimeKit1 ||
    { rtkit_env_error="rtkit-daemon did not take org.freedesktop.RealtimeKit1"; return 1; }
  rtkit_env_rtkit_name=$(rtkit_env_name_owner org.freedesktop.RealtimeKit1)
}

# xdg-desktop-portal (Debian 12: 1.16.0) serves org.freedesktop.portal.Realtime for a host
# (unsandboxed) process too: it passes the caller's process and thread ids on as they are and
# forwards to RealtimeKit on the system bus (DBUS_SYSTEM_BUS_ADDRESS: the private one), as the
# portal process itself, so polkit judges the portal's user (nobody here, allowed by the rule).
# It needs no backend (xdg-desktop-portal-gtk and the like serve other portals). Without the
# permission store (not started here, and the session bus starts nothing) it logs "No 'realtime'
# permissions found" and allows, as a desktop's permission store without an entry does. It reads
# RealtimeKit's limits once, when it starts: zeros when RealtimeKit was not there then (even after
# it comes), the last ones after it has left.
rtkit_env_check_portal() {
  local f
  rtkit_env_missing=""
  for f in /usr/libexec/xdg-desktop-portal /usr/lib/xdg-desktop-portal/xdg-desktop-portal; do
    [ -x "$f" ] && rtkit_env_portal=$f && break
  done
  if [ -z "$rtkit_env_portal" ]; then
    rtkit_env_missing="xdg-desktop-portal is not installed (Debian: apt-get install --no-install-recommends xdg-desktop-portal)"
    return 1
  fi
  # The Realtime portal came with xdg-desktop-portal 1.12: the interface's name is in the
  # program of every version that has it. (bus.cpp skips the portals before 1.15 itself.)
  if ! grep -qa org.freedesktop.portal.Realtime "$rtkit_env_portal"; then
    rtkit_env_missing="$rtkit_env_portal has no Realtime portal (xdg-desktop-portal older than 1.12)"
    return 1
  fi
}
rtkit_env_portal_up() {
  as_nobody "$rtkit_env_session" dbus-send --session --print-reply --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.portal.Desktop |
    grep -q "boolean true"
}
rtkit_env_start_portal() {
  [ -n "$rtkit_env_portal" ] || rtkit_env_check_portal || { rtkit_env_error=$rtkit_env_missing; return 1; }
  # --verbose: what it serves and why it refuses, in portal.log.
  rtkit_env_nobody "$rtkit_env_session"
  "${rtkit_env_argv[@]}" "$rtkit_env_portal" --verbose >>"$rtkit_env_dir/portal.log" 2>&1 &
  rtkit_env_portal_pid=$!
  rtkit_env_pids+=("$rtkit_env_portal_pid")
  rtkit_env_wait_for 20 rtkit_env_portal_up ||
    { rtkit_env_error="xdg-desktop-portal did not take org.freedesktop.portal.Desktop on the session bus"; return 1; }
}

rtkit_env_stop() {
  local p
  for p in "${rtkit_env_pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${rtkit_env_pids[@]}"; do wait "$p" 2>/dev/null; done
  rtkit_env_pids=()
  [ -n "$rtkit_env_dir" ] && rm -rf "$rtkit_env_dir"
  rtkit_env_dir=""
}

rtkit_env_logs() {
  local log
  [ -n "$rtkit_env_dir" ] || return 0
  for log in dbus-system dbus-session polkitd rtkit portal; do
    [ -s "$rtkit_env_dir/$log.log" ] && { echo "---- $log.log"; cat "$rtkit_env_dir/$log.log"; }
  done
  return 0
}

# A login session's environment, nothing inherited from the caller's: RLIMIT_RTPRIO 0 and
# RLIMIT_NICE 0 (a desktop login's defaults: neither a real-time class nor a negative nice value
# without RealtimeKit), no display. rtkit_env_nobody BUS sets rtkit_env_argv to the command line
# before the command: each program in it execs the next, so that "${rtkit_env_argv[@]}" CMD &
# gives $! the command's own pid (a function run in the background, as_nobody's, is a subshell
# whose pid is not the command's: a signal to it would not reach the command).
rtkit_env_nobody() {  # session bus address or ""
  rtkit_env_argv=(prlimit --rtprio=0:0 --nice=0:0 setpriv --reuid=65534 --regid=65534 --clear-groups
    env -i PATH=/usr/bin:/bin "DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS")
  [ -z "$1" ] || rtkit_env_argv+=("DBUS_SESSION_BUS_ADDRESS=$1" "XDG_RUNTIME_DIR=$rtkit_env_dir/session")
  [ -z "${ASAN_OPTIONS:-}" ] || rtkit_env_argv+=("ASAN_OPTIONS=$ASAN_OPTIONS")
  [ -z "${UBSAN_OPTIONS:-}" ] || rtkit_env_argv+=("UBSAN_OPTIONS=$UBSAN_OPTIONS")
  rtkit_env_argv+=("${rtkit_env_pass[@]}")
}
as_nobody() {  # session bus address or "", then the command
  local bus=$1
  shift
  rtkit_env_nobody "$bus"
  "${rtkit_env_argv[@]}" "$@"
}
