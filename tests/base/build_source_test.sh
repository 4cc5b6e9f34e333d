#!/usr/bin/env bash
# cmake/VtBuildSource.cmake on a real git repository in a temp dir: a clean tree is named by its
# commit alone, a changed tracked file adds a hash of the change (a different change, a different
# hash), reverting it gives the commit again, a folder outside git says so, and an unchanged name
# leaves the generated file untouched (so a build with nothing new recompiles nothing). Then
# `vt --version` and `vt bench decode --json` name the same source.
# Usage: build_source_test.sh SCRIPT VT_BINARY
set -uo pipefail
script=$1
vt=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../shell_check.sh"  # check NAME COMMAND...
source_of() {  # source_of DIR -> the generated name, without its quotes
  cmake -DSOURCE_DIR="$1" -DOUTPUT="$work/out.inc" -P "$script" || return 1
  tr -d '"\n' < "$work/out.inc"
}

repo=$work/repo
git init -q "$repo" && git -C "$repo" config user.email t@example.com && git -C "$repo" config user.name t
echo one > "$repo/file.txt" && git -C "$repo" add file.txt && git -C "$repo" commit -q -m first
commit=$(git -C "$repo" rev-parse --short=12 HEAD)

clean=$(source_of "$repo")
check "a clean tree is its commit" test "$clean" = "$commit"
touch -d @1000000000 "$work/out.inc"  # a rewrite would give it the present time
source_of "$repo" > /dev/null
check "an unchanged name leaves the file untouched" test "$(stat -c %Y "$work/out.inc")" = 1000000000

echo two > "$repo/file.txt"
changed=$(source_of "$repo")
check "a changed tracked file adds a diff hash" grep -Eq "^$commit\+diff\.[0-9a-f]{12}$" <<<"$changed"
echo three > "$repo/file.txt"
other=$(source_of "$repo")
check "another change, another hash" test "$other" != "$changed"
echo two > "$repo/file.txt"
check "the same change, the same hash" test "$(source_of "$repo")" = "$changed"
git -C "$repo" checkout -q file.txt
check "reverted, the commit again" test "$(source_of "$repo")" = "$commit"

mkdir "$work/plain"
check "outside git it says so" grep -q "^unknown" <<<"$(source_of "$work/plain")"

version=$("$vt" --version)
built=$(sed -n 's/.*(source \(.*\))$/\1/p' <<<"$version")
check "vt --version names its source" grep -Eq "^([0-9a-f]{12}(\+diff\.[0-9a-f]{12})?|unknown.*)$" <<<"$built"
"$vt" bench decode --backend cpu --concurrency 1 --input-len 4 --output-len 2 --json \
  > "$work/decode.json" 2>/dev/null
check "vt bench decode's JSON names the same source" python3 -c "
import json, sys
d = json.load(open('$work/decode.json'))
assert d['build_source'] == sys.argv[1], d['build_source']" "$built"

echo "$failures failure(s)"
exit $((failures > 0))
