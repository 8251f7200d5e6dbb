#!/usr/bin/env bash
# Captures, beside a running AdmissionLatencyBench, the TCP headers of every connection to port 8443 (both webhooks'
# Pods) as the node's API server sees them, for wire-times.py (issue 32; docs/explanation/performance-log.md, "At the
# wire").
#
#   tools/perf/bench-capture.sh FILE.pcap &        # then start the bench; stop it with: kill $(cat FILE.pcap.pid)
#
# Waits (up to 10 minutes) for the bench's kube-apiserver to start, then runs tcpdump in that process's network
# namespace (the one the bench created; its interfaces are written to FILE.pcap.info), 96 bytes a packet, no payload
# kept beyond the headers. It only listens: nothing is sent. Run it with the bench alone on the machine: the first
# kube-apiserver found is taken. Needs root, nsenter and tcpdump.
set -euo pipefail
out=${1:?usage: bench-capture.sh FILE.pcap}
pid=
for _ in $(seq 600); do
  pid=$(pgrep -o -f kube-apiserver || true)
  # the one that stays: a kube-apiserver that exits within 3 s (a version check) leaves no namespace to enter
  if [[ -n $pid ]]; then
    sleep 3
    kill -0 "$pid" 2>/dev/null && nsenter -t "$pid" -n true 2>/dev/null && break
    pid=
  fi
  sleep 1
done
[[ -n $pid ]] || { echo "bench-capture: no kube-apiserver started within 10 minutes; start AdmissionLatencyBench" >&2; exit 1; }
{ echo "kube-apiserver pid $pid"; nsenter -t "$pid" -n ip -br addr; } >"$out.info" 2>&1
nsenter -t "$pid" -n tcpdump -i any -nn -s 96 -w "$out" 'tcp port 8443' >"$out.log" 2>&1 &
echo $! >"$out.pid"
