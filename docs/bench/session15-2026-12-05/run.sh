# Fifteenth session's first H200 job: the L2 prefetch on the shipped (80-register) skinny kernel, the
# decode arm at short contexts (persist against gqa, c = 1), then vt serve's step budget (8,192) with
# issue #16's 8k/short mix. Usage: bash docs/bench/session15-2026-12-05/run.sh [l2,arms,serve]
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/s15; mkdir -p $o
nvidia-smi --query-gpu=name --format=csv,noheader | tee $o/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
parts=${1:-l2,arms,serve}
ab() {  # model, A, B, tag
  timeout -k 5 200 $b/vt bench decode --backend cuda --load-format dummy --model preset:$1 --input-len 32 \
    --output-len 128 --concurrency 1,8 --ab "$2" "$3" --ab-rounds 2 > $o/ab-$1-$4.txt 2> $o/ab-$1-$4.err
  echo "== $1 $2 vs $3"; tail -3 $o/ab-$1-$4.txt
}
[[ $parts == *l2* ]] && ab llama3-8b VT_L2_PREFETCH_MIB=0 VT_L2_PREFETCH_MIB=12 l2-12
[[ $parts == *arms* ]] && ab llama3-8b VT_ATTN_DECODE=persist VT_ATTN_DECODE=gqa persist-gqa
if [[ $parts == *serve* ]]; then
  TOKS=8192 OUT=$o bash docs/bench/session13-h200-2026-12-05/6-step-budget/run.sh serve 2>&1 | grep -v '^\.\|^$' | tail -8
fi
