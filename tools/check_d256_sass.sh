#!/usr/bin/env bash
# Shows that adding the head_dim-128 instantiations of the warp-split decode kernel leaves
# the head_dim-256 kernel's machine code unchanged: compiles decode_warp.cu as shipped and a
# copy whose launchers only ever instantiate the d256 kernel, then diffs the SASS of the
# d256 function from both. Needs nvcc and cuobjdump (run it on the GPU machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$root/kernels/cuda/attention/decode_warp.cu
sed -e 's/Launch<8, 1>(p, stream) : Launch<4, 1>(p, stream)/Launch<8, 1>(p, stream) : cudaErrorNotSupported/' \
    -e 's/return Launch<8, 2>(p, stream);/return cudaErrorNotSupported;/' "$src" > "$work/decode_warp_d256_only.cu"
if cmp -s "$src" "$work/decode_warp_d256_only.cu"; then
  echo "check_d256_sass: the d256-only variant did not change; update the sed patterns" >&2
  exit 2
fi
flags=(-std=c++17 -O3 -I"$root" -gencode=arch=compute_90,code=sm_90 -c)
nvcc "${flags[@]}" "$src" -o "$work/all.o"
nvcc "${flags[@]}" -I"$root/kernels/cuda/attention" "$work/decode_warp_d256_only.cu" -o "$work/d256.o"
kernels_in() { cuobjdump -sass "$1" | grep -o 'Function : [^ ]*DecodeWarpKernel[^ ]*' | sort; }
echo "kernels in the shipped object:"; kernels_in "$work/all.o"
echo "kernels in the d256-only object:"; kernels_in "$work/d256.o"
d256=$(kernels_in "$work/all.o" | grep 'ILi8ELi1E' | sed 's/Function : //')
# The anonymous-namespace hash in the mangled name differs between the two files; compare bodies.
body() { cuobjdump -sass "$1" | awk -v f="ILi8ELi1E" '/Function :/ {p = index($0, f) > 0} p' | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed -E 's@/\* 0x[0-9a-f]+ \*/@@'; }
body "$work/all.o" > "$work/all.sass"
body "$work/d256.o" > "$work/d256.sass"
lines=$(wc -l < "$work/all.sass")
if [ "$lines" -lt 50 ]; then echo "check_d256_sass: no SASS found for $d256" >&2; exit 2; fi
if diff -q "$work/all.sass" "$work/d256.sass" >/dev/null; then
  echo "IDENTICAL: $lines SASS instructions of the d256 warp kernel are the same with and without the d128 arms"
else
  echo "DIFFERENT: the d256 warp kernel's SASS changed"; diff "$work/all.sass" "$work/d256.sass" | head -40
  exit 1
fi
