# Seventeenth session's GPU jobs: the resident skinny grid (VT_SKINNY_GRID=resident) and the fused
# decode MLP with each tile's first weights issued before the tile before it sums (VT_DECODE_MLP=fused):
# their gates, kernel timings and same-binary A/Bs; the decode step with kernels left out (vt_skip,
# built with skip-kernels.patch: an upper bound on what removing them could save); the end-to-end table.
# The gates, gemm and ab parts ran on the build of commit b8ae481 (its resident grid and MLP preload are
# resident-grid.patch and mlp-preload.patch here; reverted after this job measured them slower).
# Usage: bash docs/bench/session17-2026-12-06/gpu.sh [gates,gemm,ab,skip,empty,attn,split,sole,final,ncu,e2e]
#   (.gpu/pack.tar.xz: bin/vt, bin/vt_skip and the vt_gpu_*_tests)
cd .gpu && tar xJf pack.tar.xz && cd .. && chmod +x .gpu/bin/*
b=.gpu/bin; o=$OUT/s17; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee -a $o/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 VT_DEFAULT_MODEL=$PWD/assets/models/fortune-qwen3-7m VT_SOURCE_DIR=$PWD
parts=${1:-gates,gemm,ab}
short="--backend cuda --load-format dummy --input-len 32 --output-len 128"
if [[ $parts == *gates* ]]; then
  timeout -k 5 240 $b/vt_gpu_prefill_gemm_tests --gtest_filter='DecodeMlp.*:SkinnyGemm.*' > $o/kernel.log 2>&1
  echo "kernel rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/kernel.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|error" $o/kernel.log | head -20
  timeout -k 5 300 $b/vt_gpu_engine_tests --gtest_filter='*OptIn*:*DependentLaunches*:*Defaults*' > $o/engine.log 2>&1
  echo "engine rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/engine.log | tr '\n' ' ')"
  grep -E "Failure|FAILED|error" $o/engine.log | head -20
fi
if [[ $parts == *gemm* ]]; then
  timeout -k 5 150 $b/vt bench gemm --resident-grid --dependent-launch --ms 1,4,8 \
    --shapes 2048x4096,2048x2048,2048x12288,6144x2048,4096x6144,4096x4096,4096x28672,14336x4096,2048x151936 \
    > $o/gemm.txt 2>&1; echo "gemm rc $?"; cat $o/gemm.txt
fi
if [[ $parts == *ab* ]]; then
  for m in qwen3-1.7b llama3-8b; do
    c=1,2,4; [[ $m == llama3-8b ]] && c=1,4
    timeout -k 5 250 $b/vt bench decode $short --model preset:$m --concurrency $c --ab VT_SKINNY_GRID=tiles VT_SKINNY_GRID=resident --ab-rounds 2 > $o/ab-grid-$m.txt 2>&1
    echo "grid $m rc $?"; tail -8 $o/ab-grid-$m.txt
  done
  timeout -k 5 150 $b/vt bench decode $short --model preset:qwen3-1.7b --concurrency 1,4 --ab VT_DECODE_MLP=ops VT_DECODE_MLP=fused --ab-rounds 2 > $o/ab-mlp.txt 2>&1
  echo "mlp rc $?"; tail -8 $o/ab-mlp.txt
fi
if [[ $parts == *skip* ]]; then
  for m in qwen3-1.7b llama3-8b; do
    for s in none silu norm prep attn norm,prep,attn,silu qkv,o,gate_up,down; do
      r=$(VT_SKIP=$s timeout -k 5 100 $b/vt_skip bench decode $short --model preset:$m --concurrency 1 --json 2>>$o/skip.err |
        python3 -c "import json,sys; d=json.load(sys.stdin); print('%.1f' % d['results'][0]['output_tokens_per_s'])")
      echo "$m skip=$s $r tok/s" | tee -a $o/skip.txt
    done
  done
fi
if [[ $parts == *empty* ]]; then  # kernels replaced by empty dependent launches: the boundary without the work
  for m in qwen3-1.7b llama3-8b; do
    for e in VT_SKIP=none VT_EMPTY=attn VT_SKIP=attn VT_EMPTY=silu VT_EMPTY=norm VT_EMPTY=prep \
      VT_EMPTY=norm,prep,attn,silu VT_SKIP=norm,prep,attn,silu; do
      r=$(env $e timeout -k 5 100 $b/vt_skip bench decode $short --model preset:$m --concurrency 1 --json 2>>$o/empty.err |
        python3 -c "import json,sys; d=json.load(sys.stdin); print('%.1f' % d['results'][0]['output_tokens_per_s'])")
      echo "$m $e $r tok/s" | tee -a $o/empty.txt
    done
  done
fi
if [[ $parts == *attn* ]]; then  # the decode attention alone at a decode step's short contexts, batch 1-4
  timeout -k 5 120 $b/vt bench attention --arms persist,gqa,solo,warp --split auto --batches 1,4 --contexts 32,160,1024 \
    --shapes qwen3-1.7b,llama3-8b --dependent-launch > $o/attn.txt 2>&1; echo "attn rc $?"; cat $o/attn.txt
fi
if [[ $parts == *split* ]]; then  # the persist arm's chunk length at short and long contexts, kernel and end to end
  for sp in auto off 256 512 1024; do
    timeout -k 5 120 $b/vt bench attention --arms persist --split $sp --batches 1,4,16 \
      --contexts 32,96,160,256,384,512,1024,2048,4096,8192 --shapes qwen3-1.7b,llama3-8b --dependent-launch --json \
      > $o/split-$sp.json 2>> $o/split.err; echo "split $sp rc $?"
  done
  python3 - $o <<'PY'
import json, sys, collections
o = sys.argv[1]
t = collections.OrderedDict()
for sp in ["auto", "off", "256", "512", "1024"]:
    for r in json.load(open(f"{o}/split-{sp}.json"))["rows"]:
        t.setdefault((r["shape"], r["batch"], r["context"]), {})[sp] = r.get("us", float("nan"))
print("shape B ctx: us by split  auto off 256 512 1024")
for k, v in t.items():
    print(*k, *("%.2f" % v.get(s, float("nan")) for s in ["auto", "off", "256", "512", "1024"]))
PY
  for m in qwen3-1.7b llama3-8b; do
    timeout -k 5 200 $b/vt bench decode $short --model preset:$m --concurrency 1,4 \
      --ab VT_ATTN_SPLIT=auto VT_ATTN_SPLIT=256 --ab-rounds 2 > $o/ab-split-$m.txt 2>&1
    echo "ab split $m rc $?"; tail -4 $o/ab-split-$m.txt
  done
fi
if [[ $parts == *sole* ]]; then  # one-chunk requests written whole (vt_sole), and contexts <= 256 unsplit (vt)
  timeout -k 5 200 $b/vt_gpu_attention_tests > $o/attention.log 2>&1
  echo "attention rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/attention.log | tr '\n' ' ')"
  grep -E "Failure|FAILED" $o/attention.log | head -10
  timeout -k 5 240 $b/vt_gpu_engine_tests > $o/engine-all.log 2>&1
  echo "engine rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/engine-all.log | tr '\n' ' ')"
  grep -E "Failure|FAILED" $o/engine-all.log | head -10
  for v in vt_base vt; do
    echo "== $v" >> $o/sole-attn.txt
    timeout -k 5 60 $b/$v bench attention --arms persist,gqa --split auto --batches 1,4,16 --contexts 32,160,256,384,1024 \
      --shapes qwen3-1.7b --dependent-launch >> $o/sole-attn.txt 2>&1
  done
  for r in 1 2; do for v in vt_base vt_sole vt; do for m in qwen3-1.7b llama3-8b; do
    [[ $r == 2 && $v == vt_sole ]] && continue
    c="1 4 64"; [[ $m == llama3-8b ]] && c="1 4"
    line=$(timeout -k 5 100 $b/$v bench decode $short --model preset:$m --concurrency $c --json 2>>$o/sole.err |
      python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d %.1f' % (x['concurrency'], x['output_tokens_per_s']) for x in d['results']))")
    echo "r$r $v $m $line" | tee -a $o/sole-e2e.txt
  done; done; done
fi
if [[ $parts == *final* ]]; then  # the gates on the kept change (vt), and one more A/B round against vt_base
  timeout -k 5 150 $b/vt_gpu_attention_tests > $o/attention.log 2>&1
  echo "attention rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/attention.log | tr '\n' ' ')"
  timeout -k 5 200 $b/vt_gpu_engine_tests > $o/engine-all.log 2>&1
  echo "engine rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $o/engine-all.log | tr '\n' ' ')"
  grep -E "Failure|FAILED" $o/engine-all.log | head -10
  for v in vt_base vt; do for m in qwen3-1.7b llama3-8b; do
    c="1 4 64"; [[ $m == llama3-8b ]] && c="1 4"
    line=$(timeout -k 5 100 $b/$v bench decode $short --model preset:$m --concurrency $c --json 2>>$o/final.err |
      python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join('c=%d %.1f' % (x['concurrency'], x['output_tokens_per_s']) for x in d['results']))")
    echo "$v $m $line" | tee -a $o/final-e2e.txt
  done; done
fi
if [[ $parts == *ncu* ]]; then  # one qwen3-1.7b c = 1 step kernel by kernel, the MLP as three kernels and fused
  for v in ops fused; do
    n=9; [[ $v == fused ]] && n=7
    VT_DECODE_MLP=$v timeout -k 5 200 ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum \
      --csv --page raw -k 'regex:Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa|DecodeMlp' \
      $b/vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32 --output-len 3 \
      --concurrency 1 > $o/ncu-$v.csv 2> $o/ncu-$v.err
    echo "ncu $v rc $?"; python3 tools/ncu_step_timeline.py $o/ncu-$v.csv --layer-kernels $n | tee $o/ncu-$v.txt
  done
fi
if [[ $parts == *e2e* ]]; then
  for m in qwen3-1.7b llama3-8b; do
    timeout -k 5 200 $b/vt bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 \
      --output-len 128 --concurrency 1 8 64 > $o/e2e-$m.json 2> $o/e2e-$m.err
    python3 -c "
import json; d=json.load(open('$o/e2e-$m.json'))
print('$m', ', '.join('c=%d %.1f tok/s' % (r['concurrency'], r['output_tokens_per_s']) for r in d['results']))" || tail -3 $o/e2e-$m.err
  done
fi
