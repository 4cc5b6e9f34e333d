#!/usr/bin/env bash
# Session run 3: why the persist arm's L2 read sectors are twice its DRAM sectors: ncu sector counts
# for the gqa arm, the loads-only variant, and variants without the smem swizzle / without cp.async's
# src-size operand (loads-only and full); attention timings of each.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
m2="lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__sectors_read.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_inst_executed_op_ldgsts.sum"
prof() {  # binary arm label
  timeout -k 5 120 ncu --metrics "$m2" -k regex:'Decode(Persistent|Gqa)' -c 1 "$bin/$1" bench attention --arms $2 --shapes qwen3-1.7b \
    --batches 8 --contexts 8192 --launches 2 --reps 1 > "$out/ncu-$3.txt" 2>&1; echo "ncu $3 rc=$?"
  grep -E '^\s+(lts|dram|smsp|gpu|l1tex)__' "$out/ncu-$3.txt" | sed 's/  */ /g' | sed "s/^/$3 /"
}
prof vt persist persist; prof vt gqa gqa
for v in nocompute nc_noswz nc_nosz noswz nosz; do prof vt_$v persist $v; done
att() {  # binary label
  timeout -k 5 150 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$2.json" 2> "$out/att-$2.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2.json'))
print('$2', ' '.join('%s/B%d/%dk:%.1f' % (r['shape'][:5], r['batch'], r['context']//1024, r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do for v in vt vt_nocompute vt_nc_noswz vt_nc_nosz vt_noswz vt_nosz; do att $v ${v#vt_}-$round; done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
