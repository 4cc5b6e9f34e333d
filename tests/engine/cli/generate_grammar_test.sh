#!/usr/bin/env bash
# `vt generate --grammar` on the embedded model: greedy and sampled outputs (temperature 1, several
# seeds) of a GBNF grammar of nested lists end with stop and are sentences of it (Python's json
# judging, beside the grammar's own bounds); a grammar with a mistake is a failed run naming it and
# its line:column; a file that cannot be read, or --grammar with --regex, is a usage error (exit 2).
# Usage: generate_grammar_test.sh VT_BINARY
set -uo pipefail
vt=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# shellcheck source=expect_refusal.sh
source "$(dirname "$0")/expect_refusal.sh"
cat >"$work/lists.gbnf" <<'GBNF'
# Nested lists of digits, at most four items each.
root ::= list
list ::= "[" ( item ( "," item ){0,3} )?
         "]"
item ::= [0-9] | list
GBNF
for args in "--temperature 0" "--temperature 1 --seed 1" "--temperature 1 --seed 2" "--temperature 1 --seed 3"; do
  # shellcheck disable=SC2086
  "$vt" generate --prompt "Here is a fortune:" --grammar "$work/lists.gbnf" --max-tokens 60 $args --json \
    >"$work/out.json" 2>"$work/err.log" || { echo "FAIL $args: vt generate failed: $(cat "$work/err.log")"; failures=$((failures + 1)); continue; }
  if python3 - "$work/out.json" <<'PY'; then echo "ok   $args"; else echo "FAIL $args"; failures=$((failures + 1)); fi
import json, sys
run = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert run["finish_reason"] == "stop", run
def valid(v):
    if isinstance(v, list):
        return len(v) <= 4 and all(valid(x) for x in v)
    return type(v) is int and 0 <= v <= 9
value = json.loads(run["text"])
assert valid(value) and json.dumps(value, separators=(",", ":")) == run["text"], run
print(run["text"])
PY
done
printf 'root ::= "a"\n  | item\n' >"$work/bad.gbnf"
expect_refusal "an undefined rule" "undefined rule 'item' at 2:5" "$vt" generate --prompt "x" --grammar "$work/bad.gbnf"
printf 'root ::= expr\nexpr ::= expr "+" "1" | "1"\n' >"$work/left.gbnf"
expect_refusal "left recursion" "left recursion: rule 'expr' can begin with itself (expr -> expr) at 2:10" \
  "$vt" generate --prompt "x" --grammar "$work/left.gbnf"
"$vt" generate --prompt "x" --grammar "$work/missing.gbnf" >/dev/null 2>"$work/missing.log"
rc=$?
if [ "$rc" = 2 ] && grep -q "missing.gbnf" "$work/missing.log"; then
  echo "ok   a missing file is a usage error naming it"
else
  echo "FAIL a missing file: exit $rc, $(cat "$work/missing.log")"; failures=$((failures + 1))
fi
"$vt" generate --prompt "x" --grammar "$work/lists.gbnf" --regex 'a' >/dev/null 2>&1
rc=$?
if [ "$rc" = 2 ]; then echo "ok   --grammar with --regex is a usage error"; else echo "FAIL --grammar with --regex: exit $rc"; failures=$((failures + 1)); fi
exit $((failures > 0))
