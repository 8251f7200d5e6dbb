#!/usr/bin/env bash
# Builds the small images the node suite (NodeE2E, tools/e2e/cluster.sh) runs, without a registry or a daemon:
#
#   kvci.local/pause:1        the sandbox image containerd's CRI plugin starts for every Pod (cmd/pause)
#   kvci.local/engine-stub:1  the "engine": `vllm`, `python3` and `lmcache` are one static program (cmd/stub) that
#                             prints what the container sees (arguments, environment, the projected Mooncake file)
#                             and waits; `lmcache server --port N` listens on N as the CacheBlend engine does
#   kvci.local/vllm-openai:1  the same program with the entry point `vllm serve`, for Pods that give only args
#   kvci.local/cb-payload:1   the CacheBlend plugin payload: its entry point stages a file into $SHARED_DIR, exit 0
#   kvci.local/trivial-webhook:1  issue 32's floor: a standard-library Go mutating webhook (cmd/trivialwebhook)
#
# Usage: tools/e2e/images.sh OUT_DIR      writes OUT_DIR/{pause,engine-stub,vllm-openai,cb-payload,trivial-webhook}.tar and prints OUT_DIR
#
# Each archive is a `docker save` archive of one layer (owner 0:0), which `ctr images import`, `docker load` and
# `podman load` accept. The programs are Go, standard library only, built with the machine's Go
# (tools/e2e/images/, CGO_ENABLED=0). Rebuilt only when a source file or this script changes.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { printf 'images: ERROR: %s\n' "$*" >&2; exit 1; }
[[ $# == 1 ]] || die "usage: tools/e2e/images.sh OUT_DIR"
OUT=$1
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
[[ -x $GO ]] || die "no 'go' on PATH (nor /usr/local/go/bin/go, nor \$GO): the stub images are built from tools/e2e/images/ with Go"

KEY=$(cat "$0" "$HERE"/lib/archive.sh "$HERE"/images/go.mod "$HERE"/images/cmd/*/main.go | sha256sum | cut -c1-16)
if [[ -f $OUT/STAMP && $(cat "$OUT/STAMP") == "$KEY" && -f $OUT/pause.tar && -f $OUT/engine-stub.tar && -f $OUT/vllm-openai.tar && -f $OUT/cb-payload.tar && -f $OUT/trivial-webhook.tar ]]; then
  echo "$OUT"
  exit 0
fi

WORK=$(mktemp -d "$OUT/.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
(cd "$HERE/images" && GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 "$GO" build -trimpath -buildvcs=false \
    -ldflags "-s -w" -o "$WORK/bin/" ./cmd/...) || die "go build of tools/e2e/images failed"

# archive NAME:TAG ROOTFS OUT.tar CONFIG-JSON(the image config's "config" object), from lib/archive.sh
# shellcheck source=lib/archive.sh
source "$HERE/lib/archive.sh"
ARCHIVE_CREATED_BY=tools/e2e/images.sh

R=$WORK/pause
mkdir -p "$R"
cp "$WORK/bin/pause" "$R/pause"
archive kvci.local/pause:1 "$R" "$OUT/pause.tar" '{"Entrypoint":["/pause"],"User":"65535:65535"}'

R=$WORK/engine
mkdir -p "$R/usr/bin" "$R/tmp" "$R/etc"
chmod 1777 "$R/tmp"
cp "$WORK/bin/stub" "$R/usr/bin/stub"
for n in vllm python3 python lmcache; do ln -s stub "$R/usr/bin/$n"; done
printf 'root:x:0:0:root:/:/usr/bin/stub\nnonroot:x:65532:65532:nonroot:/:/usr/bin/stub\n' > "$R/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$R/etc/group"
archive kvci.local/engine-stub:1 "$R" "$OUT/engine-stub.tar" '{"Env":["PATH=/usr/bin"],"Entrypoint":["/usr/bin/stub"],"Cmd":["sleep"]}'

# the vLLM image as the CacheBlend guide runs it, args only: its entry point is `vllm serve`
archive kvci.local/vllm-openai:1 "$R" "$OUT/vllm-openai.tar" '{"Env":["PATH=/usr/bin"],"Entrypoint":["/usr/bin/vllm","serve"]}'

R=$WORK/payload
mkdir -p "$R/usr/bin"
cp "$WORK/bin/stub" "$R/usr/bin/stub"
archive kvci.local/cb-payload:1 "$R" "$OUT/cb-payload.tar" '{"Env":["PATH=/usr/bin"],"Entrypoint":["/usr/bin/stub","payload"]}'

# issue 32's floor: a mutating webhook on Go's standard library that adds one annotation and one env var (cmd/trivialwebhook)
R=$WORK/trivial
mkdir -p "$R/usr/bin"
cp "$WORK/bin/trivialwebhook" "$R/usr/bin/trivialwebhook"
archive kvci.local/trivial-webhook:1 "$R" "$OUT/trivial-webhook.tar" '{"Entrypoint":["/usr/bin/trivialwebhook"],"User":"65532:65532"}'

printf '%s' "$KEY" > "$OUT/STAMP"
echo "$OUT"
