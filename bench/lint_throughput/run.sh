#!/usr/bin/env bash
# Lint throughput: tngc lint / tngc scan against CPython's ast.parse on one
# large generated TorchAir model file, all measured in this one run on this
# machine (ratios, not absolute times, are the result).
#
#   bench/lint_throughput/run.sh [TNGC]      (default TNGC: build/tngc)
#
# Environment: LINES (minimum lines of the generated file, default 120000),
# SEED (generator seed), REPEAT (runs per measurement, best is kept; default 3).
set -euo pipefail

tngc=${1:-build/tngc}
lines=${LINES:-120000}
seed=${SEED:-20240501}
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")" && pwd)

if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=python3; fi

case $tngc in */*) ;; *) tngc=./$tngc ;; esac
if [ ! -x "$tngc" ] || [ -d "$tngc" ]; then
    echo "run.sh: $tngc: no such executable (build it with make)" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$py" "$here/gen.py" --lines "$lines" --seed "$seed" -o "$tmp/model.py"

"$py" - "$tngc" "$tmp/model.py" "$repeat" "$py" "$seed" <<'EOF'
import subprocess, sys, time

tngc, path, repeat, py, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]

with open(path, "rb") as f:
    data = f.read()
nlines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)

def run_best(argv):
    """Best wall time of `repeat` runs of a whole process, stdout discarded."""
    best, codes = None, set()
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            sys.stderr.write(p.stderr.decode("utf-8", "replace")[-2000:])
            sys.exit(f"run.sh: {' '.join(argv)}: exit status {p.returncode}")
        codes.add(p.returncode)
        best = dt if best is None else min(best, dt)
    return best, codes

# ast.parse inside one python process: file read first, only the parse timed.
INNER = r'''
import ast, gc, sys, time
data = open(sys.argv[1], "rb").read()
n = int(sys.argv[2])
def best():
    b = None
    for _ in range(n):
        t0 = time.perf_counter(); ast.parse(data); dt = time.perf_counter() - t0
        b = dt if b is None else min(b, dt)
    return b
on = best()
gc.disable()
off = best()
print(on, off, sys.version.split()[0])
'''
out = subprocess.run([py, "-c", INNER, path, str(repeat)], check=True,
                     stdout=subprocess.PIPE, text=True).stdout.split()
ast_gc_on, ast_gc_off, pyver = float(out[0]), float(out[1]), out[2]
# The whole python process (start-up + read + one ast.parse), for reference.
py_total, _ = run_best([py, "-c",
                        "import ast,sys; ast.parse(open(sys.argv[1],'rb').read())", path])

lint, lint_codes = run_best([tngc, "lint", path])
scan, scan_codes = run_best([tngc, "scan", "--format", "json", path])

def row(name, secs, ref=None, note=""):
    s = f"{name:<36}: {secs:7.3f} s  {nlines / secs:>12,.0f} lines/s"
    if ref is not None:
        s += f"  {ref / secs:6.1f}x ast.parse"
    print(s + note)

print(f"file: {nlines} lines, {len(data) / 1e6:.1f} MB (gen.py seed {seed}),"
      f" best of {repeat}")
row(f"ast.parse (CPython {pyver}, gc off)", ast_gc_off)
row(f"ast.parse (CPython {pyver}, gc on)", ast_gc_on)
row("python3 process total (gc on)", py_total, note="  (start-up + read + ast.parse)")
row("tngc lint", lint, ast_gc_off, f"  (exit {'/'.join(map(str, sorted(lint_codes)))})")
row("tngc scan --format json", scan, ast_gc_off, f"  (exit {'/'.join(map(str, sorted(scan_codes)))})")
print(f"speed ratio tngc lint / ast.parse: {ast_gc_off / lint:.1f}x"
      f" (vs gc on: {ast_gc_on / lint:.1f}x)")
print(f"speed ratio tngc scan / ast.parse: {ast_gc_off / scan:.1f}x"
      f" (vs gc on: {ast_gc_on / scan:.1f}x)")
EOF
