#!/usr/bin/env python3
"""Times the first and the second answer on new keep-alive HTTPS connections to a local `serve`, the client's kernel
delaying its acknowledgements as a busy peer's does (issue 32; docs/explanation/performance-log.md, "Nagle's
algorithm on the first answer").

    tools/perf/first-answer.py PORT CA_PEM CONNECTIONS [REVIEW_JSON]

Each connection: a TLS handshake (no session resumption), then one AdmissionReview to /kvcache/mutate, then a second
on the same connection, each timed from the request's first byte to the answer's last. Before each request the
client turns TCP_QUICKACK off, so its kernel acknowledges what it receives only after the delayed-ACK timer (40 ms
on Linux) or with its next data, as the API server's kernel does once a connection has left its quick-ack start. The
second answer is the baseline: it follows no small unacknowledged segment of the server's. Loopback only.
"""
import pathlib
import socket
import ssl
import statistics
import sys
import time


def answer(tls: ssl.SSLSocket, request: bytes) -> float:
    tls.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 0)
    started = time.perf_counter()
    tls.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = tls.recv(65536)
        if not chunk:
            raise SystemExit("first-answer: the server closed the connection before answering")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        rest += tls.recv(65536)
    return (time.perf_counter() - started) * 1000


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"p50 {statistics.median(ordered):.2f} ms, p99 {p99:.2f} ms, max {ordered[-1]:.2f} ms, "
            f"{sum(t >= 30 for t in ordered)} of {len(ordered)} at or over 30 ms")


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    port, ca, connections = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    root = pathlib.Path(__file__).resolve().parents[2]
    body = pathlib.Path(sys.argv[4] if len(sys.argv) > 4 else root / "docs/examples/reviews/vllm-create.json").read_bytes()
    request = (b"POST /kvcache/mutate?timeout=10s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body)) + body
    context = ssl.create_default_context(cafile=ca)
    context.check_hostname = False
    first, second = [], []
    for _ in range(connections):
        raw = socket.create_connection(("127.0.0.1", port))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with context.wrap_socket(raw) as tls:
            first.append(answer(tls, request))
            second.append(answer(tls, request))
    print(f"first-answer: first answer on a new connection: {summary(first)}")
    print(f"first-answer: second answer on it (baseline): {summary(second)}")
    print(f"first-answer: ratio first/second at the median: {statistics.median(first) / statistics.median(second):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
