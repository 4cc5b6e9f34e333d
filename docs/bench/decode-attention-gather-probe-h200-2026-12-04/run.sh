#!/usr/bin/env bash
# On the H200: build and run the probe; output in $OUT/ev/probe.csv.
set -euo pipefail
here=$(dirname "$0")
mkdir -p "$OUT/ev"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv > "$OUT/ev/gpu.txt"
"${PROBE:-$here/gather_probe}" > "$OUT/ev/probe.csv" 2> "$OUT/ev/probe.err"
