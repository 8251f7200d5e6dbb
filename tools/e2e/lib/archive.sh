# shellcheck shell=bash
# `docker save` archives of ONE layer (owner 0:0, mtime 0), which `ctr images import`, `docker load` and
# `podman load` accept. Sourced by tools/e2e/images.sh and tools/e2e/cache-images.sh.
#
# The caller sets:
#   WORK                a scratch folder (the archive is staged in a temp folder under it)
#   ARCHIVE_CREATED_BY  the text of the image history's "created_by"
#
#   archive NAME:TAG ROOTFS OUT.tar CONFIG-JSON
#       one image ref; CONFIG-JSON is the image config's "config" object ({"Env":[...],"Entrypoint":[...],...})
#   archive_multi ROOTFS OUT.tar NAME:TAG CONFIG-JSON [NAME:TAG CONFIG-JSON ...]
#       several image refs in ONE archive over one identical layer (stored once); each ref has its own config
#       (they may differ in env/entry point only: the layer, hence rootfs.diff_ids, is the same)

# _archive_layer ROOTFS DIR: writes DIR/<diff>/layer.tar and prints <diff> (the sha256 of the uncompressed layer)
_archive_layer() {
  local rootfs=$1 d=$2 diff
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$d/layer.tar" .
  diff=$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
  mkdir -p "$d/$diff"
  mv "$d/layer.tar" "$d/$diff/layer.tar"
  printf '%s' "$diff"
}

# _archive_config DIR DIFF CONFIG-JSON: writes DIR/<cfghex>.json and prints <cfghex>
_archive_config() {
  local d=$1 diff=$2 config=$3 cfg cfghex
  cfg=$(printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"%s"}]}' "$config" "$diff" "${ARCHIVE_CREATED_BY:?ARCHIVE_CREATED_BY is not set}")
  cfghex=$(printf '%s' "$cfg" | sha256sum | cut -d' ' -f1)
  printf '%s' "$cfg" > "$d/$cfghex.json"
  printf '%s' "$cfghex"
}

archive() {
  local ref=$1 rootfs=$2 out=$3 config=$4 d diff cfghex
  d=$(mktemp -d "${WORK:?WORK is not set}/img.XXXXXX")
  diff=$(_archive_layer "$rootfs" "$d")
  cfghex=$(_archive_config "$d" "$diff" "$config")
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$cfghex" "$ref" "$diff" > "$d/manifest.json"
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$d" -cf "$out.tmp" manifest.json "$cfghex.json" "$diff/layer.tar"
  mv "$out.tmp" "$out"
  rm -rf "$d"
}

archive_multi() {
  local rootfs=$1 out=$2 d diff cfghex manifest='' files=() sep=''
  shift 2
  (( $# >= 2 && $# % 2 == 0 )) || { printf 'archive_multi: need NAME:TAG CONFIG-JSON pairs\n' >&2; return 1; }
  d=$(mktemp -d "${WORK:?WORK is not set}/img.XXXXXX")
  diff=$(_archive_layer "$rootfs" "$d")
  while (( $# )); do
    cfghex=$(_archive_config "$d" "$diff" "$2")
    manifest+=$(printf '%s{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}' "$sep" "$cfghex" "$1" "$diff")
    sep=,
    [[ " ${files[*]} " == *" $cfghex.json "* ]] || files+=("$cfghex.json")
    shift 2
  done
  printf '[%s]' "$manifest" > "$d/manifest.json"
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$d" -cf "$out.tmp" manifest.json "${files[@]}" "$diff/layer.tar"
  mv "$out.tmp" "$out"
  rm -rf "$d"
}
