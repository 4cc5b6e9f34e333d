#!/usr/bin/env bash
# `vt bench decode --backend cpu` end to end on the embedded model: the JSON numbers hold together,
# --plot writes an SVG that parses, --ab reports one ratio per concurrency, and bad arguments are
# one line on stderr with a non-zero exit.
# Usage: decode_cli_test.sh VT_BINARY cuda|no-cuda
set -uo pipefail
vt=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../../shell_check.sh"  # check NAME COMMAND...
py() {  # py FILE PYTHON-STATEMENTS-ON-d  -> exit status of the assertions
  python3 -c "import json,sys; d=json.load(open('$1')); $2"
}

small=(--backend cpu --concurrency 1,2 --input-len 8 --output-len 8)

"$vt" bench decode "${small[@]}" --json --plot "$work/plot.svg" >"$work/sweep.json" 2>"$work/sweep.err"
check "sweep exits 0" test $? -eq 0
check "sweep JSON has the pinned header" py "$work/sweep.json" "
assert d['backend'] == 'cpu' and d['input_len'] == 8 and d['output_len'] == 8, d
assert d['weight_bytes'] > 0 and d['copy_bandwidth_gb_s'] > 0, d
assert 'fortune-qwen3-7m' in d['model'], d['model']"
check "one result per concurrency, each of c x output_len tokens" py "$work/sweep.json" "
assert [r['concurrency'] for r in d['results']] == [1, 2], d
for r in d['results']:
    assert r['output_tokens'] == r['concurrency'] * 8, r
    assert r['output_tokens_per_s'] > 0 and r['seconds'] > 0, r
    assert abs(r['output_tokens_per_s'] - r['output_tokens'] / r['seconds']) < 1e-6 * r['output_tokens_per_s'], r"
check "TTFT and TPOT are present and ordered" py "$work/sweep.json" "
for r in d['results']:
    for k in ('ttft_ms', 'tpot_ms'):
        assert 0 < r[k]['median'] <= r[k]['p99'], (k, r)"
check "roofline is c x bandwidth / (weights + c x KV), and the fraction is measured / roofline" py "$work/sweep.json" "
for r in d['results']:
    assert r['kv_bytes_per_sequence'] > 0, r
    roof = r['concurrency'] * d['copy_bandwidth_gb_s'] * 1e9 / (d['weight_bytes'] + r['concurrency'] * r['kv_bytes_per_sequence'])
    assert abs(r['roofline_tokens_per_s'] - roof) < 1e-6 * roof, r
    assert 0 < r['roofline_fraction'], r
    assert abs(r['roofline_fraction'] - r['output_tokens_per_s'] / roof) < 1e-6, r"
check "the decodes' ITL while prompts wait is reported, with its mean" py "$work/sweep.json" "
assert d['max_decode_slowdown'] == 0, d
for r in d['results']:
    p = r['prefilling_itl_ms']
    assert set(p) == {'median', 'p99', 'mean', 'count', 'beside_prompts'}, p
    assert 0 <= p['beside_prompts'] <= p['count'], p"

# A pace: prompts chunked beside running decodes (four 300-token prompts, 32 tokens a step beside
# them) are held back while the decodes are owed steps of their own. Every request still finishes,
# and while prompts wait some steps run the decodes alone, which without a pace none does.
paced=(--backend cpu --concurrency 4 --input-len 300 --output-len 12 --max-num-batched-tokens 64
       --max-prefill-beside-decodes 32 --json)
for bound in 0 2; do
  "$vt" bench decode "${paced[@]}" --max-decode-slowdown $bound >"$work/paced-$bound.json" 2>"$work/paced.err"
  check "a run with --max-decode-slowdown $bound exits 0" test $? -eq 0
done
check "without a pace every step while prompts wait carries prompt tokens" py "$work/paced-0.json" "
r = d['results'][0]['prefilling_itl_ms']
assert d['results'][0]['output_tokens'] == 48, d
assert r['count'] > 0 and r['beside_prompts'] == r['count'], r"
check "with a pace, every token still comes and the decodes also run alone while prompts wait" python3 -c "
import json
d = json.load(open('$work/paced-2.json'))
paced = d['results'][0]
assert d['max_decode_slowdown'] == 2, d
assert paced['output_tokens'] == 48, paced
p = paced['prefilling_itl_ms']
assert p['beside_prompts'] < p['count'], p"

check "progress goes to stderr, not stdout" grep -q "bench decode: c=2: 16/16 tokens" "$work/sweep.err"
check "stdout is exactly one JSON document" test "$(wc -l <"$work/sweep.json")" -eq 1

check "the plot is well-formed SVG with a point per concurrency and a dashed roofline" python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse('$work/plot.svg').getroot()
ns = '{http://www.w3.org/2000/svg}'
assert root.tag == ns + 'svg', root.tag
lines = {p.get('class'): p for p in root.iter(ns + 'polyline')}
assert len(lines['measured'].get('points').split()) == 2, lines['measured'].get('points')
assert len(lines['roofline'].get('points').split()) == 2
assert lines['roofline'].get('stroke-dasharray')
assert len([c for c in root.iter(ns + 'circle') if c.get('class') == 'marker']) == 2
texts = [t.text for t in root.iter(ns + 'text')]
assert any('fortune-qwen3-7m' in t and 'cpu' in t for t in texts), texts
assert 'concurrency (log2 scale)' in texts and 'output tokens/s' in texts, texts"

"$vt" bench decode "${small[@]}" >"$work/table.txt" 2>/dev/null
check "the table has a row per concurrency" python3 -c "
rows = [l.split() for l in open('$work/table.txt') if l.split() and l.split()[0].isdigit()]
assert [r[0] for r in rows] == ['1', '2'], rows"

"$vt" bench decode "${small[@]}" --json --ab 'VT_BENCH_PROBE=a' 'VT_BENCH_PROBE=b' --ab-rounds 1 \
  >"$work/ab.json" 2>"$work/ab.err"
check "--ab exits 0" test $? -eq 0
check "--ab reports one ratio per concurrency" py "$work/ab.json" "
assert d['a'] == 'VT_BENCH_PROBE=a' and d['b'] == 'VT_BENCH_PROBE=b' and d['rounds'] == 1, d
assert [r['concurrency'] for r in d['results']] == [1, 2], d
for r in d['results']:
    assert len(r['ratios']) == 1 and r['ratios'][0] > 0 and r['median_ratio'] == r['ratios'][0], r
    assert abs(r['ratios'][0] - r['b_tokens_per_s'][0] / r['a_tokens_per_s'][0]) < 1e-9, r"
check "--ab runs A then B" python3 -c "
lines = [l for l in open('$work/ab.err') if l.startswith('bench decode --ab')]
assert len(lines) == 2 and 'VT_BENCH_PROBE=a' in lines[0] and 'VT_BENCH_PROBE=b' in lines[1], lines"

fails() {  # fails NAME EXPECTED-STDERR-PATTERN ARGS...: non-zero exit and the message on stderr
  "$vt" bench decode "${@:3}" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -ne 0 ] && grep -q -- "$2" "$work/err" && [ ! -s "$work/out" ] && [ $rc -lt 128 ]; then
    echo "ok   $1"
  else
    echo "FAIL $1 (exit $rc): $(cat "$work/err")"
    failures=$((failures + 1))
  fi
}
fails "a missing model is an error" "does-not-exist" --model "$work/does-not-exist" --concurrency 1
fails "concurrency 0 is an error" "concurrency" --concurrency 0
fails "an empty concurrency list is an error" "concurrency.*empty" --concurrency ""
fails "input-len 0 is an error" "input-len" --input-len 0 --concurrency 1
fails "output-len 0 is an error" "output-len" --output-len 0 --concurrency 1
fails "a request beyond the context is an error" "context" --input-len 2000 --output-len 100 --concurrency 1
fails "an --ab setting without = is an error" "NAME=VALUE" --concurrency 1 --ab VT_BENCH_PROBE 'VT_BENCH_PROBE=b'
fails "a plot into a missing directory is an error before the run" "not a directory" \
  --concurrency 1 --plot "$work/missing/plot.svg"
fails "--ab-rounds 0 is an error" "ab-rounds" --concurrency 1 --ab 'X=a' 'X=b' --ab-rounds 0
for bad in 1 0.5 -1 nan inf x; do
  fails "--max-decode-slowdown $bad is an error" "max-decode-slowdown" --concurrency 1 --max-decode-slowdown $bad
done
if [ "$build" = no-cuda ]; then
  fails "--backend cuda without CUDA is an error" "without CUDA" --backend cuda --concurrency 1
else
  # Checked before any device work, so it holds on a machine without a GPU too.
  "$vt" bench gemm --splits 1,3 >"$work/out" 2>"$work/err"
  rc=$?
  check "bench gemm --splits 3 is an error naming the option" \
    bash -c "[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q -- '--splits' '$work/err' && [ ! -s '$work/out' ]"
  # An unknown or empty MMA choice, a valid one beside it included, is refused before any device work.
  for mmas in bogus "" "auto,wgmma"; do
    "$vt" bench prefill-attention --mma "$mmas" >"$work/out" 2>"$work/err"
    rc=$?
    check "bench prefill-attention --mma '$mmas' is an error naming the option" \
      bash -c "[ $rc -eq 2 ] && grep -q -- '--mma' '$work/err' && [ ! -s '$work/out' ]"
  done
  # Page order is shuffled or in-order; anything else is refused before any device work.
  for pages in sideways ""; do
    "$vt" bench attention --pages "$pages" >"$work/out" 2>"$work/err"
    rc=$?
    check "bench attention --pages '$pages' is an error naming the option" \
      bash -c "[ $rc -eq 2 ] && grep -q -- '--pages' '$work/err' && [ ! -s '$work/out' ]"
  done
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
