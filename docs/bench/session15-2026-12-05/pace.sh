# Issue #16's 8k/short mix (c = 8 + 8) on vt serve at the 8,192 step budget, with the decode pace
# (--max-decode-slowdown R) for each R in $RS, model $MODEL (qwen3-1.7b), long prompts of $LONG (8192) tokens; TPOT p99 against the short-only TPOT of the same server.
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/pace; mkdir -p $o
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source tests/engine/server/serve_wait.sh
for r in ${RS:-2 1.5}; do
  start_serve $b/vt $o/serve-$r.log --backend cuda --load-format dummy --model preset:${MODEL:-qwen3-1.7b} --max-num-seqs 16 \
    --max-model-len 33000 --max-num-batched-tokens 8192 --max-decode-slowdown $r
  base=http://127.0.0.1:$served_port
  timeout -k 5 100 $b/vt bench serve --base-url $base --num-prompts 64 --concurrency 16 --input-len 128 --output-len 64 \
    --vocab-size 32000 --json > $o/r$r-short-alone.json 2> $o/r$r-short-alone.err
  timeout -k 5 150 $b/vt bench serve --base-url $base --num-prompts 24 --concurrency 8 --input-len ${LONG:-8192} --output-len 64 \
    --vocab-size 32000 --seed 1 --json > $o/r$r-long.json 2> $o/r$r-long.err &
  long=$!
  timeout -k 5 150 $b/vt bench serve --base-url $base --num-prompts 48 --concurrency 8 --input-len 128 --output-len 64 \
    --vocab-size 32000 --seed 2 --json > $o/r$r-short.json 2> $o/r$r-short.err
  wait $long; kill $served_pid; wait $served_pid 2>/dev/null
  python3 tools/serve_mix_summary.py $o r$r "R $r"
done
cd $OUT && tar czf pace.tgz pace && rm -rf pace
