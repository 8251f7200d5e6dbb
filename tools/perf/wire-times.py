#!/usr/bin/env python3
"""Each webhook Pod's answer times at the wire, from a capture of bench-capture.sh (issue 32;
docs/explanation/performance-log.md, "At the wire").

    tools/perf/wire-times.py [--port N] [--all-requests] FILE.pcap [FROM,TO ...]

Reads the capture with tcpdump and, per TCP connection to port 8443 (or N), pairs each run of the API server's data segments
(a request) with the run of the Pod's data segments that follows (its answer). An answer's time is from the request's
last segment to the answer's last, as seen on the API server's interface: everything the Pod, its kernel and the
veth pair took. The TLS handshake's exchange (the first of each connection), answers under 300 bytes (alerts,
close_notify) and requests under 400 bytes (GETs: the bench's /metrics scrapes; counted as "other requests") are
left out (with --all-requests they are counted too: a capture of GETs alone, as floor-at-wire.sh makes, and the
smallest answer counted is then 30 bytes). Without windows it prints the exchanges per 10 s and per Pod, to find the bench's windows
(seconds from the first exchange); with FROM,TO windows it prints, per Pod, the answers, their sizes, p50/p99/max and
how many took over 2, 5 and 25 ms; and, for the first answer on each connection, how many had their last segment
30-60 ms after their first (a segment held back by Nagle's algorithm until a delayed acknowledgement).
"""
import collections
import re
import subprocess
import sys

# an AdmissionReview request is most of a kilobyte or more; a GET (the bench's /metrics scrapes) 100-300 bytes
REVIEW_BYTES = 400
# "-i any" captures name the interface and direction (each packet also appears once more, on an interface named "?",
# which is left out), "-i lo" ones do not; the server's port tells the direction
LINE = re.compile(r"^(\d+\.\d+) (?:[^?\s]\S*\s+(?:In|Out)\s+)?IP (\S+)\.(\d+) > (\S+)\.(\d+): Flags \[[^\]]*\].*length (\d+)")


def exchanges(pcap: str, port: int) -> list[tuple]:
    text = subprocess.run(["tcpdump", "-r", pcap, "-nn", "-tt"], capture_output=True, text=True, check=True).stdout
    connections = collections.defaultdict(list)
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or int(m.group(6)) == 0:
            continue
        t, src, sport, dst, dport, length = m.groups()
        request = int(dport) == port  # the API server's segment to a Pod; otherwise the Pod's answer
        if not request and int(sport) != port:
            continue
        key = (dst, sport) if request else (src, dport)
        connections[key].append((float(t), request, int(length)))
    # (pod, request's last segment, first answer segment after it (ms), last (ms), answer bytes, index, request bytes)
    result = []
    for (pod, _), data in connections.items():
        i, index = 0, 0
        while i < len(data):
            if not data[i][1]:
                i += 1
                continue
            j = i
            while j < len(data) and data[j][1]:
                j += 1
            if j == len(data):
                break
            k, size = j, 0
            while k < len(data) and not data[k][1]:
                size += data[k][2]
                k += 1
            request = data[j - 1][0]
            asked = sum(d[2] for d in data[i:j])
            result.append((pod, request, (data[j][0] - request) * 1000, (data[k - 1][0] - request) * 1000, size, index,
                           asked))
            index += 1
            i = k
    return result


def main() -> int:
    args = sys.argv[1:]
    port = 8443
    if args[:1] == ["--port"] and len(args) > 1:
        port, args = int(args[1]), args[2:]
    least_request, least_answer = REVIEW_BYTES, 300
    if args[:1] == ["--all-requests"]:
        least_request, least_answer, args = 0, 30, args[1:]
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ex = exchanges(args[0], port)
    if not ex:
        print(f"wire-times: no exchange with port {port} in the capture", file=sys.stderr)
        return 1
    t0 = min(e[1] for e in ex)
    pods = sorted({e[0] for e in ex})
    if len(args) == 1:
        per = collections.defaultdict(collections.Counter)
        for e in ex:
            per[int((e[1] - t0) // 10) * 10][e[0]] += 1
        for start in sorted(per):
            print(f"{start:5d} s  " + "  ".join(f"{p}: {per[start][p]:4d}" for p in pods))
        return 0
    for window in args[1:]:
        a, b = map(float, window.split(","))
        for pod in pods:
            answers = [e for e in ex if e[0] == pod and a <= e[1] - t0 < b and e[4] >= least_answer and e[5] > 0
                       and e[6] >= least_request]
            others = sum(1 for e in ex if e[0] == pod and a <= e[1] - t0 < b and e[5] > 0 and e[6] < least_request)
            if not answers:
                continue
            times = sorted(e[3] for e in answers)
            n = len(times)
            sizes = collections.Counter(e[4] // 100 * 100 for e in answers).most_common(1)[0][0]
            print(f"{a:.0f}-{b:.0f} s {pod}: {n} answers of about {sizes} B; p50 {times[n // 2]:.2f} ms, "
                  f"p99 {times[min(n - 1, int(n * 0.99))]:.2f} ms, max {times[-1]:.2f} ms; over 2 ms "
                  f"{sum(t > 2 for t in times)}, over 5 ms {sum(t > 5 for t in times)}, over 25 ms "
                  f"{sum(t > 25 for t in times)}; other requests {others}")
    for pod in pods:
        first = [e for e in ex if e[0] == pod and e[5] == 1 and e[4] >= 300]
        held = [e for e in first if 30 <= e[3] - e[2] <= 60]
        if first:
            print(f"all windows, {pod}: {len(first)} first answers on new connections, {len(held)} with their last "
                  f"segment 30-60 ms after their first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
