#!/usr/bin/env python3
"""A CI-scaled soak of `vt serve`: many mixed requests from 64 concurrent clients (streaming and
whole completions, chat, tokenize, health and metrics), with clients that leave mid-answer, half
requests, malformed HTTP and bad JSON mixed in. Afterwards the server is still up, answered
nothing it should not have (no 5xx, no broken stream, no dropped connection), its running /
waiting gauges are back to 0, and its resident memory is within 10% of its warm baseline.

Usage: soak_test.py HOST PORT SERVER_PID REQUESTS
"""
import http.client
import json
import random
import socket
import sys
import threading
import time
from collections import Counter

host, port, pid, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
CONCURRENCY = 64
failures = 0


def check(name, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)
    failures += 0 if ok else 1


def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def raw(data, read=True):
    """Sends `data` on a fresh connection; the status of the answer (0: none)."""
    with socket.create_connection((host, port), timeout=60) as s:
        s.sendall(data)
        if not read:
            return 0
        out = b""
        while b"\r\n" not in out:
            more = s.recv(4096)
            if not more:
                break
            out += more
    return int(out.split(b" ")[1]) if out.startswith(b"HTTP/1.1 ") else 0


def post(conn, path, body, stream=False):
    conn.request("POST", path, body=json.dumps(body) if not isinstance(body, bytes) else body,
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status == 200 and stream and not data.rstrip().endswith(b"data: [DONE]"):
        return -1  # a stream that did not end properly
    return r.status


def disconnect(body, after_bytes):
    """A client that sends a request and leaves after `after_bytes` of the answer (0: at once)."""
    payload = json.dumps(body).encode()
    with socket.create_connection((host, port), timeout=60) as s:
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload))
        got = 0
        while got < after_bytes:
            more = s.recv(after_bytes - got)
            if not more:
                break
            got += len(more)
    return "left"


# Each kind: (weight, function(conn, rng) -> status, statuses it may answer).
def k_stream(conn, rng):
    return post(conn, "/v1/completions", {"prompt": "Once", "max_tokens": rng.randint(1, 16), "stream": True,
                                          "ignore_eos": True}, stream=True)


def k_whole(conn, rng):
    return post(conn, "/v1/completions", {"prompt": "The meaning of life is", "max_tokens": rng.randint(1, 16)})


def k_chat(conn, rng):
    return post(conn, "/v1/chat/completions", {"messages": [{"role": "user", "content": "Hi"}],
                                               "max_tokens": rng.randint(1, 12), "stream": rng.random() < 0.5},
                stream=False)


def k_tokenize(conn, rng):
    return post(conn, "/tokenize", {"prompt": "Hello world " * rng.randint(1, 20)})


def k_health(conn, rng):
    conn.request("GET", rng.choice(["/health", "/metrics", "/v1/models", "/version"]))
    r = conn.getresponse()
    r.read()
    return r.status


def k_bad_json(conn, rng):
    return post(conn, "/v1/completions", rng.choice([b'{"prompt": ', b'{"prompt":"x","temperature":"hot"}',
                                                     b'[' * 100000, b'{"prompt":[99999]}']))


def k_unknown(conn, rng):
    conn.request("GET", "/nowhere")
    r = conn.getresponse()
    r.read()
    return r.status


def k_garbage(conn, rng):
    return raw(rng.choice([b"HELLO THERE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                           b"POST /v1/completions HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
                           b"POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]))


def k_leave_stream(conn, rng):
    return disconnect({"prompt": "Once", "max_tokens": 400, "ignore_eos": True, "stream": True}, rng.randint(0, 600))


def k_leave_whole(conn, rng):
    return disconnect({"prompt": "Once", "max_tokens": 400, "ignore_eos": True}, 0)


def k_half_request(conn, rng):
    return raw(b"POST /v1/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"prompt\"", read=False)


KINDS = [
    (30, k_stream, {200}), (15, k_whole, {200}), (10, k_chat, {200}), (5, k_tokenize, {200}), (8, k_health, {200}),
    (6, k_bad_json, {400}), (3, k_unknown, {404}), (5, k_garbage, {400}), (8, k_leave_stream, {"left"}),
    (5, k_leave_whole, {"left"}), (5, k_half_request, {0}),
]


def run(n, seed):
    """Runs n requests from CONCURRENCY clients; (status counts, unexpected answers)."""
    counts, unexpected, lock = Counter(), [], threading.Lock()
    next_i = iter(range(n))
    weights = [k[0] for k in KINDS]

    def worker(w):
        rng = random.Random(seed * 1000 + w)
        conn = http.client.HTTPConnection(host, port, timeout=120)
        while True:
            with lock:
                i = next(next_i, None)
            if i is None:
                break
            _, fn, allowed = rng.choices(KINDS, weights)[0]
            try:
                status = fn(conn, rng)
            except (OSError, http.client.HTTPException) as e:
                status = "exception " + type(e).__name__
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=120)
            with lock:
                counts[status] += 1
                if status not in allowed:
                    unexpected.append((fn.__name__, status))
        conn.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts, unexpected


def gauge(name):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def settle(deadline_s=120):
    """Polls until nothing runs or waits (cancelled requests leave at the engine's next step)."""
    deadline = time.time() + deadline_s
    while time.time() < deadline:
        if gauge("vt:num_requests_running") == 0 and gauge("vt:num_requests_waiting") == 0:
            return True
        time.sleep(0.1)
    return False


# The warm baseline: the mix runs until resident memory stops growing. The CPU KV pool is
# calloc'ed, so its pages become resident as requests first touch them (the server runs with a
# short --max-model-len so that happens within a few rounds); what grows after that is a leak.
baseline, warm_bad = rss_kb(), []
for round_ in range(8):
    _, bad = run(500, seed=100 + round_)
    warm_bad += bad
    settle()
    now = rss_kb()
    print(f"     warm-up round {round_ + 1}: resident {now / 1024:.1f} MB", flush=True)
    grew = now > baseline * 1.03
    baseline = now
    if not grew:
        break
check("warm-up answered as expected", not warm_bad, repr(warm_bad[:10]))
t0 = time.time()
counts, bad = run(total, seed=2)
elapsed = time.time() - t0
print(f"     {total} requests from {CONCURRENCY} clients in {elapsed:.1f} s: {dict(counts)}")
alive = True
try:
    with open(f"/proc/{pid}/status"):
        pass
except OSError:
    alive = False
check("the server is still up", alive)
check("no unexpected answers (5xx, exceptions, wrong statuses)", not bad, repr(Counter(bad).most_common(10)))
check("running and waiting gauges back to 0", settle())
after = rss_kb()
print(f"     resident memory: {baseline / 1024:.1f} MB warm, {after / 1024:.1f} MB after the soak")
check(f"resident memory within 10% of the warm baseline ({after / baseline - 1:+.1%})", after <= baseline * 1.10)
sys.exit(1 if failures else 0)
