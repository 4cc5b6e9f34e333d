# The skinny GEMM's staged weights (VT_SKINNY_STAGE) and kernels that let their dependents launch before
# their own wait (early-trigger.patch), A/B on an H200. Needs in .gpu/bin: vt (this commit's build),
# vt_trigger (the same with early-trigger.patch applied), vt_gpu_prefill_gemm_tests and vt_gpu_engine_tests
# (this commit's build). Run from the repository root with OUT set (the device tool sets it).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
distinct_builds vt vt_trigger
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$root"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
# Gates first: staging must not change a bit (kernel, then engine tokens).
timeout -k 5 180 "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='SkinnyGemm.*:DenseGemm.*' > "$out/skinny_tests.log" 2>&1
echo "skinny kernel tests rc $?"
timeout -k 5 240 "$bin/vt_gpu_engine_tests" --gtest_filter='CudaEngine.StagedSkinny*:CudaEngine.DependentLaunches*:CudaEngine.GraphReplay*' > "$out/engine_tests.log" 2>&1
echo "engine token tests rc $?"
summ() { python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
print(sys.argv[2], ' '.join('c%d %.1f tok/s TPOT %.3f' % (r['concurrency'], r['output_tokens_per_s'], r['tpot_ms']['median']) for r in j['results']))" "$1" "$2" 2>&1 | tail -1; }
# The kernel alone, CUDA-graph timed: 20 calls a graph, each may start during the one before it when
# launched dependently; staged against streamed, with and without early triggers.
shapes=4096x6144,4096x4096,4096x28672,14336x4096,2048x4096,2048x2048,2048x12288,6144x2048
for b in vt vt_trigger; do for flags in "" "--skinny-stage" "--dependent-launch" "--skinny-stage --dependent-launch"; do
  label=gemm-$b$(echo "$flags" | tr -d ' ' | sed 's/--/-/g')
  timeout -k 5 150 "$bin/$b" bench gemm --ms 1,8 --json --shapes $shapes $flags > "$out/$label.json" 2> "$out/$label.err"
  echo "$label rc $?"
done; done
# End to end, two interleaved rounds of four arms.
for round in 1 2; do for model in qwen3-1.7b llama3-8b; do
  for arm in vt:0 vt:1 vt_trigger:0 vt_trigger:1; do
    b=${arm%:*} stage=${arm#*:} label=$model-${arm/:/-stage}-r$round
    VT_SKINNY_STAGE=$stage timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json \
      --model preset:$model --input-len 32 --output-len 128 --concurrency 1,2,4,8 > "$out/$label.json" 2> "$out/$label.err"
    summ "$out/$label.json" "$label"
  done
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
