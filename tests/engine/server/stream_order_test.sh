#!/usr/bin/env bash
# Streamed tokens arrive whole and in order under load (stream_order_test.py says what it checks).
# Usage: stream_order_test.sh VT_BINARY
set -uo pipefail
vt=$1
here=$(dirname "$0")
source "$here/serve_wait.sh"
work=$(mktemp -d)
cleanup() { kill "${served_pid:-}" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
start_serve "$vt" "$work/serve.log" --max-num-seqs 64 --max-model-len 256
python3 "$here/stream_order_test.py" 127.0.0.1 "$served_port" || { tail -20 "$work/serve.log"; exit 1; }
