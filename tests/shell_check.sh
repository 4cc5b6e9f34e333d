# Sourced by the shell tests: `check NAME COMMAND...` runs COMMAND and prints "ok   NAME" or
# "FAIL NAME", counting failures in $failures, so one run reports every failed check, not only the first.
failures=0
check() {
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}
