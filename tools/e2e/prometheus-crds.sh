#!/usr/bin/env bash
# The Prometheus Operator's published CRDs (ServiceMonitor, PodMonitor, PrometheusRule of monitoring.coreos.com) for
# MonitoringE2E (docs/how-to/run-e2e.md), taken from the operator's Go module through the Go module proxy — never
# committed to this repository.
#
# Usage: tools/e2e/prometheus-crds.sh
#
# Prints progress to stderr and ONLY the folder holding the three CRD files on its last stdout line. The folder is
# ${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/e2e/prometheus-crds/<sha256 of the three files, 16 hex>/, written
# once (a cache hit costs one `go mod download -json` answered from the module cache, or nothing when the pinned
# version's folder is recorded). Knobs: E2E_PROMETHEUS_OPERATOR_VERSION (default v0.94.1, the newest main-module
# version the proxy serves here), GO (path of `go`).
set -euo pipefail
exec 3>&1 1>&2
log() { printf 'prometheus-crds: %s\n' "$*" >&2; }
die() { printf 'prometheus-crds: ERROR: %s\n' "$*" >&2; exit 1; }

VERSION=${E2E_PROMETHEUS_OPERATOR_VERSION:-v0.94.1}
[[ $VERSION =~ ^v0\.[0-9]+\.[0-9]+$ ]] || die "E2E_PROMETHEUS_OPERATOR_VERSION must look like v0.94.1, got '$VERSION'"
BASE=${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/e2e/prometheus-crds
FILES=(monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_podmonitors.yaml
  monitoring.coreos.com_prometheusrules.yaml)
mkdir -p "$BASE"

# the version's folder, recorded by an earlier run: no Go needed
if [[ -f $BASE/$VERSION.dir ]]; then
  dir=$(<"$BASE/$VERSION.dir")
  ok=1
  for f in "${FILES[@]}"; do [[ -s $dir/$f ]] || ok=0; done
  if [[ $ok == 1 ]]; then log "cached: $VERSION in $dir"; printf '%s\n' "$dir" >&3; exit 0; fi
fi

GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
[[ -x $GO ]] || die "no go on PATH nor at /usr/local/go/bin/go (or set GO=...) to download github.com/prometheus-operator/prometheus-operator@$VERSION"
json_field() { sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",*\$/\1/p"; }
log "go mod download github.com/prometheus-operator/prometheus-operator@$VERSION"
json=$(cd "$BASE" && GOFLAGS=-mod=mod GOWORK=off "$GO" mod download -json "github.com/prometheus-operator/prometheus-operator@$VERSION") \
  || die "go mod download failed: $(json_field Error <<<"$json")"
src=$(json_field Dir <<<"$json")/example/prometheus-operator-crd
[[ -d $src ]] || die "the module has no example/prometheus-operator-crd/ ($src)"
tmp=$(mktemp -d "$BASE/.new.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for f in "${FILES[@]}"; do
  [[ -s $src/$f ]] || die "the module has no $f in example/prometheus-operator-crd/"
  cp "$src/$f" "$tmp/$f"
done
printf 'github.com/prometheus-operator/prometheus-operator %s %s\n' "$VERSION" "$(json_field Sum <<<"$json")" >"$tmp/SOURCE"
hash=$(cd "$tmp" && cat "${FILES[@]}" | sha256sum | cut -c1-16)
dest=$BASE/$hash
if [[ -d $dest ]]; then rm -rf "$tmp"; else chmod 755 "$tmp"; mv "$tmp" "$dest"; fi
trap - EXIT
printf '%s\n' "$dest" >"$BASE/$VERSION.dir"
log "$VERSION in $dest"
printf '%s\n' "$dest" >&3
