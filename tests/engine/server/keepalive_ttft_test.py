#!/usr/bin/env python3
"""Time to the first token event of streamed requests on one keep-alive connection, against the
same requests on fresh connections. Without TCP_NODELAY the server's first SSE event after the
response headers waits for the client's delayed ACK (~40 ms) on every request after the first
of a connection; with it, a reused connection is no slower than a fresh one.

Usage: keepalive_ttft_test.py HOST PORT
"""
import json
import socket
import statistics
import sys
import time

host, port = sys.argv[1], int(sys.argv[2])
BODY = json.dumps({"prompt": "Once upon a time", "max_tokens": 2, "ignore_eos": True, "stream": True}).encode()
REQUEST = (b"POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\n\r\n" % (host.encode(), len(BODY))) + BODY
ROUNDS = 8
STALL_BOUND = 0.030  # Nagle with delayed ACK costs ~40 ms; scheduling noise stays well below


def timed_request(sock):
    """Sends one streamed request; returns seconds to its first 'data: ' event, after reading the
    whole response (ending with the last chunk) so the connection is ready for the next."""
    start = time.perf_counter()
    sock.sendall(REQUEST)
    buf = b""
    first = None
    while not buf.endswith(b"0\r\n\r\n"):
        data = sock.recv(65536)
        if not data:
            raise RuntimeError("connection closed mid-response: %r" % buf[-200:])
        buf += data
        if first is None and b"data: " in buf:
            first = time.perf_counter() - start
    if not buf.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("unexpected response: %r" % buf[:200])
    return first


def fresh():
    with socket.create_connection((host, port)) as s:
        return timed_request(s)


reused, fresh_times = [], []
with socket.create_connection((host, port)) as kept:
    timed_request(kept)  # request 1 of the connection: not what is measured
    for _ in range(ROUNDS):  # interleaved, so load on the machine hits both series alike
        fresh_times.append(fresh())
        reused.append(timed_request(kept))

fresh_median, reused_median = statistics.median(fresh_times), statistics.median(reused)
print("first-event latency, ms: fresh connections median %.1f %s; reused connection median %.1f %s" %
      (fresh_median * 1e3, [round(t * 1e3, 1) for t in fresh_times],
       reused_median * 1e3, [round(t * 1e3, 1) for t in reused]))
if reused_median > fresh_median + STALL_BOUND:
    print("FAIL a reused keep-alive connection waits %.0f ms longer for its first event" %
          ((reused_median - fresh_median) * 1e3))
    sys.exit(1)
print("ok   keep-alive requests get their first event as fast as fresh connections")
