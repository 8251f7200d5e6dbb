# Sourced by the scripts beside it. Gives: $root (the repository), $java (a JDK 21+, found as bin/mvn finds it),
# $work (a temporary folder), $pid (the caller sets it to the serve process it starts), which is stopped (SIGTERM,
# then SIGKILL after 30 s: serve first waits out its 5 s shutdown delay) and $work removed when the script exits;
# stop_pid, which stops $pid that way and forgets it (a script that starts several servers in turn);
# cpu_ms [STAT] (utime+stime in ms of /proc/$pid/stat, or of the given stat file, such as one thread's); and
# await_200 NAME TRIES, which runs the caller's probe array until it prints 200 (every 0.2 s, at most TRIES times)
# and exits naming NAME with serve's last lines if serve exits first; await_https NAME CA PATH TRIES, await_200 with
# the probe a GET of https://127.0.0.1:$port/PATH trusting CA; start_serve NAME JAR [JVM options...], which starts
# `serve` as the chart runs it (chart_jvm's options, the file-backed example cluster on 127.0.0.1 and a free port,
# the chart's 5 000-review warm-up, SERVE_ARGS, its output through a pipe to $work/serve.log as a container runtime
# reads it), sets $port and $pid and waits for /readyz ($work/ca.pem is its CA).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/bin/find-jdk"
java=$JAVA_HOME/bin/java
work=$(mktemp -d)
pid=
ticks=$(getconf CLK_TCK)
stop_pid() {
  if [[ -n $pid ]] && kill "$pid" 2>/dev/null; then
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  pid=
}
stop_serve() {
  stop_pid
  rm -rf "$work"
}
trap stop_serve EXIT
cpu_ms() { awk -v t="$ticks" '{ print int(($14 + $15) * 1000 / t) }' "${1:-/proc/$pid/stat}"; }
await_200() {
  local _
  for _ in $(seq "$2"); do
    [[ $("${probe[@]}" 2>/dev/null || true) == 200 ]] && return 0
    kill -0 "$pid" 2>/dev/null || { echo "$1: serve exited:" >&2; tail -n 5 "$work/serve.log" >&2; exit 1; }
    sleep 0.2
  done
}
chart_jvm() {
  # the chart's JVM options (deploy/helm/kvcache-injector/templates/deployment.yaml, values.yaml's jvm.*)
  jvm=(--sun-misc-unsafe-memory-access=allow -XX:ActiveProcessorCount=1 -XX:MaxRAM=320m -XX:MaxRAMPercentage=41
    -XX:MinRAMPercentage=41 -XX:+UseSerialGC -Xmn16m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30
    -XX:-ShrinkHeapInSteps -XX:TrimNativeHeapInterval=1000 -Xlog:disable -Xlog:all=warning:stderr
    -Xlog:aot*=error:stderr -XX:-UsePerfData)
  [[ -f $(dirname "$1")/kvcache-injector.aot ]] && jvm+=(-XX:AOTCache="$(dirname "$1")/kvcache-injector.aot")
  return 0
}
await_https() {
  probe=(curl -s -o /dev/null -w '%{http_code}' --max-time 3 --cacert "$2" "https://127.0.0.1:$port/$3")
  await_200 "$1" "$4"
}
start_serve() {
  local name=$1 jar=$2
  shift 2
  port=$((20000 + RANDOM % 20000))
  rm -f "$work/ca.pem"
  chart_jvm "$jar"
  # shellcheck disable=SC2086 # SERVE_ARGS is a list of words
  MALLOC_ARENA_MAX=2 "$java" "${jvm[@]}" "$@" -jar "$jar" serve \
    --cluster "$root/docs/examples/cluster" --host 127.0.0.1 --port "$port" --tls-ca-out "$work/ca.pem" \
    --warm-up-reviews 5000 ${SERVE_ARGS:-} > >(cat >"$work/serve.log") 2>&1 &
  pid=$!
  await_https "$name" "$work/ca.pem" readyz 300
}
