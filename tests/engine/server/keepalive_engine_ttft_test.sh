#!/usr/bin/env bash
# Keep-alive TTFT against the engine's own (issue #14): on the CPU with the embedded model, the
# second and later streamed requests on one connection must get their first token within 15 ms of
# the engine's TTFT. `vt bench decode` times the engine alone (no HTTP) and `vt bench serve` the same
# requests (concurrency, prompt and output lengths) streamed through a real `vt serve` over
# loopback, its keep-alive requests apart from each connection's first. The two alternate over
# several rounds so load from other jobs on the machine falls on both alike, and medians are
# compared, as one slow scheduling of either side is noise, not the server's cost.
# Usage: keepalive_engine_ttft_test.sh VT_BINARY
set -uo pipefail
vt=$1
here=$(dirname "$0")
source "$here/serve_wait.sh"
work=$(mktemp -d)
cleanup() { kill "${served_pid:-}" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

concurrency=1
input_len=8
output_len=8
rounds=9
prompts_per_round=9  # 1 on a fresh connection, 8 kept alive
bound_ms=15

start_serve "$vt" "$work/serve.log" --max-num-seqs 8 --max-model-len 256
for round in $(seq 1 "$rounds"); do
  "$vt" bench decode --backend cpu --concurrency "$concurrency" --input-len "$input_len" \
    --output-len "$output_len" --seed "$round" --json >"$work/decode_$round.json" 2>"$work/decode.err" ||
    { echo "FAIL vt bench decode (round $round):"; cat "$work/decode.err"; exit 1; }
  "$vt" bench serve --base-url "http://127.0.0.1:$served_port" --concurrency "$concurrency" \
    --num-prompts "$prompts_per_round" --input-len "$input_len" --output-len "$output_len" --seed "$round" \
    --json >"$work/serve_$round.json" 2>"$work/serve.err" ||
    { echo "FAIL vt bench serve (round $round):"; cat "$work/serve_$round.json" "$work/serve.err"; exit 1; }
done

python3 - "$work" "$rounds" "$bound_ms" <<'PY'
import json, statistics, sys
work, rounds, bound = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
engine, kept, fresh = [], [], []
for r in range(1, rounds + 1):
    d = json.load(open(f"{work}/decode_{r}.json"))
    s = json.load(open(f"{work}/serve_{r}.json"))
    engine.append(d["results"][0]["ttft_ms"]["median"])
    assert s["requests_failed"] == 0, s
    assert s["ttft_keep_alive_ms"]["count"] == s["num_prompts"] - s["concurrency"], s
    kept.append(s["ttft_keep_alive_ms"]["median"])
    fresh.append(s["ttft_new_connection_ms"]["median"])
engine_p50, kept_p50, fresh_p50 = statistics.median(engine), statistics.median(kept), statistics.median(fresh)
print("TTFT p50 per round, ms: engine", [round(x, 2) for x in engine])
print("                        keep-alive", [round(x, 2) for x in kept])
print("                        new connection", [round(x, 2) for x in fresh])
print(f"TTFT p50: vt bench decode {engine_p50:.2f} ms, vt bench serve keep-alive {kept_p50:.2f} ms "
      f"(+{kept_p50 - engine_p50:.2f} ms; bound {bound:.0f} ms), new connection {fresh_p50:.2f} ms")
if kept_p50 > engine_p50 + bound:
    print(f"FAIL keep-alive requests get their first token {kept_p50 - engine_p50:.1f} ms after the engine's TTFT")
    sys.exit(1)
print("ok   keep-alive TTFT within the bound of the engine's")
PY
