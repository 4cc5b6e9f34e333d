# Sixteenth session's H200 job: the grid-barrier probe of docs/bench/persistent-layer-plan/, the fused
# decode MLP's gates (kernel bits against the kernel-per-op path, engine tokens) and its same-binary
# A/B against the three kernels end to end.
# Usage: bash docs/bench/session16-2026-12-06/gpu.sh [probe,gates,ab]
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; .gpu/barrier_probe built by
#    /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -o .gpu/barrier_probe docs/bench/persistent-layer-plan/barrier_probe.cu)
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/* .gpu/barrier_probe
b=.gpu/bin; o=$OUT/s16; mkdir -p $o
nvidia-smi --query-gpu=name --format=csv,noheader | tee $o/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 VT_DEFAULT_MODEL=$PWD/assets/models/fortune-qwen3-7m VT_SOURCE_DIR=$PWD
parts=${1:-probe,gates,ab}
if [[ $parts == *probe* ]]; then
  timeout -k 5 120 .gpu/barrier_probe > $o/barrier_probe.txt 2>&1; echo "probe rc $?"; cat $o/barrier_probe.txt
fi
if [[ $parts == *gates* ]]; then
  timeout -k 5 240 $b/vt_gpu_prefill_gemm_tests --gtest_filter='DecodeMlp.*:SkinnyGemm.*' > $o/mlp-kernel.log 2>&1
  echo "kernel rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/mlp-kernel.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|error" $o/mlp-kernel.log | head -20
  timeout -k 5 300 $b/vt_gpu_engine_tests --gtest_filter='*FusedDecodeMlp*:*DependentLaunches*:*Defaults*' > $o/mlp-engine.log 2>&1
  echo "engine rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/mlp-engine.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|error" $o/mlp-engine.log | head -20
fi
if [[ $parts == *ab* ]]; then
  for m in qwen3-1.7b llama3-8b; do
    c=1,2,4; [[ $m == llama3-8b ]] && c=1,4
    timeout -k 5 280 $b/vt bench decode --backend cuda --load-format dummy --model preset:$m --input-len 32 \
      --output-len 128 --concurrency $c --ab VT_DECODE_MLP=ops VT_DECODE_MLP=fused --ab-rounds 2 > $o/ab-$m.txt 2>&1
    echo "ab $m rc $?"; tail -12 $o/ab-$m.txt
  done
fi
