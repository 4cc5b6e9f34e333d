# ncu: llama3-8b c = 1 decode step kernel by kernel; cuDNN SDPA and vt's persist arm at batch 8.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 300 ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv --page raw \
  -k 'regex:Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa' \
  "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:llama3-8b --input-len 32 --output-len 3 \
  --concurrency 1 > "$out/ncu-llama-steps.csv" 2> "$out/ncu-llama-steps.err"
echo "ncu llama rc=$?"; python3 tools/ncu_step_timeline.py "$out/ncu-llama-steps.csv" --copy-gb-s 4018 2>&1 | tee "$out/llama-timeline.txt" | head -40
m=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum
for ctx in 4096 8192 16384; do
  timeout -k 5 120 ncu --clock-control none --graph-profiling node -k 'regex:Persist|Merge' --launch-count 2 --metrics $m --csv \
    "$bin/vt" bench attention --arms persist --shapes qwen3-1.7b --batches 8 --contexts $ctx --launches 2 --reps 1 \
    > "$out/ncu-vt-b8-$ctx.csv" 2> "$out/ncu-vt-b8-$ctx.err"
done
"${python_env[@]}" timeout -k 5 200 ncu --clock-control none --profile-from-start off --metrics $m --csv \
  python3 .gpu/cudnn_b8.py > "$out/ncu-cudnn-b8.csv" 2> "$out/ncu-cudnn-b8.err"
python3 - "$out" <<'PY'
import csv, glob, io, sys
for f in sorted(glob.glob(sys.argv[1] + "/ncu-*b8*.csv")):
    text = open(f).read()
    i = text.find('"ID"')
    if i < 0:
        print(f, "no rows"); continue
    by = {}
    for r in csv.DictReader(io.StringIO(text[i:])):
        by.setdefault((r["ID"], r["Kernel Name"][:60]), {})[r["Metric Name"]] = r["Metric Value"]
    print(f.split("/")[-1])
    for (i, k), v in by.items():
        print("  ", i, k, "ns", v.get("gpu__time_duration.sum"), "grid", v.get("launch__grid_size"), "block",
              v.get("launch__block_size"), "regs", v.get("launch__registers_per_thread"), "dram", v.get("dram__bytes_read.sum"))
PY
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
