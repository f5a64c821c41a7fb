#!/usr/bin/env python3
"""Build time against the number of gears: `tngc build --no-cache` of the
decoder example with 1, 8, 32 and 64 batch gears (BATCH_GEARS = [1..N];
for one gear, no set_dim_gears and one call at batch 2), with `-j 1` and
`-j 2` interleaved in each round (a -j 1 build, then a -j 2 build, per
gear count per round). A bundle with several gears is split into
<name>.c and at most 8 files <name>_gears_K.c (codegen/emit_cpu.c), so
`-j` compiles the gears in parallel. Reported per gear count and -j: the
median wall time of the whole command (plan, generate, clang, ar, link)
and the median user+sys CPU seconds of tngc and its children (what the
build costs whatever the machine's load), the -j 2 speedup (wall), the
generated files, and the load average before and after (the machine may
be shared: the speedup needs an idle second core). Beside it, the bound
that two idle cores give: clang's CPU seconds on each file, list-scheduled
on two workers in tngc's order, plus the rest of the build's CPU as a
serial part (target at 64 gears: 1.6x).

usage: /usr/bin/python3 bench/build/bench.py TNGC [OUT_DIR]
"""
import glob
import os
import re
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402

DECODE = os.path.join(C.ROOT, "examples", "decoder", "model.py")
GEARS = tuple(int(x) for x in os.environ.get("BENCH_GEARS", "1,8,32,64").split(","))
JOBS = (1, 2)


def script_with(src, n):
    """The decoder with batch gears 1..n (n == 1: no gears)."""
    if n == 1:   # no gears: set_dim_gears removed, only the batch-2 call
        s = re.sub(r"(?m)^( *)torchair\.inference\.set_dim_gears\(.*$", r"\1pass", src)
        return s[:s.index("    # Step 2")]
    return re.sub(r"(?m)^BATCH_GEARS = .*$", "BATCH_GEARS = %r" % (list(range(1, n + 1)),), src)


def cpu_model():
    """The processor's name, from /proc/cpuinfo."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "?"


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_build(tngc, script, out, jobs):
    """(wall s, user+sys s) of one tngc build -j JOBS --no-cache."""
    c0 = cpu_children()
    wall = C.build(tngc, script, out, ["-j", str(jobs)])
    return wall, cpu_children() - c0


def compile_cpu(tngc, script, d):
    """CPU seconds of clang on each file `tngc build` compiles (tngc gen's
    files but the user-kernel stub, in tngc's order, with its flags)."""
    r = subprocess.run([tngc, "gen", script, "-o", d], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        C.die("tngc gen %s failed:\n%s" % (script, r.stdout))
    name = os.path.basename(script)[:-3]
    files = sorted(f for f in os.listdir(d) if f.endswith(".c"))
    files = ([name + ".c"] + [f for f in files if f.startswith(name + "_gears_")] + [name + "_launcher.c"])
    out = []
    for f in files:
        c0 = cpu_children()
        subprocess.run(["clang", "-std=c11", "-O2", "-D_POSIX_C_SOURCE=200809L",
                        "-I" + os.path.join(C.ROOT, "runtime"), "-I" + d, "-c", os.path.join(d, f),
                        "-o", os.path.join(d, "x.o")], check=True)
        out.append(cpu_children() - c0)
    return out


def makespan(jobs, workers):
    """The end of list scheduling jobs (durations, in order) on workers."""
    free = [0.0] * workers
    for t in jobs:
        i = free.index(min(free))
        free[i] += t
    return max(free)


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    with open(DECODE) as f:
        src = f.read()
    scripts = {}
    for n in GEARS:
        d = os.path.join(tmp, "g%d" % n)
        os.makedirs(d)
        scripts[n] = os.path.join(d, "model.py")
        with open(scripts[n], "w") as f:
            f.write(script_with(src, n))
    load0 = os.getloadavg()
    res = {(n, j): [] for n in GEARS for j in JOBS}
    bound = {n: [] for n in GEARS}
    for r in range(C.ROUNDS):
        for n in GEARS:
            for j in JOBS:   # interleaved: -j 1 then -j 2, same script, same round
                res[(n, j)].append(timed_build(tngc, scripts[n], os.path.join(tmp, "b%d_j%d_%d" % (n, j, r)), j))
            # the idle bound, paired with this round's -j 1 build
            cc = compile_cpu(tngc, scripts[n], os.path.join(tmp, "c%d_%d" % (n, r)))
            serial = max(res[(n, 1)][-1][1] - sum(cc), 0.0)   # tngc itself, ar, the link
            bound[n].append((serial + sum(cc)) / (serial + makespan(cc, 2)))
    load1 = os.getloadavg()
    rows = []
    for n in GEARS:
        bdir = os.path.join(tmp, "b%d_j2_0" % n)
        srcs = sorted(f for f in glob.glob(os.path.join(bdir, "*.c")) if not f.endswith("_launcher.c"))
        code = "".join(open(f).read() for f in srcs)
        ngears = len(set(re.findall(r"^static int g(\d+)_s0\(", code, re.M)))
        if ngears != n:
            C.die("%d gears asked, the bundle has %d" % (n, ngears))
        med = {j: (statistics.median(w for w, _ in res[(n, j)]), statistics.median(c for _, c in res[(n, j)]))
               for j in JOBS}
        ideal = statistics.median(bound[n])
        rows.append([str(n)] + ["%.2f s (cpu %.2f s)" % med[j] for j in JOBS] +
                    ["**%.2fx**" % (med[1][0] / med[2][0]), "%.2fx" % ideal,
                     "%d: %.0f KB, %d lines" % (len(srcs), len(code) / 1024, code.count("\n"))])
    C.table("Build: tngc build of the decoder vs its number of gears, -j 1 and -j 2",
            ["gears", "-j 1 wall (user+sys)", "-j 2 wall (user+sys)", "-j 2 speedup", "idle -j 2 bound",
             "generated .c files but the launcher"], rows,
            os.path.join(outd, "tables.md"),
            ["Medians of %d rounds; in each round, per gear count, a -j 1 build then a -j 2 build "
             "(--no-cache). user+sys: CPU seconds of tngc and its children (clang, ar, the link). "
             "Idle -j 2 bound: the speedup two idle cores would give, from CPU seconds (clang's on each "
             "file, list-scheduled on 2 workers in tngc's order, plus the rest of the round's -j 1 "
             "build's CPU as a serial part; median over the rounds): what the files allow whatever "
             "the load. "
             "Load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f on %d CPUs: "
             "a -j 2 speedup needs a second core nothing else uses. %s. Target: 64 gears >= 1.6x "
             "faster with -j 2." % ((C.ROUNDS,) + load0 + load1 + (os.cpu_count() or 0, cpu_model()))])


if __name__ == "__main__":
    main()
