# Sourced by the `vt generate` constraint tests, which keep `work` (a temporary folder) and count
# `failures`. expect_refusal WHAT TEXT COMMAND...: COMMAND fails and its stderr names TEXT.
expect_refusal() {
  local what=$1 text=$2
  shift 2
  if "$@" 2>"$work/refusal.log" >/dev/null; then
    echo "FAIL $what was accepted"; failures=$((failures + 1))
  elif grep -qF -- "$text" "$work/refusal.log"; then
    echo "ok   $what is refused naming $text"
  else
    echo "FAIL $what: the refusal does not name $text: $(cat "$work/refusal.log")"; failures=$((failures + 1))
  fi
}
