#!/usr/bin/env bash
# Session run 8: warp stall reasons (ncu WarpStateStats, raw) of the persist kernel, its loads-only form
# without barriers or merges, and cuDNN's SDPA kernel, qwen3-1.7b B8 8k.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for v in vt vt_nc_nobar; do
  timeout -k 5 60 ncu --section WarpStateStats --section SchedulerStats --page raw --csv -k regex:DecodePersistent -c 1 \
    "$bin/$v" bench attention --arms persist --shapes qwen3-1.7b --batches 8 --contexts 8192 --launches 2 --reps 1 \
    > "$out/stalls-$v.csv" 2> "$out/stalls-$v.err"; echo "$v rc=$?"
done
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
timeout -k 5 90 "${python_env[@]}" ncu --section WarpStateStats --section SchedulerStats --page raw --csv -k regex:cudnn -s 2 -c 1 \
  python3 /tmp/sdpa_one.py > "$out/stalls-cudnn.csv" 2> "$out/stalls-cudnn.err"; echo "cudnn rc=$?"
python3 - "$out" <<'PY'
import csv, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/stalls-*.csv")):
    rows = [r for r in csv.reader(open(f)) if r]
    head = next((i for i, r in enumerate(rows) if "ID" in r[0] or r[0] == "ID"), None)
    if head is None: print(os.path.basename(f), "no table"); continue
    names, vals = rows[head], rows[-1]
    pairs = [(n, v) for n, v in zip(names, vals) if "issue_stalled" in n and n.endswith("per_issue_active.ratio")]
    pairs = sorted(((n.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""), float(v.replace(",", "") or 0)) for n, v in pairs), key=lambda x: -x[1])
    print(os.path.basename(f), " ".join("%s=%.2f" % p for p in pairs[:8]))
PY
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
