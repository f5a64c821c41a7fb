#!/usr/bin/env python3
"""Differential testing of tngc against PyTorch on generated programs.

usage: run.py TNGC SEED_START COUNT [-k K] [--jobs J] [--keep DIR]
              [--minimise N] [--refuse-every R] [--opt FLAGS] [-v]
       run.py TNGC --minimise-file SCRIPT

Generates ceil(COUNT / K) scripts with tests/diff/gen.py (script seeds
SEED_START, SEED_START + 1, ...; K programs each, program seed =
script seed * K + index) and, for every R-th script seed, one more
one-program script holding a form tngc may refuse (gen.py --refuse SEED).
Each script, JOBS at a time (default: the CPUs), as tests/conform/run.sh
checks a model:

  ref      tests/ref/harness.py --all-gears (through one fork server: torch
           is imported once) records every program's call, every gear;
  build    tngc build --cache-dir (one cache for the run). A build that
           fails with TNG2xx diagnostics only is a refusal: the programs
           the diagnostics point into are counted refused and the script is
           written again without them and rebuilt. A build that fails
           otherwise (a signal, an internal error, no diagnostic) is a
           crash: each program is then built alone to find the ones that
           crash;
  run      each program's launcher on the recorded call and on every gear
           (tests/e2e/launch.sh); it must report the gear it was given;
  compare  tests/e2e/compare.py's tolerances (its compare(), in this
           process): every output and every input updated in place.

A failing program is then checked alone (a script of just that program)
and minimised: statements of forward and returned values are deleted one
at a time while the same kind of failure remains. The first N failures
(--minimise, DIFF_MINIMISE, default 2) are minimised; every failure's seed
is printed, with the command that regenerates it. --keep DIR (DIFF_KEEP)
keeps the failing scripts (whole, alone, minimised) there.

Last line: "diff: N programs, M mismatches, C crashes, R refused"; exit
status 1 on a mismatch or a crash (or a program PyTorch itself rejected:
a generator bug), 0 otherwise.
"""
import concurrent.futures
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402

PY = os.environ.get("PYTHON", "/usr/bin/python3")
HARNESS = os.path.join(ROOT, "tests", "ref", "harness.py")
LAUNCH = os.path.join(ROOT, "tests", "e2e", "launch.sh")
DIAG = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$")
TNG2 = re.compile(r"\[TNG2\d\d\]\s*$")

_spec = importlib.util.spec_from_file_location("tngc_compare", os.path.join(ROOT, "tests", "e2e", "compare.py"))
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)
import numpy  # noqa: E402
compare.np = numpy   # compare.py's main() imports it; its compare() needs it


def sh(cmd, log, timeout, cwd=None, env=None):
    """Runs cmd with stdout and stderr to the file log; returns the exit status
    (negative: a signal; 124: timed out)."""
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                  cwd=cwd, env=env).returncode
        except subprocess.TimeoutExpired:
            f.write("\n(timed out after %d s)\n" % timeout)
            return 124


def tail(path, n=12):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    return "\n".join("    " + l for l in lines[-n:])


class Failure:
    def __init__(self, prog, kind, detail):
        self.prog = prog
        self.kind = kind          # mismatch | launcher | build-crash | gear | pytorch
        self.detail = detail


class Runner:
    def __init__(self, tngc, tmp, verbose=False):
        self.tngc = tngc
        self.tmp = tmp
        self.cache = os.path.join(tmp, "cache")
        self.verbose = verbose
        self.opt = ""
        self.lock = threading.Lock()
        self.counter = 0

    def workdir(self, stem):
        with self.lock:
            self.counter += 1
            d = os.path.join(self.tmp, "w%d-%s" % (self.counter, stem))
        os.makedirs(d)
        return d

    # -- one script --------------------------------------------------------
    def harness(self, path, ref, log):
        return sh([PY, HARNESS, path, ref, "--all-gears"], log, 600)

    def build(self, path, out, log):
        opt = ["--opt", self.opt] if self.opt else []
        return sh([self.tngc, "build", path, "-o", out, "--cache-dir", self.cache] + opt, log, 900, cwd=ROOT)

    def refusals(self, log, path, ranges):
        """The programs a clean refusal names ({index: message}), or None when
        the build failed otherwise (a crash)."""
        text = open(log, errors="replace").read()
        found = {}
        base = os.path.basename(path)
        for line in text.splitlines():
            m = DIAG.match(line)
            if not m:
                continue
            if not TNG2.search(m.group(4)) or os.path.basename(m.group(1)) != base:
                return None
            ln = int(m.group(2))
            idx = [i for i, (a, b) in enumerate(ranges) if a <= ln <= b]
            if not idx:
                return None
            found.setdefault(idx[0], m.group(4))
        if not found or re.search(r"internal error|assert|Segmentation|Aborted|core dumped", text, re.I):
            return None
        return found

    def check(self, progs, stem, refused, failures, passed, title):
        """Checks a list of programs as one script; appends to refused
        ([(prog, message)]), failures ([Failure]) and passed ([prog])."""
        while progs:
            w = self.workdir(stem)
            path = os.path.join(w, stem + ".py")
            text, ranges = render(progs, title)
            with open(path, "w") as f:
                f.write(text)
            rc = self.harness(path, os.path.join(w, "ref"), os.path.join(w, "harness.log"))
            if rc != 0:
                if len(progs) == 1:
                    failures.append(Failure(progs[0], "pytorch", "the PyTorch reference failed:\n"
                                            + tail(os.path.join(w, "harness.log"))))
                    return
                for p in progs:      # find the program PyTorch rejects
                    self.check([p], stem, refused, failures, passed, title)
                return
            blog = os.path.join(w, "build.log")
            rc = self.build(path, os.path.join(w, "out"), blog)
            if rc != 0:
                ref = self.refusals(blog, path, ranges) if rc == 1 else None
                if ref is not None and any(i < len(progs) for i in ref):
                    keep = []
                    for i, p in enumerate(progs):
                        if i in ref:
                            refused.append((p, ref[i]))
                        else:
                            keep.append(p)
                    progs = keep
                    continue
                if len(progs) == 1:
                    failures.append(Failure(progs[0], "build-crash", "tngc build exited %d:\n%s"
                                            % (rc, tail(blog))))
                    return
                for p in progs:      # find the program(s) that crash tngc
                    self.check([p], stem, refused, failures, passed, title)
                return
            for p in progs:
                bundle = stem if len(progs) == 1 else "%s_%s_forward" % (stem, p.cls)
                f = self.run_bundle(w, path, bundle, p)
                if f is None:
                    passed.append(p)
                else:
                    failures.append(f)
            if not self.verbose and not os.environ.get("DIFF_KEEP_WORK"):
                shutil.rmtree(w, ignore_errors=True)
            return

    def run_bundle(self, w, path, bundle, p):
        ref = os.path.join(w, "ref", bundle)
        launcher = os.path.join(w, "out", bundle + "_launcher")
        if not os.access(launcher, os.X_OK):
            return Failure(p, "build-crash", "no launcher %s" % os.path.basename(launcher))
        calls = []
        if os.path.exists(os.path.join(ref, "gears.txt")):
            k = 0
            while os.path.isdir(os.path.join(ref, "gear%d" % k)):
                calls.append((os.path.join(ref, "gear%d" % k), k))
                k += 1
        else:
            calls.append((ref, None))
        tol = compare.TOLERANCES[compare.class_of(path)]
        for refdir, gear in calls:
            out = os.path.join(w, "run-%s-%s" % (bundle, gear))
            log = out + ".log"
            rc = sh(["sh", LAUNCH, launcher, refdir, out, "--warmup", "0", "--iters", "1"], log, 60)
            if rc != 0:
                return Failure(p, "launcher", "the launcher%s exited %d:\n%s"
                               % ("" if gear is None else " (gear %d)" % gear, rc, tail(log)))
            if gear is not None and not re.search(r"^gear %d:" % gear, open(log).read(), re.M):
                return Failure(p, "gear", "gear %d's inputs ran another gear:\n%s" % (gear, tail(log, 3)))
            exp = os.path.join(refdir, "expected")
            dtypes = compare.read_dtypes(exp)
            bad = []
            for name in sorted(f for f in os.listdir(exp) if f.endswith(".npy")):
                ok, msg = compare.compare(os.path.join(exp, name), os.path.join(out, name), False,
                                          tol, dtypes.get(name))
                if not ok:
                    bad.append("  %s: %s" % (name, msg))
            if bad:
                return Failure(p, "mismatch", "%s differs from PyTorch:\n%s"
                               % ("the call" if gear is None else "gear %d" % gear, "\n".join(bad)))
        return None

    # -- one program alone, minimised ------------------------------------------
    def kind_alone(self, p):
        refused, failures, passed = [], [], []
        self.check([p], "m%d" % p.seed, refused, failures, passed, "minimising program seed %d" % p.seed)
        if failures:
            return failures[0].kind, failures[0].detail
        return ("refused", refused[0][1]) if refused else ("pass", "")

    def minimise(self, p, kind):
        """Deletes statements and returned values while the failure stays."""
        import copy
        cur = copy.deepcopy(p)
        detail = None
        changed = True
        while changed:
            changed = False
            for j in reversed(range(len(cur.body))):
                if j >= len(cur.body):
                    continue
                q = copy.deepcopy(cur)
                del q.body[j]
                k, d = self.kind_alone(q)
                if k == kind:
                    cur, detail, changed = q, d, True
            for j in reversed(range(len(cur.ret))):
                if len(cur.ret) == 1 or j >= len(cur.ret):
                    continue
                q = copy.deepcopy(cur)
                del q.ret[j]
                k, d = self.kind_alone(q)
                if k == kind:
                    cur, detail, changed = q, d, True
        return cur, detail


class TextProgram:
    """A one-program script read back (a kept or hand-edited failing script),
    for --minimise-file: its forward's statements and returned values can be
    deleted as a generated program's can."""

    def __init__(self, text, name):
        lines = text.rstrip("\n").split("\n")
        cls = next(i for i, l in enumerate(lines) if l.startswith("class "))
        start = max(i for i, l in enumerate(lines[:cls]) if l.startswith("# program seed "))
        m = re.match(r"# program seed (\d+)", lines[start])
        self.seed = int(m.group(1))
        self.name = name
        self.uses_mm = "# tolerance: matmul" in text
        part = lines[start:]
        while part and part[-1].startswith("print("):
            part.pop()
        f = next(i for i, l in enumerate(part) if l.startswith("    def forward("))
        r = next(i for i in range(f + 1, len(part)) if part[i].startswith("        return "))
        self.cls = re.match(r"class (\w+)", next(l for l in part if l.startswith("class "))).group(1)
        self.pre, self.post = part[:f + 1], part[r + 1:]
        self.body = []
        for l in part[f + 1:r]:
            if l.startswith("         ") and self.body:
                self.body[-1].append(l[8:])
            elif l.strip():
                self.body.append([l[8:]])
        self.ret = split_top(part[r][len("        return "):].rstrip(","))

    def command(self):
        return self.name

    def source(self):
        out = ["", ""] + self.pre
        out += ["        " + l for stmt in self.body for l in stmt]
        out.append("        return " + ", ".join(self.ret) + ("," if len(self.ret) == 1 else ""))
        return out + self.post


def split_top(expr):
    """expr split at its top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def render(progs, title):
    """The script and each program's line range (1-based, inclusive)."""
    text = gen.script(progs, title)
    lines = text.split("\n")
    starts = [i + 1 for i, l in enumerate(lines) if l.startswith("# program seed ")]
    ranges = []
    for j, a in enumerate(starts):
        b = starts[j + 1] - 1 if j + 1 < len(starts) else len(lines)
        ranges.append((a, b))
    return text, ranges


def start_server(tmp):
    sock = os.path.join(tmp, "harness.sock")
    log = open(os.path.join(tmp, "harness-server.log"), "w")
    proc = subprocess.Popen([PY, HARNESS, "--serve", sock], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        if os.path.exists(sock) or proc.poll() is not None:
            break
        time.sleep(0.1)
    if os.path.exists(sock):
        os.environ["TNGC_HARNESS_SOCKET"] = sock
    return proc


def minimise_file(runner, path):
    p = TextProgram(open(path).read(), path)
    kind, detail = runner.kind_alone(p)
    print("%s: %s" % (path, kind))
    if kind in ("pass", "refused"):
        print(detail)
        return 0
    m, md = runner.minimise(p, kind)
    print(gen.script([m], "program seed %d, minimised from %s (%s)" % (p.seed, os.path.basename(path), kind)),
          end="")
    print("\n".join("# " + l for l in (md or detail).split("\n")))
    return 1


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="tngc vs PyTorch on generated programs (tests/diff)")
    ap.add_argument("tngc")
    ap.add_argument("seed_start", type=int, nargs="?", default=0)
    ap.add_argument("count", type=int, nargs="?", default=0, help="programs (scripts of K)")
    ap.add_argument("--minimise-file", metavar="SCRIPT",
                    help="minimise a one-program script (a kept P<seed>.py) and print it")
    ap.add_argument("-k", type=int, default=gen.DEFAULT_K)
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count() or 1)))
    ap.add_argument("--keep", default=os.environ.get("DIFF_KEEP"))
    ap.add_argument("--minimise", type=int, default=int(os.environ.get("DIFF_MINIMISE", "2")))
    ap.add_argument("--refuse-every", type=int, default=int(os.environ.get("DIFF_REFUSE_EVERY", "1")),
                    help="one refusal script per R script seeds (0: none)")
    ap.add_argument("--opt", default=os.environ.get("DIFF_OPT", ""),
                    help="tngc build --opt FLAGS (default tngc's, -O2; make check: -O0, 3x less clang time)")
    ap.add_argument("-v", "--verbose", action="store_true", help="keep the work folder, more lines")
    a = ap.parse_args(argv)
    tngc = os.path.abspath(a.tngc)
    if not os.access(tngc, os.X_OK):
        print("usage: run.sh TNGC SEED_START COUNT", file=sys.stderr)
        return 2
    try:
        gen.load_torch()
    except ImportError as e:
        print("diff: %s cannot import torch (install python3-torch): %s" % (sys.executable, e))
        print("diff: 0 programs, 0 mismatches, 1 crashes, 0 refused")
        return 1
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="tngc-diff.")
    server = start_server(tmp)
    runner = Runner(tngc, tmp, a.verbose)
    runner.opt = a.opt
    if a.minimise_file:
        try:
            return minimise_file(runner, a.minimise_file)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait()
            shutil.rmtree(tmp, ignore_errors=True)
    nscripts = (a.count + a.k - 1) // a.k
    refused, failures, passed = [], [], []
    total = 0
    try:
        gen.load_torch()
        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
            futs = []
            left = a.count
            for s in range(a.seed_start, a.seed_start + nscripts):
                n = min(a.k, left)
                left -= n
                mm = s % 4 == 3
                progs = [gen.program(s * a.k + i, mm=mm) for i in range(n)]
                total += n
                futs.append(pool.submit(runner.check, progs, "s%d" % s, refused, failures, passed,
                                        "script seed %d, %d programs (program seed = %d * %d + index)"
                                        % (s, a.k, s, a.k)))
                if a.refuse_every and (s - a.seed_start) % a.refuse_every == 0:
                    rp = gen.refuse_program(s)
                    total += 1
                    futs.append(pool.submit(runner.check, [rp], "r%d" % s, refused, failures, passed,
                                            "refusal program, --refuse %d" % s))
            for f in futs:
                f.result()
        failures.sort(key=lambda f: f.prog.seed)
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
        for i, f in enumerate(failures):
            p = f.prog
            print("FAIL program seed %d (%s): %s" % (p.seed, p.command(), f.kind))
            print(f.detail)
            text = gen.script([p], "program seed %d alone" % p.seed)
            if a.keep:
                with open(os.path.join(a.keep, "P%d.py" % p.seed), "w") as fh:
                    fh.write(text)
            if i < a.minimise:
                k, d = runner.kind_alone(p)
                if k != f.kind:
                    print("  alone, the program gives: %s (not minimised)" % k)
                    continue
                m, md = runner.minimise(p, f.kind)
                mtext = gen.script([m], "program seed %d, minimised (%s)" % (p.seed, f.kind))
                print("  minimised (%d of %d statements, %s):" % (len(m.body), len(p.body), f.kind))
                print("\n".join("  | " + l for l in mtext.rstrip("\n").split("\n")))
                if md:
                    print(md)
                if a.keep:
                    with open(os.path.join(a.keep, "P%d-min.py" % p.seed), "w") as fh:
                        fh.write(mtext)
        if a.verbose:
            for p, msg in sorted(refused, key=lambda r: r[0].seed):
                print("refused program seed %d: %s" % (p.seed, msg))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
        if a.verbose:
            print("diff: work folder %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    mism = sum(1 for f in failures if f.kind == "mismatch")
    crash = len(failures) - mism
    print("diff: %d programs, %d mismatches, %d crashes, %d refused (%.0f s)"
          % (total, mism, crash, len(refused), time.time() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
