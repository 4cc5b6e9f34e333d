#!/usr/bin/env bash
# `vt generate --regex` on the embedded model: greedy and sampled outputs (temperature 1, several
# seeds) end with stop and match the whole regex (Python's re judging); a regex the compiler refuses
# is a failed run naming the construct; --regex with --json-schema is a usage error.
# Usage: generate_regex_test.sh VT_BINARY
set -uo pipefail
vt=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# shellcheck source=expect_refusal.sh
source "$(dirname "$0")/expect_refusal.sh"
regex='[A-Z][a-z]{2,8} (is|was) \d{1,3}(\.\d)?%\.'
for args in "--temperature 0" "--temperature 1 --seed 1" "--temperature 1 --seed 2" "--temperature 1 --seed 3"; do
  # shellcheck disable=SC2086
  "$vt" generate --prompt "Here is a fortune:" --regex "$regex" --max-tokens 60 $args --json \
    >"$work/out.json" 2>"$work/err.log" || { echo "FAIL $args: vt generate failed: $(cat "$work/err.log")"; failures=$((failures + 1)); continue; }
  if python3 - "$work/out.json" "$regex" <<'PY'; then echo "ok   $args"; else echo "FAIL $args"; failures=$((failures + 1)); fi
import json, re, sys
run = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert run["finish_reason"] == "stop", run
assert re.fullmatch(sys.argv[2], run["text"], re.ASCII), run
print(run["text"])
PY
done
expect_refusal "a lookbehind" "lookbehind '(?<=' at offset 1" "$vt" generate --prompt "x" --regex 'a(?<=b)'
echo '{"type": "string"}' >"$work/schema.json"
if "$vt" generate --prompt "x" --regex 'a' --json-schema "$work/schema.json" >/dev/null 2>&1; then
  echo "FAIL --regex with --json-schema was accepted"; failures=$((failures + 1))
fi
exit $((failures > 0))
