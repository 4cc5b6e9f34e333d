# The scheduler's pace (--max-decode-slowdown, engine/sched/decode_pacing.h) on an H200, issue #16's
# "running decodes' TPOT <= 2x decode-only while long prompts prefill" and its served mix. Needs in
# .gpu/bin: vt of this plan's commit or later. Run from the repository root with OUT set (the device
# tool sets it), one call of about 7 minutes:
#   bash docs/bench/decode-pacing-plan/run.sh [engine,mix]
default_parts=engine,mix
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" "${1:-}"
source "$root/tests/engine/server/serve_wait.sh"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
"$bin/vt" --version > "$out/version.txt"

if want engine; then
  # Eight long prompts at once with the step budget the measurements used (512 tokens alone, 256 beside decodes):
  # the first prompts decode while the others prefill. Bounds 0 (no pace), 2 and 1.5, two rounds
  # interleaved. prefilling_itl_ms.mean is the decodes' TPOT while prompts wait; decode_itl_ms.median
  # (steps of decodes alone, mostly after every prompt is in) its reference.
  for round in 1 2; do for spec in qwen3-1.7b:8192 llama3-8b:8000; do for bound in 0 2 1.5; do
    model=${spec%%:*} input=${spec##*:} label=engine-$model-R$bound-r$round
    timeout -k 5 100 "$bin/vt" bench decode --backend cuda --load-format dummy --json --model preset:$model \
      --input-len $input --output-len 64 --concurrency 8 --max-num-batched-tokens 512 \
      --max-decode-slowdown $bound > "$out/$label.json" 2> "$out/$label.err"
    python3 - "$out/$label.json" "$label" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["results"][0]
    p, d = r["prefilling_itl_ms"], r["decode_itl_ms"]["median"]
    print(f"{sys.argv[2]}: while prompts wait mean {p['mean']:.2f} ms p99 {p['p99']:.2f} ({p['beside_prompts']}/{p['count']} "
          f"beside prompts); decode-only median {d:.2f}; ratio {p['mean'] / d:.2f}; TPOT median {r['tpot_ms']['median']:.2f}; "
          f"TTFT median {r['ttft_ms']['median']:.0f} p99 {r['ttft_ms']['p99']:.0f} ms; {r['output_tokens_per_s']:.0f} tok/s")
except Exception as e:
    print(sys.argv[2], "no result:", e)
PY
  done; done; done
fi

if want mix; then
  # Issue #16's served mix (tools/gpu_serve_evidence.sh mix): 8 clients of 8k-token prompts beside 8 of
  # 128-token prompts, c = 16, on a server without a pace and on one with a bound of 2.
  for bound in 0 2; do
    start_serve "$bin/vt" "$out/serve-mix-R$bound.log" --backend cuda --load-format dummy --model preset:qwen3-1.7b \
      --max-num-seqs 16 --max-model-len 8448 --max-decode-slowdown $bound --max-num-batched-tokens 512
    base="http://127.0.0.1:$served_port"
    timeout -k 5 100 "$bin/vt" bench serve --base-url "$base" --num-prompts 64 --concurrency 16 --input-len 128 \
      --output-len 64 --vocab-size 32000 --json > "$out/mix-R$bound-short-alone.json" 2> "$out/mix-R$bound-short-alone.err"
    timeout -k 5 150 "$bin/vt" bench serve --base-url "$base" --num-prompts 24 --concurrency 8 --input-len 8192 \
      --output-len 64 --vocab-size 32000 --seed 1 --json > "$out/mix-R$bound-long.json" 2> "$out/mix-R$bound-long.err" &
    long=$!
    timeout -k 5 150 "$bin/vt" bench serve --base-url "$base" --num-prompts 48 --concurrency 8 --input-len 128 \
      --output-len 64 --vocab-size 32000 --seed 2 --json > "$out/mix-R$bound-short.json" 2> "$out/mix-R$bound-short.err"
    wait $long
    kill "$served_pid"; wait "$served_pid" 2>/dev/null
    python3 - "$out" "$bound" <<'PY'
import json, sys
out, bound = sys.argv[1], sys.argv[2]
try:
    alone = json.load(open(f"{out}/mix-R{bound}-short-alone.json"))["tpot_ms"]["median"]
    for name in ("short", "long"):
        d = json.load(open(f"{out}/mix-R{bound}-{name}.json"))
        t = d["tpot_ms"]
        print(f"mix R={bound} {name}: ok {d['requests_ok']}/{d['num_prompts']}, TPOT median {t['median']:.2f} p99 "
              f"{t['p99']:.2f} ms ({t['p99'] / alone:.2f}x the short-only TPOT {alone:.2f}), TTFT median "
              f"{d['ttft_ms']['median']:.0f} p99 {d['ttft_ms']['p99']:.0f} ms, {d['output_tok_s']:.0f} tok/s, "
              f"server {d.get('server_build_source')}")
except Exception as e:
    print("mix", bound, "no result:", e)
PY
  done
fi
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
