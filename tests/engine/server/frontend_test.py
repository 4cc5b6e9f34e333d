#!/usr/bin/env python3
"""`vt serve`'s front end against hostile and bursty clients, over real sockets.

  slow HOST PORT       200 clients trickle a request header at 1 byte/s; /health, on fresh
                       connections meanwhile, answers within 50 ms at p99.
  burst HOST PORT      500 connections opened at once, each GET /health and kept open (as a
                       client's pool would) until all have answered: connect + response within
                       100 ms at p99, in one of up to three bursts (every burst answered in full).
  pipeline HOST PORT   6 POSTs written at once on one connection: 6 responses, in request order
                       (the later requests are shorter, so the engine finishes them first).
  cap HOST PORT N      with N connections open, the next is answered 503 with a JSON error;
                       once one closes, a new connection is served.
  header HOST PORT T   a header trickled forever is answered 408 (JSON) within T + 5 s of its
                       first byte and its connection closed; the freed slot serves the next
                       client (the server runs with --max-connections 1).

Bounds are generous for a loaded 2-core machine but a thread-per-connection server fails them by
seconds. Exits 1 when a check fails.
"""
import json
import selectors
import socket
import struct
import sys
import threading
import time

from http_checks import openai_error

failures = 0
# Linux's socket option for nanosecond receive timestamps (Python names it only on some builds).
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def check(name, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)
    failures += 0 if ok else 1


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def read_response(sock, timeout=30, pending=None):
    """(status, headers, body) of one response with a Content-Length, read from `sock`. Bytes
    past it (the next pipelined response) stay in `pending`, a bytearray kept across calls."""
    pending = bytearray() if pending is None else pending
    sock.settimeout(timeout)
    while b"\r\n\r\n" not in pending:
        more = sock.recv(65536)
        if not more:
            return 0, {}, bytes(pending)
        pending += more
    end = pending.index(b"\r\n\r\n")
    lines = pending[:end].decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(pending) < end + 4 + length:
        more = sock.recv(65536)
        if not more:
            break
        pending += more
    body = bytes(pending[end + 4:end + 4 + length])
    del pending[:end + 4 + length]
    return int(lines[0].split()[1]), headers, body


def health_ms(host, port):
    """(milliseconds, status) of GET /health on a fresh connection; status 0 when it failed."""
    t0 = time.perf_counter()
    try:
        with socket.create_connection((host, port), timeout=30) as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            status, _, _ = read_response(s)
    except OSError:
        status = 0
    return (time.perf_counter() - t0) * 1000, status


def served_again(host, port, bound_s=30):
    """Polls /health until a new connection gets 200 (a freed slot); False after bound_s."""
    deadline = time.time() + bound_s
    while time.time() < deadline:
        if health_ms(host, port)[1] == 200:
            return True
        time.sleep(0.05)
    return False


def slow(host, port):
    clients = [socket.create_connection((host, port), timeout=30) for _ in range(200)]
    header = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    stop = threading.Event()

    def trickle():
        i = 0
        while not stop.is_set() and i < len(header):
            for c in clients:
                try:
                    c.send(header[i:i + 1])
                except OSError:
                    pass
            i += 1
            stop.wait(1.0)

    t = threading.Thread(target=trickle)
    t.start()
    # The attack runs for the whole measurement: 100 probes over ~6 s, while every slow client
    # has sent a few bytes of its header.
    stop.wait(1.5)
    times, statuses = [], set()
    for _ in range(100):
        ms, status = health_ms(host, port)
        times.append(ms)
        statuses.add(status)
        time.sleep(0.05)
    stop.set()
    t.join()
    for c in clients:
        c.close()
    p50, p99 = pct(times, 50), pct(times, 99)
    print(f"     /health under 200 slow clients: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(times):.1f} ms")
    check("/health answers 200 under 200 slow clients", statuses == {200}, str(statuses))
    check(f"/health p99 under 200 slow clients < 50 ms (is {p99:.1f} ms)", p99 < 50)


def burst_once(host, port, n):
    """One burst: the connect+response times of the connections answered 200, and how many were not."""
    sel = selectors.DefaultSelector()
    start, done, bufs, arrived = {}, {}, {}, {}
    socks = []
    # Each answer is timed by the kernel's receive timestamp, not when this one-threaded client
    # gets round to reading it (while it is still opening the other connections).
    for i in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.setblocking(False)
        start[i] = time.time()
        s.connect_ex((host, port))
        sel.register(s, selectors.EVENT_WRITE, i)
        socks.append(s)
        bufs[i] = b""
    deadline = time.perf_counter() + 60
    while len(done) < n and time.perf_counter() < deadline:
        for key, ev in sel.select(timeout=1):
            s, i = key.fileobj, key.data
            if ev & selectors.EVENT_WRITE:
                try:
                    s.send(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    sel.modify(s, selectors.EVENT_READ, i)
                except OSError:
                    sel.unregister(s)
                    done[i] = None
                continue
            try:
                data, ancillary, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16))
            except OSError:
                data, ancillary = b"", []
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                    sec, nsec = struct.unpack("qq", value[:16])
                    arrived.setdefault(i, sec + nsec / 1e9)
            bufs[i] += data
            if not data or bufs[i].endswith(b"\r\n\r\n{}"):
                sel.unregister(s)
                ok = bufs[i].startswith(b"HTTP/1.1 200")
                done[i] = (arrived.get(i, time.time()) - start[i]) * 1000 if ok else None
    for s in socks:  # held open until every connection has answered
        s.close()
    ok = [ms for ms in done.values() if ms is not None]
    return ok, n - len(ok)


def burst(host, port, n=500, rounds=3):
    # This one-threaded client opens the 500 connections itself, so another job taking a core
    # slows its side too: the bound must hold in one of up to three bursts (a thread-per-connection
    # server misses it in every one, by seconds), and every burst must be answered in full.
    failed_total, best = 0, float("inf")
    for r in range(rounds):
        ok, failed = burst_once(host, port, n)
        failed_total += failed
        p50, p99 = (pct(ok, 50), pct(ok, 99)) if ok else (0, float("inf"))
        print(f"     {n}-connection burst {r + 1}: {len(ok)} answered 200, p50 {p50:.1f} ms, p99 {p99:.1f} ms")
        best = min(best, p99)
        if best < 100:
            break
    check(f"{n}-connection burst: every connection answered 200 ({failed_total} did not)", failed_total == 0)
    check(f"{n}-connection burst: p99 connect+response < 100 ms in one of {rounds} bursts (best {best:.1f} ms)",
          best < 100)


def pipeline(host, port):
    reqs = b""
    for k in range(6):
        body = json.dumps({"prompt": "Once", "max_tokens": 24 - 4 * k, "ignore_eos": True}).encode()
        reqs += (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    with socket.create_connection((host, port), timeout=60) as s:
        s.sendall(reqs)
        got, pending = [], bytearray()
        for _ in range(6):
            status, _, body = read_response(s, timeout=60, pending=pending)
            if status != 200:
                got.append((status, body[:200]))
                break
            got.append(json.loads(body)["usage"]["completion_tokens"])
    check("6 pipelined POSTs -> 6 responses in request order", got == [24, 20, 16, 12, 8, 4], repr(got))


def cap(host, port, n):
    held = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=30)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _, _ = read_response(s)
        held.append(s)
    with socket.create_connection((host, port), timeout=30) as extra:
        extra.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        status, headers, body = read_response(extra)
    check(f"connection {n + 1} over the cap of {n} -> 503", status == 503, repr((status, body[:200])))
    check("the cap's 503 is a JSON error naming the limit", openai_error(body) and str(n) in json.loads(body)["error"]["message"],
          repr(body[:200]))
    held.pop().close()
    # The closed connection's slot frees once the server has seen the FIN.
    check("a closed connection frees its slot", served_again(host, port))
    for s in held:
        s.close()


def header(host, port, timeout_s):
    with socket.create_connection((host, port), timeout=timeout_s + 30) as s:
        line = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Forever: " + b"a" * 1000
        t0 = time.perf_counter()
        answer = b""
        s.setblocking(False)
        for i in range(len(line)):
            try:
                s.send(line[i:i + 1])
            except OSError:
                break  # the server closed it
            try:
                more = s.recv(65536)
                answer += more
                if not more:
                    break
            except BlockingIOError:
                pass
            except OSError:
                break
            if time.perf_counter() - t0 > timeout_s + 10:
                break
            time.sleep(0.5)
        waited = time.perf_counter() - t0
    status = int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    body = answer.partition(b"\r\n\r\n")[2]
    print(f"     a never-ending header answered {status} after {waited:.1f} s (timeout {timeout_s} s)")
    check("a never-ending header -> 408 with a JSON error", status == 408 and openai_error(body), repr(answer[:300]))
    check(f"... within the header timeout + 5 s (took {waited:.1f} s)", waited < timeout_s + 5)
    check("its slot serves the next client", served_again(host, port))


if __name__ == "__main__":
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"slow": lambda: slow(host, port), "burst": lambda: burst(host, port), "pipeline": lambda: pipeline(host, port),
     "cap": lambda: cap(host, port, int(sys.argv[4])), "header": lambda: header(host, port, int(sys.argv[4]))}[mode]()
    sys.exit(1 if failures else 0)
