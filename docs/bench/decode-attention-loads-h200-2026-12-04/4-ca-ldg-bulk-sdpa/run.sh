#!/usr/bin/env bash
# Session run 4: cp.async.ca and LDG+STS loads against cp.async.cg: L2 sectors and time; what SDPA's kernels issue.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
m2="lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__sectors_read.sum,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__sass_inst_executed_op_ldgsts.sum,smsp__sass_inst_executed_op_global_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,smsp__sass_inst_executed_op_ldsm.sum"
prof() {  # binary arm label
  timeout -k 5 60 ncu --metrics "$m2" -k regex:'Decode(Persistent|Gqa)' -c 1 "$bin/$1" bench attention --arms $2 --shapes qwen3-1.7b \
    --batches 8 --contexts 8192 --launches 2 --reps 1 > "$out/ncu-$3.txt" 2>&1; echo "ncu $3 rc=$?"
  grep -E '^\s+(lts|dram|smsp|gpu|l1tex)__' "$out/ncu-$3.txt" | sed 's/  */ /g' | sed "s/^/$3 /"
}
prof vt persist persist
for v in ca ca_nc ldg_nc nocompute; do prof vt_$v persist $v; done
cat > /tmp/sdpa_one.py <<'PY'
import torch, torch.nn.functional as F, sys
from torch.nn.attention import SDPBackend, sdpa_kernel
b, hq, hkv, ctx, d = 8, 16, 8, 8192, 128
q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16); v = torch.randn_like(k)
with sdpa_kernel(getattr(SDPBackend, sys.argv[1])):
    for _ in range(3): F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
PY
for be in CUDNN_ATTENTION FLASH_ATTENTION; do
  timeout -k 5 150 "${python_env[@]}" ncu --metrics "$m2" -k regex:'cudnn|flash_fwd' -s 2 -c 1 python3 /tmp/sdpa_one.py $be > "$out/ncu-$be.txt" 2>&1; echo "ncu $be rc=$?"
  grep -E '^\s+(lts|dram|smsp|gpu|l1tex)__' "$out/ncu-$be.txt" | sed 's/  */ /g' | sed "s/^/$be /"
done
att() {  # binary label
  timeout -k 5 100 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$2.json" 2> "$out/att-$2.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2.json'))
print('$2', ' '.join('%s/B%d/%dk:%.1f' % (r['shape'][:5], r['batch'], r['context']//1024, r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do for v in vt vt_ca vt_ca_nc vt_ldg_nc; do att $v ${v#vt_}-$round; done; done
prof vt_nc_bulk persist nc_bulk
for round in 1 2; do att vt_nc_bulk nc_bulk-$round; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
