#!/usr/bin/env bash
# Session run 2: L2 prefetch-size qualifiers and an evict-first policy on the persist arm's K/V copies
# (full kernel and loads-only), against HEAD in one job; ncu L2 breakdown; e2e qwen3 8k c=8 decode-only.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # binary label
  timeout -k 5 150 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$2.json" 2> "$out/att-$2.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2.json'))
print('$2', ' '.join('%s/B%d/%dk:%.1f' % (r['shape'][:5], r['batch'], r['context']//1024, r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do for v in vt vt_l2p128 vt_l2p256 vt_evict vt_l2p256_nc vt_nocompute; do att $v ${v#vt_}-$round; done; done
m1="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
m2="lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__sectors_read.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum"
m3="lts__t_sectors_srcunit_ltcfabric.sum"
for v in vt vt_l2p256 vt_l2p256_nc; do for m in "$m1" "$m2" "$m3"; do
  timeout -k 5 120 ncu --metrics "$m" -k regex:DecodePersistent -c 1 "$bin/$v" bench attention --arms persist --shapes qwen3-1.7b \
    --batches 8 --contexts 8192 --launches 2 --reps 1 >> "$out/ncu-$v.txt" 2>&1; echo "ncu $v rc=$?"
done; done
cat > /tmp/sdpa_one.py <<'PY'
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
b, hq, hkv, ctx, d = 8, 16, 8, 8192, 128
q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16); v = torch.randn_like(k)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3): F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
PY
for m in "$m1" "$m2"; do
  timeout -k 5 150 "${python_env[@]}" ncu --metrics "$m" -k regex:'cudnn' -s 2 -c 1 python3 /tmp/sdpa_one.py >> "$out/ncu-cudnn.txt" 2>&1; echo "ncu cudnn rc=$?"
done
grep -E '^\s+(lts|dram|smsp|gpu)__' "$out"/ncu-*.txt | sed 's/  */ /g' | cut -c1-160
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
for round in 1 2; do for v in vt vt_l2p256 vt_l2p128; do
  timeout -k 5 150 "$bin/$v" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
    --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
    --json > "$out/q8k-c8-$v-$round.json" 2> "$out/q8k-c8-$v-$round.err"
  summ "$out/q8k-c8-$v-$round.json" "q8k-c8 $v r$round"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
