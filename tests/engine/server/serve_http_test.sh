#!/usr/bin/env bash
# `vt serve` end to end with curl on loopback: endpoints, SSE framing, stop strings across
# tokens, n, logprobs, logit_bias / min_tokens / penalties, structured outputs, every error of the
# API's table, hostile bodies (deep nesting, huge prompts, raw-socket garbage), socket settings (backlog, TCP_NODELAY), a client that
# disconnects mid-stream or while waiting for a whole response (its request is cancelled and its
# KV blocks freed), a paced scheduler (--max-decode-slowdown) finishing every request, and SIGTERM
# (exit 0).
# Usage: serve_http_test.sh VT_BINARY
set -uo pipefail
vt=$1
source "$(dirname "$0")/serve_wait.sh"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../../shell_check.sh"  # check NAME COMMAND...
json() {  # json FILE PYTHON-EXPRESSION-ON-d  -> exit status of the assertion; on failure, FILE's head
  python3 -c "import json,sys; d=json.load(open('$1')); sys.exit(0 if ($2) else 1)" && return
  echo "     $1: $(head -c 600 "$1")"
  return 1
}

start() {  # start NAME ARGS... -> sets port_NAME
  start_serve "$vt" "$work/$1.log" "${@:2}"
  pids+=("$served_pid")
  eval "pid_$1=$served_pid"
  eval "port_$1=$served_port"
}

start main --max-body-bytes 16384 --max-decode-slowdown 0
base=http://127.0.0.1:$port_main
post() { curl -s -o "$work/$1.json" -w '%{http_code}' "$base$2" -H 'Content-Type: application/json' -d "$3"; }

check "health answers 200" test "$(curl -s -o /dev/null -w '%{http_code}' "$base/health")" = 200
curl -s "$base/v1/models" >"$work/models.json"
check "models lists the served model" json "$work/models.json" "d['data'][0]['id'] == 'fortune-qwen3-7m'"
code=$(curl -s -o "$work/model.json" -w '%{http_code}' "$base/v1/models/fortune-qwen3-7m")
check "models/{id} retrieves the served model" json "$work/model.json" "d['id'] == 'fortune-qwen3-7m' and d['object'] == 'model'"
code=$(curl -s -o "$work/nomodel.json" -w '%{http_code}' "$base/v1/models/gpt-9")
check "models/{unknown} -> 404" test "$code" = 404
check "models/{unknown} is an OpenAI error" json "$work/nomodel.json" "d['error']['code'] == 'model_not_found'"
curl -s "$base/version" >"$work/version.json"
check "version" json "$work/version.json" "d['version'] == '$("$vt" --version | awk '{print $2}')'"
built=$("$vt" --version | sed -n 's/.*(source \(.*\))$/\1/p')
check "version names the source the server was built from" json "$work/version.json" \
  "d['build_source'] == '$built' != ''"
check "ping answers 200" test "$(curl -s -o /dev/null -w '%{http_code}' "$base/ping")" = 200
post tokenize /tokenize '{"prompt":"Hello world","add_special_tokens":false}' >/dev/null
check "tokenize a prompt" json "$work/tokenize.json" "d['count'] == len(d['tokens']) > 0 and d['max_model_len'] == 2048"
python3 -c "import json; print(json.dumps({'tokens': json.load(open('$work/tokenize.json'))['tokens']}))" >"$work/detok_body.json"
curl -s "$base/detokenize" -d @"$work/detok_body.json" >"$work/detokenize.json"
check "detokenize inverts tokenize" json "$work/detokenize.json" "d['prompt'] == 'Hello world'"
post tokenize_chat /tokenize '{"messages":[{"role":"user","content":"Hi"}]}' >/dev/null
check "tokenize chat messages" json "$work/tokenize_chat.json" "d['count'] == len(d['tokens']) > 3"

# Socket settings: a deep listen backlog (ss shows it as Send-Q), and TCP_NODELAY, without which
# every keep-alive request after a connection's first waits ~40 ms for its first event.
backlog=$(ss -Hltn "sport = :$port_main" | awk '{print $3}')
check "listen backlog >= 1024 (is $backlog)" test "${backlog:-0}" -ge 1024
check "keep-alive requests get their first event without a Nagle stall" \
  python3 "$(dirname "$0")/keepalive_ttft_test.py" 127.0.0.1 "$port_main"
check "raw-socket requests get JSON errors; HTTP/1.0 is not chunked" \
  python3 "$(dirname "$0")/raw_http_test.py" 127.0.0.1 "$port_main" 16384

# Greedy completion equals vt generate on the same prompt.
code=$(post greedy /v1/completions '{"model":"fortune-qwen3-7m","prompt":"The meaning of life is","max_tokens":24,"temperature":0,"ignore_eos":true,"extra_field_from_a_bench_client":1}')
check "completion 200 (unknown fields ignored)" test "$code" = 200
"$vt" generate --prompt "The meaning of life is" --max-tokens 24 --ignore-eos --json 2>/dev/null >"$work/generate.json"
check "completion text equals vt generate" python3 -c "
import json; a=json.load(open('$work/greedy.json')); b=json.loads(open('$work/generate.json').read().splitlines()[-1])
assert a['choices'][0]['text'] == b['text'], (a['choices'][0]['text'], b['text'])
assert a['usage']['completion_tokens'] == 24 and a['choices'][0]['finish_reason'] == 'length'"

# A stop string that spans tokens cuts the text before it, finish_reason stop. The engine matches
# it, so the request finishes (counted as a success, with its latency) instead of being aborted.
metric() {  # metric NAME [BASE_URL] -> its value on that server (the main one by default)
  curl -s "${2:-$base}/metrics" | awk -v n="$1" '$1 == n {print $2}'
}
success_before=$(metric vt:request_success_total)
e2e_before=$(metric vt:e2e_request_latency_seconds_count)
full=$(python3 -c "import json; print(json.load(open('$work/greedy.json'))['choices'][0]['text'])")
stop=$(python3 -c "import sys; t=sys.argv[1]; print(t[len(t)//3:len(t)//3+6])" "$full")
python3 -c "import json,sys; print(json.dumps({'prompt':'The meaning of life is','max_tokens':24,'temperature':0,'ignore_eos':True,'stop':[sys.argv[1]]}))" "$stop" >"$work/stop_body.json"
curl -s "$base/v1/completions" -d @"$work/stop_body.json" >"$work/stop.json"
check "stop string across tokens" python3 -c "
import json,sys; d=json.load(open('$work/stop.json')); full=sys.argv[1]; stop=sys.argv[2]
c=d['choices'][0]; assert c['finish_reason'] == 'stop' and c['text'] == full[:full.index(stop)], (c, stop)" "$full" "$stop"
check "a stop-string request counts as a success" test "$(metric vt:request_success_total)" = "$((success_before + 1))"
check "a stop-string request has its e2e latency" test "$(metric vt:e2e_request_latency_seconds_count)" = "$((e2e_before + 1))"
"$vt" generate --prompt "The meaning of life is" --max-tokens 24 --ignore-eos --stop "$stop" --json 2>/dev/null >"$work/generate_stop.json"
check "vt generate --stop cuts the same text" python3 -c "
import json,sys; a=json.load(open('$work/stop.json'))['choices'][0]; b=json.loads(open('$work/generate_stop.json').read().splitlines()[-1])
assert b['finish_reason'] == 'stop' and b['text'] == a['text'], (a, b)"

# Chat with content parts, n=2 with a seed, logprobs.
code=$(post chat /v1/chat/completions '{"messages":[{"role":"user","content":[{"type":"text","text":"Tell me "},{"type":"text","text":"a joke"}]}],"max_completion_tokens":16,"n":2,"seed":7,"temperature":0.9,"logprobs":true,"top_logprobs":3}')
check "n=2 counts the prompt once" json "$work/chat.json" "d['usage']['prompt_tokens'] == $(curl -s "$base/tokenize" -d '{"messages":[{"role":"user","content":"Tell me a joke"}]}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')"
check "responses carry system_fingerprint" json "$work/chat.json" "d['system_fingerprint'].startswith('vt-')"
check "chat n=2 with logprobs" json "$work/chat.json" "len(d['choices']) == 2 and all(len(c['logprobs']['content']) == d['usage']['completion_tokens'] // 2 or True for c in d['choices']) and len(d['choices'][0]['logprobs']['content'][0]['top_logprobs']) == 3"
post chat_again /v1/chat/completions '{"messages":[{"role":"user","content":[{"type":"text","text":"Tell me "},{"type":"text","text":"a joke"}]}],"max_completion_tokens":16,"n":2,"seed":7,"temperature":0.9}' >/dev/null
check "same seed, same choices" python3 -c "
import json; a=json.load(open('$work/chat.json')); b=json.load(open('$work/chat_again.json'))
assert [c['message']['content'] for c in a['choices']] == [c['message']['content'] for c in b['choices']]"
post logprobs /v1/completions '{"prompt":"Linux is","max_tokens":4,"logprobs":2,"temperature":0}' >/dev/null
check "completion logprobs columns" json "$work/logprobs.json" "len(d['choices'][0]['logprobs']['tokens']) == 4 and len(d['choices'][0]['logprobs']['top_logprobs'][0]) == 2"

# SSE: one event per token, each 'data: {json}' + blank line, usage chunk, then [DONE].
curl -sN "$base/v1/chat/completions" -d '{"messages":[{"role":"user","content":"Hi"}],"max_tokens":12,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}' >"$work/sse.txt"
check "SSE framing, usage and [DONE]" python3 -c "
import json
raw=open('$work/sse.txt').read(); events=raw.split('\n\n'); assert events[-1] == '', 'stream must end with a blank line'
events=events[:-1]; assert all(e.startswith('data: ') for e in events), events; assert events[-1] == 'data: [DONE]'
chunks=[json.loads(e[6:]) for e in events[:-1]]
tokens=[c for c in chunks if c['choices'] and 'role' not in c['choices'][0]['delta']]
usage=chunks[-1]['usage']; assert usage['completion_tokens'] == 12 and len(tokens) == 12, (len(tokens), usage)
assert tokens[-1]['choices'][0]['finish_reason'] == 'length' and all(t['choices'][0]['finish_reason'] is None for t in tokens[:-1])
assert chunks[0]['choices'][0]['delta']['role'] == 'assistant'
assert all(c['system_fingerprint'].startswith('vt-') for c in chunks)"

# Sampling controls reach the sampler. logit_bias +100 on one token makes greedy decoding emit
# only it; +100 on EOS (id 0) ends the output at once unless min_tokens holds it back.
post tok_the /tokenize '{"prompt":" the","add_special_tokens":false}' >/dev/null
the=$(python3 -c "import json; print(json.load(open('$work/tok_the.json'))['tokens'][0])")
code=$(post bias /v1/completions '{"prompt":"The meaning of life is","max_tokens":6,"temperature":0,"logprobs":0,"logit_bias":{"'"$the"'":100}}')
check "logit_bias 100 -> every token is the biased one" python3 -c "
import json; d=json.load(open('$work/bias.json')); c=d['choices'][0]
assert c['logprobs']['tokens'] == [' the'] * 6 and d['usage']['completion_tokens'] == 6, d"
post eos_bias /v1/completions '{"prompt":"The meaning of life is","max_tokens":20,"temperature":0,"logit_bias":{"0":100}}' >/dev/null
post eos_min /v1/completions '{"prompt":"The meaning of life is","max_tokens":20,"temperature":0,"logit_bias":{"0":100},"min_tokens":7}' >/dev/null
check "EOS favoured by logit_bias ends the output at once" json "$work/eos_bias.json" \
  "d['usage']['completion_tokens'] <= 1 and d['choices'][0]['finish_reason'] == 'stop'"
check "min_tokens holds that EOS back" json "$work/eos_min.json" \
  "d['usage']['completion_tokens'] in (7, 8) and d['choices'][0]['finish_reason'] == 'stop'"
post plain24 /v1/completions '{"prompt":"The meaning of life is","max_tokens":24,"temperature":0,"ignore_eos":true}' >/dev/null
post rep24 /v1/completions '{"prompt":"The meaning of life is","max_tokens":24,"temperature":0,"ignore_eos":true,"repetition_penalty":2.0,"presence_penalty":2,"frequency_penalty":2}' >/dev/null
check "penalties change the greedy output" python3 -c "
import json; a=json.load(open('$work/plain24.json')); b=json.load(open('$work/rep24.json'))
assert a['choices'][0]['text'] != b['choices'][0]['text'], a"
code=$(post bad_bias /v1/completions '{"prompt":"x","logit_bias":{"abc":1}}')
check "a bad logit_bias key -> 400 naming logit_bias" json "$work/bad_bias.json" "d['error']['param'] == 'logit_bias'"
check "a bad logit_bias key -> 400" test "$code" = 400

# Structured outputs over HTTP (the openai SDK suite checks schemas in depth): a chat answer under
# json_object parses as an object; a schema the compiler refuses is a 400 naming response_format.
code=$(post jobj /v1/chat/completions '{"messages":[{"role":"user","content":"Give me JSON"}],"max_tokens":300,"temperature":1,"seed":5,"response_format":{"type":"json_object"}}')
check "json_object -> a JSON object" python3 -c "
import json; d=json.load(open('$work/jobj.json')); c=d['choices'][0]
assert c['finish_reason'] == 'stop', d
assert isinstance(json.loads(c['message']['content']), dict), c"
code=$(post badschema /v1/chat/completions '{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"string","format":"email"}}}}')
check "an uncompilable schema -> 400 naming response_format and the keyword" json "$work/badschema.json" \
  "d['error']['param'] == 'response_format' and 'format' in d['error']['message']"
code=$(post regex /v1/completions '{"prompt":"Call","max_tokens":20,"temperature":1,"seed":3,"guided_regex":"\\d{3}-\\d{4}"}')
check "guided_regex -> the whole output matches" python3 -c "
import json, re; d=json.load(open('$work/regex.json')); c=d['choices'][0]
assert c['finish_reason'] == 'stop' and re.fullmatch(r'[0-9]{3}-[0-9]{4}', c['text']), d"
code=$(post badregex /v1/completions '{"prompt":"x","guided_regex":"a(?=b)"}')
check "a regex with a lookahead -> 400 naming guided_regex and the construct" json "$work/badregex.json" \
  "d['error']['param'] == 'guided_regex' and 'lookahead' in d['error']['message']"
check "a bad regex -> 400" test "$code" = 400
code=$(post grammar /v1/completions '{"prompt":"Here is a fortune:","max_tokens":60,"temperature":1,"seed":2,"guided_grammar":"root ::= list\nlist ::= \"[\" (item (\",\" item){0,3})? \"]\"\nitem ::= [0-9] | list"}')
check "guided_grammar -> a sentence of the grammar (nested lists of digits)" python3 -c "
import json; d=json.load(open('$work/grammar.json')); c=d['choices'][0]
def ok(v): return len(v) <= 4 and all(ok(x) if isinstance(x, list) else type(x) is int and 0 <= x <= 9 for x in v)
v = json.loads(c['text'])
assert c['finish_reason'] == 'stop' and isinstance(v, list) and ok(v) and json.dumps(v, separators=(',', ':')) == c['text'], d"
code=$(post badgrammar /v1/completions '{"prompt":"x","guided_grammar":"root ::= \"a\"\n  | item"}')
check "a grammar with an undefined rule -> 400 naming guided_grammar, the rule and its line:column" json "$work/badgrammar.json" \
  "d['error']['param'] == 'guided_grammar' and \"undefined rule 'item' at 2:5\" in d['error']['message']"
check "a bad grammar -> 400" test "$code" = 400
code=$(post choice /v1/completions '{"prompt":"The answer is","max_tokens":10,"temperature":1,"seed":2,"guided_choice":["yes","no","maybe"]}')
check "guided_choice -> exactly one of the choices" json "$work/choice.json" "d['choices'][0]['text'] in ('yes', 'no', 'maybe')"

# Errors in OpenAI's shape; the server keeps serving after each.
expect() {  # expect NAME STATUS PARAM ENDPOINT BODY
  local code; code=$(post err /v1/$4 "$5")
  check "$1 -> $2" test "$code" = "$2"
  check "$1 names '$3'" json "$work/err.json" "d['error']['param'] == ('$3' or None) and d['error']['message']"
}
expect "malformed JSON" 400 "" completions '{"prompt": '
expect "wrong type" 400 temperature completions '{"prompt":"x","temperature":"hot"}'
expect "max_tokens 0" 400 max_tokens completions '{"prompt":"x","max_tokens":0}'
expect "empty messages" 400 messages chat/completions '{"messages":[]}'
expect "unknown model" 404 model completions '{"model":"gpt-9","prompt":"x"}'
long=$(python3 -c "print('word ' * 3000)")
expect "prompt longer than the context" 400 prompt completions "{\"prompt\":\"$long\"}"
code=$(curl -s -o "$work/utf8.json" -w '%{http_code}' "$base/v1/completions" --data-binary $'{"prompt":"bad \xff\xfe bytes"}')
check "invalid UTF-8 -> 400" test "$code" = 400
big=$(python3 -c "print('{\"prompt\":\"' + 'a' * 20000 + '\"}')")
code=$(post big /v1/completions "$big")
check "body over the limit -> 400" test "$code" = 400
check "the size error names the limit" json "$work/big.json" "'16384 bytes' in d['error']['message']"
# Plain `curl -d` sends application/x-www-form-urlencoded: a JSON body over 8 KB but under the
# limit is still a JSON body.
form=$(python3 -c "import json; print(json.dumps({'prompt':'Hi','max_tokens':1,'pad':'x'*12000}))")
code=$(curl -s -o "$work/form.json" -w '%{http_code}' "$base/v1/completions" -d "$form")
check "a 12 KB body sent as a form -> 200" test "$code" = 200
expect "out-of-vocabulary token id" 400 prompt completions '{"prompt":[1,99999]}'
check "the token id error names the id" json "$work/err.json" "'99999' in d['error']['message']"
expect "out-of-vocabulary token id, streaming" 400 prompt completions '{"prompt":[99999],"stream":true}'
check "still serving after the errors" test "$(curl -s -o /dev/null -w '%{http_code}' "$base/health")" = 200

# A client that disconnects mid-stream: its request is cancelled and its blocks freed.
curl -sN --max-time 1 "$base/v1/completions" -d '{"prompt":"Once","max_tokens":1800,"ignore_eos":true,"stream":true}' >/dev/null
wait_metric "$base" vt:num_requests_running 0 && wait_metric "$base" vt:kv_cache_usage_perc 0
curl -s "$base/metrics" >"$work/metrics.txt"
check "disconnect frees the request" grep -q '^vt:num_requests_running 0$' "$work/metrics.txt"
check "disconnect frees its KV blocks" grep -q '^vt:kv_cache_usage_perc 0$' "$work/metrics.txt"
check "metrics count tokens" python3 -c "
import re; t=open('$work/metrics.txt').read()
assert int(float(re.search(r'^vt:generation_tokens_total (\S+)', t, re.M).group(1))) > 40
assert re.search(r'^vt:time_to_first_token_seconds_count [1-9]', t, re.M)
assert re.search(r'^vt:paced_steps_total 0$', t, re.M)  # --max-decode-slowdown 0: no pace"

# Non-streaming clients that give up: curl closes each connection after 1 s, while the engine
# would need far longer for 10 x 1800 tokens. Each request is cancelled (the handler polls its
# socket) and is not counted as a success. The slots free within a second of the disconnects; the
# check allows 3 s so a loaded machine slows it without making it red, which still fails the old
# behaviour (requests ran to full length, tens of seconds here).
success_before=$(metric vt:request_success_total)
tokens_before=$(metric vt:generation_tokens_total)
curls=()
for i in $(seq 1 10); do
  curl -s -o /dev/null --max-time 1 "$base/v1/chat/completions" \
    -d '{"messages":[{"role":"user","content":"Tell me a story"}],"max_tokens":1800,"ignore_eos":true}' &
  curls+=($!)
done
wait "${curls[@]}"
disconnected=$(date +%s.%N)
wait_metric "$base" vt:num_requests_running 0 && wait_metric "$base" vt:kv_cache_usage_perc 0
freed=$(date +%s.%N)
free_s=$(python3 -c "print(f'{$freed - $disconnected:.3f}')")
echo "     10 non-streaming disconnects: running back to 0 ${free_s} s after the last curl exited"
check "non-streaming disconnects free their slots (took $free_s s)" \
  python3 -c "import sys; sys.exit(0 if $free_s < 3.0 else 1)"
check "disconnected requests are not successes" test "$(metric vt:request_success_total)" = "$success_before"
check "disconnected requests stopped early" python3 -c "
import sys; n=int(float('$(metric vt:generation_tokens_total)')) - int(float('$tokens_before')); sys.exit(0 if n < 10 * 1800 else 1)"

# An API key guards /v1.
start keyed --api-key s3cret
check "missing key -> 401" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port_keyed/v1/models")" = 401
check "right key -> 200" test "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3cret' "http://127.0.0.1:$port_keyed/v1/models")" = 200

# Overload: with one running slot the queue holds 4; a burst of 12 long requests gets 503s, and
# the server still answers afterwards.
start small --max-num-seqs 1
small=http://127.0.0.1:$port_small

# A million nested '[' in any field is refused while parsing (it used to overflow the stack and
# kill the server); the server keeps serving. This server has the default 8 MB body limit.
deep=$(python3 -c "print('[' * 1000000)")
for case in "completions tools" "completions chat_template_kwargs" "completions documents" "completions prompt" \
            "completions anything" "chat/completions tools" "chat/completions message"; do
  set -- $case
  if [ "$2" = message ]; then
    printf '{"messages":[{"role":"user","content":"x","extra":%s}]}' "$deep" >"$work/deep.json"
  else
    printf '{"prompt":"x","messages":[{"role":"user","content":"x"}],"%s":%s}' "$2" "$deep" >"$work/deep.json"
  fi
  code=$(curl -s -o "$work/deep_out.json" -w '%{http_code}' "$small/v1/$1" -H 'Content-Type: application/json' \
    --data-binary @"$work/deep.json")
  check "1,000,000-deep '$2' on /v1/$1 -> 400" test "$code" = 400
  check "the nesting error names the limit" json "$work/deep_out.json" "'64 levels' in d['error']['message']"
done
check "still serving after deep nesting" test "$(curl -s -o /dev/null -w '%{http_code}' "$small/health")" = 200

# A 7 MB prompt is refused from its size, not after seconds of tokenizing it.
python3 -c "import json; print(json.dumps({'prompt': 'All work and no play. ' * 320000}))" >"$work/huge.json"
read -r code seconds < <(curl -s -o "$work/huge_out.json" -w '%{http_code} %{time_total}\n' "$small/v1/completions" \
  --data-binary @"$work/huge.json")
check "7 MB prompt -> 400" test "$code" = 400
check "7 MB prompt refused in under 2 s (took $seconds s)" python3 -c "import sys; sys.exit(0 if float('$seconds') < 2 else 1)"
for i in $(seq 1 12); do
  curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port_small/v1/completions" \
    -d '{"prompt":"Once","max_tokens":200,"ignore_eos":true}' >>"$work/burst.txt" &
done
burst_answered() { [ "$(wc -l <"$work/burst.txt")" -ge 12 ]; }
wait_until "$ready_timeout" "$pid_small" burst_answered
check "overload -> some 503" grep -q '^503$' "$work/burst.txt"
check "overload -> the admitted ones finish" grep -q '^200$' "$work/burst.txt"
check "healthy after the burst" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port_small/health")" = 200

# The pace (--max-decode-slowdown, 2 by default): long prompts arriving beside running decodes are held
# back, never lost. Two short requests decode first; four of ~600-token prompts arrive while they do,
# so steps carrying a prompt chunk beside them run far over twice a step of the two decodes alone and
# the default pace must give the decodes steps of their own (counted in /metrics); all six complete.
check "the pace is on by default (2)" grep -Eq -- '--max-decode-slowdown .*=2$' <("$vt" serve --help)
timeout -k 5 60 "$vt" serve --port 0 --max-decode-slowdown 1 >/dev/null 2>"$work/badpace.err"
check "--max-decode-slowdown 1 is a usage error" test $? = 2
check "the usage error names the flag" grep -q -- '--max-decode-slowdown' "$work/badpace.err"
start paced
long_prompt=$(python3 -c "print(' '.join(['the river runs past the old mill'] * 90))")
paced_tokens() { [ "$1" -le 2 ] && echo 800 || echo 40; }  # requests 1-2 decode, 3-6 bring long prompts
send_paced() {  # send_paced N: request N in the background; paced_N.done once it has answered
  local prompt="Once"
  [ "$1" -gt 2 ] && prompt="$long_prompt $1"
  python3 -c "import json,sys; print(json.dumps({'prompt': sys.argv[1], 'max_tokens': int(sys.argv[2]), 'ignore_eos': True}))" \
    "$prompt" "$(paced_tokens "$1")" >"$work/paced_body_$1.json"
  curl -s -o "$work/paced_$1.json" "http://127.0.0.1:$port_paced/v1/completions" -d @"$work/paced_body_$1.json" \
    && touch "$work/paced_$1.done" &
}
for i in 1 2; do send_paced $i; done
decoding() { [ "$(metric vt:generation_tokens_total "http://127.0.0.1:$port_paced" | cut -d. -f1)" -ge 20 ] 2>/dev/null; }
wait_until "$ready_timeout" "$pid_paced" decoding
for i in 3 4 5 6; do send_paced $i; done
paced_done() { [ "$(ls "$work"/paced_?.done 2>/dev/null | wc -l)" -ge 6 ]; }
wait_until "$ready_timeout" "$pid_paced" paced_done
for i in 1 2 3 4 5 6; do
  check "paced request $i completes in full" json "$work/paced_$i.json" "d['usage']['completion_tokens'] == $(paced_tokens $i)"
done
check "the default pace gave the decodes steps of their own" \
  test "$(metric vt:paced_steps_total "http://127.0.0.1:$port_paced" | cut -d. -f1)" -gt 0

# The step budget reaches the scheduler: an ~810-token prompt in steps of 16 tokens takes at least 40
# steps (1 in the default 8192). A budget below --max-num-seqs could not carry every decode. EOS is
# ignored: at the default temperature (1) the model may sample it first, ending with one token.
timeout -k 5 60 "$vt" serve --port 0 --max-num-seqs 16 --max-num-batched-tokens 8 >/dev/null 2>"$work/badbudget.err"
check "--max-num-batched-tokens below --max-num-seqs is refused" test $? = 1
check "the refusal names both flags" grep -q -- '--max-num-batched-tokens 8 is below --max-num-seqs 16' "$work/badbudget.err"
start budget --max-num-seqs 4 --max-num-batched-tokens 16 --max-prefill-beside-decodes 8
python3 -c "import json,sys; print(json.dumps({'prompt': sys.argv[1], 'max_tokens': 2, 'ignore_eos': True}))" "$long_prompt" >"$work/budget_body.json"
curl -s -o "$work/budget.json" "http://127.0.0.1:$port_budget/v1/completions" -d @"$work/budget_body.json"
check "a prompt in 16-token steps completes" json "$work/budget.json" "d['usage']['completion_tokens'] == 2 and d['usage']['prompt_tokens'] > 600"
check "... in at least 40 steps" test "$(metric vt:engine_steps_total "http://127.0.0.1:$port_budget")" -ge 40

# SIGTERM: stop accepting, let the request in flight finish (grace period), exit 0.
curl -sN -H 'Authorization: Bearer s3cret' "http://127.0.0.1:$port_keyed/v1/completions" \
  -d '{"prompt":"Once","max_tokens":300,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}' >"$work/inflight.txt" &
curl_pid=$!
# SIGTERM once the request is in flight: its first event has arrived.
wait_until "$ready_timeout" "$curl_pid" grep -q '^data: ' "$work/inflight.txt"
kill -TERM "$pid_keyed"
wait "$pid_keyed"
check "SIGTERM exits 0" test $? = 0
wait "$curl_pid"
check "the request in flight at SIGTERM finished" python3 -c "
import json; events=open('$work/inflight.txt').read().strip().split('\n\n')
assert events[-1] == 'data: [DONE]', events[-1]
assert json.loads(events[-2][6:])['usage']['completion_tokens'] == 300"

if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
