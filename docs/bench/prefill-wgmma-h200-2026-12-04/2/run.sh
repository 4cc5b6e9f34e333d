#!/usr/bin/env bash
# Session run 3: warpgroups per CTA (1 or 2) of the wgmma prefill attention.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for g in 1 2; do
  VT_PREFILL_WARPGROUPS=$g timeout -k 5 200 "$bin/vt" bench prefill-attention --lengths 2048,8192,32768 > "$out/prefill-attention-wg$g.txt" 2>&1
  echo "wg=$g rc=$?"; cat "$out/prefill-attention-wg$g.txt"
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
