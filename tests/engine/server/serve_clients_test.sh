#!/usr/bin/env bash
# `vt serve` with real clients: the official openai npm package (tool calling included, and reasoning
# on a variant of the embedded model with a reasoning template), then a load of 64 concurrent
# streaming clients x 10 requests with a vllm-bench-style stream parser. Afterwards no request
# is running and RSS is within 10% of its value after a warm-up load. The KV pool's pages become
# resident as blocks are first used, and blocks are handed out least recently freed first, so
# the warm-up uses more blocks than the pool has (a 256-token context keeps the pool at 1024
# blocks; each round is 640 requests of two blocks each). The allocator's arenas settle over the
# same rounds (RSS per round, in kB: 190716, 215100, 226780, 231112, 232852): after three,
# growth past 10% would be a leak. Skips (exit 77) with the reason when node or the npm package cannot
# be had.
# Usage: serve_clients_test.sh VT_BINARY SOURCE_DIR
set -uo pipefail
vt=$1
src=$2
cache=${VT_NODE_CACHE:-$HOME/.cache/vt/node}
# ci/fetch-openai-client.sh installed it (ctest runs it first: fixtures.npm_fetch) or left why not.
if [ ! -f "$cache/node_modules/openai/package.json" ]; then
  echo "SKIP: $(cat "$cache/UNAVAILABLE" 2>/dev/null || echo 'the openai npm package is not available')"
  exit 77
fi
source "$src/tests/engine/server/serve_wait.sh"
log=$(mktemp)
thinker=$(mktemp -d)
trap 'kill ${pid:-} ${served_pid:-} 2>/dev/null; rm -f "$log"; rm -rf "$thinker"' EXIT
# Start-up takes seconds on an idle machine and much longer on a loaded one: wait for readiness.
# The embedded model's template renders no tools: --tool-call-parser gives it the Hermes format.
start_serve "$vt" "$log" --max-num-seqs 64 --max-model-len 256 --tool-call-parser hermes
pid=$served_pid
port=$served_port
base=http://127.0.0.1:$port/v1
status=0
node "$src/tests/engine/server/openai_client_test.mjs" "$base" "$cache" || status=1
node "$src/tests/engine/server/openai_tools_test.mjs" "$base" "$cache" || status=1

rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
for round in 1 2 3; do node "$src/tests/engine/server/load_test.mjs" "$base" 64 10 >/dev/null || status=1; done
before=$(rss)
node "$src/tests/engine/server/load_test.mjs" "$base" 64 10 || status=1
wait_metric "http://127.0.0.1:$port" vt:num_requests_running 0 || status=1
after=$(rss)
running=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^vt:num_requests_running / {print $2}')
echo "RSS after the warm-up ${before} kB, after ${after} kB; requests running after: ${running}"
[ "$running" = 0 ] || { echo "FAIL requests still running"; status=1; }
python3 -c "import sys; b, a = int(sys.argv[1]), int(sys.argv[2]); sys.exit(0 if a <= b * 1.10 else 1)" "$before" "$after" ||
  { echo "FAIL RSS grew more than 10%"; status=1; }
kill "$pid"
wait "$pid" 2>/dev/null

# A reasoning variant of the embedded model: the same weights behind a Qwen3-style template whose
# generation prompt opens a <think> block (and closes it when enable_thinking is false).
for f in config.json generation_config.json model.safetensors tokenizer.json; do
  ln -s "$src/assets/models/fortune-qwen3-7m/$f" "$thinker/$f"
done
python3 - "$src/assets/models/fortune-qwen3-7m/tokenizer_config.json" "$thinker/tokenizer_config.json" <<'EOF'
import json, sys
config = json.load(open(sys.argv[1]))
prompt = "{{- '<|im_start|>assistant\\n' }}"
assert prompt in config["chat_template"]
config["chat_template"] = config["chat_template"].replace(
    prompt, "{{- '<|im_start|>assistant\\n<think>\\n' }}"
            "{%- if enable_thinking is defined and enable_thinking is false %}{{- '\\n</think>\\n\\n' }}{%- endif %}")
json.dump(config, open(sys.argv[2], "w"))
EOF
start_serve "$vt" "$log" --model "$thinker" --served-model-name fortune-qwen3-7m --max-model-len 256
node "$src/tests/engine/server/openai_reasoning_test.mjs" "http://127.0.0.1:$served_port/v1" "$cache" || status=1
exit $status
