#!/usr/bin/env bash
# Each server's floor at the wire, on loopback: `serve` and issue 32's trivial Go webhook, one after the other, each
# answering RATE reviews a second and then RATE GETs of /healthz a second, and then Helidon alone (BareHelidon.java:
# serve's kind of WebServer with one GET route and nothing else) answering the GETs (issue 32;
# docs/explanation/performance-log.md, "The floor at the wire").
#
#   [SETTLE=S] [ROUNDS=N] tools/perf/floor-at-wire.sh JAR RATE SECONDS [JVM options...]
#
# A GET of /healthz takes the same way through a server as a review (TLS record in, HTTP parser, routing, a handler,
# HTTP answer, TLS record out, the threads' wake-ups) with no decision in it, so the difference between the two servers'
# GET times is what their stacks cost, and the rest of the difference in their review times is what their decisions
# cost. `serve` runs as answer-path.sh runs it (lib.sh's start_serve: the chart's JVM options, the AOT cache beside
# the jar when there is one, the chart's 5 000-review warm-up, its output through a pipe); the trivial webhook (tools/e2e/images/cmd/
# trivialwebhook, built here with Go) with a P-256 certificate made by openssl for 127.0.0.1, its output through a pipe
# too. Each measurement is SECONDS on one keep-alive connection (paced-reviews.py) while tcpdump records lo, after
# S seconds (default 60) of the same requests at the same rate that are not measured, and for the GETs 6 000 more in
# 20 s before those (a GET route's JIT state as warm as the review route's after serve's warm-up). Helidon alone runs
# with the chart's JVM options but not serve's AOT cache. ROUNDS (default 1) repeats the three. Prints for each server
# and kind the answers' p50, p99 and max at the wire (wire-times.py), from the request's last segment to the answer's
# last. Only 127.0.0.1 is called. Needs go, openssl, tcpdump and the right to capture.
set -euo pipefail
jar=${1:?usage: floor-at-wire.sh JAR RATE SECONDS [JVM options...]}
rate=${2:?usage: floor-at-wire.sh JAR RATE SECONDS [JVM options...]}
seconds=${3:?usage: floor-at-wire.sh JAR RATE SECONDS [JVM options...]}
shift 3
. "$(dirname "$0")/lib.sh"
for tool in go openssl tcpdump; do
  command -v "$tool" >/dev/null || { echo "floor-at-wire: $tool not found; install it" >&2; exit 1; }
done
settle=${SETTLE:-60}

(cd "$root/tools/e2e/images" && CGO_ENABLED=0 go build -o "$work/trivialwebhook" ./cmd/trivialwebhook) \
  || { echo "floor-at-wire: go build of tools/e2e/images/cmd/trivialwebhook failed" >&2; exit 1; }
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" \
  -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
openssl pkcs12 -export -in "$work/tls.crt" -inkey "$work/tls.key" -out "$work/tls.p12" -passout pass:changeit

capture=
trap '[[ -n $capture ]] && kill "$capture" 2>/dev/null; stop_serve' EXIT

# measure NAME PORT CA KIND...: for each KIND (review, get) in turn, settles, then captures it and prints the times at
# the wire
measure() {
  local name=$1 port=$2 ca=$3 kind
  shift 3
  for kind in "$@"; do
    local paced=("$root/tools/perf/paced-reviews.py") flags=(--port "$port")
    if [[ $kind == get ]]; then
      paced+=(--get /healthz)
      flags+=(--all-requests)
      "${paced[@]}" "$port" "$ca" 300 20 >/dev/null
    fi
    "${paced[@]}" "$port" "$ca" "$rate" "$settle" >/dev/null
    tcpdump -i lo -nn -s 96 -w "$work/$kind.pcap" "tcp port $port" 2>"$work/tcpdump.log" &
    capture=$!
    sleep 1
    "${paced[@]}" "$port" "$ca" "$rate" "$seconds" >/dev/null
    sleep 1
    kill "$capture"; wait "$capture" 2>/dev/null || true
    capture=
    "$root/tools/perf/wire-times.py" "${flags[@]}" "$work/$kind.pcap" 0,100000 | grep -v 'first answers' \
      | sed "s/^0-100000 s 127.0.0.1:/$name $kind:/"
  done
}

for round in $(seq "${ROUNDS:-1}"); do
  echo "round $round"
  start_serve floor-at-wire "$jar" "$@"
  measure serve "$port" "$work/ca.pem" review get
  stop_pid

  port=$((20000 + RANDOM % 20000))
  "$work/trivialwebhook" --host 127.0.0.1 --port "$port" --cert "$work/tls.crt" --key "$work/tls.key" > >(cat >"$work/trivial.log") 2>&1 &
  pid=$!
  await_https floor-at-wire "$work/tls.crt" healthz 50
  measure trivial "$port" "$work/tls.crt" review get
  stop_pid

  port=$((20000 + RANDOM % 20000))
  chart_jvm "$jar"
  bare=()  # the chart's heap and collector, without serve's AOT cache (it is serve's, not this program's)
  for option in "${jvm[@]}"; do [[ $option == -XX:AOTCache=* ]] || bare+=("$option"); done
  MALLOC_ARENA_MAX=2 "$java" "${bare[@]}" "$@" -cp "$jar" \
    "$root/tools/perf/BareHelidon.java" "$port" "$work/tls.p12" > >(cat >"$work/bare.log") 2>&1 &
  pid=$!
  await_https floor-at-wire "$work/tls.crt" healthz 300
  measure helidon "$port" "$work/tls.crt" get
  stop_pid
done
