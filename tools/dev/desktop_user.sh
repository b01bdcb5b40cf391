#!/usr/bin/env bash
# Runs a command as an unprivileged desktop user would run it, with RealtimeKit to ask, without
# touching the machine's own D-Bus or /etc: for measuring what pacer gets where it may raise
# nothing itself (`pacer compare` as a desktop user, for one).
#
#   tools/dev/desktop_user.sh [--no-rtkit] [--portal] -- COMMAND [ARGS...]
#
# COMMAND runs as nobody (uid and gid 65534, no supplementary groups) with RLIMIT_RTPRIO 0 and
# RLIMIT_NICE 0, as a desktop login has them (neither a real-time class nor a nice value below 0
# without asking RealtimeKit), at nice 0, in a login session's environment: nothing inherited but
# PATH=/usr/bin:/bin, TERM and the caller's PACER_* variables; DBUS_SYSTEM_BUS_ADDRESS,
# DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR point at what this script starts
# (tests/priority/rtkit_env.sh, shared with the tests, says how):
#   - a private system bus, with polkitd allowing org.freedesktop.RealtimeKit1.* to anyone (its
#     only rule) and rtkit-daemon (--no-rtkit: without rtkit-daemon, as a desktop without rtkit);
#   - a session bus of nobody's, which starts no services;
#   - --portal: xdg-desktop-portal on that session bus, whose org.freedesktop.portal.Realtime
#     forwards to the private rtkit-daemon (pacer asks the portal first when it answers, as SDL).
# It prints one line on stderr saying what it started, passes COMMAND's exit status through, and
# stops everything it started when COMMAND ends, when it fails, and on SIGINT or SIGTERM (which
# it passes on to COMMAND first).
#
# It copies nothing: COMMAND's file must be readable and executable by nobody, and it says so
# when it is not (a build tree under /root is not: copy the program out first, e.g.
# `install -m 755 build/tools/pacer /tmp/`). An ARG naming a file nobody cannot read is pointed
# out too (valgrind's program, a capture to read); the current directory must be nobody's to enter
# for relative paths to work.
#
# Needs root, rtkit (unless --no-rtkit), polkitd, dbus-daemon, dbus-bin, util-linux (unshare,
# setpriv, prlimit) and, for --portal, xdg-desktop-portal (all in ./dev's PACKAGES).
# Exit status: COMMAND's; 125 when this script failed (the reason on stderr, with the daemons'
# logs when one did not start), 126 when nobody may not run COMMAND, 127 when it is not found,
# 2 on bad options.
set -u
usage() {
  echo "usage: tools/dev/desktop_user.sh [--no-rtkit] [--portal] -- COMMAND [ARGS...]"
}
no_rtkit=false
portal=false
while [ $# -gt 0 ]; do
  case $1 in
    --no-rtkit) no_rtkit=true ;;
    --portal) portal=true ;;
    --) shift; break ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[ $# -gt 0 ] || { usage >&2; exit 2; }
# shellcheck source=tests/priority/rtkit_env.sh source-path=SCRIPTDIR/../..
. "$(dirname "$0")/../../tests/priority/rtkit_env.sh"
die() {  # status, reason
  echo "desktop_user: $2" >&2
  exit "$1"
}

# COMMAND's file, as nobody's PATH finds it, and whether nobody may run it.
nobody_may() { setpriv --reuid=65534 --regid=65534 --clear-groups test "$@"; }
case $1 in
  */*) file=$1 ;;
  *) file=$(PATH=/usr/bin:/bin command -v "$1") || die 127 "$1: not found in nobody's PATH (/usr/bin:/bin)" ;;
esac
[ -f "$file" ] || die 127 "$file: no such file"
if ! nobody_may -r "$file" -a -x "$file"; then
  die 126 "nobody (uid 65534) may not read and execute $file (a directory above it, or the file itself, is not open to others): copy it somewhere nobody can, e.g. install -m 755 $file /tmp/"
fi
for arg in "${@:2}"; do
  if [ -f "$arg" ] && ! nobody_may -r "$arg"; then
    echo "desktop_user: note: nobody (uid 65534) may not read $arg" >&2
  fi
done

if $no_rtkit; then rtkit_env_check --no-rtkit; else rtkit_env_check; fi || die 125 "$rtkit_env_missing"
if $portal; then rtkit_env_check_portal || die 125 "--portal: $rtkit_env_missing"; fi

cmd_pid=""
on_signal() {  # signal: passed on to COMMAND (its status then ends the script), or ends it now
  if [ -n "$cmd_pid" ]; then
    kill -s "$1" "$cmd_pid" 2>/dev/null
  else
    exit $((128 + $(kill -l "$1")))
  fi
}
trap rtkit_env_stop EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
failed_to_start() {
  echo "desktop_user: $1" >&2
  rtkit_env_logs >&2
  exit 125
}

renice -n 0 -p $$ >/dev/null || die 125 "cannot set nice 0 (a login's) for what it starts"
if $no_rtkit; then rtkit_env_start --no-rtkit; else rtkit_env_start; fi || failed_to_start "$rtkit_env_error"
if $portal; then rtkit_env_start_portal || failed_to_start "$rtkit_env_error"; fi
what="polkitd (RealtimeKit allowed)"
$no_rtkit || what="$what, rtkit-daemon"
$portal && what="$what; xdg-desktop-portal on the session bus"
echo "desktop_user: as nobody (RLIMIT_RTPRIO 0, RLIMIT_NICE 0): private system bus with $what;" \
  "session bus $rtkit_env_session; running $*" >&2

rtkit_env_pass=()
[ -n "${TERM:-}" ] && rtkit_env_pass+=("TERM=$TERM")
for name in $(compgen -e); do
  [[ $name == PACER_* ]] && rtkit_env_pass+=("$name=${!name}")
done
# In the background, so that a signal reaches the trap at once (a foreground COMMAND would
# delay it until COMMAND ends); env --default-signal undoes the SIGINT and SIGQUIT a shell without
# job control ignores in what it starts in the background, so that Ctrl-C stops COMMAND as it
# would in a terminal.
rtkit_env_nobody "$rtkit_env_session"
"${rtkit_env_argv[@]}" env --default-signal=INT,QUIT "$@" &
cmd_pid=$!
# A trapped signal ends wait early (status 128 + its number) while COMMAND may still run: wait
# again while it exists. Never a wait for it once a wait has returned its status: bash 5.2 then
# waits for any child instead, forever (here the session bus), which is what a wait inside the
# trap did when Ctrl-C had ended COMMAND too (it reaches the whole process group).
wait "$cmd_pid"
rc=$?
while kill -0 "$cmd_pid" 2>/dev/null; do
  wait "$cmd_pid"
  rc=$?
done
exit $rc
