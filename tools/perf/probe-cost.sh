#!/usr/bin/env bash
# What the kubelet's probes cost a replica in CPU (issue 32; docs/explanation/performance-log.md, "The probes").
#
#   tools/perf/probe-cost.sh JAR MODE [SECONDS] [PERIOD]
#
# Starts `serve` from JAR on 127.0.0.1 only (the file-backed example cluster, the chart's JVM options, the AOT cache
# beside the jar when there is one), waits 20 s, measures its CPU for SECONDS (default 60) at rest, then for SECONDS
# while a client probes /readyz every PERIOD seconds (default 1) the way the kubelet does (a new connection per probe,
# no TLS session resumption), and prints the CPU per second of each window and per probe. MODE says how the probes
# arrive:
#   https-rsa    over TLS on the serving port, the chart's self-signed RSA-2048 certificate (before issue 32)
#   https-ecdsa  over TLS on the serving port, an ECDSA P-256 certificate (measured: no cheaper than RSA at this rate)
#   http         plain HTTP on the health port (serve --health-port), the chart's probes since issue 32
# CPU is the JVM's utime+stime from /proc, so other load on the machine changes it less than it changes wall time.
set -euo pipefail
jar=${1:?usage: probe-cost.sh JAR https-rsa|https-ecdsa|http [SECONDS] [PERIOD]}
mode=${2:?usage: probe-cost.sh JAR https-rsa|https-ecdsa|http [SECONDS] [PERIOD]}
seconds=${3:-60}
period=${4:-1}
. "$(dirname "$0")/lib.sh"

case $mode in
  https-rsa) openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" -days 1 \
               -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null ;;
  https-ecdsa|http) openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/tls.key" \
               -out "$work/tls.crt" -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null ;;
  *) echo "probe-cost: MODE must be https-rsa, https-ecdsa or http, not '$mode'" >&2; exit 2 ;;
esac

port=$((20000 + RANDOM % 20000))
health=$((port + 1))
aot=()
[[ -f $(dirname "$jar")/kvcache-injector.aot ]] && aot=(-XX:AOTCache="$(dirname "$jar")/kvcache-injector.aot")
health_flag=()
[[ $mode == http ]] && health_flag=(--health-port "$health")
# the chart's JVM options (deploy/helm/kvcache-injector/templates/deployment.yaml, values.yaml's jvm.*)
MALLOC_ARENA_MAX=2 "$java" --sun-misc-unsafe-memory-access=allow -XX:MaxRAMPercentage=41 -XX:MinRAMPercentage=41 \
  -Xmx131m -XX:+UseSerialGC -Xmn16m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:-ShrinkHeapInSteps \
  -XX:TrimNativeHeapInterval=1000 "${aot[@]}" -Xlog:disable -Xlog:all=warning:stderr -Xlog:aot*=error:stderr \
  -XX:-UsePerfData -jar "$jar" serve --cluster "$root/docs/examples/cluster" --host 127.0.0.1 --port "$port" \
  "${health_flag[@]}" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" >"$work/serve.log" 2>&1 &
pid=$!

if [[ $mode == http ]]; then
  url=http://127.0.0.1:$health/readyz
  probe=(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$url")
else
  url=https://127.0.0.1:$port/readyz
  probe=(curl -s -o /dev/null -w '%{http_code}' --max-time 3 --cacert "$work/tls.crt" "$url")
fi
await_200 probe-cost 100
[[ $("${probe[@]}") == 200 ]] || { echo "probe-cost: $url never answered 200" >&2; exit 1; }

sleep 20

a=$(cpu_ms); sleep "$seconds"; b=$(cpu_ms)
probes=0 failed=0
end=$((SECONDS + seconds))
c=$(cpu_ms)
while (( SECONDS < end )); do
  if [[ $("${probe[@]}" || true) == 200 ]]; then probes=$((probes + 1)); else failed=$((failed + 1)); fi
  sleep "$period"
done
d=$(cpu_ms)
rest=$((b - a)) probing=$((d - c))
awk -v m="$mode" -v s="$seconds" -v r="$rest" -v p="$probing" -v n="$probes" -v f="$failed" -v per="$period" 'BEGIN {
  printf "probe-cost %s: at rest %.1f ms CPU/s; probing every %ss: %.1f ms CPU/s, %d probes (%d failed), %.2f ms CPU per probe above rest\n",
    m, r / s, per, p / s, n, f, (n > 0 ? (p - r) / n : 0) }'
