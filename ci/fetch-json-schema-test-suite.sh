#!/usr/bin/env bash
# Installs the JSON-Schema-Test-Suite's draft-4 cases, as published on npm (json-schema-test-suite,
# pinned), into a cache outside the tree for the grammar engine's agreement test:
# ${VT_NODE_CACHE:-$HOME/.cache/vt/node}/json-schema-test-suite/node_modules/json-schema-test-suite/tests/draft4.
# The suite's data is read at test time, never copied into this repository.
# Idempotent; exits 0 with a note when npm or the registry is unavailable, so the test reports
# itself skipped with that reason.
set -uo pipefail
cache=${VT_NODE_CACHE:-$HOME/.cache/vt/node}/json-schema-test-suite
version=0.0.10
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$cache/node_modules/json-schema-test-suite/package.json" ] &&
   grep -q "\"version\": \"$version\"" "$cache/node_modules/json-schema-test-suite/package.json"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-json-schema-test-suite: npm not found" | tee "$cache/UNAVAILABLE"
  exit 0
fi
# Its own package root, so npm installs here and not into a package.json found further up.
[ -f "$cache/package.json" ] || echo '{"private": true}' > "$cache/package.json"
if (cd "$cache" && timeout 180 npm install --silent --no-audit --no-fund --ignore-scripts \
      "json-schema-test-suite@$version" >install.log 2>&1); then
  rm -f "$cache/UNAVAILABLE"
  echo "fetch-json-schema-test-suite: json-schema-test-suite@$version -> $cache"
else
  echo "fetch-json-schema-test-suite: npm install json-schema-test-suite@$version failed: $(tail -n1 "$cache/install.log")" |
    tee "$cache/UNAVAILABLE"
fi
exit 0
