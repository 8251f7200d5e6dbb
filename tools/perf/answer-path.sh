#!/usr/bin/env bash
# An answer's way through `serve` at a low, steady rate, on loopback (issue 32; docs/explanation/performance-log.md,
# "The log line after the answer").
#
#   [SERVE_ARGS=...] [SETTLE=S] tools/perf/answer-path.sh JAR RATE SECONDS [JVM options...]
#
# Starts `serve` from JAR on 127.0.0.1 only (the file-backed example cluster, its generated certificate, the chart's
# JVM options, the AOT cache beside the jar when there is one, the chart's 5 000-review warm-up; its output through a
# pipe, as a container runtime reads it), waits for /readyz, then sends RATE reviews a second for SECONDS on one
# keep-alive connection (paced-reviews.py) while tcpdump records the TCP headers on lo, after S seconds (default 0) at
# the same rate on a connection of their own that are not measured (the JIT is busiest in the first minute after the
# warm-up: docs/explanation/performance-log.md, "The JIT at a low rate"). Prints the client's windows,
# serve's CPU per review over the paced part, and each answer's time at the wire (wire-times.py: from the request's
# last segment to the answer's last), which leaves out the client's own time. Needs tcpdump and the right to capture.
set -euo pipefail
jar=${1:?usage: answer-path.sh JAR RATE SECONDS [JVM options...]}
rate=${2:?usage: answer-path.sh JAR RATE SECONDS [JVM options...]}
seconds=${3:?usage: answer-path.sh JAR RATE SECONDS [JVM options...]}
shift 3
. "$(dirname "$0")/lib.sh"
command -v tcpdump >/dev/null || { echo "answer-path: tcpdump not found; install it (apt-get install tcpdump)" >&2; exit 1; }

start_serve answer-path "$jar" "$@"
if (( ${SETTLE:-0} > 0 )); then
  "$root/tools/perf/paced-reviews.py" "$port" "$work/ca.pem" "$rate" "$SETTLE" >/dev/null
fi
tcpdump -i lo -nn -s 96 -w "$work/lo.pcap" "tcp port $port" 2>"$work/tcpdump.log" &
capture=$!
trap 'kill "$capture" 2>/dev/null || true; stop_serve' EXIT
sleep 1
before=$(cpu_ms)
reviews_before=$(grep -c '"event":"admission-review"' "$work/serve.log" || true)
"$root/tools/perf/paced-reviews.py" "$port" "$work/ca.pem" "$rate" "$seconds"
after=$(cpu_ms)
reviews=$(( $(grep -c '"event":"admission-review"' "$work/serve.log" || true) - reviews_before ))
sleep 1
kill "$capture"; wait "$capture" 2>/dev/null || true
echo "serve: $reviews reviews, $((after - before)) ms of CPU, $(awk -v c=$((after - before)) -v n="$reviews" \
  'BEGIN { printf "%.2f", n ? c / n : 0 }') ms per review (whole process, CPU clock ticks)"
"$root/tools/perf/wire-times.py" --port "$port" "$work/lo.pcap" 0,100000 | grep -v 'first answers'
