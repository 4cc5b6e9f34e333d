# ncu: qwen3-1.7b and llama3-8b c = 64 decode steps kernel by kernel (every kernel, full clocks).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for m in qwen3-1.7b llama3-8b; do
  timeout -k 5 240 ncu --clock-control none --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size,launch__block_size \
    --csv --page raw "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:$m --input-len 32 --output-len 3 \
    --concurrency 64 > "$out/ncu-$m-c64.csv" 2> "$out/ncu-$m-c64.err"
  echo "ncu $m rc=$?"; python3 tools/ncu_step_timeline.py "$out/ncu-$m-c64.csv" --copy-gb-s 4018 2>&1 | tee "$out/$m-c64-timeline.txt" | head -45
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
