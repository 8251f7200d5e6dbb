#!/usr/bin/env bash
# Smoke test of the e2e control plane: start etcd + kube-apiserver on free loopback ports in a temp dir,
# wait for /readyz, GET /api/v1/namespaces/default with a system:masters bearer token, print the server
# version, then stop both (SIGTERM, then SIGKILL; apiserver first, then etcd) and delete the temp dir.
#
# Usage: tools/e2e/smoke.sh [BIN_DIR]     (BIN_DIR defaults to the last stdout line of provision.sh)
# Env:   E2E_READY_TIMEOUT (s, default 60), E2E_KEEP=1 keeps the temp dir (logs) for inspection.
set -euo pipefail

log() { printf 'smoke: %s\n' "$*" >&2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
READY_TIMEOUT=${E2E_READY_TIMEOUT:-60}
TOKEN=e2e-admin-token

BIN=${1:-}
if [[ -z $BIN ]]; then
  BIN=$("$HERE/provision.sh" | tail -n 1)
fi
[[ -x $BIN/kube-apiserver && -x $BIN/etcd ]] || { log "FAIL: no kube-apiserver/etcd in '$BIN'"; exit 1; }
for t in curl openssl; do command -v $t >/dev/null || { log "FAIL: '$t' is required"; exit 1; }; done

D=$(mktemp -d "${TMPDIR:-/tmp}/kvcache-e2e-smoke.XXXXXX")
ETCD_PID="" KAS_PID="" OK=0

stop() {  # $1 = pid, $2 = name: SIGTERM, wait up to 15 s, then SIGKILL
  local pid=$1 name=$2 i
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not exit 15 s after SIGTERM: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true
  else
    log "$name stopped after SIGTERM ($((i * 100)) ms)"
  fi
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  stop "$KAS_PID" kube-apiserver
  stop "$ETCD_PID" etcd
  if [[ $OK != 1 ]]; then
    for f in etcd.log kube-apiserver.log; do
      [[ -f $D/$f ]] && { log "---- last lines of $f"; tail -n 40 "$D/$f" >&2; }
    done
  fi
  if [[ ${E2E_KEEP:-0} == 1 ]]; then log "kept $D"; else rm -rf "$D"; fi
  if [[ $OK == 1 ]]; then log "PASS"; else log "FAIL"; [[ $rc != 0 ]] || rc=1; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Free loopback TCP ports: ask the kernel (bind to port 0) when python3 exists, else probe random ports.
free_port() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
  else
    local p
    while :; do p=$((20000 + RANDOM % 40000)); (exec 5<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done
  fi
}
EP=$(free_port); PP=$(free_port); AP=$(free_port)
while [[ $PP == "$EP" ]]; do PP=$(free_port); done
while [[ $AP == "$EP" || $AP == "$PP" ]]; do AP=$(free_port); done
log "bin=$BIN dir=$D etcd client=$EP peer=$PP apiserver=$AP"

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$D/sa.key" 2>/dev/null
echo "$TOKEN,e2e-admin,e2e-admin-uid,\"system:masters\"" > "$D/tokens.csv"
mkdir -p "$D/pki"

"$BIN/etcd" --version 2>&1 | head -1 | sed 's/^/smoke: /' >&2
"$BIN/etcd" --name=e2e --data-dir="$D/etcd" \
  --listen-client-urls="http://127.0.0.1:$EP" --advertise-client-urls="http://127.0.0.1:$EP" \
  --listen-peer-urls="http://127.0.0.1:$PP" --initial-advertise-peer-urls="http://127.0.0.1:$PP" \
  --initial-cluster="e2e=http://127.0.0.1:$PP" \
  --unsafe-no-fsync --log-level=warn \
  > "$D/etcd.log" 2>&1 &
ETCD_PID=$!

t0=$(date +%s%N)
until curl -fsS "http://127.0.0.1:$EP/health" 2>/dev/null | grep -q '"health":"true"'; do
  kill -0 "$ETCD_PID" 2>/dev/null || { log "etcd exited early"; exit 1; }
  (( ($(date +%s%N) - t0) / 1000000000 < 30 )) || { log "etcd not healthy within 30 s"; exit 1; }
  sleep 0.1
done
log "etcd healthy after $((($(date +%s%N) - t0) / 1000000)) ms"

"$BIN/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$EP" \
  --bind-address=127.0.0.1 --secure-port="$AP" \
  --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
  --cert-dir="$D/pki" \
  --service-account-issuer="https://127.0.0.1:$AP" \
  --service-account-key-file="$D/sa.key" --service-account-signing-key-file="$D/sa.key" \
  --token-auth-file="$D/tokens.csv" --authorization-mode=RBAC \
  --service-cluster-ip-range=10.0.0.0/24 \
  --disable-admission-plugins=ServiceAccount --allow-privileged=true \
  > "$D/kube-apiserver.log" 2>&1 &
KAS_PID=$!

CA=$D/pki/apiserver.crt
URL=https://127.0.0.1:$AP
api() { curl -sS --max-time 5 --cacert "$CA" -H "Authorization: Bearer $TOKEN" "$@"; }

t0=$(date +%s%N)
code=""
while :; do
  kill -0 "$KAS_PID" 2>/dev/null || { log "kube-apiserver exited early"; exit 1; }
  if [[ -s $CA ]]; then
    code=$(api -o "$D/readyz.out" -w '%{http_code}' "$URL/readyz" 2>/dev/null || true)
    [[ $code == 200 ]] && break
  fi
  if (( ($(date +%s%N) - t0) / 1000000000 >= READY_TIMEOUT )); then
    log "kube-apiserver not ready within ${READY_TIMEOUT} s (last /readyz code: ${code:-none})"
    [[ -s $CA ]] && api "$URL/readyz?verbose" >&2 || true
    exit 1
  fi
  sleep 0.2
done
log "kube-apiserver /readyz=200 after $((($(date +%s%N) - t0) / 1000000)) ms"

# The 'default' namespace is created by a post-start hook just around readiness: poll briefly.
t1=$(date +%s%N)
until [[ $(api -o "$D/ns.json" -w '%{http_code}' "$URL/api/v1/namespaces/default" 2>/dev/null || true) == 200 ]]; do
  (( ($(date +%s%N) - t1) / 1000000000 < 20 )) || { log "GET /api/v1/namespaces/default never returned 200"; cat "$D/ns.json" >&2 || true; exit 1; }
  sleep 0.2
done
grep -q '"name": *"default"' "$D/ns.json" || { log "unexpected namespace body"; cat "$D/ns.json" >&2; exit 1; }
log "GET /api/v1/namespaces/default -> 200 (phase $(sed -n 's/.*"phase": *"\([^"]*\)".*/\1/p' "$D/ns.json"))"

# Anonymous requests must not be admins (sanity check of the token setup).
anon=$(curl -sS --max-time 5 --cacert "$CA" -o /dev/null -w '%{http_code}' "$URL/api/v1/namespaces/default" || true)
[[ $anon == 401 || $anon == 403 ]] || { log "anonymous GET returned $anon, expected 401/403"; exit 1; }

VERSION_JSON=$(api "$URL/version")
GITVERSION=$(sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' <<<"$VERSION_JSON")
log "server version: $GITVERSION"
printf '%s\n' "$VERSION_JSON" | tr -d '\n ' | sed 's/^/smoke: \/version /; s/$/\n/' >&2
log "serving cert (leaf + CA): $(grep -c 'BEGIN CERTIFICATE' "$CA") PEM blocks in \$D/pki/apiserver.crt"
OK=1
echo "server version: $GITVERSION"
