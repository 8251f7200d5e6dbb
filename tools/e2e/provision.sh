#!/usr/bin/env bash
# Provision a real kube-apiserver + etcd for the e2e suite.
#
# Usage: tools/e2e/provision.sh [--regen]
#
# Prints progress to stderr and ONLY the directory holding `kube-apiserver` and `etcd` on its last
# stdout line. Lookup order:
#   1. TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD   (envtest convention, one file each)
#   2. KUBEBUILDER_ASSETS=<dir> holding kube-apiserver and etcd
#   3. build both from the Go module proxy into
#      ${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/e2e/bin/kube-<K8S>-etcd-<ETCD>/ (cached, STAMPed,
#      built once under flock). The wrapper modules are generated under .../e2e/src/ from the templates in
#      tools/e2e/wrappers/ (or, for versions other than the templates' pins, from scratch + `go mod tidy`).
#
# Knobs: E2E_K8S_VERSION (default v1.36.3), E2E_ETCD_VERSION (default v3.6.16), GO (path of `go`),
#        GOFLAGS (passed through; use GOFLAGS=-p=1 if the linker gets OOM-killed).
# --regen: regenerate tools/e2e/wrappers/*/go.{mod,sum} for the chosen pins (from the release's own go.mod
#          + `go mod tidy`), write them back into the repository, then build.
set -euo pipefail

exec 3>&1 1>&2                       # fd 3 = real stdout (result only); everything else goes to stderr
log() { printf 'provision: %s\n' "$*" >&2; }
die() { printf 'provision: ERROR: %s\n' "$*" >&2; exit 1; }
result() { log "using $1"; printf '%s\n' "$1" >&3; exit 0; }

REGEN=0
for a in "$@"; do
  case $a in
    --regen) REGEN=1 ;;
    -h|--help) sed -n '2,22p' "$0" >&2; exit 0 ;;
    *) die "unknown argument: $a (usage: provision.sh [--regen])" ;;
  esac
done

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TPL=$HERE/wrappers
K8S=${E2E_K8S_VERSION:-v1.36.3}
ETCD=${E2E_ETCD_VERSION:-v3.6.16}
[[ $K8S =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "E2E_K8S_VERSION must look like v1.36.3, got '$K8S'"
K8S_MINOR=${BASH_REMATCH[1]}
STAGING=v0.${K8S_MINOR}.${BASH_REMATCH[2]}
[[ $ETCD =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "E2E_ETCD_VERSION must look like v3.6.16, got '$ETCD'"

BASE=${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/e2e
# Bump BUILD_REV whenever the `go build` flags below change, so that cached binaries are rebuilt.
BUILD_REV=2

# ---------------------------------------------------------------- 1+2: envtest conventions
usable() { [[ -f $1 && -x $1 ]]; }
KAS_ASSET="" ETCD_ASSET=""
if [[ -n ${TEST_ASSET_KUBE_APISERVER:-} ]]; then
  usable "$TEST_ASSET_KUBE_APISERVER" || die "TEST_ASSET_KUBE_APISERVER=$TEST_ASSET_KUBE_APISERVER is not an executable file"
  KAS_ASSET=$(readlink -f "$TEST_ASSET_KUBE_APISERVER")
fi
if [[ -n ${TEST_ASSET_ETCD:-} ]]; then
  usable "$TEST_ASSET_ETCD" || die "TEST_ASSET_ETCD=$TEST_ASSET_ETCD is not an executable file"
  ETCD_ASSET=$(readlink -f "$TEST_ASSET_ETCD")
fi
if [[ -n ${KUBEBUILDER_ASSETS:-} ]]; then
  if usable "$KUBEBUILDER_ASSETS/kube-apiserver" && usable "$KUBEBUILDER_ASSETS/etcd"; then
    [[ -n $KAS_ASSET ]] || KAS_ASSET=$(readlink -f "$KUBEBUILDER_ASSETS/kube-apiserver")
    [[ -n $ETCD_ASSET ]] || ETCD_ASSET=$(readlink -f "$KUBEBUILDER_ASSETS/etcd")
  else
    log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks an executable kube-apiserver and etcd; ignoring it"
  fi
fi

# Print a directory holding exactly these two files under the expected names (symlinks when needed).
assets_dir() {  # $1 = kube-apiserver path, $2 = etcd path
  local kas=$1 etcd=$2 d
  if [[ $(dirname "$kas") == "$(dirname "$etcd")" && $(basename "$kas") == kube-apiserver && $(basename "$etcd") == etcd ]]; then
    result "$(dirname "$kas")"
  fi
  d=$BASE/assets/$(printf '%s\n%s\n' "$kas" "$etcd" | sha256sum | cut -c1-16)
  mkdir -p "$d"
  ln -sfn "$kas" "$d/kube-apiserver"
  ln -sfn "$etcd" "$d/etcd"
  result "$d"
}
if [[ -n $KAS_ASSET && -n $ETCD_ASSET ]]; then
  log "kube-apiserver=$KAS_ASSET etcd=$ETCD_ASSET (from TEST_ASSET_*/KUBEBUILDER_ASSETS)"
  assets_dir "$KAS_ASSET" "$ETCD_ASSET"
fi

# ---------------------------------------------------------------- 3: build from the Go module proxy
DEST=$BASE/bin/kube-$K8S-etcd-$ETCD
tpl_pin() { sed -n "s#^require $1 \(v[^ ]*\)\$#\1#p; s#^[[:space:]]$1 \(v[^ ]*\)\$#\1#p" "$2" 2>/dev/null | head -1; }
KAS_MODE=generate ETCD_MODE=generate
[[ $REGEN == 0 && -f $TPL/kube-apiserver/go.sum && $(tpl_pin k8s.io/kubernetes "$TPL/kube-apiserver/go.mod") == "$K8S" ]] && KAS_MODE=template
[[ $REGEN == 0 && -f $TPL/etcd/go.sum && $(tpl_pin go.etcd.io/etcd/server/v3 "$TPL/etcd/go.mod") == "$ETCD" ]] && ETCD_MODE=template
tpl_hash() { if [[ $2 == template ]]; then cat "$TPL/$1"/go.mod "$TPL/$1"/go.sum "$TPL/$1"/main.go | sha256sum | cut -c1-16; else echo generated; fi; }
KEY="rev=$BUILD_REV k8s=$K8S staging=$STAGING etcd=$ETCD kube-apiserver-wrapper=$(tpl_hash kube-apiserver "$KAS_MODE") etcd-wrapper=$(tpl_hash etcd "$ETCD_MODE")"
cached() { [[ $REGEN == 0 && -x $DEST/kube-apiserver && -x $DEST/etcd && "$(head -1 "$DEST/STAMP" 2>/dev/null)" == "$KEY" ]]; }
finish() {  # overlay a single TEST_ASSET_* override on top of the built pair, if any
  if [[ -n $KAS_ASSET || -n $ETCD_ASSET ]]; then
    assets_dir "${KAS_ASSET:-$DEST/kube-apiserver}" "${ETCD_ASSET:-$DEST/etcd}"
  fi
  result "$DEST"
}

cached && { log "cached binaries match STAMP ($KEY)"; finish; }

GO=${GO:-$(command -v go || true)}
[[ -n $GO ]] || { [[ -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go; }
[[ -n $GO && -x $GO ]] || die "no 'go' on PATH (nor /usr/local/go/bin/go, nor \$GO) and TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD/KUBEBUILDER_ASSETS do not name both binaries: cannot provision kube-apiserver and etcd"
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
GOVER=$("$GO" env GOVERSION) || die "'$GO env GOVERSION' failed"
log "go=$GO ($GOVER); k8s.io/kubernetes $K8S (staging $STAGING), etcd $ETCD; kube-apiserver wrapper: $KAS_MODE, etcd wrapper: $ETCD_MODE"

mkdir -p "$BASE/bin" "$BASE/src"
exec 9>"$BASE/lock"
if ! flock -n 9; then
  log "another provision.sh holds $BASE/lock; waiting for it to finish building"
  flock 9
fi
cached && { log "built meanwhile by another run; cached binaries match STAMP"; finish; }

json_field() { sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",*\$/\1/p"; }

# -- kube-apiserver wrapper
log "resolving k8s.io/kubernetes@$K8S on the module proxy"
KJSON=$(cd "$BASE" && "$GO" mod download -json "k8s.io/kubernetes@$K8S") && KMOD=$(json_field GoMod <<<"$KJSON") && [[ -f $KMOD ]] \
  || die "cannot download k8s.io/kubernetes@$K8S from the module proxy ($("$GO" env GOPROXY))"
REPLACES=$(sed -n '/^replace (/,/^)/p' "$KMOD" \
  | awk -v v="$STAGING" '$2=="=>" && $3 ~ /^\.\/staging\// {printf "\t%s => %s %s\n",$1,$1,v}')
[[ -n $REPLACES ]] || die "no ./staging replaces found in $KMOD"
GOLINE=$(grep -E '^go ' "$KMOD"); GODEBUG_LINE=$(grep -E '^godebug ' "$KMOD" || true)
log "k8s.io/kubernetes@$K8S go.mod: '$GOLINE' '${GODEBUG_LINE:-no godebug}', $(printf '%s\n' "$REPLACES" | wc -l) staging modules -> $STAGING"

KW=$BASE/src/kube-apiserver-$K8S
rm -rf "$KW"; mkdir -p "$KW"
cp "$TPL/kube-apiserver/main.go" "$KW/main.go"
if [[ $KAS_MODE == template ]]; then
  cp "$TPL/kube-apiserver/go.mod" "$TPL/kube-apiserver/go.sum" "$KW/"
  want=$(printf '%s\n' "$REPLACES" | awk '{print $1, $3, $4}' | sort)
  have=$(awk '$2=="=>" && $1 ~ /^k8s\.io\// {print $1, $3, $4}' "$KW/go.mod" | sort)
  [[ $want == "$have" ]] || die "tools/e2e/wrappers/kube-apiserver/go.mod replaces differ from the staging list of k8s.io/kubernetes@$K8S: run tools/e2e/provision.sh --regen"
  [[ -z $GODEBUG_LINE ]] || grep -qxF "$GODEBUG_LINE" "$KW/go.mod" \
    || die "tools/e2e/wrappers/kube-apiserver/go.mod lacks '$GODEBUG_LINE' of k8s.io/kubernetes@$K8S: run --regen"
else
  { printf 'module kvcache-injector.local/e2e/kube-apiserver\n\n%s\n' "$GOLINE"
    [[ -z $GODEBUG_LINE ]] || printf '%s\n' "$GODEBUG_LINE"
    printf '\nrequire k8s.io/kubernetes %s\n\nreplace (\n%s\n)\n' "$K8S" "$REPLACES"
  } > "$KW/go.mod"
  log "go mod tidy (kube-apiserver wrapper, downloads the dependency graph)"
  (cd "$KW" && "$GO" mod tidy) || die "go mod tidy failed for the kube-apiserver wrapper ($KW)"
fi

# -- etcd wrapper
EW=$BASE/src/etcd-$ETCD
rm -rf "$EW"; mkdir -p "$EW"
cp "$TPL/etcd/main.go" "$EW/main.go"
if [[ $ETCD_MODE == template ]]; then
  cp "$TPL/etcd/go.mod" "$TPL/etcd/go.sum" "$EW/"
else
  printf 'module kvcache-injector.local/e2e/etcd\n\n%s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$GOLINE" "$ETCD" > "$EW/go.mod"
  log "go mod tidy (etcd wrapper)"
  (cd "$EW" && "$GO" mod tidy) || die "go mod tidy failed for the etcd wrapper ($EW)"
fi

if [[ $REGEN == 1 ]]; then
  log "--regen: writing the regenerated go.mod/go.sum back to $TPL/{kube-apiserver,etcd}/"
  cp "$KW/go.mod" "$KW/go.sum" "$TPL/kube-apiserver/"
  cp "$EW/go.mod" "$EW/go.sum" "$TPL/etcd/"
  KEY="rev=$BUILD_REV k8s=$K8S staging=$STAGING etcd=$ETCD kube-apiserver-wrapper=$(tpl_hash kube-apiserver template) etcd-wrapper=$(tpl_hash etcd template)"
fi

# -- build (module graph is fixed now: -mod=readonly)
TMP=$(mktemp -d "$BASE/bin/.build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
BUILD_DATE=$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' "$(json_field Info <<<"$KJSON")" 2>/dev/null || true)
BUILD_DATE=${BUILD_DATE:-1970-01-01T00:00:00Z}
t0=$(date +%s)
log "building etcd $ETCD (CGO_ENABLED=0 GOTOOLCHAIN=local GOWORK=off GOFLAGS='${GOFLAGS:-}')"
(cd "$EW" && "$GO" build -mod=readonly -trimpath -buildvcs=false \
    -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=modproxy-$ETCD" -o "$TMP/etcd" .) \
  || die "go build of etcd $ETCD failed (wrapper in $EW)"
t1=$(date +%s); log "etcd built in $((t1 - t0)) s"
log "building kube-apiserver $K8S (the first build takes several minutes)"
V=k8s.io/component-base/version
(cd "$KW" && "$GO" build -mod=readonly -trimpath -buildvcs=false -o "$TMP/kube-apiserver" -ldflags "-s -w \
    -X $V.gitMajor=1 -X $V.gitMinor=$K8S_MINOR -X $V.gitVersion=$K8S -X $V.gitTreeState=clean -X $V.gitCommit= \
    -X $V.buildDate=$BUILD_DATE" .) \
  || die "go build of kube-apiserver $K8S failed (wrapper in $KW; if the linker was OOM-killed retry with GOFLAGS=-p=1)"
t2=$(date +%s); log "kube-apiserver built in $((t2 - t1)) s"

"$TMP/etcd" --version >/dev/null 2>&1 || die "built etcd does not run: $TMP/etcd --version"
"$TMP/kube-apiserver" --version >/dev/null 2>&1 || die "built kube-apiserver does not run: $TMP/kube-apiserver --version"
log "$("$TMP/kube-apiserver" --version 2>&1 | head -1); $("$TMP/etcd" --version 2>&1 | head -1)"
printf '%s\ngo=%s built=%s etcd_s=%s kube_apiserver_s=%s\n' "$KEY" "$GOVER" "$(date -u +%FT%TZ)" "$((t1 - t0))" "$((t2 - t1))" > "$TMP/STAMP"
chmod 755 "$TMP"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
finish
