#!/usr/bin/env bash
# Provision a real kube-apiserver + etcd for the e2e suite, and the kubectl + helm its docs suite runs.
#
# Usage: tools/e2e/provision.sh [--regen]
#
# Prints progress to stderr and ONLY the directory holding `kube-apiserver`, `etcd`, `kubectl` and `helm` (and, unless
# E2E_NODE=0, the node's `kubelet`, `kube-controller-manager`, `kube-scheduler` and `kube-proxy`: see "the node"
# below) on its last stdout line. Lookup order, per binary:
#   1. TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD / TEST_ASSET_KUBECTL / TEST_ASSET_HELM (envtest convention)
#   2. KUBEBUILDER_ASSETS=<dir> holding kube-apiserver and etcd (and kubectl, helm when it has them)
#   3. build from the Go module proxy into ${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/e2e/bin/:
#      kube-<K8S>-etcd-<ETCD>/ (kube-apiserver, etcd) and kubectl-<K8S>-helm-<HELM>/ (kubectl from the staging
#      module k8s.io/kubectl v0.<minor>.<patch>, helm from helm.sh/helm/v3 cmd/helm) — cached, STAMPed, built once
#      under one flock. The wrapper modules are generated under .../e2e/src/ from the templates in
#      tools/e2e/wrappers/ (or, for versions other than the templates' pins, from scratch + `go mod tidy`); helm
#      needs no wrapper (`go install helm.sh/helm/v3/cmd/helm@<HELM>`, its own go.mod/go.sum).
#   When the four are not in one folder, the printed folder is .../e2e/assets/<hash>/ holding symlinks to them.
#
# Knobs: E2E_K8S_VERSION (default v1.36.3), E2E_KUBECTL_VERSION (default E2E_K8S_VERSION), E2E_ETCD_VERSION (default v3.6.16),
#        E2E_HELM_VERSION (default v3.22.0), GO (path of `go`),
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
    -h|--help) sed -n '2,27p' "$0" >&2; exit 0 ;;
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
# kubectl (and the Kubernetes minor helm is built for) may differ from the API server: the version matrix
# (tools/e2e/versions.txt) runs every API server with the newest kubectl and helm
KC=${E2E_KUBECTL_VERSION:-$K8S}
[[ $KC =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "E2E_KUBECTL_VERSION must look like v1.36.3, got '$KC'"
KC_MINOR=${BASH_REMATCH[1]}
KC_STAGING=v0.${KC_MINOR}.${BASH_REMATCH[2]}
HELM=${E2E_HELM_VERSION:-v3.22.0}
[[ $HELM =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "E2E_HELM_VERSION must look like v3.22.0, got '$HELM'"

BASE=${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/e2e
# Bump BUILD_REV whenever the `go build` flags below change, so that cached binaries are rebuilt.
BUILD_REV=2

# ---------------------------------------------------------------- 1+2: envtest conventions
usable() { [[ -f $1 && -x $1 ]]; }
KAS_ASSET="" ETCD_ASSET="" KUBECTL_ASSET="" HELM_ASSET=""
given() {  # $1 = variable name of TEST_ASSET_*, prints the resolved path
  local v=${!1:-}
  [[ -z $v ]] && return 0
  usable "$v" || die "$1=$v is not an executable file"
  readlink -f "$v"
}
KAS_ASSET=$(given TEST_ASSET_KUBE_APISERVER); ETCD_ASSET=$(given TEST_ASSET_ETCD)
KUBECTL_ASSET=$(given TEST_ASSET_KUBECTL); HELM_ASSET=$(given TEST_ASSET_HELM)
if [[ -n ${KUBEBUILDER_ASSETS:-} ]]; then
  if usable "$KUBEBUILDER_ASSETS/kube-apiserver" && usable "$KUBEBUILDER_ASSETS/etcd"; then
    [[ -n $KAS_ASSET ]] || KAS_ASSET=$(readlink -f "$KUBEBUILDER_ASSETS/kube-apiserver")
    [[ -n $ETCD_ASSET ]] || ETCD_ASSET=$(readlink -f "$KUBEBUILDER_ASSETS/etcd")
    [[ -n $KUBECTL_ASSET ]] || ! usable "$KUBEBUILDER_ASSETS/kubectl" || KUBECTL_ASSET=$(readlink -f "$KUBEBUILDER_ASSETS/kubectl")
    [[ -n $HELM_ASSET ]] || ! usable "$KUBEBUILDER_ASSETS/helm" || HELM_ASSET=$(readlink -f "$KUBEBUILDER_ASSETS/helm")
  else
    log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks an executable kube-apiserver and etcd; ignoring it"
  fi
fi

# Print a directory holding exactly these four files under the expected names (symlinks when needed), and with
# E2E_NODE=1 the node's binaries beside them (provide_node builds them first).
assets_dir() {  # $1 = kube-apiserver, $2 = etcd, $3 = kubectl, $4 = helm
  local d=$(dirname "$1") f
  if [[ $E2E_NODE == 1 ]]; then
    provide_node
  elif [[ $(dirname "$2") == "$d" && $(dirname "$3") == "$d" && $(dirname "$4") == "$d" \
        && $(basename "$1") == kube-apiserver && $(basename "$2") == etcd && $(basename "$3") == kubectl \
        && $(basename "$4") == helm ]]; then
    result "$d"
  fi
  d=$BASE/assets/$( { printf '%s\n' "$@"; [[ $E2E_NODE == 0 ]] || echo "$NODE_DEST"; } | sha256sum | cut -c1-16)
  mkdir -p "$d"
  ln -sfn "$1" "$d/kube-apiserver"
  ln -sfn "$2" "$d/etcd"
  ln -sfn "$3" "$d/kubectl"
  ln -sfn "$4" "$d/helm"
  if [[ $E2E_NODE == 1 ]]; then
    for f in $NODE_BINARIES; do ln -sfn "$NODE_DEST/$f" "$d/$f"; done
  fi
  result "$d"
}

# ---------------------------------------------------------------- the node (E2E_NODE=1, the default)
# kubelet, kube-controller-manager, kube-scheduler and kube-proxy from one wrapper module (tools/e2e/wrappers/node,
# one main package per binary) in one `go build`, sharing the compile cache with kube-apiserver; and, as root, the
# Debian packages a node runs on: containerd, runc, the CNI plugins, iptables (tools/e2e/cluster.sh uses them).
E2E_NODE=${E2E_NODE:-1}
[[ $E2E_NODE == 0 || $E2E_NODE == 1 ]] || die "E2E_NODE must be 0 or 1, got '$E2E_NODE'"
NODE_BINARIES="kubelet kube-controller-manager kube-scheduler kube-proxy"
NODE_DEST=$BASE/bin/node-$K8S
tpl_pin() { sed -n "s#^require $1 \(v[^ ]*\)\$#\1#p; s#^[[:space:]]$1 \(v[^ ]*\)\$#\1#p" "$2" 2>/dev/null | head -1; }
NODE_MODE=generate
[[ $REGEN == 0 && -f $TPL/node/go.sum && $(tpl_pin k8s.io/kubernetes "$TPL/node/go.mod") == "$K8S" ]] && NODE_MODE=template
node_hash() { if [[ $NODE_MODE == template ]]; then cat "$TPL/node/go.mod" "$TPL/node/go.sum" "$TPL"/node/cmd/*/main.go | sha256sum | cut -c1-16; else echo generated; fi; }
NODE_KEY="rev=$BUILD_REV k8s=$K8S staging=$STAGING node-wrapper=$(node_hash)"
node_cached() {
  local f
  for f in $NODE_BINARIES; do [[ -x $NODE_DEST/$f ]] || return 1; done
  [[ $REGEN == 0 && "$(head -1 "$NODE_DEST/STAMP" 2>/dev/null)" == "$NODE_KEY" ]]
}
node_packages() {
  local missing=() p
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  command -v iptables >/dev/null || missing+=(iptables)
  [[ -x /usr/lib/cni/bridge || -x /opt/cni/bin/bridge ]] || missing+=(containernetworking-plugins)
  command -v openssl >/dev/null || missing+=(openssl)
  [[ ${#missing[@]} == 0 ]] && return 0
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    log "the node needs ${missing[*]} (Debian packages); not root or no apt-get, so not installed: NodeE2E will skip"
    return 0
  fi
  log "installing ${missing[*]} (apt-get)"
  p=$(date +%s)
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2 \
    || die "apt-get install ${missing[*]} failed; install them by hand"
  log "installed ${missing[*]} in $(( $(date +%s) - p )) s"
}
provide_node() {
  node_packages
  node_cached && return 0
  local go=${GO:-$(command -v go || true)} NW TMPN t0 V BD
  [[ -n $go ]] || { [[ -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go; }
  [[ -n $go && -x $go ]] || die "no 'go' to build the node's binaries ($NODE_BINARIES); set E2E_NODE=0 to provision without them"
  mkdir -p "$BASE/bin" "$BASE/src"
  exec 8>"$BASE/lock.node"
  flock 8
  node_cached && return 0
  NW=$BASE/src/node-$K8S
  rm -rf "$NW"; mkdir -p "$NW"
  cp -R "$TPL/node/cmd" "$NW/cmd"
  if [[ $NODE_MODE == template ]]; then
    cp "$TPL/node/go.mod" "$TPL/node/go.sum" "$NW/"
  else
    local KMODN GOLN GODN REPN
    KMODN=$(cd "$BASE" && GOTOOLCHAIN=local GOWORK=off "$go" mod download -json "k8s.io/kubernetes@$K8S" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
    [[ -f $KMODN ]] || die "cannot download k8s.io/kubernetes@$K8S from the module proxy"
    REPN=$(sed -n '/^replace (/,/^)/p' "$KMODN" | awk -v v="$STAGING" '$2=="=>" && $3 ~ /^\.\/staging\// {printf "\t%s => %s %s\n",$1,$1,v}')
    GOLN=$(grep -E '^go ' "$KMODN"); GODN=$(grep -E '^godebug ' "$KMODN" || true)
    { printf 'module kvcache-injector.local/e2e/node\n\n%s\n' "$GOLN"
      [[ -z $GODN ]] || printf '%s\n' "$GODN"
      printf '\nrequire k8s.io/kubernetes %s\n\nreplace (\n%s\n)\n' "$K8S" "$REPN"
    } > "$NW/go.mod"
    log "go mod tidy (node wrapper)"
    (cd "$NW" && GOTOOLCHAIN=local GOWORK=off "$go" mod tidy) || die "go mod tidy failed for the node wrapper ($NW)"
    if [[ $REGEN == 1 ]]; then
      cp "$NW/go.mod" "$NW/go.sum" "$TPL/node/"
    fi
  fi
  TMPN=$(mktemp -d "$BASE/bin/.build-node.XXXXXX")
  V=k8s.io/component-base/version
  BD=$(date -u +%FT%TZ)
  t0=$(date +%s)
  log "building $NODE_BINARIES $K8S (one go build; cold: about 15 min of CPU)"
  (cd "$NW" && GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 "$go" build -mod=readonly -trimpath -buildvcs=false \
      -o "$TMPN/" -ldflags "-s -w -X $V.gitMajor=1 -X $V.gitMinor=$K8S_MINOR -X $V.gitVersion=$K8S \
      -X $V.gitTreeState=clean -X $V.gitCommit= -X $V.buildDate=$BD" ./cmd/...) \
    || { rm -rf "$TMPN"; die "go build of the node binaries $K8S failed (wrapper in $NW; if the linker was OOM-killed retry with GOFLAGS=-p=1)"; }
  local f
  for f in $NODE_BINARIES; do
    "$TMPN/$f" --version >/dev/null 2>&1 || { rm -rf "$TMPN"; die "built $f does not run: $TMPN/$f --version"; }
  done
  log "node binaries built in $(( $(date +%s) - t0 )) s: $("$TMPN/kubelet" --version 2>&1 | head -1)"
  printf '%s\ngo=%s built=%s node_s=%s\n' "$NODE_KEY" "$("$go" env GOVERSION)" "$BD" "$(( $(date +%s) - t0 ))" > "$TMPN/STAMP"
  chmod 755 "$TMPN"
  rm -rf "$NODE_DEST"
  mv "$TMPN" "$NODE_DEST"
}
if [[ -n $KAS_ASSET && -n $ETCD_ASSET && -n $KUBECTL_ASSET && -n $HELM_ASSET ]]; then
  log "kube-apiserver=$KAS_ASSET etcd=$ETCD_ASSET kubectl=$KUBECTL_ASSET helm=$HELM_ASSET (from TEST_ASSET_*/KUBEBUILDER_ASSETS)"
  assets_dir "$KAS_ASSET" "$ETCD_ASSET" "$KUBECTL_ASSET" "$HELM_ASSET"
fi

# ---------------------------------------------------------------- 3: build from the Go module proxy
DEST=$BASE/bin/kube-$K8S-etcd-$ETCD
TOOLS=$BASE/bin/kubectl-$KC-helm-$HELM
KAS_MODE=generate ETCD_MODE=generate KUBECTL_MODE=generate
[[ $REGEN == 0 && -f $TPL/kube-apiserver/go.sum && $(tpl_pin k8s.io/kubernetes "$TPL/kube-apiserver/go.mod") == "$K8S" ]] && KAS_MODE=template
[[ $REGEN == 0 && -f $TPL/etcd/go.sum && $(tpl_pin go.etcd.io/etcd/server/v3 "$TPL/etcd/go.mod") == "$ETCD" ]] && ETCD_MODE=template
[[ $REGEN == 0 && -f $TPL/kubectl/go.sum && $(tpl_pin k8s.io/kubectl "$TPL/kubectl/go.mod") == "$KC_STAGING" ]] && KUBECTL_MODE=template
tpl_hash() { if [[ $2 == template ]]; then cat "$TPL/$1"/go.mod "$TPL/$1"/go.sum "$TPL/$1"/main.go | sha256sum | cut -c1-16; else echo generated; fi; }
KEY="rev=$BUILD_REV k8s=$K8S staging=$STAGING etcd=$ETCD kube-apiserver-wrapper=$(tpl_hash kube-apiserver "$KAS_MODE") etcd-wrapper=$(tpl_hash etcd "$ETCD_MODE")"
TOOLS_KEY="rev=$BUILD_REV kubectl=$KC_STAGING helm=$HELM kubectl-wrapper=$(tpl_hash kubectl "$KUBECTL_MODE")"
# which groups this run has to provide (the rest came from TEST_ASSET_*/KUBEBUILDER_ASSETS)
NEED_CORE=0 NEED_TOOLS=0
[[ -n $KAS_ASSET && -n $ETCD_ASSET ]] || NEED_CORE=1
[[ -n $KUBECTL_ASSET && -n $HELM_ASSET ]] || NEED_TOOLS=1
core_cached() { [[ $REGEN == 0 && -x $DEST/kube-apiserver && -x $DEST/etcd && "$(head -1 "$DEST/STAMP" 2>/dev/null)" == "$KEY" ]]; }
tools_cached() { [[ $REGEN == 0 && -x $TOOLS/kubectl && -x $TOOLS/helm && "$(head -1 "$TOOLS/STAMP" 2>/dev/null)" == "$TOOLS_KEY" ]]; }
cached() { { [[ $NEED_CORE == 0 ]] || core_cached; } && { [[ $NEED_TOOLS == 0 ]] || tools_cached; }; }
finish() {  # the built binaries, with any single TEST_ASSET_* override on top
  assets_dir "${KAS_ASSET:-$DEST/kube-apiserver}" "${ETCD_ASSET:-$DEST/etcd}" \
             "${KUBECTL_ASSET:-$TOOLS/kubectl}" "${HELM_ASSET:-$TOOLS/helm}"
}

cached && { log "cached binaries match STAMP ($KEY; $TOOLS_KEY)"; finish; }

GO=${GO:-$(command -v go || true)}
[[ -n $GO ]] || { [[ -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go; }
[[ -n $GO && -x $GO ]] || die "no 'go' on PATH (nor /usr/local/go/bin/go, nor \$GO) and TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD/TEST_ASSET_KUBECTL/TEST_ASSET_HELM/KUBEBUILDER_ASSETS do not name all of kube-apiserver, etcd, kubectl and helm: cannot provision them"
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
GOVER=$("$GO" env GOVERSION) || die "'$GO env GOVERSION' failed"
log "go=$GO ($GOVER); k8s.io/kubernetes $K8S (staging $STAGING), etcd $ETCD, helm $HELM; wrappers: kube-apiserver $KAS_MODE, etcd $ETCD_MODE, kubectl $KUBECTL_MODE"

mkdir -p "$BASE/bin" "$BASE/src"
exec 9>"$BASE/lock"
if ! flock -n 9; then
  log "another provision.sh holds $BASE/lock; waiting for it to finish building"
  flock 9
fi
cached && { log "built meanwhile by another run; cached binaries match STAMP"; finish; }
[[ $REGEN == 1 ]] && NEED_CORE=1 NEED_TOOLS=1

json_field() { sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",*\$/\1/p"; }

build_tools() {
  # -- kubectl wrapper: the staging module k8s.io/kubectl at v0.<minor>.<patch> of $KC
  local CW=$BASE/src/kubectl-$KC TT t0 t1 t2 HJSON H
  rm -rf "$CW"; mkdir -p "$CW"
  cp "$TPL/kubectl/main.go" "$CW/main.go"
  if [[ $KUBECTL_MODE == template ]]; then
    cp "$TPL/kubectl/go.mod" "$TPL/kubectl/go.sum" "$CW/"
  else
    printf 'module kvcache-injector.local/e2e/kubectl\n\n%s\n\nrequire (\n\tk8s.io/component-base %s\n\tk8s.io/kubectl %s\n)\n' \
      "$(grep -E '^go ' "$TPL/kubectl/go.mod")" "$KC_STAGING" "$KC_STAGING" > "$CW/go.mod"
    log "go mod tidy (kubectl wrapper)"
    (cd "$CW" && "$GO" mod tidy) || die "go mod tidy failed for the kubectl wrapper ($CW)"
  fi
  if [[ $REGEN == 1 ]]; then
    cp "$CW/go.mod" "$CW/go.sum" "$TPL/kubectl/"
    TOOLS_KEY="rev=$BUILD_REV kubectl=$KC_STAGING helm=$HELM kubectl-wrapper=$(tpl_hash kubectl template)"
  fi
  local KCJSON KC_DATE
  KCJSON=$(cd "$BASE" && "$GO" mod download -json "k8s.io/kubectl@$KC_STAGING") \
    || die "cannot download k8s.io/kubectl@$KC_STAGING from the module proxy ($("$GO" env GOPROXY))"
  KC_DATE=$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' "$(json_field Info <<<"$KCJSON")" 2>/dev/null || true)
  TT=$(mktemp -d "$BASE/bin/.build.XXXXXX")
  trap 'rm -rf "$TT"' EXIT
  t0=$(date +%s)
  log "building kubectl $KC (k8s.io/kubectl $KC_STAGING)"
  local V=k8s.io/component-base/version C=k8s.io/client-go/pkg/version X="" p
  for p in $V $C; do
    X+=" -X $p.gitMajor=1 -X $p.gitMinor=$KC_MINOR -X $p.gitVersion=$KC -X $p.gitTreeState=clean -X $p.gitCommit= -X $p.buildDate=${KC_DATE:-1970-01-01T00:00:00Z}"
  done
  (cd "$CW" && "$GO" build -mod=readonly -trimpath -buildvcs=false -o "$TT/kubectl" -ldflags "-s -w$X" .) \
    || die "go build of kubectl $KC failed (wrapper in $CW)"
  t1=$(date +%s); log "kubectl built in $((t1 - t0)) s"
  log "building helm $HELM (go install helm.sh/helm/v3/cmd/helm@$HELM)"
  HJSON=$(cd "$BASE" && "$GO" mod download -json "helm.sh/helm/v3@$HELM") \
    || die "cannot download helm.sh/helm/v3@$HELM from the module proxy ($("$GO" env GOPROXY))"
  H=helm.sh/helm/v3
  (cd "$BASE" && GOBIN=$TT "$GO" install -trimpath -buildvcs=false -ldflags "-s -w -X $H/internal/version.version=$HELM \
      -X $H/internal/version.gitTreeState=clean -X $H/pkg/chartutil.k8sVersionMajor=1 \
      -X $H/pkg/chartutil.k8sVersionMinor=$KC_MINOR -X $H/pkg/lint/rules.k8sVersionMajor=1 \
      -X $H/pkg/lint/rules.k8sVersionMinor=$KC_MINOR" "$H/cmd/helm@$HELM") \
    || die "go install of helm $HELM failed"
  t2=$(date +%s); log "helm built in $((t2 - t1)) s"
  "$TT/kubectl" version --client >/dev/null 2>&1 || die "built kubectl does not run: $TT/kubectl version --client"
  "$TT/helm" version >/dev/null 2>&1 || die "built helm does not run: $TT/helm version"
  log "$("$TT/kubectl" version --client 2>&1 | head -1); helm $("$TT/helm" version --short 2>&1)"
  printf '%s\ngo=%s built=%s kubectl_s=%s helm_s=%s\n' "$TOOLS_KEY" "$GOVER" "$(date -u +%FT%TZ)" "$((t1 - t0))" "$((t2 - t1))" > "$TT/STAMP"
  chmod 755 "$TT"
  rm -rf "$TOOLS"
  mv "$TT" "$TOOLS"
  trap - EXIT
}

if [[ $NEED_CORE == 0 ]] || core_cached; then
  [[ $NEED_TOOLS == 0 ]] || tools_cached || build_tools
  finish
fi

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
# Up to 1.30, k8s.io/kubernetes requires the staging module k8s.io/legacy-cloud-providers (the in-tree cloud
# providers). The module proxy here refuses some of its releases (v0.29.6: 403). kube-apiserver built with the
# `providerless` tag imports none of its packages, so an empty local module stands in for it and the build drops
# the in-tree providers (which an e2e API server on loopback never uses).
KAS_TAGS=""
if [[ $KAS_MODE == generate ]] && grep -q '^	k8s.io/legacy-cloud-providers ' <<<"$REPLACES" \
   && ! (cd "$BASE" && "$GO" mod download -json "k8s.io/legacy-cloud-providers@$STAGING" >/dev/null 2>&1); then
  log "the module proxy refuses k8s.io/legacy-cloud-providers@$STAGING: an empty local module stands in, and kube-apiserver is built with -tags providerless"
  mkdir -p "$KW/legacy-cloud-providers"
  printf 'module k8s.io/legacy-cloud-providers\n\n%s\n' "$(grep -E '^go ' "$KMOD")" > "$KW/legacy-cloud-providers/go.mod"
  REPLACES=$(sed 's#^\(\tk8s.io/legacy-cloud-providers\) => .*#\1 => ./legacy-cloud-providers#' <<<"$REPLACES")
  KAS_TAGS=providerless
fi
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
  if [[ -n $KAS_TAGS ]]; then
    # -e: tidy looks at every build tag, and the stand-in has none of the in-tree providers' packages
    (cd "$KW" && "$GO" mod tidy -e) || die "go mod tidy -e failed for the kube-apiserver wrapper ($KW)"
  else
    (cd "$KW" && "$GO" mod tidy) || die "go mod tidy failed for the kube-apiserver wrapper ($KW)"
  fi
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
(cd "$KW" && "$GO" build -mod=readonly -trimpath -buildvcs=false ${KAS_TAGS:+-tags "$KAS_TAGS"} -o "$TMP/kube-apiserver" -ldflags "-s -w \
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
[[ $NEED_TOOLS == 0 ]] || tools_cached || build_tools
finish
