#!/bin/bash
# Builds the webhook image that deploy/Dockerfile describes, on a machine with neither a Docker daemon nor a
# registry, and writes it as app/target/image/kvcache-injector.tar: a docker-archive that `ctr -n k8s.io images
# import`, `docker load`, `podman load` and `kind load image-archive` accept, named as the chart pulls it
# (values.yaml image.repository, tag = Chart.yaml appVersion; docker.io/library/kvcache-injector:0.1.0 after
# containerd's normalisation).
#
#   deploy/image.sh        (from anywhere; as root; after bin/mvn -B -DskipTests package)
#
# The builder is buildah (Debian's package, installed with apt-get when missing; runc runs the RUN step in a network
# namespace with only loopback, KVI_IMAGE_ISOLATION=chroot where runc cannot), and its storage under ${XDG_CACHE_HOME:-~/.cache}/kvcache-injector/image: nothing goes to
# /var/lib/containers. The Dockerfile is the one `docker build -f deploy/Dockerfile .` uses; only its base differs,
# given as --build-arg BASE: a Java 25 runtime made here by jlink from the JDK the project builds with (the modules
# jdeps finds in the jar and the engine jars, plus jdk.zipfs), glibc and libgcc from Debian's packages, a nonroot
# user 65532 and /tmp; no shell, no package manager. The base is cached under a key of the JDK, the module list, the
# package versions and this script, so a warm run only builds the application's layers (and trains the AOT cache,
# which must be made by the runtime that uses it). Beside the archive it writes kvcache-injector.cdx.json, the CycloneDX
# SBOM of the image's jars that the build made (target/kvcache-injector.cdx.json, the root pom's cyclonedx plugin),
# after deploy/SbomCheck.java found every jar of the image in it with its version. How-to: docs/how-to/build-the-image.md.
#
# Every failure is one line on stderr, "image.sh: <cause>; <fix>", and a non-zero exit.
set -euo pipefail

started=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${KVI_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/image}
out_dir=$repo/app/target/image
out=$out_dir/kvcache-injector.tar
sbom=$repo/target/kvcache-injector.cdx.json

fail() { echo "image.sh: $*" >&2; exit 1; }
note() { echo "image.sh: $*" >&2; }

# one build at a time per store: a second run (another checkout, a second CI job) waits instead of removing the
# first one's working containers as leftovers of a killed run
mkdir -p "$cache"
exec 7>"$cache/lock"
if ! flock -n 7; then
  note "another image.sh is building with $cache; waiting for it"
  flock 7
fi

# --- what to build -----------------------------------------------------------------------------------------------
jar=$repo/app/target/kvcache-injector.jar
engines=$repo/app/target/engines
[ -f "$jar" ] && [ -d "$engines" ] || fail "no $jar or $engines; build it first: bin/mvn -B -DskipTests package"
# the AOT training's jars, which only the Dockerfile's training stage copies (the image holds neither, issue 30)
training_jars=("$repo/bench/target/kvcache-injector-bench.jar" "$repo/aot-training/target/kvcache-injector-aot-training.jar")
for j in "${training_jars[@]}"; do
  [ -f "$j" ] || fail "no $j (the AOT training's); build it first: bin/mvn -B -DskipTests package"
done
version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$repo/deploy/helm/kvcache-injector/Chart.yaml")
[ -n "$version" ] || fail "no appVersion in deploy/helm/kvcache-injector/Chart.yaml; restore the chart's appVersion"
repository=$(sed -n '/^image:/,/^[^ #]/s/^  repository: *\([^ #]*\).*/\1/p' "$repo/deploy/helm/kvcache-injector/values.yaml")
[ -n "$repository" ] || fail "no image.repository in deploy/helm/kvcache-injector/values.yaml; restore it"
# the name containerd and the kubelet give "$repository:$version" (Docker's normalisation): a name without a registry
# is on docker.io, one without a path under docker.io/library. The archive carries it fully spelt, so every loader
# gives the image the name the chart's image: field resolves to.
normalise() {
  local name=$1 first=${1%%/*}
  if [ "$first" = "$name" ] || { [ "${first#*.}" = "$first" ] && [ "${first#*:}" = "$first" ] && [ "$first" != localhost ]; }; then
    case $name in */*) name=docker.io/$name ;; *) name=docker.io/library/$name ;; esac
  fi
  echo "$name"
}
image=$(normalise "$repository"):$version

# --- the tools ---------------------------------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || fail "runs as root (buildah, runc and the base's file owners need it); run it with sudo"
apt_updated=
apt_install() { # apt_install PACKAGE...: installs them, with one apt-get update when a package is unknown
  command -v apt-get >/dev/null || fail "$* missing and no apt-get to install it; install $* with this system's package manager"
  note "installing $* with apt-get"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || fail "apt-get update failed; check the network and /etc/apt/sources.list"
    apt_updated=1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 \
      || fail "apt-get install $* failed; run it by hand to see why"
  fi
}
# the RUN step (the AOT cache's training) runs under runc in a network namespace of its own with only loopback in it
# (--network none: the training talks to a stand-in API server on 127.0.0.1 and reaches nothing else); buildah's
# chroot isolation refuses --network none, so KVI_IMAGE_ISOLATION=chroot (for a machine where runc cannot start
# containers, such as an unprivileged container) runs it in the host's network instead
isolation=${KVI_IMAGE_ISOLATION:-oci}
case $isolation in
  oci) network=(--network none) ;;
  chroot) network=() ;;
  *) fail "KVI_IMAGE_ISOLATION=$isolation is neither oci nor chroot; unset it (oci, the default) or set chroot" ;;
esac
missing=()
command -v buildah >/dev/null || missing+=(buildah)
[ "$isolation" = chroot ] || command -v runc >/dev/null || command -v crun >/dev/null || missing+=(runc)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null \
  || fail "needs apt-get and dpkg-deb for the base's Debian packages; run it on Debian or Ubuntu"

# the JDK the project builds with (bin/find-jdk), which must be 25+ and able to jlink (jmods/ or a linkable runtime)
# shellcheck source=../bin/find-jdk
. "$repo/bin/find-jdk" >/dev/null
jdk=$JAVA_HOME
jdk_version=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$jdk/release")
[ "${jdk_version%%[.+]*}" -ge 25 ] 2>/dev/null && [ -x "$jdk/bin/jlink" ] \
  || fail "the JDK at $jdk is ${jdk_version:-unknown}, the image needs a JDK 25+ with jlink; install Temurin 25 or set JAVA_HOME to one"

# the bill of materials: every library in the shaded jar (its META-INF/maven/*/*/pom.properties) and every engine jar
# must be in the build's SBOM with the version the image holds, or the image is not built
if ! "$jdk/bin/java" "$here/SbomCheck.java" "$sbom" "$jar" "$engines" >"$cache/sbom-check.out" 2>"$cache/sbom-check.err"; then
  why=$(sed -n 's/^sbom-check: //p' "$cache/sbom-check.err" | tail -n1)
  fail "${why:-deploy/SbomCheck.java failed ($(tail -n1 "$cache/sbom-check.err")); run it by hand: $jdk/bin/java deploy/SbomCheck.java $sbom $jar $engines}"
fi
note "$(sed 's/^sbom-check: //' "$cache/sbom-check.out")"

mkdir -p "$cache" "$out_dir"
# a policy of our own: the local base and the archive need no signature checks, and a fresh machine may have no
# /etc/containers/policy.json
policy=$cache/policy.json
[ -f "$policy" ] || echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$policy"
# overlay where the kernel mounts it (fast, shares the base's files), vfs (full copies) where it does not, such as
# inside a container on overlayfs; the choice is kept with the store, since a store is only readable by its driver
if [ -f "$cache/driver" ]; then
  driver=$(cat "$cache/driver")
else
  probe=$(mktemp -d "$cache/probe.XXXXXX") # on the store's file system
  mkdir "$probe/l" "$probe/u" "$probe/w" "$probe/m"
  if mount -t overlay overlay -o "lowerdir=$probe/l,upperdir=$probe/u,workdir=$probe/w" "$probe/m" 2>/dev/null; then
    umount "$probe/m"; driver=overlay
  else
    driver=vfs
  fi
  rm -rf "$probe"
  echo "$driver" >"$cache/driver"
fi
buildah() {
  command buildah --root "$cache/store" --runroot "$cache/run" --storage-driver "$driver" "$@"
}
# buildah as root also keeps a cache of blob digests in /var/lib/containers/cache and creates /run/containers, whatever
# --root says; what a run of ours created there, holding only those, goes again at the end
leftovers=()
for d in /var/lib/containers /run/containers; do [ -e "$d" ] || leftovers+=("$d"); done
tidy() {
  local d
  for d in "${leftovers[@]}"; do
    [ -d "$d" ] && [ -z "$(find "$d" -type f ! -name blob-info-cache-v1.boltdb)" ] && rm -rf "$d"
  done
  [ -z "${work:-}" ] || rm -rf "$work"
}
trap tidy EXIT

# --- the base: a jlinked Java 25 runtime on Debian's glibc -------------------------------------------------------
# working containers left by a run that was killed (the store is ours alone)
buildah rm --all >/dev/null 2>&1 || true
# the training's jars too: the same runtime runs the training in the image build
jars=("$jar" "${training_jars[@]}")
while IFS= read -r -d '' f; do jars+=("$f"); done < <(find "$engines" -name '*.jar' -print0 | sort -z)
jars_sum=$(cat "${jars[@]}" | sha256sum | cut -c1-16)
if [ -f "$cache/modules-$jars_sum" ]; then
  modules=$(cat "$cache/modules-$jars_sum")
else
  # jdeps: what the classes name; jdk.zipfs beside it, a file-system provider that is found by the service loader,
  # never named (jdk.crypto.ec is empty since JDK 22, its EC is in java.base)
  found=$("$jdk/bin/jdeps" -q --print-module-deps --ignore-missing-deps --multi-release 25 "${jars[@]}") \
    || fail "jdeps could not read the jars under app/target; rebuild them: bin/mvn -B -DskipTests package"
  modules=$(echo "$found,jdk.zipfs" | tr ',' '\n' | sort -u | paste -sd, -)
  rm -f "$cache"/modules-*
  echo "$modules" >"$cache/modules-$jars_sum"
fi
packages=(libc6 libgcc-s1)
versions=()
for p in "${packages[@]}"; do
  v=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if { [ -z "$v" ] || [ "$v" = "(none)" ]; } && [ -z "$apt_updated" ]; then
    apt-get update -q >/dev/null 2>&1 || fail "apt-get update failed; check the network and /etc/apt/sources.list"
    apt_updated=1
    v=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  fi
  { [ -n "$v" ] && [ "$v" != "(none)" ]; } || fail "apt knows no package $p; add a Debian or Ubuntu main source to /etc/apt/sources.list"
  versions+=("$p=$v")
done
key=$( { echo "$jdk_version"; cksum <"$jdk/lib/modules"; echo "$modules"; printf '%s\n' "${versions[@]}"
         sha256sum <"$0"; } | sha256sum | cut -c1-12)
base=localhost/kvcache-injector-base:$key

if buildah inspect --type image "$base" >/dev/null 2>&1; then
  note "base $base (cached: $jdk_version, modules $modules, ${versions[*]})"
else
  note "building the base $base: jlink $jdk_version with $modules, ${versions[*]}"
  work=$(mktemp -d "$cache/base.XXXXXX")
  rootfs=$work/rootfs
  mkdir -p "$rootfs/opt/java" "$cache/debs"
  # --generate-cds-archive: the JDK's default class-data archive, as in a JDK's own image, for a start without the
  # AOT cache (jvm.aotCache=false); the archive for uncompressed oops is dropped (only for heaps over 32 GB)
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --generate-cds-archive --output "$rootfs/opt/java/openjdk" >"$work/jlink.log" 2>&1 \
    || fail "jlink failed ($(tail -n1 "$work/jlink.log")); check that $jdk is a full JDK 25"
  rm -f "$rootfs/opt/java/openjdk/lib/server/classes_nocoops.jsa"
  # glibc (libc, libm, libpthread, librt, libdl, the dynamic loader; NSS files and DNS are in libc since 2.34) and
  # libgcc_s (glibc loads it for thread cancellation), from the packages as Debian ships them; less iconv's gconv
  # modules, which the JVM never loads (its charsets are its own)
  for pv in "${versions[@]}"; do
    p=${pv%%=*} v=${pv#*=}
    deb=$(ls "$cache/debs/${p}_${v/:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
    if [ -z "$deb" ]; then
      (cd "$cache/debs" && apt-get download -q "$p=$v" >/dev/null 2>&1) \
        || fail "apt-get download $p=$v failed; check the network and /etc/apt/sources.list, then run apt-get update"
      deb=$(ls "$cache/debs/${p}_${v/:/%3a}_"*.deb | head -n1)
    fi
    dpkg-deb -x "$deb" "$rootfs"
  done
  rm -rf "$rootfs"/usr/lib/*-linux-gnu/gconv "$rootfs/usr/share/lintian"
  mkdir -p "$rootfs/etc" "$rootfs/tmp" "$rootfs/root" "$rootfs/usr/bin" "$rootfs/bin"
  chmod 1777 "$rootfs/tmp"
  chmod 0700 "$rootfs/root"
  cat >"$rootfs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
  cat >"$rootfs/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
  mkdir -p "$work/home"
  c=$(buildah from --signature-policy "$policy" scratch)
  buildah copy --quiet "$c" "$rootfs/" / >/dev/null
  buildah copy --quiet --chown 65532:65532 "$c" "$work/home/" /home/nonroot >/dev/null
  buildah config --os linux --arch "$(dpkg --print-architecture)" \
    --env JAVA_HOME=/opt/java/openjdk --env PATH=/opt/java/openjdk/bin:/usr/bin:/bin \
    --label "org.opencontainers.image.description=Java $jdk_version ($modules) on ${versions[*]}" "$c"
  # one timestamp for every file and the image: the same JDK and packages give the same base layer, on any machine
  buildah commit --quiet --rm --timestamp 0 --signature-policy "$policy" "$c" "$base" >/dev/null
  # older bases (another JDK or module list) are no longer used
  for old in $(buildah images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/kvcache-injector-base:' || true); do
    [ "$old" = "$base" ] || buildah rmi "$old" >/dev/null 2>&1 || true
  done
fi

# --- the image: deploy/Dockerfile on that base -------------------------------------------------------------------
note "building $image from deploy/Dockerfile (the AOT cache's training run takes about half a minute)"
buildah rmi "$image" >/dev/null 2>&1 || true
# runc's state with ours, not in /run/runc
buildah build --signature-policy "$policy" --isolation "$isolation" "${network[@]}" --pull=never --layers=false \
  --runtime-flag "root=$cache/run/runc" \
  --build-arg "BASE=$base" -f "$repo/deploy/Dockerfile" -t "$image" "$repo" >"$out_dir/build.log" 2>&1 || {
  # buildah's last line, the RUN's long command shortened to its last word, and what the JVM or the training said
  said=$(grep -v '^\s*$' "$out_dir/build.log" | tail -n1 | sed 's/STEP "RUN java [^"]* \([^ "]*\)"/STEP "RUN java … \1"/')
  jvm=$(grep -E 'saved state|Unable to use AOT cache|^aot-training: .*(fail|not|could|refus|timed|no )' "$out_dir/build.log" \
    | tail -n1 | sed 's/^\[[^]]*\] *//' || true)
  fail "buildah build failed (${said}${jvm:+; $jvm}); the whole log is $out_dir/build.log"
}
rm -f "$out" "$out_dir/kvcache-injector.cdx.json"
buildah push --quiet --signature-policy "$policy" "$image" "docker-archive:$out:$image" >/dev/null 2>"$out_dir/push.log" \
  || fail "buildah push to $out failed ($(tail -n1 "$out_dir/push.log")); check the free space under $out_dir"
buildah rmi "$image" >/dev/null 2>&1 || true
buildah rmi --prune >/dev/null 2>&1 || true

archive=$(stat -c %s "$out")
# the layers, uncompressed as the archive holds them, in the manifest's order: the base's first
sizes=()
listing=$(tar -tvf "$out")
for layer in $(tar -xOf "$out" manifest.json | grep -o '[0-9a-f]\{64\}\.tar'); do
  sizes+=("$(echo "$listing" | awk -v f="$layer" '$6 == f {print $3}')")
done
mib() { echo "$(($1 / 1048576)) MiB"; }
unpacked=0; for b in "${sizes[@]}"; do unpacked=$((unpacked + b)); done
note "wrote $out: $image, $archive bytes ($(mib "$archive")); uncompressed $unpacked bytes: base $(mib "${sizes[0]}") + application $(mib $((unpacked - sizes[0]))); in $(( $(date +%s) - started )) s"
# the image ID: the sha256 of the image's config (the archive's manifest.json names it), the same on every machine for
# the same layers and config. A registry pins the manifest digest instead, which exists only once the image is pushed
# (it covers the layers as compressed by the push): docs/how-to/build-the-image.md, "Pin the image by digest"
config_digest=$(tar -xOf "$out" manifest.json | grep -o '"Config":"[^"]*"' | grep -o '[0-9a-f]\{64\}' | head -n1)
[ -n "$config_digest" ] || fail "no Config in $out's manifest.json; the archive is damaged, rebuild it"
note "image ID (config digest) sha256:$config_digest; pin a pushed image by its manifest digest: skopeo copy --digestfile"
echo "sha256:$config_digest" >"$out_dir/kvcache-injector.config-digest"
cp "$sbom" "$out_dir/kvcache-injector.cdx.json"
note "SBOM $out_dir/kvcache-injector.cdx.json (CycloneDX 1.6); scan it: grype sbom:$out_dir/kvcache-injector.cdx.json or trivy sbom"
note "load it: ctr -n k8s.io images import $out (or docker load -i / podman load -i / kind load image-archive)"
