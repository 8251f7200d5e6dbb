#!/usr/bin/env python3
"""Sends AdmissionReviews to a local `serve` at a fixed rate over keep-alive HTTPS, as the API server does at a low
create rate (issue 32; docs/explanation/performance-log.md, "The JIT at a low rate").

    tools/perf/paced-reviews.py [--get PATH] PORT CA_PEM RATE SECONDS [REVIEW_JSON ...]

Each second RATE reviews go out on one keep-alive connection (reopened if the server closes it), cycling through the
given review files (default: the example vLLM create); with --get, RATE GETs of PATH instead (a server's way from the
socket to a handler and back, without a decision: docs/explanation/performance-log.md, "The floor at the wire"). Prints one line a 10 s window: reviews sent, non-200 answers,
and the client's median and worst time in ms. Only 127.0.0.1 is ever called.
"""
import http.client
import json
import ssl
import statistics
import sys
import time
from pathlib import Path


def main() -> int:
    args = sys.argv[1:]
    get = None
    if args[:1] == ["--get"] and len(args) > 1:
        get, args = args[1], args[2:]
    if len(args) < 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    port, ca, rate, seconds = int(args[0]), args[1], float(args[2]), float(args[3])
    root = Path(__file__).resolve().parents[2]
    files = args[4:] or [str(root / "docs/examples/reviews/vllm-create.json")]
    bodies = [json.dumps(json.loads(Path(f).read_text())).encode() for f in files]
    context = ssl.create_default_context(cafile=ca)
    conn = None
    start = time.monotonic()
    window_start, times, failed, sent = start, [], 0, 0
    n = 0
    while True:
        due = start + n / rate
        now = time.monotonic()
        if due - start >= seconds:
            break
        if due > now:
            time.sleep(due - now)
        body = bodies[n % len(bodies)]
        n += 1
        t0 = time.monotonic()
        try:
            if conn is None:
                conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
            if get:
                conn.request("GET", get)
            else:
                conn.request("POST", "/kvcache/mutate", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                failed += 1
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            failed += 1
            conn = None
        times.append((time.monotonic() - t0) * 1000)
        sent += 1
        if time.monotonic() - window_start >= 10:
            print(f"t={time.monotonic() - start:6.0f}s sent={sent} failed={failed} "
                  f"p50={statistics.median(times):.2f}ms max={max(times):.2f}ms", flush=True)
            window_start, times, failed, sent = time.monotonic(), [], 0, 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
