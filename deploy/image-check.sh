#!/bin/bash
# Checks the archive deploy/image.sh wrote the way a node uses it: a private containerd (its own root, state and
# unix socket under a temporary folder, no CRI plugin, no TCP listener) imports app/target/image/kvcache-injector.tar
# into the k8s.io namespace, and runs the image as the chart does (its USER 65532, the root file system read-only, a
# tmpfs at /tmp, a network namespace with only loopback in it):
#   1. java -version                        the jlinked runtime starts (java on the PATH, libjli via /proc/self/exe)
#   2. the ENTRYPOINT (--help)              the jar and the AOT cache, as the image runs by hand
#   3. the chart's JVM options, -XX:AOTMode=on (the JVM stops when it cannot use the cache), the training run: serve
#      with TLS, the informers and the controller against a stand-in API server on loopback, then bench. The image
#      holds neither (issue 30): the training's two jars of this checkout (bench/target, aot-training/target, the ones
#      the image build used) are mounted read-only at /training, where the build's training stage had them.
# Then containerd is stopped (by its PID) and its folders deleted. Needs root and containerd + ctr (apt-get install
# containerd, done here when they are missing). Every failure is one line, "image-check: <cause>; <fix>", exit 1.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tar=$repo/app/target/image/kvcache-injector.tar
fail() { echo "image-check: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "runs as root (containerd and runc need it); run it with sudo"
[ -f "$tar" ] || fail "no $tar; build it first: deploy/image.sh"
training_jars=("$repo/bench/target/kvcache-injector-bench.jar" "$repo/aot-training/target/kvcache-injector-aot-training.jar")
for j in "${training_jars[@]}"; do
  [ -f "$j" ] || fail "no $j (the training's jar the image build used); build it: bin/mvn -B -DskipTests package"
done
version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$repo/deploy/helm/kvcache-injector/Chart.yaml")
image=docker.io/library/kvcache-injector:$version
if ! command -v containerd >/dev/null || ! command -v ctr >/dev/null; then
  echo "image-check: installing containerd with apt-get" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q containerd >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q containerd >/dev/null 2>&1; } \
    || fail "apt-get install containerd failed; run it by hand to see why"
fi

tmp=$(mktemp -d /tmp/kvcache-injector-containerd.XXXXXX)
had_run_containerd=$([ -e /run/containerd ] && echo 1 || true)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  umount -R "$tmp/root" 2>/dev/null || true
  rm -rf "$tmp"
  # containerd 1.6 keeps its shims' sockets under /run/containerd/s whatever its state folder; empty by now
  [ -n "$had_run_containerd" ] || rmdir /run/containerd/s /run/containerd 2>/dev/null || true
}
trap cleanup EXIT
cat >"$tmp/config.toml" <<EOF
version = 2
root = "$tmp/root"
state = "$tmp/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$tmp/containerd.sock"
[ttrpc]
  address = ""
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$tmp/opt"
EOF
containerd --config "$tmp/config.toml" >"$tmp/containerd.log" 2>&1 &
pid=$!
for _ in $(seq 50); do [ -S "$tmp/containerd.sock" ] && break; sleep 0.2; done
[ -S "$tmp/containerd.sock" ] || fail "containerd did not start ($(tail -n1 "$tmp/containerd.log")); see its log above"
ctr=(ctr --address "$tmp/containerd.sock" --namespace k8s.io)

"${ctr[@]}" images import "$tar" >/dev/null || fail "ctr images import refused $tar; rebuild it: deploy/image.sh"
names=$("${ctr[@]}" images ls -q)
echo "image-check: imported as $names" >&2
[ "$names" = "$image" ] || fail "the archive is named $names, the chart pulls $image; rebuild it with deploy/image.sh"

n=0
mounts=() # more --mount options for the next run
run() { # run WHAT ARGS...: the image with the chart's confinement, its output in $tmp/out and $tmp/err
  n=$((n + 1))
  local what=$1; shift
  if ! "${ctr[@]}" run --rm --read-only --fifo-dir "$tmp/fifo" --runc-root "$tmp/runc" \
      --mount type=tmpfs,src=tmpfs,dst=/tmp,options=rw:nosuid:nodev:mode=1777 --env MALLOC_ARENA_MAX=2 "${mounts[@]}" \
      "$image" "check-$n" "$@" >"$tmp/out" 2>"$tmp/err"; then
    fail "$what failed in the container ($(grep -v '^{' "$tmp/err" | tail -n1)); rebuild with deploy/image.sh"
  fi
}
run "java -version" java -version
echo "image-check: $(head -n1 "$tmp/err")" >&2
run "the ENTRYPOINT (--help)"
grep -q '^Usage: kvcache-injector' "$tmp/out" "$tmp/err" || fail "the ENTRYPOINT printed no usage; rebuild with deploy/image.sh"
grep -E '\]\[(error|warning)\]\[aot' "$tmp/err" && fail "the ENTRYPOINT's JVM complained about its AOT cache (above); rebuild with deploy/image.sh"
for j in "${training_jars[@]}"; do
  mounts+=(--mount "type=bind,src=$j,dst=/training/$(basename "$j"),options=rbind:ro")
done
start=$(date +%s%N)
run "aot-training with the chart's options and -XX:AOTMode=on" java --sun-misc-unsafe-memory-access=allow \
  -XX:MaxRAM=320m -XX:MaxRAMPercentage=41 -XX:MinRAMPercentage=41 -XX:+UseSerialGC -Xmn16m -XX:MinHeapFreeRatio=10 \
  -XX:MaxHeapFreeRatio=30 -XX:-ShrinkHeapInSteps -XX:TrimNativeHeapInterval=1000 -XX:AOTMode=on \
  -XX:AOTCache=/app/kvcache-injector.aot -Xlog:disable -Xlog:all=warning:stderr -Xlog:aot*=error:stderr \
  -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData \
  -cp /app/kvcache-injector.jar:/training/kvcache-injector-bench.jar:/training/kvcache-injector-aot-training.jar \
  io.kvcacheinjector.training.AotTrainingMain
mounts=()
echo "image-check: $(grep '^aot-training: ' "$tmp/err" | head -n1) ($(( ($(date +%s%N) - start) / 1000000 )) ms in all)" >&2
echo "image-check: ok: $image runs as the chart runs it" >&2
