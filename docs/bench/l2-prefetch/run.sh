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
if [[ $parts == *onewave* ]]; then  # the head also for GEMMs of one wave (qwen3-1.7b's QKV, o_proj, down)
  VT_L2_PREFETCH_MIB=${MIB:-12} ab qwen3-1.7b VT_L2_PREFETCH_ONE_WAVE=0 VT_L2_PREFETCH_ONE_WAVE=1 onewave
  VT_L2_PREFETCH_MIB=${MIB:-12} ab llama3-8b VT_L2_PREFETCH_ONE_WAVE=0 VT_L2_PREFETCH_ONE_WAVE=1 onewave
fi
if [[ $parts == *sweep* ]]; then  # SWEEP="qwen3-1.7b:4 llama3-8b:16 ...": each size against 0
  for spec in $SWEEP; do ab ${spec%%:*} VT_L2_PREFETCH_MIB=0 VT_L2_PREFETCH_MIB=${spec##*:} gemm${spec##*:}; done
fi
if [[ $parts == *plain* ]]; then  # absolute numbers, no A/B harness: MIBS="0 12"
  for r in 1 2; do for mib in ${MIBS:-0 12}; do for m in llama3-8b qwen3-1.7b; do
    echo "== $m mib $mib r$r"
    VT_L2_PREFETCH_MIB=$mib $b/vt bench decode --backend cuda --load-format dummy --model preset:$m --input-len 32 \
      --output-len 128 --concurrency 1 8 2>/dev/null | tail -2 | tee -a $o/plain-$m-$mib.txt
  done; done; done
fi
