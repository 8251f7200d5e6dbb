"""The dashboard's main panels, drawn from a real Prometheus' query_range answers.

Input: the JSON NodeE2E saves (app/target/e2e-reports/NodeE2E-prometheus-query-range.json): {start, end, step, meta,
queries: {key: {expr, response}}}, each response the /api/v1/query_range answer of the Prometheus that scraped the
webhook's replicas on the node. Output: one PNG with four panels: reviews/s by outcome, refusals/s by code, admission
latency p50/p90/p99, memory against the Pod's limit. Nothing is invented: an empty query is drawn as an empty panel
saying so.
"""
import json
import math
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 1e3, "M": 1e6, "G": 1e9}


def series(data, key):
    resp = data["queries"].get(key, {}).get("response", {})
    out = []
    for s in resp.get("data", {}).get("result", []):
        pts = [(float(t) - data["start"], float(v)) for t, v in s["values"]]
        pts = [(t, v) for t, v in pts if not math.isnan(v)]
        if pts:
            out.append((s["metric"], pts))
    return out


def draw(ax, lines, title, ylabel):
    """lines: (label, points, style, color); a label repeated (one per Pod) is shown once in the legend."""
    ax.set_title(title)
    ax.set_xlabel("seconds since Prometheus started")
    ax.set_ylabel(ylabel)
    if not lines:
        ax.text(0.5, 0.5, "no data in this run", ha="center", va="center", transform=ax.transAxes)
    shown = set()
    for label, pts, style, color in lines:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color,
                label=None if label in shown else label, linewidth=1.2)
        shown.add(label)
    if lines:
        ax.legend(fontsize=7)
    ax.grid(alpha=0.3)


def limit_bytes(text):
    m = re.fullmatch(r"([0-9.]+)([KMG]i?)?", text or "")
    return float(m.group(1)) * UNITS.get(m.group(2) or "", 1) if m else None


def main(src, dst):
    data = json.load(open(src))
    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    outcomes = {"admitted": colors[0], "refused": colors[3], "skipped": colors[1], "error": colors[2]}
    draw(axes[0][0], [(m.get("outcome", "?"), p, "-", outcomes.get(m.get("outcome"), colors[4]))
                      for m, p in series(data, "reviews_by_outcome")], "Reviews per second by outcome", "reviews/s")
    draw(axes[0][1], [(f'{m.get("webhook", "?")} {m.get("reason", "?")}', p, "-", colors[i % len(colors)])
                      for i, (m, p) in enumerate(series(data, "refusals_by_code"))],
         "Refusals per second by code", "refusals/s")
    webhooks = {}
    lat = []
    for q, style in (("50", "-"), ("90", "--"), ("99", ":")):
        for m, p in series(data, "latency_p" + q):
            w = m.get("webhook", "")
            color = webhooks.setdefault(w, colors[len(webhooks) % len(colors)])
            lat.append((f"p{q} {w}", [(t, v * 1000) for t, v in p], style, color))
    draw(axes[1][0], lat, "Admission latency (the webhook's own histogram)", "ms")
    mem = []
    for key, name, color in (("memory_rss", "resident set (each Pod)", colors[0]),
                             ("memory_heap_used", "heap used (each Pod)", colors[1]),
                             ("memory_limit", "the container's limit", colors[3])):
        for m, p in series(data, key):
            mem.append((name, [(t, v / 2**20) for t, v in p], "-", color))
    limit = limit_bytes(data.get("meta", {}).get("pod memory limit"))
    if limit and not series(data, "memory_limit"):
        span = data["end"] - data["start"]
        mem.append(("Pod limit (the Deployment's resources.limits.memory)", [(0, limit / 2**20), (span, limit / 2**20)],
                    "--", colors[3]))
    draw(axes[1][1], mem, "Memory against the limit", "MiB")
    meta = data.get("meta", {})
    fig.suptitle(f'kvcache-injector on the NodeE2E node: {meta.get("run", "")}, {meta.get("replicas", "?")} replicas,'
                 f' scraped every {data["step"]} s')
    fig.tight_layout()
    fig.savefig(dst, dpi=90)
    print(dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py QUERY_RANGE.json OUT.png")
    main(sys.argv[1], sys.argv[2])
