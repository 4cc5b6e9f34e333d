# Nineteenth session's GPU jobs. Usage: bash docs/bench/session19-2026-12-06/gpu.sh PARTS
#   gates     the skinny GEMM / decode MLP, attention, engine and W4A16 gates
#   w4gates   the W4A16 and engine gates only
#   sanitize  compute-sanitizer racecheck and memcheck on the persist arm's gates
#   e2e       issue #17's end-to-end table (two rounds) and issue #16's qwen3-1.7b 8k decode
#   w4diag    W4A16 at M = 1 and 2: the stacked form at 1-4 K slices (plain and dependent launches), ncu kernel
#             durations on the small shapes,
#             and llama3-8b W4A16 c = 1 decode steps kernel by kernel
#   w4ab      vt against vt_prev (bin/vt_prev): W4A16 kernel table and llama3-8b W4A16 c = 1, 2, 4, two rounds
#   w4loop    the stacked form's CTAs running several column blocks (vt) against one each (vt_prev): gates,
#             kernel table with dependent launches, llama3-8b W4A16 c = 1, 2 (two rounds), memcheck
#   w4order   the loop's step order: vt against vt_loadfirst and vt_unroll7 (kernel table, llama3-8b W4A16 c = 1, 2)
#   l2        VT_L2_PREFETCH=0 against 1 on one binary: its gates, c = 1, 2, 4 on three models (two rounds), 8k c = 1
#   (.gpu/pack.tar.xz: bin/vt and the vt_gpu_*_tests; extras such as bin/vt_prev)
source "$(dirname "$0")/../gpu_job_lib.sh"
gpu_job_setup s19
parts=${1:-gates}
if [[ $parts == *w4gates* ]]; then
  gtest w4a16 200 $b/vt_gpu_w4a16_tests
  gtest engine 300 $b/vt_gpu_engine_tests
fi
if [[ $parts == *gates* && $parts != *w4gates* ]]; then
  gtest kernel 200 $b/vt_gpu_prefill_gemm_tests --gtest_filter='DecodeMlp.*:SkinnyGemm.*'
  gtest attention 200 $b/vt_gpu_attention_tests
  gtest w4a16 200 $b/vt_gpu_w4a16_tests
  gtest engine 300 $b/vt_gpu_engine_tests
fi
if [[ $parts == *sanitize* ]]; then
  sanitize_persist 240
fi
if [[ $parts == *e2e* ]]; then
  e2e_table
  long_decode
fi
if [[ $parts == *w4diag* ]]; then
  for dl in "" --dependent-launch; do
    timeout -k 5 150 $b/vt bench w4a16 --forms stack --ms 1,2 --stack-slices 1,2,3,4 --shapes $w4a16_shapes $dl \
      > $o/w4-slices$dl.txt 2>&1
    echo "slices $dl rc $?"; cat $o/w4-slices$dl.txt
  done
  for shape in 4096x4096 4096x6144 14336x4096; do
    timeout -k 5 100 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size \
      --csv --page raw $b/vt bench w4a16 --forms stack --ms 1 --shapes $shape --launches 2 --reps 2 > $o/ncu-$shape.csv 2>&1
    python3 - $o/ncu-$shape.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
h = rows[0]; k = h.index("Kernel Name"); t = h.index("gpu__time_duration.sum"); g = h.index("launch__grid_size")
d = collections.defaultdict(list)
for r in rows[2:]:
    d[(r[k][:40], r[g])].append(float(r[t].replace(",", "")))
for (name, grid), v in d.items():
    v.sort(); print(sys.argv[1].split("/")[-1], name, "grid", grid, "n", len(v), "median %.2f" % v[len(v) // 2], "(unit as ncu)")
PY
  done
  timeout -k 5 200 ncu --clock-control none --graph-profiling node \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size,launch__block_size --csv --page raw \
    $b/vt bench decode --backend cuda --load-format dummy --input-len 32 --output-len 4 --model preset:llama3-8b-gptq \
    --concurrency 1 > $o/ncu-gptq-c1.csv 2> $o/ncu-gptq-c1.err
  echo "ncu gptq rc=$?"
  python3 tools/ncu_step_timeline.py $o/ncu-gptq-c1.csv --copy-gb-s 3030 > $o/gptq-c1-timeline.txt 2>&1
  head -40 $o/gptq-c1-timeline.txt
  gzip $o/ncu-*.csv
fi
if [[ $parts == *w4ab* ]]; then
  for bin in vt_prev vt; do w4a16_table $bin $bin --ms 1,2; done
  for round in 1 2; do gptq_decode w4ab 1,2,4 vt_prev vt; done
fi
if [[ $parts == *w4loop* ]]; then  # the stacked form's CTAs running several column blocks (vt) against one each (vt_prev)
  gtest w4a16 200 $b/vt_gpu_w4a16_tests
  gtest engine-gptq 150 $b/vt_gpu_engine_tests --gtest_filter='*Gptq*'
  for bin in vt_prev vt; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  for round in 1 2; do gptq_decode w4loop 1,2 vt_prev vt; done
  timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 9 $b/vt_gpu_w4a16_tests \
    --gtest_filter='W4A16.StackedForm*:W4A16.DependentLaunches*' > $o/sanitizer-memcheck.txt 2>&1
  echo "memcheck rc $? $(tail -1 $o/sanitizer-memcheck.txt)"
fi
if [[ $parts == *w4order* ]]; then  # the loop's step order: vt (reorder, six deep), vt_loadfirst, vt_unroll7
  for bin in vt vt_loadfirst vt_unroll7; do w4a16_table $bin $bin --ms 1,2 --dependent-launch; done
  gptq_decode w4order 1,2 vt vt_loadfirst vt_unroll7
fi
if [[ $parts == *l2* ]]; then  # the output projection's weights prefetched into the L2 before the attention
  gtest l2-kernel 120 $b/vt_gpu_forward_ops_tests --gtest_filter='L2Prefetch.*:ForwardOps.SiluMul*'
  gtest l2-engine 200 $b/vt_gpu_engine_tests --gtest_filter='*L2Prefetch*:*DependentLaunchesChangeNoToken*'
  for round in 1 2; do
    for v in 0 1; do
      for m in llama3-8b-gptq llama3-8b qwen3-1.7b; do
        r=$(VT_L2_PREFETCH=$v timeout -k 5 150 $b/vt bench decode $short --model preset:$m --concurrency 1,2,4 --json 2>>$o/l2.err | tok_s)
        echo "$m VT_L2_PREFETCH=$v round $round: $r" | tee -a $o/l2.txt
      done
    done
  done
  for v in 0 1; do
    r=$(VT_L2_PREFETCH=$v timeout -k 5 150 $b/vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
      --input-len 8192 --output-len 64 --concurrency 1 --max-num-batched-tokens 65536 --json 2>>$o/l2.err |
      python3 -c "import json,sys; r=json.load(sys.stdin)['results'][0]; print('itl %.3f tpot %.3f ms' % (r['decode_itl_ms']['median'], r['tpot_ms']['median']))")
    echo "qwen3-1.7b 8k c=1 VT_L2_PREFETCH=$v: $r" | tee -a $o/l2.txt
  done
fi
gpu_job_pack s19
