# Sourced by priority_os_test.sh and weight_os_test.sh: what running a check program as other
# users needs.
#   run TITLE COMMAND...      runs it, prints "== TITLE: ok" or "FAILED" (and sets fail=1)
#   copy_for_nobody PROGRAM   sets $copy to a copy nobody may run (a build tree under a private
#                             home is not readable by nobody), in a directory removed at exit
#   nobody                    the setpriv prefix that runs a command as nobody
fail=0
run() {
  local title=$1
  shift
  echo "== $title"
  if "$@"; then echo "== $title: ok"; else echo "== $title: FAILED"; fail=1; fi
}
copy_for_nobody() {
  as_users_tmp=$(mktemp -d)
  trap 'rm -rf "$as_users_tmp"' EXIT
  copy=$as_users_tmp/$(basename "$1")
  cp "$1" "$copy"
  chmod 755 "$as_users_tmp" "$copy"
}
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
