#!/usr/bin/env bash
# Build `prometheus` and `promtool` from the Go module github.com/prometheus/prometheus (cmd/prometheus, cmd/promtool),
# for the chart's rule tests (tools/monitoring/ci) and the e2e suite's real Prometheus.
#
# Usage: tools/monitoring/build.sh
#
# Prints progress on stderr and ONLY the folder holding both binaries on its last stdout line:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/monitoring/bin/prometheus-<VERSION>-<key>/
# where <key> hashes everything the build depends on (BUILD_REV, version, build tags, ldflags). A folder whose STAMP
# matches is used as it is: a second run builds nothing and touches no network. Builds run under one flock, so
# parallel callers build once.
#
# The module has no replace directives, so `go install <pkg>@<version>` builds it with its own go.mod/go.sum (no
# wrapper module). Build tags: no `builtinassets` (the web UI's assets are not embedded; the API, /metrics and
# /-/ready work, the UI pages answer with a notice), and `remove_all_sd enable_kubernetes_sd enable_dns_sd`: static,
# file, HTTP, DNS and Kubernetes service discovery only, not the cloud SDKs (a third of the cold build).
#
# Knobs: PROMETHEUS_VERSION (default v0.316.0, i.e. Prometheus 3.16.0), GO (path of `go`), GOFLAGS (passed through;
#        GOFLAGS=-p=1 if the linker gets OOM-killed), GOPROXY (from `go env`).
set -euo pipefail

exec 3>&1 1>&2                       # fd 3 = real stdout (result only); everything else goes to stderr
log() { printf 'monitoring-build: %s\n' "$*" >&2; }
die() { printf 'monitoring-build: ERROR: %s\n' "$*" >&2; exit 1; }
result() { log "using $1"; printf '%s\n' "$1" >&3; exit 0; }

for a in "$@"; do
  case $a in
    -h|--help) sed -n '2,19p' "$0" >&2; exit 0 ;;
    *) die "unknown argument: $a (usage: build.sh)" ;;
  esac
done

VERSION=${PROMETHEUS_VERSION:-v0.316.0}
[[ $VERSION =~ ^v0\.([0-9]+)\.([0-9]+)$ ]] || die "PROMETHEUS_VERSION must look like v0.316.0, got '$VERSION'"
# the Go module v0.MMP.N is Prometheus 3.(MMP-300).N (cmd/prometheus --version prints it)
MINOR=${BASH_REMATCH[1]}
(( MINOR >= 300 )) || die "PROMETHEUS_VERSION $VERSION is older than Prometheus 3 (v0.300.0)"
RELEASE=3.$((MINOR - 300)).${BASH_REMATCH[2]}
MOD=github.com/prometheus/prometheus
TAGS="remove_all_sd enable_kubernetes_sd enable_dns_sd"
# Bump BUILD_REV whenever the build below changes in a way the key does not capture.
BUILD_REV=1
LDFLAGS="-s -w -X github.com/prometheus/common/version.Version=$RELEASE -X github.com/prometheus/common/version.Revision=$VERSION \
-X github.com/prometheus/common/version.Branch=module-proxy -X github.com/prometheus/common/version.BuildUser=kvcache-injector"
KEY="rev=$BUILD_REV module=$MOD@$VERSION tags=$TAGS ldflags=$LDFLAGS"
BASE=${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/monitoring
DEST=$BASE/bin/prometheus-$VERSION-$(printf '%s' "$KEY" | sha256sum | cut -c1-12)

cached() { [[ -x $DEST/prometheus && -x $DEST/promtool && "$(head -1 "$DEST/STAMP" 2>/dev/null)" == "$KEY" ]]; }
cached && { log "cached binaries match STAMP ($KEY)"; result "$DEST"; }

GO=${GO:-$(command -v go || true)}
[[ -n $GO ]] || { [[ -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go; }
[[ -n $GO && -x $GO ]] || die "no 'go' on PATH (nor /usr/local/go/bin/go, nor \$GO) and no cached build in $DEST: cannot build prometheus and promtool"
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
GOVER=$("$GO" env GOVERSION) || die "'$GO env GOVERSION' failed"

mkdir -p "$BASE/bin"
exec 9>"$BASE/lock"
if ! flock -n 9; then
  log "another build.sh holds $BASE/lock; waiting for it to finish building"
  flock 9
fi
cached && { log "built meanwhile by another run; cached binaries match STAMP"; result "$DEST"; }

log "go=$GO ($GOVER); $MOD@$VERSION (Prometheus $RELEASE), tags '$TAGS', GOFLAGS='${GOFLAGS:-}', GOPROXY=$("$GO" env GOPROXY)"
(cd "$BASE" && "$GO" mod download -json "$MOD@$VERSION" >/dev/null) \
  || die "cannot download $MOD@$VERSION from the module proxy ($("$GO" env GOPROXY))"
TMP=$(mktemp -d "$BASE/bin/.build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
t0=$(date +%s)
log "building prometheus and promtool (go install; cold: several minutes of CPU)"
(cd "$BASE" && GOBIN=$TMP "$GO" install -trimpath -buildvcs=false -tags "$TAGS" -ldflags "$LDFLAGS" \
    "$MOD/cmd/prometheus@$VERSION" "$MOD/cmd/promtool@$VERSION") \
  || die "go install of $MOD/cmd/{prometheus,promtool}@$VERSION failed (if the linker was OOM-killed retry with GOFLAGS=-p=1)"
t1=$(date +%s)
"$TMP/prometheus" --version >/dev/null 2>&1 || die "built prometheus does not run: $TMP/prometheus --version"
"$TMP/promtool" --version >/dev/null 2>&1 || die "built promtool does not run: $TMP/promtool --version"
log "built in $((t1 - t0)) s: $("$TMP/prometheus" --version 2>&1 | head -1)"
printf '%s\ngo=%s built=%s build_s=%s\n' "$KEY" "$GOVER" "$(date -u +%FT%TZ)" "$((t1 - t0))" > "$TMP/STAMP"
chmod 755 "$TMP"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
result "$DEST"
