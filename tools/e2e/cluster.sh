#!/usr/bin/env bash
# A real single-node Kubernetes cluster inside a network namespace of its own: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd (runc, the CNI bridge), the kubelet and kube-proxy, the Pods,
# and every client. Nothing of it listens on, or sends to, an address outside that namespace.
#
#   tools/e2e/cluster.sh up DIR [--assets BIN]   start it; DIR holds everything it writes (state, logs, kubeconfig)
#   tools/e2e/cluster.sh exec DIR CMD [ARG...]   run CMD inside the namespace with KUBECONFIG set (kubectl, helm, ...)
#   tools/e2e/cluster.sh import DIR TAR...       import image archives (docker save / OCI) into the node's containerd
#
# E2E_NODE_IMAGES="TAR..." are imported at up; E2E_NODE_SEED_IMAGES="TAR..." too, but through a seeded containerd
# root: the first up imports them once into a root of their own under E2E_NODE_SEED_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/kvcache-injector/node-images/KEY, KEY from containerd's version and each archive's name,
# size and mtime; one seed is kept), and every up links that root's files into DIR's (cp -al: the content blobs and
# the unpacked layers are read-only to containerd; its two bolt databases are copied), so a warm up imports nothing.
#   tools/e2e/cluster.sh down DIR                stop every process it started (by pid), delete the namespace and
#                                                what it wrote outside DIR
#
# BIN (default: the last line of tools/e2e/provision.sh) holds kube-apiserver, etcd, kubectl, helm, kubelet,
# kube-controller-manager, kube-scheduler and kube-proxy. Needs root, nsenter, ip, containerd, runc, iptables and the
# CNI plugins (tools/e2e/provision.sh installs the Debian packages when missing). docs/how-to/run-e2e.md, "A real node".
#
# Addresses (checked at start against every address and route of the machine; it refuses to start on an overlap):
#   node 198.51.100.10/24 (TEST-NET-2) on a veth pair with both ends inside the namespace; Pods 198.18.0.0/24 on the
#   bridge kvci0; Services 198.18.128.0/24 (198.18.0.0/15 is the benchmarking range, RFC 2544). The namespace has no
#   route out: nothing in it can reach the machine's network.
# Pod DNS: the kubelet gives Pods the resolver 198.51.100.53, whose packets the namespace drops (iptables), so that
# a lookup hangs as it does behind a default-deny egress policy or with CoreDNS down (E2E_NODE_DNS=refuse: nothing
# drops, a lookup is refused at once).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { printf 'cluster: ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf 'cluster: %s\n' "$*" >&2; }

NODE_IP=198.51.100.10
NODE_NET=198.51.100.0/24
POD_NET=198.18.0.0/24
POD_GW=198.18.0.1
SVC_NET=198.18.128.0/24
SVC_API=198.18.128.1
DNS_IP=198.51.100.53
NODE_NAME=kvci-node
CGROUP_ROOT=/kvci-e2e

cmd=${1:-}
[[ -n $cmd ]] || die "usage: cluster.sh up|exec|import|down DIR ..."
shift
[[ $# -ge 1 ]] || die "usage: cluster.sh $cmd DIR ..."
DIR=$1
shift
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
NS_FILE=$DIR/netns

ns_name() { [[ -f $NS_FILE ]] || die "no cluster in $DIR (cluster.sh up $DIR first)"; cat "$NS_FILE"; }
in_ns() { local ns; ns=$(ns_name); nsenter --net="/run/netns/$ns" -- "$@"; }

# ---------------------------------------------------------------------------------------------------------- exec
if [[ $cmd == exec ]]; then
  [[ $# -ge 1 ]] || die "usage: cluster.sh exec DIR CMD [ARG...]"
  export KUBECONFIG=$DIR/admin.kubeconfig PATH=$DIR/bin:$PATH
  in_ns "$@"
  exit $?
fi

# ---------------------------------------------------------------------------------------------------------- import
if [[ $cmd == import ]]; then
  for t in "$@"; do
    in_ns "$DIR/bin/ctr" --address "$DIR/containerd/containerd.sock" -n k8s.io images import --no-unpack=false "$t" >&2 \
      || die "ctr images import $t failed"
  done
  exit 0
fi

# ---------------------------------------------------------------------------------------------------------- down
stop_pid() {  # $1 = name; the pid file's process and its children, TERM then KILL
  local f=$DIR/pids/$1 pid i
  [[ -f $f ]] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}
rm_cgroups() {  # the kubelet's cgroups under CGROUP_ROOT in every hierarchy, deepest first
  local h
  for h in /sys/fs/cgroup/*/; do
    [[ -d $h${CGROUP_ROOT#/} ]] || continue
    find "$h${CGROUP_ROOT#/}" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}
down() {
  local ns="" p t0=$(date +%s)
  [[ -f $NS_FILE ]] && ns=$(cat "$NS_FILE")
  # the kubelet first, so that it restarts nothing; then the Pods' containers (shims and their processes)
  stop_pid kube-proxy; stop_pid kubelet
  if [[ -S $DIR/containerd/containerd.sock && -n $ns && -e /run/netns/$ns ]]; then
    local ids
    ids=$(nsenter --net="/run/netns/$ns" -- "$DIR/bin/ctr" --address "$DIR/containerd/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null || true)
    for p in $ids; do
      nsenter --net="/run/netns/$ns" -- "$DIR/bin/ctr" --address "$DIR/containerd/containerd.sock" -n k8s.io tasks kill -s SIGKILL "$p" >/dev/null 2>&1 || true
    done
  fi
  stop_pid kube-scheduler; stop_pid kube-controller-manager; stop_pid kube-apiserver; stop_pid etcd
  stop_pid containerd; stop_pid containerd-seed
  # shims outlive containerd: every process whose cwd or arguments name DIR (the shims' -address, the Pods' runc
  # state) is ours
  for p in $(pgrep -f "$DIR" 2>/dev/null || true); do
    [[ $p == "$$" || $p == "$PPID" ]] && continue
    kill -KILL "$p" 2>/dev/null || true
  done
  # mounts under DIR (the kubelet's volumes, containerd's rootfs and shm) and the fixed host paths
  if [[ -d $DIR ]]; then
    awk -v d="$DIR" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
      umount -l "$m" 2>/dev/null || true
    done
  fi
  if [[ -f $DIR/host-paths ]]; then
    while read -r p; do rm -rf "$p"; done < "$DIR/host-paths"
  fi
  rm_cgroups
  # the Pods' network namespaces, which containerd's CNI plugin made in /run/netns: every cni-* not there before up
  if [[ -f $DIR/netns-before ]]; then
    for p in $(ls /run/netns 2>/dev/null | grep '^cni-' || true); do
      grep -qxF "$p" "$DIR/netns-before" || ip netns delete "$p" 2>/dev/null || true
    done
  fi
  if [[ -n $ns ]]; then
    ip netns delete "$ns" 2>/dev/null || true
  fi
  rm -f "$NS_FILE"
  log "down in $(( $(date +%s) - t0 )) s"
}
if [[ $cmd == down ]]; then
  down
  exit 0
fi

# ---------------------------------------------------------------------------------------------------------- up
[[ $cmd == up ]] || die "unknown command '$cmd' (up, exec, import, down)"
ASSETS=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --assets) ASSETS=$2; shift 2 ;;
    *) die "unknown argument '$1' (cluster.sh up DIR [--assets BIN])" ;;
  esac
done
[[ $(id -u) == 0 ]] || die "a node needs root (containerd, the kubelet's cgroups, a network namespace); run as root"
[[ -e $NS_FILE ]] && die "a cluster is already up in $DIR (cluster.sh down $DIR first)"
for t in nsenter ip iptables openssl containerd containerd-shim-runc-v2 ctr runc; do
  command -v "$t" >/dev/null || die "'$t' is missing: tools/e2e/provision.sh installs it (apt-get: containerd runc iptables containernetworking-plugins openssl)"
done
CNI_BIN=""
for d in /usr/lib/cni /opt/cni/bin; do [[ -x $d/bridge && -x $d/host-local && -x $d/loopback ]] && CNI_BIN=$d && break; done
[[ -n $CNI_BIN ]] || die "the CNI plugins (bridge, host-local, loopback) are missing: apt-get install containernetworking-plugins"
if [[ -z $ASSETS ]]; then
  ASSETS=$("$HERE/provision.sh" | tail -n 1) || die "tools/e2e/provision.sh failed"
fi
for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl helm; do
  [[ -x $ASSETS/$b ]] || die "$ASSETS has no executable $b (tools/e2e/provision.sh builds it)"
done

# the ranges must overlap nothing of this machine: no address and no route may fall into them
overlaps() {  # $1 = CIDR of ours; prints the first host address or route that overlaps it
  python3 - "$1" <<'EOF'
import ipaddress, subprocess, sys
ours = ipaddress.ip_network(sys.argv[1])
for cmd in (["ip", "-4", "-o", "addr", "show"], ["ip", "-4", "route", "show", "table", "all"]):
    for line in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines():
        for word in line.split():
            try:
                net = ipaddress.ip_network(word, strict=False)
            except ValueError:
                continue
            if net.prefixlen == 0 or net.version != 4:
                continue
            if net.overlaps(ours):
                print(line.strip())
                sys.exit(0)
EOF
}
for net in $NODE_NET $POD_NET $SVC_NET; do
  hit=$(overlaps "$net")
  [[ -z $hit ]] || die "the cluster's range $net overlaps this machine's network ($hit): refusing to start"
done
# paths the kubelet, CNI and containerd write whatever their configuration: two kubelets collide on the device
# plugins' socket, so refuse to share it; containerd's shim and fifo folders hold names unique per daemon, so they
# are shared, and removed on tear-down only when this cluster made them
[[ ! -e /var/lib/kubelet/device-plugins ]] \
  || die "/var/lib/kubelet/device-plugins exists (another kubelet on this machine?): stop it or remove the folder"
for h in /sys/fs/cgroup/*/; do
  [[ ! -d $h${CGROUP_ROOT#/} ]] || die "the cgroup ${h}${CGROUP_ROOT#/} exists (a cluster left running?): run cluster.sh down on its folder"
done

T0=$(date +%s%N)
ms() { echo $(( ($(date +%s%N) - T0) / 1000000 )); }
mkdir -p "$DIR"/{pids,logs,pki,bin,etcd,kubelet,pod-logs,cni/net.d,cni/ipam,containerd/root,containerd/state}
echo /var/lib/kubelet/device-plugins > "$DIR/host-paths"
for p in /var/lib/kubelet /run/containerd /run/containerd/s /run/containerd/fifo /var/lib/cni; do
  [[ -e $p ]] || echo "$p" >> "$DIR/host-paths"
done
for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl helm; do
  ln -sfn "$(readlink -f "$ASSETS/$b")" "$DIR/bin/$b"
done
ln -sfn "$(command -v ctr)" "$DIR/bin/ctr"

NS=kvci-e2e-$$
ls /run/netns 2>/dev/null > "$DIR/netns-before" || : > "$DIR/netns-before"
ip netns add "$NS" || die "ip netns add $NS failed"
echo "$NS" > "$NS_FILE"
trap 'log "start failed; tearing down"; down' ERR
N() { nsenter --net="/run/netns/$NS" -- "$@"; }
N ip link set lo up
N ip link add kvci-n0 type veth peer name kvci-n1
N ip addr add "$NODE_IP/24" dev kvci-n0
N ip link set kvci-n0 up
N ip link set kvci-n1 up
N ip route add default dev kvci-n0
N sysctl -qw net.ipv4.ip_forward=1
# the Pods' resolver: its packets are dropped (a lookup hangs), or refused at once
if [[ ${E2E_NODE_DNS:-drop} == drop ]]; then
  N iptables -w -I OUTPUT -d "$DNS_IP" -j DROP
  N iptables -w -I FORWARD -d "$DNS_IP" -j DROP
else
  N iptables -w -I FORWARD -d "$DNS_IP" -j REJECT
fi
printf 'nameserver %s\noptions timeout:2 attempts:2\n' "$DNS_IP" > "$DIR/resolv.conf"
log "namespace $NS: node $NODE_IP, Pods $POD_NET, Services $SVC_NET ($(ms) ms)"

# ---- PKI: one CA; the API server's serving certificate; the service-account key; one token per component
P=$DIR/pki
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=kvci-e2e-ca" \
  -keyout "$P/ca.key" -out "$P/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=kube-apiserver" \
  -keyout "$P/apiserver.key" -out "$P/apiserver.csr" 2>/dev/null
printf 'subjectAltName=IP:%s,IP:%s,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\nextendedKeyUsage=serverAuth\n' \
  "$NODE_IP" "$SVC_API" > "$P/apiserver.ext"
openssl x509 -req -in "$P/apiserver.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 \
  -extfile "$P/apiserver.ext" -out "$P/apiserver.crt" 2>/dev/null
openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
: > "$P/tokens.csv"
kubeconfig() {  # $1 = name, $2 = user
  local token
  token=$(openssl rand -hex 16)
  printf '%s,%s,%s,"system:masters"\n' "$token" "$2" "$2" >> "$P/tokens.csv"
  cat > "$DIR/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kvci-e2e
  cluster:
    server: https://$NODE_IP:6443
    certificate-authority: $P/ca.crt
users:
- name: $2
  user:
    token: $token
contexts:
- name: kvci-e2e
  context: {cluster: kvci-e2e, user: $2}
current-context: kvci-e2e
EOF
}
kubeconfig admin kvci-admin
kubeconfig controller-manager system:kube-controller-manager
kubeconfig scheduler system:kube-scheduler
kubeconfig kubelet "system:node:$NODE_NAME"
kubeconfig proxy system:kube-proxy
log "pki ($(ms) ms)"

start() {  # $1 = name, rest = command; runs inside the namespace, logs to logs/NAME.log, pid in pids/NAME
  local name=$1
  shift
  nsenter --net="/run/netns/$NS" -- "$@" > "$DIR/logs/$name.log" 2>&1 &
  echo $! > "$DIR/pids/$name"
}
wait_for() {  # $1 = what, $2 = seconds, $3 = name of the process that must stay alive, rest = check command
  local what=$1 secs=$2 proc=$3 i
  shift 3
  for i in $(seq 1 $((secs * 5))); do
    if "$@" >/dev/null 2>&1; then log "$what ($(ms) ms)"; return 0; fi
    if [[ -n $proc ]] && ! kill -0 "$(cat "$DIR/pids/$proc")" 2>/dev/null; then
      tail -n 30 "$DIR/logs/$proc.log" >&2
      die "$proc exited while waiting for: $what (log: $DIR/logs/$proc.log)"
    fi
    sleep 0.2
  done
  [[ -z $proc ]] || tail -n 30 "$DIR/logs/$proc.log" >&2
  die "timed out after $secs s waiting for: $what"
}
KC() { N "$DIR/bin/kubectl" --kubeconfig "$DIR/admin.kubeconfig" "$@"; }

# ---- etcd and the control plane
start etcd "$DIR/bin/etcd" --name=kvci --data-dir="$DIR/etcd" --listen-client-urls=http://127.0.0.1:2379 \
  --advertise-client-urls=http://127.0.0.1:2379 --listen-peer-urls=http://127.0.0.1:2380 \
  --initial-advertise-peer-urls=http://127.0.0.1:2380 --initial-cluster=kvci=http://127.0.0.1:2380 \
  --unsafe-no-fsync --log-level=warn
# containerd: its own root, state and socket; runc with cgroupfs; the CNI bridge; the local pause image
cat > "$DIR/containerd/config.toml" <<EOF
version = 2
root = "$DIR/containerd/root"
state = "$DIR/containerd/state"
[grpc]
  address = "$DIR/containerd/containerd.sock"
[ttrpc]
  address = "$DIR/containerd/containerd.sock.ttrpc"
[debug]
  level = "warn"
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "kvci.local/pause:1"
  restrict_oom_score_adj = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
    # the runtime class the CacheBlend engine's DaemonSet names: on a GPU node the NVIDIA container runtime; here runc
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$DIR/cni/net.d"
EOF
cat > "$DIR/cni/net.d/10-kvci.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "kvci",
  "plugins": [
    {"type": "bridge", "bridge": "kvci0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$DIR/cni/ipam", "ranges": [[{"subnet": "$POD_NET", "gateway": "$POD_GW"}]],
              "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "loopback"}
  ]
}
EOF
seed_images() {  # E2E_NODE_SEED_IMAGES into DIR's containerd root, through the seed of their key (built when missing)
  local cache=${E2E_NODE_SEED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvcache-injector/node-images} key seed t f
  key=$( { containerd --version; for t in $E2E_NODE_SEED_IMAGES; do
           stat -L -c '%s %Y' "$t" || die "E2E_NODE_SEED_IMAGES: no archive $t"; basename "$t"; done; } \
         | sha256sum | cut -c1-16)
  seed=$cache/$key
  mkdir -p "$cache"
  exec 9>"$cache/.lock"
  flock 9
  if [[ ! -f $seed/READY ]]; then
    # one seed is kept: an older key's root goes before this one's is written
    find "$cache" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
    mkdir -p "$seed.tmp/root" "$DIR/containerd/seed-state"
    cat > "$DIR/containerd/seed.toml" <<EOF
version = 2
root = "$seed.tmp/root"
state = "$DIR/containerd/seed-state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$DIR/containerd/seed.sock"
[ttrpc]
  address = "$DIR/containerd/seed.sock.ttrpc"
[metrics]
  address = ""
EOF
    start containerd-seed containerd --config "$DIR/containerd/seed.toml"
    wait_for "seed containerd serving" 30 containerd-seed N ctr --address "$DIR/containerd/seed.sock" version
    for t in $E2E_NODE_SEED_IMAGES; do
      N ctr --address "$DIR/containerd/seed.sock" -n k8s.io images import --no-unpack=false "$t" >/dev/null \
        || die "ctr images import $t (into the seed $seed) failed"
    done
    stop_pid containerd-seed
    touch "$seed.tmp/READY"
    mv "$seed.tmp" "$seed"
    log "seed $seed built: $E2E_NODE_SEED_IMAGES imported ($(ms) ms)"
  fi
  cp -al "$seed/root/." "$DIR/containerd/root/"
  # the databases are written by this containerd: its own copies, not links into the seed
  find "$DIR/containerd/root" -type f -name '*.db' | while read -r f; do cp "$f" "$f.copy" && mv -f "$f.copy" "$f"; done
  flock -u 9
  exec 9>&-
  log "seed images linked from $seed: $E2E_NODE_SEED_IMAGES ($(ms) ms)"
}
[[ -z ${E2E_NODE_SEED_IMAGES:-} ]] || seed_images
start containerd containerd --config "$DIR/containerd/config.toml"

wait_for "etcd healthy" 30 etcd N curl -sf http://127.0.0.1:2379/health
start kube-apiserver "$DIR/bin/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
  --bind-address=0.0.0.0 --secure-port=6443 --advertise-address="$NODE_IP" \
  --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$P/sa.pub" \
  --service-account-signing-key-file="$P/sa.key" --token-auth-file="$P/tokens.csv" \
  --authorization-mode=Node,RBAC --service-cluster-ip-range="$SVC_NET" --allow-privileged=true \
  --enable-aggregator-routing=true --kubelet-preferred-address-types=InternalIP \
  --profiling=false --v=1
wait_for "kube-apiserver ready" 90 kube-apiserver KC get --raw /readyz
start kube-controller-manager "$DIR/bin/kube-controller-manager" --kubeconfig="$DIR/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$DIR/controller-manager.kubeconfig" --authorization-kubeconfig="$DIR/controller-manager.kubeconfig" \
  --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" --use-service-account-credentials=true \
  --service-cluster-ip-range="$SVC_NET" --leader-elect=false --bind-address=127.0.0.1 --secure-port=10257 \
  --v=1
start kube-scheduler "$DIR/bin/kube-scheduler" --kubeconfig="$DIR/scheduler.kubeconfig" \
  --authentication-kubeconfig="$DIR/scheduler.kubeconfig" --authorization-kubeconfig="$DIR/scheduler.kubeconfig" \
  --leader-elect=false --bind-address=127.0.0.1 --secure-port=10259 --v=1
wait_for "containerd serving" 30 containerd N ctr --address "$DIR/containerd/containerd.sock" version
if [[ -n ${E2E_NODE_IMAGES:-} ]]; then
  for t in $E2E_NODE_IMAGES; do
    N ctr --address "$DIR/containerd/containerd.sock" -n k8s.io images import "$t" >/dev/null \
      || die "ctr images import $t failed"
  done
  log "images imported: $E2E_NODE_IMAGES ($(ms) ms)"
fi

# ---- the kubelet and kube-proxy
cat > "$DIR/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
failSwapOn: false
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: unix://$DIR/containerd/containerd.sock
resolvConf: $DIR/resolv.conf
podLogsDir: $DIR/pod-logs
serializeImagePulls: false
registerNode: true
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
maxPods: 60
EOF
# the kubelet's cgroup root, in every hierarchy (cgroup v1 here; a new cpuset takes its parent's CPUs and memory nodes)
for h in /sys/fs/cgroup/*/; do
  [[ -f ${h}cgroup.procs ]] || continue
  mkdir -p "$h${CGROUP_ROOT#/}"
  if [[ -f ${h}cpuset.cpus ]]; then
    cat "${h}cpuset.cpus" > "$h${CGROUP_ROOT#/}/cpuset.cpus"
    cat "${h}cpuset.mems" > "$h${CGROUP_ROOT#/}/cpuset.mems"
  fi
done
start kubelet "$DIR/bin/kubelet" --config="$DIR/kubelet/config.yaml" --kubeconfig="$DIR/kubelet.kubeconfig" \
  --root-dir="$DIR/kubelet" --cert-dir="$DIR/kubelet/pki" --node-ip="$NODE_IP" --hostname-override="$NODE_NAME" \
  --v=1
cat > "$DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $DIR/proxy.kubeconfig}
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_NET
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
start kube-proxy "$DIR/bin/kube-proxy" --config="$DIR/kube-proxy.yaml" --v=1
wait_for "node $NODE_NAME Ready" 120 kubelet \
  sh -c "$(printf '%q ' nsenter --net="/run/netns/$NS" -- "$DIR/bin/kubectl" --kubeconfig "$DIR/admin.kubeconfig") get node $NODE_NAME -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
wait_for "ServiceAccount default/default" 60 kube-controller-manager KC -n default get serviceaccount default
trap - ERR
log "up in $(ms) ms: KUBECONFIG=$DIR/admin.kubeconfig, inside: tools/e2e/cluster.sh exec $DIR kubectl get nodes"
echo "$DIR"
