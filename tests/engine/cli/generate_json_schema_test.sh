#!/usr/bin/env bash
# `vt generate --json-schema` on the embedded model: greedy and sampled outputs (temperature 1,
# several seeds) parse as JSON and meet the schema (checked by hand in python3: types, required
# keys, the enum, the array bound); a string pattern holds in full; a schema the compiler refuses is a
# failed run naming the keyword.
# Also --logit-bias and --min-tokens on EOS.
# Usage: generate_json_schema_test.sh VT_BINARY
set -uo pipefail
vt=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/schema.json" <<'JSON'
{"type": "object",
 "properties": {"name": {"type": "string", "maxLength": 12},
                "count": {"type": "integer"},
                "tags": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "maxItems": 3}},
 "required": ["name", "count", "tags"]}
JSON
failures=0
for args in "--temperature 0" "--temperature 1 --seed 1" "--temperature 1 --seed 2" "--temperature 1 --seed 3"; do
  # shellcheck disable=SC2086
  "$vt" generate --prompt "Here is a fortune:" --json-schema "$work/schema.json" --max-tokens 200 $args --json \
    >"$work/out.json" 2>"$work/err.log" || { echo "FAIL $args: vt generate failed: $(cat "$work/err.log")"; failures=$((failures + 1)); continue; }
  if python3 - "$work/out.json" <<'PY'; then echo "ok   $args"; else echo "FAIL $args"; failures=$((failures + 1)); fi
import json, sys
run = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert run["finish_reason"] == "stop", run
out = json.loads(run["text"])
assert isinstance(out, dict) and set(out) == {"name", "count", "tags"}, out
assert isinstance(out["name"], str) and len(out["name"]) <= 12, out
assert isinstance(out["count"], int) and not isinstance(out["count"], bool), out
assert isinstance(out["tags"], list) and len(out["tags"]) <= 3 and all(t in ("red", "green", "blue") for t in out["tags"]), out
print(run["text"])
PY
done
# A string `pattern` (unanchored in JSON Schema; this one anchors itself), sampled: the decoded
# string matches it in full, judged by Python's re.
echo '{"type": "object", "properties": {"code": {"type": "string", "pattern": "^[a-z]{3}-[0-9]{2}$"}}, "required": ["code"]}' \
  >"$work/pattern.json"
for seed in 1 2 3; do
  "$vt" generate --prompt "Here is a fortune:" --json-schema "$work/pattern.json" --max-tokens 64 --temperature 1 \
    --seed $seed --json >"$work/out.json" 2>"$work/err.log" || { echo "FAIL pattern seed $seed: $(cat "$work/err.log")"; failures=$((failures + 1)); continue; }
  if python3 - "$work/out.json" <<'PY'; then echo "ok   pattern, seed $seed"; else echo "FAIL pattern, seed $seed"; failures=$((failures + 1)); fi
import json, re, sys
run = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert run["finish_reason"] == "stop", run
out = json.loads(run["text"])
assert re.fullmatch(r"[a-z]{3}-[0-9]{2}", out["code"]), out
print(run["text"])
PY
done
echo '{"type": "string", "format": "email"}' >"$work/bad.json"
if "$vt" generate --prompt "x" --json-schema "$work/bad.json" 2>"$work/bad.log" >/dev/null; then
  echo "FAIL a schema with 'format' was accepted"; failures=$((failures + 1))
elif grep -q format "$work/bad.log"; then
  echo "ok   an unsupported keyword is refused by name"
else
  echo "FAIL the refusal does not name 'format': $(cat "$work/bad.log")"; failures=$((failures + 1))
fi
# --logit-bias on EOS (id 0) ends the output at once; --min-tokens holds it back for 5 tokens.
ids() { "$vt" generate --prompt "Hi" --max-tokens 20 --logit-bias 0=100 "$@" --json 2>/dev/null |
  python3 -c "import json,sys; print(json.loads(sys.stdin.read().splitlines()[-1])['token_ids'])"; }
early=$(ids) held=$(ids --min-tokens 5)
if [ "$early" = "[0]" ] && python3 -c "import sys; t=$held; sys.exit(0 if len(t) == 6 and t[-1] == 0 and 0 not in t[:-1] else 1)"; then
  echo "ok   --logit-bias and --min-tokens"
else
  echo "FAIL --logit-bias / --min-tokens: $early / $held"; failures=$((failures + 1))
fi
if "$vt" generate --prompt "x" --logit-bias 4096=1 >/dev/null 2>&1; then
  echo "FAIL --logit-bias outside the vocabulary was accepted"; failures=$((failures + 1))
fi
exit $((failures > 0))
