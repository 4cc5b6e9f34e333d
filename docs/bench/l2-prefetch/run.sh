# The next layer's weights pulled into the L2 (VT_L2_PREFETCH_MIB), A/B in one binary: the bench
# reruns itself alternately under each setting (--ab) and reports B/A tok/s. Gates first.
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/l2; mkdir -p $o
nvidia-smi --query-gpu=name --format=csv,noheader | tee $o/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 VT_DEFAULT_MODEL=$PWD/assets/models/fortune-qwen3-7m VT_SOURCE_DIR=$PWD
parts=${1:-gates,ab}
if [[ $parts == *gates* ]]; then
  timeout -k 5 240 $b/vt_gpu_prefill_gemm_tests > $o/prefill_gemm.log 2>&1; echo "prefill_gemm rc $?"; tail -3 $o/prefill_gemm.log
  VT_L2_PREFETCH_MIB=8 timeout -k 5 300 $b/vt_gpu_engine_tests > $o/engine-prefetch8.log 2>&1; echo "engine (prefetch 8) rc $?"
  tail -3 $o/engine-prefetch8.log
fi
ab() {  # model, A, B, tag
  timeout -k 5 300 $b/vt bench decode --backend cuda --load-format dummy --model preset:$1 --input-len 32 \
    --output-len 128 --concurrency 1,8 --ab "$2" "$3" --ab-rounds 2 > $o/ab-$1-$4.txt 2> $o/ab-$1-$4.err
  echo "== $1 $2 vs $3"; tail -8 $o/ab-$1-$4.txt
}
if [[ $parts == *ab* ]]; then
  ab qwen3-1.7b VT_L2_PREFETCH_MIB=0 VT_L2_PREFETCH_MIB=8 gemm8
  ab llama3-8b VT_L2_PREFETCH_MIB=0 VT_L2_PREFETCH_MIB=8 gemm8
fi
if [[ $parts == *more* ]]; then
  ab qwen3-1.7b VT_L2_PREFETCH_MIB=0 VT_L2_PREFETCH_MIB=24 gemm24
  ab llama3-8b VT_L2_PREFETCH_MIB=0 VT_L2_PREFETCH_MIB=24 gemm24
  VT_L2_PREFETCH_MIB=8 ab qwen3-1.7b VT_L2_PREFETCH_FROM=gemm VT_L2_PREFETCH_FROM=kernel kernel8
fi
