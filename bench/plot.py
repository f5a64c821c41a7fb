#!/usr/bin/env python3
"""Draws latency vs batch (bench/decoder/bench.py's latency.dat) as an SVG:
one polyline per contender, log-scaled latency axis. No plotting library:
the SVG is written by hand, so `make bench` needs nothing beyond Debian's
Python.

usage: python3 bench/plot.py LATENCY.DAT OUT.svg
"""
import math
import os
import sys

W, H, L, R, T, B = 640, 400, 70, 170, 40, 50
SERIES = (("bundle (tngc)", "#1f77b4"), ("PyTorch eager", "#d62728"), ("TorchScript", "#2ca02c"))


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: plot.py LATENCY.DAT OUT.svg\n")
        return 2
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append([float(v) for v in line.split()])
    if not rows:
        sys.stderr.write("plot.py: %s has no data\n" % sys.argv[1])
        return 1
    batches = [r[0] for r in rows]
    vals = [v for r in rows for v in r[1:]]
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))

    def x(b):
        return L + (W - L - R) * (math.log2(b) - math.log2(batches[0])) / \
            max(math.log2(batches[-1]) - math.log2(batches[0]), 1e-9)

    def y(v):
        return T + (H - T - B) * (1 - (math.log10(v) - math.log10(lo)) /
                                  (math.log10(hi) - math.log10(lo)))
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14">Decoder decode step: latency vs batch '
           '(lower is better)</text>' % L]
    d = lo
    while d <= hi * 1.0001:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (L, W - R, y(d), y(d)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g us</text>' % (L - 6, y(d) + 4, d))
        d *= 10
    for b in batches:
        out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ddd"/>' % (x(b), x(b), T, H - B))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(b), H - B + 16, b))
    out.append('<text x="%d" y="%d" text-anchor="middle">batch</text>' % ((L + W - R) / 2, H - 12))
    for i, (name, color) in enumerate(SERIES):
        pts = " ".join("%.1f,%.1f" % (x(r[0]), y(r[i + 1])) for r in rows)
        out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (pts, color))
        for r in rows:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (x(r[0]), y(r[i + 1]), color))
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (W - R + 15, W - R + 35, T + 20 + 20 * i, T + 20 + 20 * i, color))
        out.append('<text x="%d" y="%d">%s</text>' % (W - R + 40, T + 24 + 20 * i, name))
    out.append("</svg>")
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
