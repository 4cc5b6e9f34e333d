# The thirteenth session's jobs 7-9 (run from the repository root with OUT set; .gpu/pack.tar.xz holding vt):
# the pace at 32k (rounds 1 and 3: R = 0 and 2; round 2 also R = 1.5), then the end-to-end table (jobs 7 and 8).
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
$b/vt --version | tee $OUT/version.txt
if [ "${1:-32k}" != e2e ]; then
for r in 0 2; do
  timeout -k 5 170 $b/vt bench decode --backend cuda --load-format dummy --json --model preset:qwen3-1.7b --input-len 32768 --output-len 64 --concurrency 8 --max-num-batched-tokens 512 --max-decode-slowdown $r > $OUT/q32k-R$r.json 2>$OUT/q32k-R$r.err
  python3 - $OUT/q32k-R$r.json $r <<'PY'
import json,sys
try:
  r=json.load(open(sys.argv[1]))["results"][0]; p=r["prefilling_itl_ms"]; d=r["decode_itl_ms"]["median"]
  print(f"32k R={sys.argv[2]}: wait mean {p['mean']:.2f} p99 {p['p99']:.2f} ({p['beside_prompts']}/{p['count']}); decode-only {d:.2f}; ratio {p['mean']/d:.2f}; TPOT {r['tpot_ms']['median']:.2f}; TTFT {r['ttft_ms']['median']:.0f} p99 {r['ttft_ms']['p99']:.0f}; {r['output_tokens_per_s']:.0f} tok/s")
except Exception as e: print(sys.argv[2], "no result", e)
PY
done
fi
for m in qwen3-1.7b llama3-8b; do
  timeout -k 5 150 $b/vt bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 --output-len 128 --concurrency 1 8 64 > $OUT/e2e-$m.json 2>$OUT/e2e-$m.err
  python3 - $OUT/e2e-$m.json $m <<'PY'
import json,sys
try:
  for r in json.load(open(sys.argv[1]))["results"]:
    print(sys.argv[2], "c", r["concurrency"], f"{r['output_tokens_per_s']:.1f} tok/s, TPOT {r['tpot_ms']['median']:.3f} ms")
except Exception as e: print(sys.argv[2], "no result", e)
PY
done
