# Final attention suite (merge kernel as at HEAD, the ChunkMerge test added), then ncu of vt's batch-1
# call (persist + merge kernels) and of cuDNN SDPA's kernels at the same shapes, real clocks both.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
t0=$(date +%s)
timeout -k 5 240 "$bin/vt_gpu_attention_tests" > "$out/suite-attention.log" 2>&1
echo "suite attention rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-attention.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
m=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum,sm__cycles_active.avg
for shape in qwen3-1.7b llama3-8b; do for ctx in 4096 16384; do
  timeout -k 5 120 ncu --clock-control none --graph-profiling node -k 'regex:Persist|Merge' --launch-count 4 --metrics $m --csv \
    "$bin/vt" bench attention --arms persist --shapes $shape --batches 1 --contexts $ctx --launches 2 --reps 1 \
    > "$out/ncu-vt-$shape-$ctx.csv" 2> "$out/ncu-vt-$shape-$ctx.err"
  echo "ncu vt $shape $ctx rc=$?"
done; done
"${python_env[@]}" timeout -k 5 200 ncu --clock-control none --profile-from-start off --metrics $m --csv \
  python3 .gpu/cudnn_b1.py > "$out/ncu-cudnn.csv" 2> "$out/ncu-cudnn.err"
echo "ncu cudnn rc=$?"
python3 - "$out" <<'PY'
import csv, glob, io, sys
for f in sorted(glob.glob(sys.argv[1] + "/ncu-*.csv")):
    text = open(f).read()
    i = text.find('"ID"')
    if i < 0:
        print(f, "no rows"); continue
    rows = list(csv.DictReader(io.StringIO(text[i:])))
    by = {}
    for r in rows:
        key = (r["ID"], r["Kernel Name"][:60])
        by.setdefault(key, {})[r["Metric Name"]] = r["Metric Value"]
    print(f.split("/")[-1])
    for (i, k), v in by.items():
        print("  ", i, k, "us", v.get("gpu__time_duration.sum"), "grid", v.get("launch__grid_size"), "block", v.get("launch__block_size"),
              "regs", v.get("launch__registers_per_thread"), "dramMB", v.get("dram__bytes_read.sum"))
PY
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
