#!/usr/bin/env bash
# `vt bench serve` end to end: against `vt serve` on the embedded model, 24 streamed requests at
# concurrency 4 all succeed with every requested token counted and sane latency spreads, TTFT split
# into the 4 connections' first requests and the 20 kept-alive ones after them; the report names
# the server's build beside its own; text prompts; against a port where nothing listens, every
# request fails, the exit status is non-zero, the message says why and no server build is named;
# against a hostile server (pages that never end or trickle, refusals and events that never end),
# the run still ends, naming each failure.
# Usage: serve_bench_test.sh VT_BINARY SOURCE_DIR
set -uo pipefail
vt=$1
src=$2
source "$src/tests/engine/server/serve_wait.sh"
log=$(mktemp)
out=$(mktemp)
err=$(mktemp)
trap 'kill ${served_pid:-} 2>/dev/null; rm -f "$log" "$out" "$err"' EXIT
start_serve "$vt" "$log" --max-num-seqs 8 --max-model-len 256
port=$served_port
status=0

"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 24 --concurrency 4 --input-len 16 \
  --output-len 8 --json >"$out" 2>"$err"
rc=$?
cat "$out" "$err"
[ "$rc" = 0 ] || { echo "FAIL vt bench serve exited $rc against a live server"; status=1; }
built=$("$vt" --version | sed -n 's/.*(source \(.*\))$/\1/p')
python3 - "$out" "$built" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d['requests_ok'] == 24 and d['requests_failed'] == 0, d
# Both builds named: the load generator's and the one the server says it runs (the same binary here).
assert d['build_source'] == d['server_build_source'] == sys.argv[2] != '', d
assert d['output_tokens'] == 24 * 8, d
assert d['duration_s'] > 0 and d['output_tok_s'] > 0 and d['request_s'] > 0, d
for key in ('ttft_ms', 'tpot_ms', 'itl_ms'):
    s = d[key]
    assert s['count'] > 0 and 0 < s['median'] <= s['p90'] <= s['p99'], (key, s)
assert d['ttft_ms']['count'] == 24 and d['tpot_ms']['count'] == 24, d
# One connection per worker, kept alive: each sends its first request fresh and the rest on it.
fresh, kept = d['ttft_new_connection_ms'], d['ttft_keep_alive_ms']
assert fresh['count'] == 4 and kept['count'] == 20, (fresh, kept)
for s in (fresh, kept):
    assert 0 < s['median'] <= s['p90'] <= s['p99'], s
assert d['request_rate'] == 0 and d['last_due_s'] == 0, d  # no schedule: sent as workers free up
print('ok: live server', d['output_tok_s'], 'tok/s')
PY

# --output-lens-from: the report lists each request's output tokens in the order sent, and a run given
# a report asks each request for its counterpart's length (the same seed sends the same prompts).
python3 - "$out" > "${out}.lens" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['output_lens'] == [8] * 24, d['output_lens']
print(json.dumps({'output_lens': [1 + (i * 7) % 11 for i in range(24)]}))
PY
[ $? = 0 ] || { echo "FAIL the report does not list each request's output tokens"; status=1; }
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 24 --concurrency 4 --input-len 16 \
  --output-lens-from "${out}.lens" --json >"$out" 2>"$err"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL vt bench serve --output-lens-from exited $rc"; cat "$err"; status=1; }
python3 - "$out" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
want = [1 + (i * 7) % 11 for i in range(24)]
assert d['output_lens'] == want and d['output_tokens'] == sum(want), (d['output_lens'], want)
print('ok: replayed', sum(want), 'output tokens over 24 requests')
PY
for bad in '{"output_lens": [1, 2]}' '{"output_lens": [0, 1, 1]}' '[1, 2, 3]' 'not json'; do
  printf '%s' "$bad" > "${out}.lens"
  "$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 3 --output-lens-from "${out}.lens" \
    >/dev/null 2>"$err"
  [ $? = 2 ] && grep -q -- '--output-lens-from' "$err" ||
    { echo "FAIL --output-lens-from accepted '$bad'"; cat "$err"; status=1; }
done
# A million-deep array where a length should be, and a directory: named, no crash.
python3 -c "print('{\"output_lens\": [' + '[' * 1000000 + ']' * 1000000 + ']}')" > "${out}.lens"
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 1 --output-lens-from "${out}.lens" >/dev/null 2>"$err"
[ $? = 2 ] && grep -q 'deeply nested array' "$err" || { echo "FAIL a deep --output-lens-from entry"; cat "$err"; status=1; }
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 1 --output-lens-from "$(dirname "$out")" >/dev/null 2>"$err"
[ $? = 2 ] && grep -q 'is not a file' "$err" || { echo "FAIL a directory as --output-lens-from"; cat "$err"; status=1; }
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 3 --output-lens-from /nonexistent.json \
  >/dev/null 2>"$err"
[ $? = 2 ] && grep -q 'cannot read' "$err" || { echo "FAIL a missing --output-lens-from is not a usage error"; status=1; }
rm -f "${out}.lens"

# The table shows the split too: one connection, its first request fresh and the other two kept alive.
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 3 --concurrency 1 --input-len 4 \
  --output-len 2 >"$out" 2>"$err"
rc=$?
cat "$out"
[ "$rc" = 0 ] && grep -Eq '^   new connection +[0-9.]+ ' "$out" && grep -Eq '^   keep-alive +[0-9.]+ ' "$out" ||
  { echo "FAIL the table does not split TTFT by connection"; cat "$err"; status=1; }

# Poisson arrivals: the last request is not sent before it is due, so the run lasts at least that long.
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 8 --concurrency 4 --input-len 8 \
  --output-len 2 --request-rate 4 --seed 3 --json >"$out" 2>"$err"
rc=$?
cat "$out" "$err"
[ "$rc" = 0 ] || { echo "FAIL vt bench serve --request-rate exited $rc"; status=1; }
python3 - "$out" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d['requests_ok'] == 8 and d['request_rate'] == 4, d
assert d['last_due_s'] > 0.5 and d['duration_s'] >= d['last_due_s'], d
print('ok: Poisson arrivals, last due at', d['last_due_s'], 's, run', d['duration_s'], 's')
PY

# --extra-body reaches the server: a field it refuses fails every request, naming the server's answer.
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 3 --concurrency 1 --input-len 4 \
  --output-len 2 --extra-body '{"temperature": -1}' --json >"$out" 2>"$err"
rc=$?
[ "$rc" != 0 ] && grep -q 'HTTP 400' "$err" || { echo "FAIL --extra-body did not reach the server"; cat "$out" "$err"; status=1; }
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 1 --extra-body '[1]' >"$out" 2>"$err"
[ $? = 2 ] && grep -q 'must be a JSON object' "$err" || { echo "FAIL a non-object --extra-body is not a usage error"; status=1; }

# Text prompts (--tokenizer): the server tokenizes each one; every request succeeds, and the prompts
# encode to the asked length by the same tokenizer. A tokenizer that cannot load is a usage error.
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 6 --concurrency 2 --input-len 24 \
  --output-len 4 --tokenizer "$src/assets/models/fortune-qwen3-7m/tokenizer.json" --json >"$out" 2>"$err"
rc=$?
cat "$out" "$err"
[ "$rc" = 0 ] || { echo "FAIL vt bench serve --tokenizer exited $rc"; status=1; }
python3 - "$out" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d['requests_ok'] == 6 and d['output_tokens'] == 6 * 4, d
assert d['prompts'] == 'text' and d['prompt_tokens_mean'] == 24, d
print('ok: text prompts of', d['prompt_tokens_mean'], 'tokens')
PY
"$vt" bench serve --base-url "http://127.0.0.1:$port" --num-prompts 1 --tokenizer /nonexistent/tokenizer.json \
  >"$out" 2>"$err"
[ $? = 2 ] && grep -q -- '--tokenizer' "$err" || { echo "FAIL a missing --tokenizer is not a usage error"; cat "$err"; status=1; }

# A model served without a tokenizer streams one event per token with empty text: each is a token.
kill "$served_pid"; wait "$served_pid" 2>/dev/null
start_serve "$vt" "$log" --model preset:qwen3-0.6b --load-format dummy --max-num-seqs 2 --max-model-len 64
"$vt" bench serve --base-url "http://127.0.0.1:$served_port" --num-prompts 4 --concurrency 2 --input-len 4 \
  --output-len 3 --vocab-size 1000 --json >"$out" 2>"$err"
rc=$?
cat "$out" "$err"
[ "$rc" = 0 ] || { echo "FAIL vt bench serve exited $rc against a server without a tokenizer"; status=1; }
python3 - "$out" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d['requests_ok'] == 4 and d['output_tokens'] == 12 and d['ttft_ms']['count'] == 4, d
assert d['itl_ms']['count'] == 4 * 2, d  # two gaps between three token events per request
print('ok: no tokenizer', d['output_tok_s'], 'tok/s')
PY

# Nothing listens on a port just freed.
dead=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()")
"$vt" bench serve --base-url "http://127.0.0.1:$dead" --num-prompts 5 --concurrency 2 --input-len 4 \
  --output-len 2 --json >"$out" 2>"$err"
rc=$?
cat "$out" "$err"
[ "$rc" != 0 ] || { echo "FAIL vt bench serve exited 0 with nothing listening"; status=1; }
grep -q '5 of 5 requests failed; first error: could not connect to http://127.0.0.1:'"$dead" "$err" ||
  { echo "FAIL the message does not say the requests failed to connect"; status=1; }
python3 - "$out" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d['requests_ok'] == 0 and d['requests_failed'] == 5 and d['errors'], d
assert d['server_build_source'] is None, d  # no server, no build named for it
# No answer, no latency: null, never a zero that reads as a fast one.
for key in ('ttft_ms', 'ttft_new_connection_ms', 'ttft_keep_alive_ms'):
    assert d[key] == {'count': 0, 'median': None, 'p90': None, 'p99': None}, (key, d[key])
print('ok: dead port', d['errors'])
PY

# A hostile server: /version trickles a byte at a time, /metrics never ends, the first completion is
# refused with a body that never ends, the second streams one event that never ends, the third
# sends an SSE comment every 0.2 s for ever and the fourth a chunk-size line that never ends. Each is
# dropped (10 s for a page at most, the bodies and the unparsed bytes at their caps, the drip at
# --request-timeout) and named; the run ends.
portfile=$(mktemp)
python3 - "$portfile" <<'PY' &
import os, socket, sys, threading, time
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', 0))
srv.listen(16)
tmp = sys.argv[1] + '.tmp'
open(tmp, 'w').write(str(srv.getsockname()[1]))
os.rename(tmp, sys.argv[1])
posts = 0
def serve(conn):
    global posts
    try:
        while True:
            head = b''
            while b'\r\n\r\n' not in head:
                got = conn.recv(65536)
                if not got:
                    return
                head += got
            line = head.split(b'\r\n', 1)[0].decode()
            if line.startswith('GET /version'):
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n')
                while True:
                    conn.sendall(b'{')
                    time.sleep(0.2)
            chunk = b'10000\r\n' + b'x' * 0x10000 + b'\r\n'
            if line.startswith('GET'):
                conn.sendall(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')
            else:
                posts += 1
                status = b'500 Internal Server Error' if posts % 4 == 1 else b'200 OK'
                conn.sendall(b'HTTP/1.1 ' + status + b'\r\nContent-Type: text/event-stream\r\n'
                             b'Transfer-Encoding: chunked\r\n\r\n')
                if posts % 4 == 0:
                    conn.sendall(b'6;ext=')
                    while True:
                        conn.sendall(b'e' * 0x10000)
                if posts % 4 == 3:
                    while True:
                        conn.sendall(b'8\r\n: ping\n\n\r\n')
                        time.sleep(0.2)
                conn.sendall(b'6\r\ndata: \r\n')
            while True:
                conn.sendall(chunk)
    except OSError:
        pass
    finally:
        conn.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
hostile_pid=$!
for _ in $(seq 300); do [ -s "$portfile" ] && break; sleep 0.1; done
started=$(date +%s)
timeout -k 5 120 "$vt" bench serve --base-url "http://127.0.0.1:$(cat "$portfile")" --num-prompts 4 --concurrency 1 \
  --input-len 4 --output-len 2 --timeout 5 --request-timeout 3 --json >"$out" 2>"$err"
rc=$?
kill "$hostile_pid" 2>/dev/null; wait "$hostile_pid" 2>/dev/null
rm -f "$portfile"
cat "$err"
elapsed=$(( $(date +%s) - started ))
echo "against the hostile server: exit $rc after $elapsed s"
[ "$rc" = 1 ] || { echo "FAIL vt bench serve against a hostile server exited $rc (124: it hung)"; status=1; }
# The trickled page costs its 10 s deadline; without one it would cost the whole timeout.
[ "$elapsed" -lt 60 ] || { echo "FAIL the hostile server held vt bench serve $elapsed s"; status=1; }
python3 - "$out" <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d['requests_ok'] == 0 and d['requests_failed'] == 4, d
assert d['server_build_source'] is None and d['engine_steps'] == 0, d
errors = ' | '.join(e['message'] for e in d['errors'])
assert 'HTTP 500: data: xxxx' in errors and 'a stream event over 1 MiB' in errors, errors
assert 'did not finish within its time limit' in errors, errors
assert 'chunk\'s size line or trailer) ran past 1 MiB' in errors, errors
print('ok: hostile server:', ' | '.join(e['message'][:80] for e in d['errors']))
PY
exit $status
