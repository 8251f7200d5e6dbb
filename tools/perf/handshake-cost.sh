#!/usr/bin/env bash
# Where the CPU of a TLS handshake goes in `serve`, thread by thread (issue 32; docs/explanation/performance-log.md,
# "The TLS handshake").
#
#   tools/perf/handshake-cost.sh JAR rsa|ecdsa PERIOD SECONDS [JVM options...]
#
# Starts `serve` from JAR on 127.0.0.1 only (the file-backed example cluster, a self-signed certificate with an
# RSA-2048 key as the chart's, or ECDSA P-256 as the AOT training's; the chart's JVM options; the AOT cache beside the
# jar when there is one), then `curl`s /healthz over a new TLS connection every PERIOD seconds (no session
# resumption, as the API server's webhook client and the kubelet connect): 20 s to settle, then SECONDS measured. It
# prints each thread group's CPU in that window (utime+stime from /proc/PID/task/*/stat, grouped by thread name) and
# per handshake. CLASSPATH_EXTRA=JAR puts one more jar on the class path (serve is then started by its main class),
# for a security provider tried with -Djava.security.properties=FILE among the JVM options.
set -euo pipefail
jar=${1:?usage: handshake-cost.sh JAR rsa|ecdsa PERIOD SECONDS [JVM options...]}
key=${2:?usage: handshake-cost.sh JAR rsa|ecdsa PERIOD SECONDS [JVM options...]}
period=${3:?usage: handshake-cost.sh JAR rsa|ecdsa PERIOD SECONDS [JVM options...]}
seconds=${4:?usage: handshake-cost.sh JAR rsa|ecdsa PERIOD SECONDS [JVM options...]}
shift 4
. "$(dirname "$0")/lib.sh"

case $key in
  rsa) openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" -days 1 \
         -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null ;;
  ecdsa) openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/tls.key" \
         -out "$work/tls.crt" -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null ;;
  *) echo "handshake-cost: the key must be rsa or ecdsa, not '$key'" >&2; exit 2 ;;
esac

port=$((20000 + RANDOM % 20000))
launch=(-jar "$jar")
[[ -n ${CLASSPATH_EXTRA:-} ]] && launch=(-cp "$jar:$CLASSPATH_EXTRA" io.kvcacheinjector.app.Main)
chart_jvm "$jar"
MALLOC_ARENA_MAX=2 "$java" "${jvm[@]}" "$@" "${launch[@]}" serve \
  --cluster "$root/docs/examples/cluster" --host 127.0.0.1 --port "$port" --tls-cert "$work/tls.crt" \
  --tls-key "$work/tls.key" >"$work/serve.log" 2>&1 &
pid=$!

await_https handshake-cost "$work/tls.crt" healthz 150

# CPU ms by thread name, trailing digits dropped (the carriers ForkJoinPool-1-worker-N add up; /proc truncates names to 15 characters)
by_thread() {
  local task
  for task in /proc/"$pid"/task/*; do
    printf '%s %s\n' "$(sed 's/[0-9]*$//' "$task/comm" | tr ' ' _)" "$(cpu_ms "$task/stat")"
  done | awk '{ a[$1] += $2 } END { for (k in a) print k, a[k] }' | sort
}
handshake() { [[ $("${probe[@]}" || true) == 200 ]]; }

end=$((SECONDS + 20))
while ((SECONDS < end)); do handshake || true; sleep "$period"; done
by_thread >"$work/before"
handshakes=0 failed=0
end=$((SECONDS + seconds))
while ((SECONDS < end)); do
  if handshake; then handshakes=$((handshakes + 1)); else failed=$((failed + 1)); fi
  sleep "$period"
done
by_thread >"$work/after"
echo "handshake-cost $key, one every ${period}s for ${seconds}s: $handshakes handshakes ($failed failed); JVM options: the chart's ${*}"
join "$work/before" "$work/after" | awk -v n="$handshakes" '{ d = $3 - $2; total += d
    if (d > 0) printf "  %-28s %6d ms  %6.2f ms per handshake\n", $1, d, (n ? d / n : 0) }
  END { printf "  %-28s %6d ms  %6.2f ms per handshake\n", "all threads", total, (n ? total / n : 0) }' | sort -k2 -n -r
