# Sourced by the GPU evidence scripts as `source .../gpu_evidence_common.sh BIN_DIR OUT_DIR [PARTS]`
# with default_parts set: sets bin, out, root and want PART, and makes vt and the GPU test binaries
# find their shared libraries on the GPU machine (BIN_DIR packed as gpu_e2e_evidence.sh says), whose
# own libraries come first; BIN's fallback copies and a cuBLAS found elsewhere only for what is
# missing. Python (torch) keeps the environment it came with: "${python_env[@]}" python3 ...
bin=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
parts=",${3:-$default_parts},"
want() { [[ $parts == *",$1,"* ]]; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
chmod +x "$bin"/vt "$bin"/vt_gpu_*_tests 2>/dev/null
python_env=(env "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}")
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}"
if ldd "$bin/vt" | grep -q 'not found'; then export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$bin/fallback"; fi
if ldd "$bin/vt" | grep -q 'libcublas.so.13 => not found'; then
  cublas=$(find / -xdev -name libcublas.so.13 2>/dev/null | head -1)
  [ -n "$cublas" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$cublas")"
fi
echo "missing libraries: $(ldd "$bin/vt" | grep 'not found' | tr -s ' \t' ' ' || true)"
# Which binaries ran: the evidence names them by checksum.
(cd "$bin" && sha256sum vt vt_* 2>/dev/null) > "$out/binaries.sha256" || true
# Stops a run whose A/B binaries are byte for byte the same build (a variant packed in place of the
# build it is compared with): `distinct_builds vt vt_base`.
distinct_builds() {
  if cmp -s "$bin/$1" "$bin/$2"; then
    echo "$bin/$1 and $bin/$2 are the same file: an A/B of a build against itself; repack" >&2
    exit 1
  fi
}
