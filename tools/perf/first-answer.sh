#!/usr/bin/env bash
# The first answer on a new connection against the second on it, with the client's acknowledgements delayed (issue 32;
# docs/explanation/performance-log.md, "Nagle's algorithm on the first answer").
#
#   tools/perf/first-answer.sh JAR [CONNECTIONS] [JVM options...]
#
# Starts `serve` from JAR on 127.0.0.1 only (the file-backed example cluster, its generated certificate, the chart's
# JVM options, the AOT cache beside the jar when there is one, the chart's 5 000-review warm-up), waits for /readyz,
# then runs first-answer.py with CONNECTIONS (default 100) new connections and prints its figures.
set -euo pipefail
jar=${1:?usage: first-answer.sh JAR [CONNECTIONS] [JVM options...]}
connections=${2:-100}
shift $(( $# > 1 ? 2 : 1 ))
. "$(dirname "$0")/lib.sh"

port=$((20000 + RANDOM % 20000))
chart_jvm "$jar"
MALLOC_ARENA_MAX=2 "$java" "${jvm[@]}" "$@" -jar "$jar" serve \
  --cluster "$root/docs/examples/cluster" --host 127.0.0.1 --port "$port" --tls-ca-out "$work/ca.pem" \
  --warm-up-reviews 5000 >"$work/serve.log" 2>&1 &
pid=$!

await_https first-answer "$work/ca.pem" readyz 300
"$root/tools/perf/first-answer.py" "$port" "$work/ca.pem" "$connections"
