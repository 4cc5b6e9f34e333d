source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for l in default tuned default tuned; do "${python_env[@]}" timeout -k 5 200 python3 .gpu/tunable_probe.py $l "$out" 2>&1 | tee -a "$out/tunable-$l.txt" | tail -24; done
cat "$out"/tunableop_results*.csv | head -60
"$bin/vt" bench gemm --shapes 2048x4096,2048x2048,2048x12288,6144x2048,4096x6144,4096x4096,4096x28672,14336x4096 --ms 16,32,64 --json > "$out/gemm-vt.json" 2> "$out/gemm-vt.err"
python3 -c "
import json; rows=json.load(open('$out/gemm-vt.json'))
for r in rows: print('vt-bench K=%d N=%d M=%d kernel=%s vt_us=%.2f cublas_us=%.2f' % (r['K'], r['N'], r['M'], r['kernel'], r['vt_us'], r['cublas_us']))"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
