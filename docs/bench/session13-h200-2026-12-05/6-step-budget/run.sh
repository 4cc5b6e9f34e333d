# The step budget of vt serve, measured (thirteenth session). engine: TTFT of one long prompt on an idle
# engine by --max-num-batched-tokens (the budget a step of prompts alone takes). serve: vt serve by its
# budget, one client of 32k-token prompts, and issue #16's 8k/short mix (c = 16), unpaced
# unless R is set (vt serve paces with 2 by default since the fifteenth session; TOKS: the budgets).
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/budget; mkdir -p $o
nvidia-smi --query-gpu=name --format=csv,noheader | tee $o/gpu.txt
$b/vt --version | tee $o/version.txt
parts=${1:-engine,serve}
if [[ $parts == *engine* ]]; then
for round in 1 2; do for spec in qwen3-1.7b:32768 qwen3-1.7b:8192 llama3-8b:8000; do for tok in 512 2048 8192 16384; do
  m=${spec%%:*} in=${spec##*:} f=$o/$m-$in-$tok-r$round
  timeout -k 5 120 $b/vt bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len $in \
    --output-len 2 --concurrency 1 --max-num-batched-tokens $tok > $f.json 2> $f.err
  python3 -c "
import json
try:
  r=json.load(open('$f.json'))['results'][0]; print('r$round $m $in budget $tok: TTFT %.1f ms' % r['ttft_ms']['median'])
except Exception as e: print('$f no result', e)"
done; done; done
fi
if [[ $parts == *serve* ]]; then
source tests/engine/server/serve_wait.sh
for tok in ${TOKS:-512 8192}; do
  start_serve $b/vt $o/serve-$tok.log --backend cuda --load-format dummy --model preset:qwen3-1.7b --max-num-seqs 16 \
    --max-model-len 33000 --max-num-batched-tokens $tok --max-decode-slowdown ${R:-0}
  base=http://127.0.0.1:$served_port
  timeout -k 5 100 $b/vt bench serve --base-url $base --num-prompts 4 --concurrency 1 --input-len 32000 --output-len 16 \
    --vocab-size 32000 --json > $o/serve-$tok-32k.json 2> $o/serve-$tok-32k.err
  timeout -k 5 100 $b/vt bench serve --base-url $base --num-prompts 64 --concurrency 16 --input-len 128 --output-len 64 \
    --vocab-size 32000 --json > $o/serve-$tok-short-alone.json 2> $o/serve-$tok-short-alone.err
  timeout -k 5 150 $b/vt bench serve --base-url $base --num-prompts 24 --concurrency 8 --input-len 8192 --output-len 64 \
    --vocab-size 32000 --seed 1 --json > $o/serve-$tok-long.json 2> $o/serve-$tok-long.err &
  long=$!
  timeout -k 5 150 $b/vt bench serve --base-url $base --num-prompts 48 --concurrency 8 --input-len 128 --output-len 64 \
    --vocab-size 32000 --seed 2 --json > $o/serve-$tok-short.json 2> $o/serve-$tok-short.err
  wait $long
  kill $served_pid; wait $served_pid 2>/dev/null
  python3 -c "
import json; d = json.load(open('$o/serve-$tok-32k.json'))
print(f\"serve budget $tok 32k alone: ok {d['requests_ok']}, TTFT median {d['ttft_ms']['median']:.0f} ms\")" \
    || echo "serve $tok 32k: no result"
  python3 tools/serve_mix_summary.py $o serve-$tok "serve budget $tok"
done
fi
cd $OUT && tar czf budget.tgz budget && rm -rf budget
