#!/usr/bin/env bash
# Installs the official `openai` npm package and the `ajv` JSON Schema validator (both pinned) into
# a cache outside the tree for the server's client tests:
# ${VT_NODE_CACHE:-$HOME/.cache/vt/node}/node_modules/{openai,ajv}.
# Idempotent; exits 0 with a note when node, npm or the registry is unavailable, so the
# tests report themselves skipped with that reason.
set -uo pipefail
cache=${VT_NODE_CACHE:-$HOME/.cache/vt/node}
version=4.95.0
ajv_version=8.17.1
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$cache/node_modules/openai/package.json" ] &&
   grep -q "\"version\": \"$version\"" "$cache/node_modules/openai/package.json" &&
   [ -f "$cache/node_modules/ajv/package.json" ] &&
   grep -q "\"version\": \"$ajv_version\"" "$cache/node_modules/ajv/package.json"; then
  exit 0
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "fetch-openai-client: node or npm not found" | tee "$cache/UNAVAILABLE"
  exit 0
fi
if (cd "$cache" && timeout 180 npm install --silent --no-audit --no-fund "openai@$version" "ajv@$ajv_version" >install.log 2>&1); then
  rm -f "$cache/UNAVAILABLE"
  echo "fetch-openai-client: openai@$version ajv@$ajv_version -> $cache"
else
  echo "fetch-openai-client: npm install openai@$version ajv@$ajv_version failed: $(tail -n1 "$cache/install.log")" | tee "$cache/UNAVAILABLE"
fi
exit 0
