#!/usr/bin/env python3
"""`vt serve` against what curl never sends, over raw sockets: garbage request lines, bodies
with no Content-Length, chunked bodies past the size limit, and an HTTP/1.0 client. Every error
is an OpenAI-shaped JSON body (never an empty 400), and HTTP/1.0 gets no chunked encoding.

Usage: raw_http_test.py HOST PORT MAX_BODY_BYTES
"""
import json
import socket
import sys

from http_checks import openai_error

host, port, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
failures = 0


def check(name, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    failures += 0 if ok else 1


def first_response(raw, timeout=30):
    """(status, headers, body, everything read) of the first response to `raw`. The body ends at
    its Content-Length, its last chunk, or else at the server's close (the only end HTTP/1.0
    streaming has). The client does not half-close: the server takes that for a client that left."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(raw)
        out = b""
        while True:
            head, sep, rest = out.partition(b"\r\n\r\n")
            if sep:
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
                status = int(lines[0].split()[1])
                if "content-length" in headers and len(rest) >= int(headers["content-length"]):
                    return status, headers, rest[:int(headers["content-length"])], out
                if headers.get("transfer-encoding") == "chunked" and rest.endswith(b"0\r\n\r\n"):
                    return status, headers, rest, out
            data = s.recv(65536)
            if not data:
                if not sep:
                    return 0, {}, b"", out
                return status, headers, rest, out
            out += data


status, _, body, _ = first_response(b"HELLO THERE\r\n\r\n")
check("garbage request line -> 400 with a JSON error", status == 400 and openai_error(body), repr(body))

status, _, body, _ = first_response(b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
check("unknown endpoint -> 404 with a JSON error", status == 404 and openai_error(body), repr(body))

# No Content-Length and no chunked framing: the request has no body (RFC 9112 6.3); the bytes
# after it are not taken for one.
status, _, body, _ = first_response(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n\r\n{\"prompt\":\"Hi\"}")
check("body without Content-Length -> 400 with a JSON error", status == 400 and openai_error(body), repr(body))

big = json.dumps({"prompt": "Hi", "max_tokens": 1, "pad": "x" * (limit + 100)}).encode()
chunked = b"".join(b"%x\r\n%s\r\n" % (len(big[i:i + 4096]), big[i:i + 4096]) for i in range(0, len(big), 4096))
status, _, body, _ = first_response(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                    b"Content-Type: application/json\r\n\r\n" + chunked + b"0\r\n\r\n")
check("chunked body over the limit -> 400 naming the limit",
      status == 400 and openai_error(body) and str(limit) in json.loads(body)["error"]["message"], repr(body))

small = json.dumps({"prompt": "Hi", "max_tokens": 1}).encode()
status, _, body, _ = first_response(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                    b"%x\r\n%s\r\n0\r\n\r\n" % (len(small), small))
check("chunked body under the limit -> 200", status == 200 and json.loads(body)["choices"], repr(body))

# HTTP/1.0 has no chunked encoding: the stream is the body, ended by the server's close.
stream = json.dumps({"prompt": "Hi", "max_tokens": 3, "ignore_eos": True, "stream": True}).encode()
for extra in (b"", b"Connection: Keep-Alive\r\n"):
    status, headers, _, out = first_response(b"POST /v1/completions HTTP/1.0\r\nContent-Length: %d\r\n%s\r\n%s" %
                                             (len(stream), extra, stream))
    body = out.partition(b"\r\n\r\n")[2].decode()
    events = [e for e in body.split("\n\n") if e]
    name = "HTTP/1.0 stream%s is not chunked" % (" with Keep-Alive" if extra else "")
    check(name, status == 200 and "transfer-encoding" not in headers and len(events) == 4 and
          events[-1] == "data: [DONE]" and all(e.startswith("data: ") for e in events), repr(out[:400]))

sys.exit(1 if failures else 0)
