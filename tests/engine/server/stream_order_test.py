"""Streamed tokens arrive whole and in order under load (issue #14's publication of tokens).

The engine thread hands each step's tokens to the I/O threads in one batch (wake_queue.h), and a
connection takes whatever its streams hold when it is woken. A lost or reordered wake, or a token
taken twice or dropped, shows here: 24 concurrent streamed /v1/completions requests with n = 3
(72 streams, greedy) must each stream, for every choice, exactly the text and token count of the
same request answered whole and alone, one event per token, the finish on its last event and
[DONE] last; requests with a stop string must end as "stop" with the text cut before it.
Usage: stream_order_test.py HOST PORT
"""
import http.client
import json
import sys
import threading

host, port = sys.argv[1], int(sys.argv[2])
CLIENTS = 24
N = 3
MAX_TOKENS = 24


def post(body):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read().decode()
    conn.close()
    if resp.status != 200:
        raise AssertionError(f"HTTP {resp.status}: {data[:300]}")
    return data


def request(i, stream, stop=None):
    body = {"prompt": f"Story number {i}: once upon a time", "max_tokens": MAX_TOKENS, "temperature": 0,
            "n": N if stream else 1, "stream": stream}
    if stop:
        body["stop"] = [stop]
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def parse_stream(data):
    """Per choice: its text pieces in order, its finish reasons; the usage and whether [DONE] came last."""
    events = [e[len("data: "):] for e in data.split("\n\n") if e.strip()]
    assert events and events[-1] == "[DONE]", f"the stream does not end with [DONE]: {events[-3:]}"
    pieces, finishes, usage = {}, {}, None
    for e in events[:-1]:
        chunk = json.loads(e)
        if chunk.get("usage"):
            usage = chunk["usage"]
        for c in chunk["choices"]:
            idx = c["index"]
            assert finishes.get(idx) is None, f"choice {idx} has an event after its finish"
            pieces.setdefault(idx, []).append(c["text"])
            finishes[idx] = c["finish_reason"]
    return pieces, finishes, usage


failures = []
# The reference: each prompt answered whole, alone, greedy.
reference = {}
for i in range(CLIENTS):
    d = json.loads(post(request(i, False)))
    reference[i] = (d["choices"][0]["text"], d["usage"]["completion_tokens"], d["choices"][0]["finish_reason"])

# A stop string that occurs in the middle of some reference texts: the first 3-character piece
# after the fifth character of client 0's answer.
ref0 = reference[0][0]
stop = ref0[5:8] if len(ref0) >= 8 else None

results = {}


def client(i):
    try:
        with_stop = stop is not None and i % 2 == 1
        results[i] = (with_stop, parse_stream(post(request(i, True, stop if with_stop else None))))
    except Exception as e:  # noqa: BLE001 - reported below
        failures.append(f"client {i}: {e}")


threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
for t in threads:
    t.start()
for t in threads:
    t.join()

streams = 0
for i, (with_stop, (pieces, finishes, usage)) in sorted(results.items()):
    text, tokens, finish = reference[i]
    if sorted(pieces) != list(range(N)):
        failures.append(f"client {i}: choices {sorted(pieces)}, expected 0..{N - 1}")
        continue
    for idx in range(N):
        streams += 1
        got = "".join(pieces[idx])
        if with_stop:
            cut = text.find(stop)
            want = text if cut < 0 else text[:cut]
            want_finish = finish if cut < 0 else "stop"
            if got != want or finishes[idx] != want_finish:
                failures.append(f"client {i} choice {idx} (stop {stop!r}): {got!r} / {finishes[idx]}, "
                                f"expected {want!r} / {want_finish}")
            continue
        if got != text:
            failures.append(f"client {i} choice {idx}: streamed {got!r}, whole {text!r}")
        # One event per token: a token taken twice or dropped changes the count.
        if len(pieces[idx]) != tokens:
            failures.append(f"client {i} choice {idx}: {len(pieces[idx])} events for {tokens} tokens")
        if finishes[idx] != finish:
            failures.append(f"client {i} choice {idx}: finish {finishes[idx]}, expected {finish}")
    if not with_stop and (usage is None or usage["completion_tokens"] != N * tokens):
        failures.append(f"client {i}: usage {usage}, expected {N * tokens} completion tokens")

if failures:
    print(f"FAIL {len(failures)} problems:")
    for f in failures[:20]:
        print("  " + f)
    sys.exit(1)
print(f"ok   {streams} streams ({CLIENTS} concurrent requests, n = {N}) match their whole answers token by token"
      f" (stop string {stop!r} on every other request)")
