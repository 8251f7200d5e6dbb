#!/usr/bin/env bash
# What the JIT compiles, and what the JVM and its compiler threads spend, while `serve` answers reviews at a low fixed
# rate (issue 32; docs/explanation/performance-log.md, "The JIT at a low rate").
#
#   [SERVE_ARGS="--warm-up-reviews 5000"] [WARM="RATE SECONDS"] tools/perf/jit-at-rate.sh JAR RATE SECONDS [more JVM options...]
#
# Starts `serve` from JAR on 127.0.0.1 only (the file-backed example cluster, its generated certificate, the chart's
# JVM options with -XX:ActiveProcessorCount=1 for the chart's 1-CPU limit, the AOT cache beside the jar when there is
# one, -Xlog:jit+compilation), waits until /readyz answers, then sends RATE reviews a second for SECONDS on one
# keep-alive connection (tools/perf/paced-reviews.py), and prints for each 30 s window: the compilations started (C1
# tiers 1-3, C2 tier 4), the JVM's CPU, its compiler threads' CPU, and the client's median and worst time. First it prints
# how long `serve` took to become ready and the CPU it used until then. SERVE_ARGS are added to serve's arguments;
# WARM sends a burst of reviews from outside before the paced ones.
set -euo pipefail
jar=${1:?usage: jit-at-rate.sh JAR RATE SECONDS [JVM options...]}
rate=${2:?usage: jit-at-rate.sh JAR RATE SECONDS [JVM options...]}
seconds=${3:?usage: jit-at-rate.sh JAR RATE SECONDS [JVM options...]}
shift 3
. "$(dirname "$0")/lib.sh"

port=$((20000 + RANDOM % 20000))
chart_jvm "$jar"
MALLOC_ARENA_MAX=2 "$java" "${jvm[@]}" -Xlog:jit+compilation=debug:file="$work/jit.log":uptimemillis "$@" -jar "$jar" \
  serve --cluster "$root/docs/examples/cluster" --host 127.0.0.1 --port "$port" --tls-ca-out "$work/ca.pem" ${SERVE_ARGS:-} >"$work/serve.log" 2>&1 &
pid=$!
started=$(date +%s%N)
for _ in $(seq 150); do
  [[ -f $work/ca.pem ]] && [[ $(curl -s -o /dev/null -w '%{http_code}' --cacert "$work/ca.pem" \
    "https://127.0.0.1:$port/readyz" 2>/dev/null || true) == 200 ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "jit-at-rate: serve exited:" >&2; tail -n 5 "$work/serve.log" >&2; exit 1; }
  sleep 0.2
done

compiler_ms() {
  local total=0 task
  for task in /proc/"$pid"/task/*; do
    if grep -q 'Compiler' "$task/comm" 2>/dev/null; then
      total=$((total + $(cpu_ms "$task/stat")))
    fi
  done
  echo "$total"
}
echo "jit-at-rate: ready after $(( ($(date +%s%N) - started) / 1000000 )) ms; JVM CPU until then $(cpu_ms) ms, compiler threads $(compiler_ms) ms"
uptime_ms() { tail -n 1 "$work/jit.log" | sed -n 's/^\[\([0-9]*\)ms\].*/\1/p'; }

# WARM="RATE SECONDS": a burst of reviews before the paced ones (what a warm-up before readiness would do)
if [[ -n ${WARM:-} ]]; then
  read -r warm_rate warm_seconds <<<"$WARM"
  warm_cpu=$(cpu_ms) warm_comp=$(compiler_ms)
  "$root/tools/perf/paced-reviews.py" "$port" "$work/ca.pem" "$warm_rate" "$warm_seconds" >"$work/warm.log" 2>&1
  echo "jit-at-rate: warm-up of $warm_rate reviews/s for $warm_seconds s: JVM CPU $(( $(cpu_ms) - warm_cpu )) ms, compiler CPU $(( $(compiler_ms) - warm_comp )) ms; $(tail -n 1 "$work/warm.log")"
fi
"$root/tools/perf/paced-reviews.py" "$port" "$work/ca.pem" "$rate" "$seconds" >"$work/client.log" 2>&1 &
client=$!
echo "jit-at-rate: $rate reviews/s for $seconds s; JVM options: the chart's ${*}"
echo "window  C1 compiles  C2 compiles  JVM CPU ms  compiler CPU ms  client p50/max ms"
start_log=$(uptime_ms)
last_cpu=$(cpu_ms) last_comp=$(compiler_ms) last_up=${start_log:-0} window=0
while kill -0 "$client" 2>/dev/null; do
  sleep 30
  window=$((window + 1))
  cpu=$(cpu_ms) comp=$(compiler_ms) up=$(uptime_ms)
  # compilations whose log line falls in (last_up, up]: tier is the column after the flags
  read -r c1 c2 < <(awk -v a="$last_up" -v b="$up" '{
      t = $1; gsub(/[^0-9]/, "", t); t += 0
      if (t > a && t <= b) { for (i = 3; i <= NF; i++) if ($i ~ /^[0-4]$/) { if ($i == 4) c2++; else c1++; break } }
    } END { print c1 + 0, c2 + 0 }' "$work/jit.log")
  client_line=$(tail -n 1 "$work/client.log" | sed -n 's/.*p50=\([0-9.]*\)ms max=\([0-9.]*\)ms.*/\1\/\2/p')
  printf '%4ds  %11d  %11d  %10d  %15d  %s\n' $((window * 30)) "$c1" "$c2" $((cpu - last_cpu)) \
    $((comp - last_comp)) "${client_line:-}"
  last_cpu=$cpu last_comp=$comp last_up=$up
done
wait "$client"
# the compilation log, for a look at what was compiled late (JIT_LOG=FILE keeps it)
[[ -n ${JIT_LOG:-} ]] && cp "$work/jit.log" "$JIT_LOG" && echo "jit-at-rate: compilation log in $JIT_LOG"
if grep -q 'failed=[1-9]' "$work/client.log"; then
  echo "jit-at-rate: some reviews were not answered 200:"
  grep 'failed=[1-9]' "$work/client.log" | head -n 3
fi
