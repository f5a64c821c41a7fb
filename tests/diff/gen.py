#!/usr/bin/env python3
"""Random model scripts for differential testing of tngc against PyTorch.

usage: gen.py SEED [-k K] [-o FILE]         a script of K programs (default 30),
                                            program seeds SEED*K .. SEED*K+K-1
       gen.py --program PSEED [--mm] [-o FILE]   one program alone
       gen.py --refuse SEED [-o FILE]       one program holding a form tngc
                                            may refuse (as_strided, resize_, ...)

Each program is its own small nn.Module (class P<program seed>), compiled
with torch.compile(backend=npu_backend, dynamic=..., fullgraph=True) and
called once, as tests/conform's models are, so that tests/ref/harness.py
records it and tngc builds one bundle per program
(<stem>_P<seed>_forward). A comment above each class gives its seed and the
command that writes it alone.

Programs are generated the Csmith / NNSmith way, statement by statement,
and every candidate statement is executed at once under PyTorch (with the
reference stand-ins of tests/ref/stubs, as the harness runs it) on the very
tensors the script will create: a statement PyTorch rejects, or one that
makes a value non-finite or large (float16 stays far from overflow, int32
far from wrapping), is dropped and another drawn. Shapes, dtypes, aliasing
(which tensors share storage) and, for a program with set_dim_gears, which
dims follow the batch dim are read off those tensors (a dim is geared when
its size differs between the gears' executions). What is generated, most
weight first: in-place writes through aliases (X_ methods, augmented
assignment, slice / index assignment (also augmented, through an index
tensor: a copy, stored back), index_put_, copy_, masked_fill_, a
scan loop) into inputs, buffers and op results and into views of them,
with reads of the base and of other views afterwards; chains of views;
elementwise ops with broadcasting and type promotion, reductions, cat /
stack, softmax, layer_norm, casts and, in "mm" programs, matmuls.

Inputs hold multiples of 1/16 in [-2, 2] (exact in every float dtype), ints
in [-8, 8], so that sums are exact and only transcendental ops round.
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STUBS = os.path.join(ROOT, "tests", "ref", "stubs")

DEFAULT_K = 30
FLOAT_LIMIT = 64.0       # |value| bound for float tensors after every statement
INT_LIMIT = 1 << 20      # |value| bound for int tensors

torch = None


def load_torch():
    """torch with the reference stand-ins installed (as the harness has it)."""
    global torch
    if torch is None:
        if STUBS not in sys.path:
            sys.path.insert(0, STUBS)
        import _tngc_ref
        _tngc_ref.install()
        import torch as t
        torch = t
    return torch


DTYPES = {
    "float32": "torch.float32", "float16": "torch.float16", "bfloat16": "torch.bfloat16",
    "int32": "torch.int32", "int64": "torch.int64",
}
SCALARS_F = ["0.5", "2.0", "-1.0", "1.5", "0.25", "-0.5", "3.0", "-2.0"]
SCALARS_I = ["1", "2", "-1", "3", "-2"]


class Reject(Exception):
    pass


def fmt_shape(shape):
    if len(shape) == 1:
        return "(%d,)" % shape[0]
    return "(" + ", ".join(str(s) for s in shape) + ")"


class Program:
    """One generated program: its inputs, buffers, body and outputs."""

    def __init__(self, seed, mm=False, refuse=False):
        self.seed = seed
        self.mm = mm
        self.refuse = refuse
        self.gears = None          # [small, ..., recorded] or None
        self.dynamic = False
        self.inputs = []           # (name, creation expr with {B} for the batch, batched)
        self.buffers = []          # (name, creation expr)
        self.body = []             # statements: lists of source lines (forward's indentation 0)
        self.ret = []              # returned expressions
        self.uses_mm = False

    @property
    def cls(self):
        return "P%d" % self.seed

    def command(self):
        if self.refuse:
            return "gen.py --refuse %d" % (self.seed - REFUSE_BASE)
        return "gen.py --program %d%s" % (self.seed, " --mm" if self.mm else "")

    def source(self):
        """The program's lines in a script: class, compile, inputs, call."""
        s = self.seed
        out = ["", "", "# program seed %d (%s)" % (s, self.command()),
               "class %s(nn.Module):" % self.cls]
        if self.buffers:
            out += ["    def __init__(self):", "        super().__init__()"]
            for name, expr in self.buffers:
                out.append('        self.register_buffer("%s", %s)' % (name, expr))
            out.append("")
        args = ", ".join(["self"] + [n for n, _, _ in self.inputs])
        out.append("    def forward(%s):" % args)
        for stmt in self.body:
            for line in stmt:
                out.append("        " + line)
        out.append("        return " + ", ".join(self.ret) + ("," if len(self.ret) == 1 else ""))
        out += ["", "", "torch.manual_seed(%d)" % s,
                "m%d = torch.compile(%s().npu(), backend=npu_backend, dynamic=%s, fullgraph=True)"
                % (s, self.cls, self.dynamic)]
        big = self.gears[-1] if self.gears else 0
        names = []
        for name, expr, batched in self.inputs:
            gname = "%s_%d" % (name, s)
            names.append(gname)
            out.append("%s = %s.npu()" % (gname, expr.format(B=big)))
        for (name, expr, batched), gname in zip(self.inputs, names):
            if batched:
                out.append("torchair.inference.set_dim_gears(%s, dim_gears={0: %s})"
                           % (gname, self.gears))
        out += ["with torch.no_grad():",
                "    r%d = m%d(%s)" % (s, s, ", ".join(names))]
        return out


REFUSE_BASE = 10 ** 9    # refusal programs' seeds: REFUSE_BASE + the --refuse seed

HEADER = """import torch
import torch_npu
import torchair
from torch import nn

config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)"""


def script(programs, title):
    """A whole script of programs (text)."""
    lines = []
    if any(p.uses_mm for p in programs):
        lines.append("# tolerance: matmul")
    lines.append("# " + title)
    lines.append("# Written by tests/diff/gen.py; each class is one program, its seed above it.")
    lines += HEADER.split("\n")
    for p in programs:
        lines += p.source()
    lines.append("print('done')")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Execution state: the program run so far, at the recorded batch size and at
# every other gear.

class State:
    def __init__(self, prog):
        self.prog = prog
        self.sizes = list(prog.gears) if prog.gears else [None]
        self.nss = None
        self.rebuild()

    def rebuild(self):
        """Runs the accepted program from scratch (after a rejected statement)."""
        t = torch
        p = self.prog
        self.nss = []
        for size in reversed(self.sizes):          # recorded (largest) first
            t.manual_seed(p.seed)
            self_ns = type("Self", (), {})()
            for name, expr in p.buffers:
                setattr(self_ns, name, eval(expr, {"torch": t}))
            ns = {"self": self_ns}
            big = self.sizes[-1] or 0
            for name, expr, batched in p.inputs:
                v = eval(expr.format(B=big), {"torch": t})
                if batched and size != big:
                    v = v[:size].clone()
                ns[name] = v
            self.nss.append(ns)
        for stmt in p.body:
            self.run(stmt, check=False)

    def run(self, stmt, check=True):
        code = "\n".join(stmt)
        g = {"torch": torch, "F": torch.nn.functional}
        for ns in self.nss:
            try:
                exec(code, g, ns)
            except Exception as e:
                raise Reject(str(e))
        if check:
            self.check()

    def check(self):
        shapes = None
        for k, ns in enumerate(self.nss):
            for v in self.tensors(ns):
                if v.numel() == 0:
                    raise Reject("empty")
                if v.dtype.is_floating_point:
                    f = v.float()
                    if not bool(torch.isfinite(f).all()):
                        raise Reject("non-finite")
                    if v.numel() and float(f.abs().max()) > FLOAT_LIMIT:
                        raise Reject("large")
                elif v.dtype in (torch.int32, torch.int64):
                    if v.numel() and int(v.abs().max()) > INT_LIMIT:
                        raise Reject("large int")
            # every gear sees the same names with the same ranks and dtypes
            sh = {n: (len(v.shape), v.dtype) for n, v in self.named(ns)}
            if shapes is None:
                shapes = sh
            elif sh != shapes:
                raise Reject("gear shapes")

    def named(self, ns):
        for n, v in ns.items():
            if isinstance(v, torch.Tensor):
                yield n, v
        for n, v in vars(ns["self"]).items():
            yield "self." + n, v

    def tensors(self, ns):
        return [v for _, v in self.named(ns)]

    # information about a name, at the recorded size
    def t(self, name):
        return eval(name, {}, self.nss[0])

    def dyn(self, name):
        """Per dim: whether it follows the batch size."""
        shapes = [tuple(eval(name, {}, ns).shape) for ns in self.nss]
        return tuple(any(s[d] != shapes[0][d] for s in shapes[1:]) for d in range(len(shapes[0])))


def storage_of(t):
    return t.storage().data_ptr()


def writable(t):
    """No two elements share memory (not an expanded view)."""
    for size, stride in zip(t.shape, t.stride()):
        if size > 1 and stride == 0:
            return False
    return t.numel() > 0


# ---------------------------------------------------------------------------

class Gen:
    def __init__(self, seed, mm=False, refuse=False):
        load_torch()
        self.rng = random.Random(seed)
        self.p = Program(seed, mm, refuse)
        self.n = 0
        self.written = []           # names written in place (most recent last)

    # -- helpers ------------------------------------------------------------
    def new(self):
        self.n += 1
        return "v%d" % self.n

    def names(self):
        return [n for n, _ in self.st.named(self.st.nss[0])]

    def pick(self, pred=None, prefer=None):
        ns = [n for n in self.names() if pred is None or pred(self.st.t(n))]
        if not ns:
            raise Reject("nothing to pick")
        if prefer and self.rng.random() < 0.6:
            pre = [n for n in ns if n in prefer]
            if pre:
                return self.rng.choice(pre)
        return self.rng.choice(ns)

    def static_dims(self, name):
        t = self.st.t(name)
        dyn = self.st.dyn(name)
        return [d for d in range(t.dim()) if not dyn[d]]

    def scalar(self, t):
        if t.dtype.is_floating_point:
            return self.rng.choice(SCALARS_F)
        return self.rng.choice(SCALARS_I)

    def index_expr(self, name, allow_select=True, allow_none=True):
        """A basic index of name: slices with steps / negative bounds, ints, None, ...;
        only along static dims."""
        t = self.st.t(name)
        dyn = self.st.dyn(name)
        r = self.rng
        nd = t.dim()
        if nd == 0:
            return "[None]" if r.random() < 0.5 else "[...]"
        d = r.choice([d for d in range(nd) if not dyn[d]] or [None])
        if d is None:
            return "[:, None]" if nd >= 1 else "[None]"
        n = t.shape[d]
        kind = r.random()
        if allow_select and kind < 0.3 and n > 0:
            i = r.randrange(n)
            comp = str(i if r.random() < 0.5 else i - n)
        else:
            start = r.choice([None, 0, 1, -1, -2, n // 2, -n]) if n > 0 else None
            stop = r.choice([None, None, n, -1, n - 1, 1, -n + 1])
            step = r.choice([None, None, 1, 2, 3])
            comp = "%s:%s" % ("" if start is None else start, "" if stop is None else stop)
            if step is not None:
                comp += ":%d" % step
        # write the dims before d as ':' or an Ellipsis when d is last
        if d == nd - 1 and nd > 1 and r.random() < 0.5:
            parts = ["...", comp]
        else:
            parts = [":"] * d + [comp]
            if allow_none and r.random() < 0.15:
                parts.append("None")
        if parts == [":"]:
            parts = [comp]
        return "[" + ", ".join(parts) + "]"

    def factor_shape(self, n):
        """A random factorisation of n into 1-3 factors."""
        r = self.rng
        fs = []
        while n > 1 and len(fs) < 2 and r.random() < 0.7:
            ds = [d for d in range(2, n + 1) if n % d == 0]
            d = r.choice(ds)
            fs.append(d)
            n //= d
        fs.append(n)
        r.shuffle(fs)
        return fs

    # -- statements ---------------------------------------------------------
    def view_stmt(self):
        r = self.rng
        src = self.pick(lambda t: t.dim() >= 0, prefer=self.written)
        t = self.st.t(src)
        dyn = self.st.dyn(src)
        nd = t.dim()
        sd = [d for d in range(nd) if not dyn[d]]
        v = self.new()
        k = r.randrange(16)
        if k <= 3:
            e = src + self.index_expr(src)
        elif k == 4 and sd:
            d = r.choice(sd)
            n = t.shape[d]
            if n < 1:
                raise Reject("empty")
            a = r.randrange(n)
            ln = r.randrange(1, n - a + 1)
            e = "%s.narrow(%d, %d, %d)" % (src, d if r.random() < 0.7 else d - nd, a, ln)
        elif k in (5, 6):
            # view / reshape: the static dims refactored, the batch dim as -1
            meth = "view" if (k == 5 and t.is_contiguous()) or r.random() < 0.2 else "reshape"
            if any(dyn):
                stat = 1
                for d in range(nd):
                    if not dyn[d]:
                        stat *= t.shape[d]
                fs = self.factor_shape(stat)
                fs.insert(r.randrange(len(fs) + 1), -1)
            else:
                fs = self.factor_shape(t.numel()) if t.numel() > 0 else [0]
                if r.random() < 0.3:
                    fs[r.randrange(len(fs))] = -1
            e = "%s.%s(%s)" % (src, meth, ", ".join(str(f) for f in fs))
        elif k == 7 and nd >= 2:
            a, b = r.sample(range(nd), 2)
            e = r.choice(["%s.transpose(%d, %d)", "%s.swapaxes(%d, %d)", "torch.transpose(%s, %d, %d)"]) \
                % (src, a, b - nd if r.random() < 0.3 else b)
        elif k == 8 and nd >= 2:
            perm = list(range(nd))
            r.shuffle(perm)
            e = "%s.permute(%s)" % (src, ", ".join(map(str, perm)))
        elif k == 9 and nd == 2:
            e = r.choice(["%s.t()", "%s.T"]) % src
        elif k == 10:
            e = "%s.unsqueeze(%d)" % (src, r.randrange(-nd - 1, nd + 1))
        elif k == 11 and any(t.shape[d] == 1 for d in sd):
            d = r.choice([d for d in sd if t.shape[d] == 1])
            e = "%s.squeeze(%d)" % (src, d)
        elif k == 12:
            # expand: a new leading dim or a size-1 dim widened (read only)
            shape = list(t.shape)
            ones = [d for d in sd if shape[d] == 1]
            if ones and r.random() < 0.6:
                shape[r.choice(ones)] = r.randint(2, 4)
                parts = [str(s) if not dyn[d] else "-1" for d, s in enumerate(shape)]
            else:
                parts = [str(r.randint(2, 3))] + [str(s) if not dyn[d] else "-1" for d, s in enumerate(shape)]
            e = "%s.expand(%s)" % (src, ", ".join(parts))
        elif k == 13 and sd:
            d = r.choice(sd)
            n = t.shape[d]
            how = r.randrange(3)
            if how == 0:
                pieces = "%s.split(%d, %d)" % (src, r.randint(1, max(1, n)), d)
            elif how == 1:
                pieces = "%s.chunk(%d, %d)" % (src, r.randint(1, 3), d)
            else:
                pieces = "%s.unbind(%d)" % (src, d)
            cnt = len(eval(pieces, {"torch": torch}, self.st.nss[0]))
            if cnt <= 3 and r.random() < 0.6:
                names = [v] + [self.new() for _ in range(cnt - 1)]
                return ["%s = %s" % (", ".join(names) + ("," if cnt == 1 else ""), pieces)]
            e = "%s[%d]" % (pieces, r.randrange(-cnt, cnt))
        elif k == 14:
            e = "%s[..., None]" % src if r.random() < 0.5 else "%s[None]" % src
        elif k == 15 and nd >= 1:
            e = r.choice(["%s.flatten()", "%s.contiguous()", "%s.movedim(0, -1)"]) % src
            if nd >= 3 and r.random() < 0.5:
                e = "%s.flatten(1)" % src
        else:
            e = src + self.index_expr(src)
        return ["%s = %s" % (v, e)]

    def operand(self, like, prefer=None, fresh_ok=True):
        """A tensor expression (often broadcasting against like's shape) or a scalar."""
        r = self.rng
        t = self.st.t(like)
        if r.random() < 0.25:
            return self.scalar(t)
        if r.random() < 0.06:
            lit = self.literal(like)
            if lit:
                return lit
        o = self.pick(prefer=prefer)
        if r.random() < 0.2 and self.st.t(o).dim() >= 1:
            o = o + self.index_expr(o)
        return o

    def literal(self, like):
        """A torch.tensor literal of distinct values along like's last dim
        (static), in like's dtype, or None."""
        r = self.rng
        t = self.st.t(like)
        if t.dim() == 0 or t.dim() - 1 not in self.static_dims(like) or t.dtype == torch.bool:
            return None
        n = t.shape[-1]
        if t.dtype.is_floating_point:
            vals = ", ".join(repr(round(r.uniform(-3, 3), r.choice([1, 3, 7]))) for _ in range(n))
        else:
            vals = ", ".join(str(r.randrange(-6, 7)) for _ in range(n))
        return "torch.tensor([%s], dtype=%s)" % (vals, str(t.dtype))

    def compute_stmt(self):
        r = self.rng
        v = self.new()
        k = r.randrange(15)
        a = self.pick(prefer=self.aliases_of_written())
        ta = self.st.t(a)
        if k <= 1:
            e = "%s.clone()" % a
            if r.random() < 0.3:   # PyTorch's answer from the strides of a's views
                e = "(%s * 2 if %s.is_contiguous() else %s * 3)" % (a, a, a)
        elif k <= 4:
            b = self.operand(a, prefer=self.aliases_of_written())
            op = r.choice(["+", "-", "*", "+", "*", "/"])
            if op == "/":
                if b[0].isdigit() or b[0] == "-":
                    e = "%s / %s" % (a, b)
                else:
                    e = "%s / (%s.abs() + 1)" % (a, b)
            else:
                e = "%s %s %s" % (a, op, b) if r.random() < 0.8 else "%s %s %s" % (b, op, a)
            if r.random() < 0.15:
                e = "torch.add(%s, %s, alpha=2)" % (a, b)
            if r.random() < 0.1:
                e = "torch.maximum(%s, %s)" % (a, b) if not b[0].isdigit() and b[0] != "-" else e
        elif k == 5:
            f = r.choice(["torch.tanh(%s)", "torch.sigmoid(%s)", "%s.abs()", "-%s", "torch.relu(%s)",
                          "%s * %s", "torch.exp(%s)", "torch.sqrt(%s.abs())", "torch.sin(%s)",
                          "%s.float()", "%s.half()", "%s.bfloat16()", "%s.to(torch.float32)",
                          "%s.int()", "%s.long()"])
            e = f.replace("%s", a)
        elif k == 6:
            nd = ta.dim()
            fn = r.choice(["sum", "sum", "mean", "amax"])
            if nd == 0 or r.random() < 0.15:
                e = "%s.%s()" % (a, fn) if fn != "amax" else "%s.amax(0)" % a if nd else "%s.sum()" % a
            else:
                d = r.randrange(nd)
                kd = r.random() < 0.5
                if r.random() < 0.2 and nd >= 2:
                    dims = "(%d, %d)" % tuple(sorted(r.sample(range(nd), 2)))
                else:
                    dims = str(d if r.random() < 0.7 else d - nd)
                e = "%s.%s(%s%s)" % (a, fn, dims, ", keepdim=True" if kd else "")
                if fn == "sum" and r.random() < 0.3:
                    e = "torch.sum(%s, %s%s)" % (a, dims, ", keepdim=True" if kd else "")
        elif k == 7:
            # cat / stack of pieces of one tensor (shapes agree) or of two names
            nd = ta.dim()
            if nd == 0:
                raise Reject("0-d")
            b = self.pick(lambda t: t.shape == ta.shape) if r.random() < 0.7 else a
            d = r.randrange(nd)
            if r.random() < 0.6:
                e = "torch.cat((%s, %s), %d)" % (a, b, d if r.random() < 0.7 else d - nd)
            else:
                e = "torch.stack([%s, %s], %d)" % (a, b, r.randrange(nd + 1))
        elif k == 8 and self.p.mm:
            e = self.matmul_expr()
        elif k == 9:
            nd = ta.dim()
            if nd == 0 or not ta.dtype.is_floating_point:
                raise Reject("softmax")
            if r.random() < 0.5:
                e = "torch.softmax(%s, %d)" % (a, r.randrange(-nd, nd))
            else:
                for ns in self.st.nss:
                    rows = eval(a, {}, ns).float().reshape(-1, ta.shape[-1])
                    if ta.shape[-1] < 2 or float(rows.var(-1, unbiased=False).min()) < 0.05:
                        raise Reject("layer_norm of a near-constant row")
                e = "torch.nn.functional.layer_norm(%s, (%d,))" % (a, ta.shape[-1])
        elif k == 12:
            nd = ta.dim()
            if nd == 0:
                raise Reject("0-d")
            d = r.randrange(nd)
            b = self.pick()
            e = r.choice(["torch.where(%s > 0, %s, %s)" % (a, a, b),
                          "torch.where(%s < %s, %s, %s)" % (b, a, a, self.scalar(ta)),
                          "%s.masked_fill(%s < 0, %s)" % (a, b, self.scalar(ta)),
                          "torch.flip(%s, (%d,))" % (a, d),
                          "%s.roll(%d, %d)" % (a, r.choice([1, -1, 2]), d),
                          "%s.amin(%d, keepdim=True)" % (a, d),
                          "%s.pow(2)" % a,
                          "torch.rsqrt(%s.abs() + 1)" % a,
                          "%s.repeat(%s)" % (a, ", ".join(r.choice(["1", "2"]) for _ in range(nd))),
                          "torch.tril(%s)" % a if nd >= 2 else "-%s" % a,
                          "%s.expand_as(%s)" % (b, a),
                          "(%s > %s).float()" % (a, b),
                          "%s.max(%d)[0]" % (a, d)])
        elif k == 10:
            # an advanced-index read: a copy, not a view
            ix = self.index_input(ta.shape[0] if ta.dim() else 0)
            e = "%s[%s]" % (a, ix)
        else:
            b = self.operand(a, prefer=self.aliases_of_written())
            e = "%s %s %s" % (a, r.choice(["+", "*", "-"]), b)
        return ["%s = %s" % (v, e)]

    def matmul_expr(self):
        r = self.rng
        cands = []
        ns = self.names()
        for a in ns:
            ta = self.st.t(a)
            if ta.dim() < 2 or not ta.dtype.is_floating_point:
                continue
            for b in ns:
                tb = self.st.t(b)
                if tb.dim() < 1 or tb.dim() > 3 or tb.dtype != ta.dtype:
                    continue
                if tb.dim() >= 2 and tb.shape[-2] == ta.shape[-1]:
                    cands.append("%s @ %s" % (a, b))
                if tb.dim() >= 2 and tb.shape[-1] == ta.shape[-1]:
                    cands.append("torch.matmul(%s, %s.transpose(-1, -2))" % (a, b))
                if tb.dim() == 1 and tb.shape[0] == ta.shape[-1]:
                    cands.append("%s @ %s" % (a, b))
        if not cands:
            raise Reject("no matmul")
        self.p.uses_mm = True
        return r.choice(cands)

    def index_input(self, n):
        """The name of a new int64 index input with distinct values in [0, n)."""
        if n < 1:
            raise Reject("index of empty dim")
        r = self.rng
        cnt = r.randint(1, min(n, 3))
        vals = r.sample(range(n), cnt)
        if r.random() < 0.3:
            vals = [v - n for v in vals]
        name = "ix%d" % len(self.p.inputs)
        self.p.inputs.append((name, "torch.tensor(%s)" % vals, False))
        self.st.rebuild()
        return name

    def aliases_of_written(self):
        """Names sharing storage with something written in place."""
        if not self.written:
            return []
        stor = set()
        for w in self.written[-3:]:
            try:
                stor.add(storage_of(self.st.t(w)))
            except Exception:
                pass
        return [n for n in self.names() if storage_of(self.st.t(n)) in stor]

    def write_stmt(self):
        r = self.rng
        # targets: prefer views (share storage with another name) and op results
        names = self.names()
        by_stor = {}
        for n in names:
            by_stor.setdefault(storage_of(self.st.t(n)), []).append(n)
        cands = [n for n in names if writable(self.st.t(n))]
        if not cands:
            raise Reject("nothing writable")
        views = [n for n in cands if len(by_stor[storage_of(self.st.t(n))]) > 1]
        tgt = r.choice(views) if views and r.random() < 0.7 else r.choice(cands)
        t = self.st.t(tgt)
        isf = t.dtype.is_floating_point
        src = self.operand(tgt)
        if not (src[0].isdigit() or src[0] == "-"):
            base = src.split("[")[0]
            if src == tgt:
                pass                    # the same elements: PyTorch's order does not matter
            elif storage_of(self.st.t(base)) == storage_of(t):
                src = "%s.clone()" % src
            elif r.random() < 0.3:
                src = "%s * %s" % (src, self.scalar(t))
        k = r.randrange(17)
        if k == 0:
            s = "%s.add_(%s)" % (tgt, src)
            if r.random() < 0.3 and isf:
                s = "%s.add_(%s, alpha=%s)" % (tgt, src, r.choice(["0.5", "-2.0"]))
        elif k == 1:
            s = "%s.sub_(%s)" % (tgt, src)
        elif k == 2:
            s = "%s.mul_(%s)" % (tgt, src)
        elif k == 3 and isf:
            s = r.choice(["%s.div_(%s)" % (tgt, self.scalar(t)),
                          "%s.div_(%s.abs() + 1)" % (tgt, self.pick())])
        elif k == 4:
            lo = r.choice(["-1.0", "-0.5", "0.0"]) if isf else r.choice(["-2", "0"])
            hi = r.choice(["1.0", "0.5", "2.0"]) if isf else r.choice(["1", "3"])
            s = r.choice(["%s.clamp_(%s, %s)" % (tgt, lo, hi), "%s.clamp_(min=%s)" % (tgt, lo),
                          "%s.clamp_(max=%s)" % (tgt, hi)])
        elif k == 5:
            s = "%s.fill_(%s)" % (tgt, self.scalar(t)) if r.random() < 0.6 else "%s.zero_()" % tgt
        elif k == 6:
            if src[0].isdigit() or src[0] == "-":
                src = "torch.full_like(%s, %s)" % (tgt, src)
            s = "%s.copy_(%s)" % (tgt, src)
        elif k == 7:
            m = self.pick()
            cond = r.choice([">", "<"])
            s = "%s.masked_fill_(%s %s 0, %s)" % (tgt, m if r.random() < 0.5 else tgt, cond, self.scalar(t))
        elif k in (8, 9):
            s = "%s %s %s" % (tgt, r.choice(["+=", "-=", "*="]), src)
        elif k in (10, 11):
            # slice assignment into a name (often a base), the value a tensor or a scalar
            ix = self.index_expr(tgt, allow_none=r.random() < 0.2)
            if r.random() < 0.3:
                s = "%s%s %s %s" % (tgt, ix, r.choice(["+=", "-=", "*="]), src)
            else:
                s = "%s%s = %s" % (tgt, ix, src)
        elif k == 12 and t.dim() >= 1:
            ix = self.index_input(t.shape[0])
            how = r.randrange(3)
            if how == 0:
                s = "%s.index_put_((%s,), %s)" % (tgt, ix, src)
            elif how == 1:
                s = "%s.index_put_((%s,), %s, accumulate=True)" % (tgt, ix, src)
            elif r.random() < 0.5:
                s = "%s[%s] = %s" % (tgt, ix, src)
            else:   # through a copy: Python stores the result back
                s = "%s[%s] %s %s" % (tgt, ix, r.choice(["+=", "-=", "*="]), src)
        elif k == 13 and t.dim() >= 2:
            # the parallel scan: column i from column i - 1
            dyn = self.st.dyn(tgt)
            ds = [d for d in range(1, t.dim()) if not dyn[d] and t.shape[d] >= 2]
            if not ds:
                raise Reject("scan")
            d = r.choice(ds)
            pre = ":, " * d
            c = r.choice(["2.0", "0.5", "-1.0"]) if isf else r.choice(["2", "-1"])
            op = r.choice(["add_", "sub_"])
            return ["for i in range(1, %d):" % t.shape[d],
                    "    %s[%si].%s(%s[%si - 1] * %s)" % (tgt, pre, op, tgt, pre, c)], tgt
        elif k == 14:
            s = r.choice(["%s.neg_()", "%s.abs_()", "%s.relu_()", "%s.tanh_()",
                          "%s.sigmoid_()"]) % tgt
        else:
            s = "%s.%s(%s)" % (tgt, r.choice(["add_", "mul_", "sub_"]), src)
        if s.startswith(tgt + ".") and r.random() < 0.3:
            # the write through a view made in the same statement
            s = self.inline_view(tgt) + s[len(tgt):]
        elif s.startswith(tgt + " ") and r.random() < 0.2:
            s = tgt + self.index_expr(tgt, allow_none=False) + s[len(tgt):]
        return [s], tgt

    def inline_view(self, name):
        r = self.rng
        t = self.st.t(name)
        nd = t.dim()
        sd = self.static_dims(name)
        opts = [name + self.index_expr(name, allow_none=False), "%s.unsqueeze(0)" % name]
        if nd == 2:
            opts.append("%s.t()" % name)
        if nd >= 2:
            opts.append("%s.transpose(0, -1)" % name)
            opts.append("%s.permute(%s)" % (name, ", ".join(str(d) for d in reversed(range(nd)))))
        if t.is_contiguous() and not any(self.st.dyn(name)):
            opts.append("%s.view(-1)" % name)
        if sd:
            d = r.choice(sd)
            if t.shape[d] >= 2:
                opts.append("%s.narrow(%d, 1, %d)" % (name, d, t.shape[d] - 1))
        e = r.choice(opts)
        if r.random() < 0.3 and "[" not in e:
            e = e + r.choice(["[0]", "[-1]", "[:1]", "[..., ::2]"])
        return e

    # -- the program ---------------------------------------------------------
    def make_inputs(self):
        r = self.rng
        p = self.p
        if r.random() < 0.4:
            p.gears = r.choice([[2, 4], [1, 3], [3, 5], [2, 3]])
            p.dynamic = True
        else:
            r.random()
            p.dynamic = False       # dynamic=True without gears makes every dim symbolic
        pool = [2, 3, 4, 5, 6]

        def shape():
            nd = r.choice([1, 2, 2, 2, 3, 3])
            return [r.choice(pool) for _ in range(nd)]

        def dtype():
            return r.choice(["float32"] * 7 + ["float16", "bfloat16", "int32", "int64"])

        def expr(shp, dt, batched):
            s = "(" + ", ".join(["{B}"] * batched + [str(d) for d in shp]) + ("," if len(shp) + batched == 1 else "") + ")"
            if dt.startswith("int"):
                return "torch.randint(-8, 9, %s, dtype=%s)" % (s, DTYPES[dt])
            e = "(torch.randint(-32, 33, %s) / 16)" % s
            return e if dt == "float32" else "%s.to(%s)" % (e, DTYPES[dt])

        for i in range(r.randint(1, 4)):
            batched = p.gears is not None and r.random() < 0.8
            shp = shape()
            if batched:
                shp = shp[:2]
            p.inputs.append(("x%d" % i, expr(shp, dtype(), batched), batched))
        if p.gears and not any(b for _, _, b in p.inputs):
            p.gears, p.dynamic = None, False     # no geared input: no symbolic dims
        for i in range(r.choice([0, 0, 1, 1, 2])):
            shp = shape()
            e = expr(shp, dtype(), False)
            p.buffers.append(("b%d" % i, e))

    def generate(self, nstmts=None):
        r = self.rng
        self.make_inputs()
        self.st = State(self.p)
        nstmts = nstmts or r.randint(5, 16)
        tries = 0
        while (len(self.p.body) < nstmts or len(self.written) < 2) and tries < nstmts * 25:
            tries += 1
            kind = r.choices(["view", "compute", "write"], [4, 3, 5])[0]
            if len(self.p.body) >= nstmts:
                kind = "write"
            n_save = self.n
            ninputs = len(self.p.inputs)
            tgt = None
            try:
                if kind == "view":
                    stmt = self.view_stmt()
                elif kind == "compute":
                    stmt = self.compute_stmt()
                else:
                    stmt, tgt = self.write_stmt()
                self.st.run(stmt)
            except Reject:
                self.n = n_save
                del self.p.inputs[ninputs:]
                self.st.rebuild()
                continue
            except Exception:
                self.n = n_save
                del self.p.inputs[ninputs:]
                self.st.rebuild()
                continue
            self.p.body.append(stmt)
            if tgt is not None:
                self.written.append(tgt)
        self.returns()
        return self.p

    def returns(self):
        """2-5 outputs: names aliasing written storage (views before and after
        the writes, the bases), the last results."""
        r = self.rng
        names = self.names()
        aliased = self.aliases_of_written()
        locals_ = [n for n in names if n.startswith("v")]
        out = []
        for pool in (aliased, aliased, locals_[-3:], names):
            if pool:
                c = r.choice(pool)
                if c not in out:
                    out.append(c)
        # an output that is an input or a buffer itself is returned as a new tensor
        # half the time (the inputs updated in place are compared anyway)
        res = []
        for c in out[: r.randint(2, 5)]:
            if (not c.startswith("v") and r.random() < 0.5) or r.random() < 0.15:
                c = "%s * 1" % c if not self.st.t(c).dtype.is_floating_point else "%s * 1.0" % c
            res.append(c)
        self.p.ret = res or ["x0"]


# ---------------------------------------------------------------------------
# Forms tngc may refuse (a refusal is a pass, a wrong answer a failure): one
# per program, each program alone in its script.

REFUSE_FORMS = [
    # (needs, lines); {t} a float tensor of rank >= 2, {v} a fresh name
    ["{v} = {t}.as_strided((2, 2), (1, 2))", "{v}.add_(1.0)"],
    ["{v} = {t}.as_strided((2,), (3,), 1)"],
    ["{t}.resize_(2)"],
    ["{v} = {t}[{t} > 0]", "{v}.add_(1.0)"],
    ["{v} = {t}[{t} > 0]"],
    ["{t}[{t} > 0] = 0.5"],
    ["{v} = {t}.view(torch.int32)", "{v}.add_(1)"],
    ["{v} = {t}.unfold(0, 2, 1)", "{v}.mul_(2.0)"],
    ["{t}.set_({t}.clone())"],
    ["{v} = {t}.masked_select({t} < 0)"],
    ["{v} = {t}.nonzero()"],
    ["{v} = {t}.data", "{v}.mul_(2.0)"],
    ["{v} = {t}.detach()", "{v}.sub_(1.0)"],
    ["{v} = {t}[{t}.sum(-1).argmax()]", "{v}.mul_(3.0)"],
    ["{v} = {t}.diagonal()", "{v}.add_(1.0)"],
    ["{v} = {t}.diagonal(0, 0, 1)"],
    ["torch.relu_({t})"],
    ["{v} = {t} // 2"],
    ["{v} = {t} % 3"],
]


def refuse_program(seed):
    rng = random.Random(seed)
    for attempt in range(50):
        g = Gen(REFUSE_BASE + seed, refuse=True)
        g.rng = random.Random(seed * 1000 + attempt)
        p = g.generate(nstmts=rng.randint(2, 6))
        form = REFUSE_FORMS[(seed + attempt) % len(REFUSE_FORMS)]
        ts = [n for n in g.names() if g.st.t(n).dtype == torch.float32 and g.st.t(n).dim() >= 2
              and writable(g.st.t(n))]
        if not ts:
            continue
        t = g.rng.choice(ts)
        v = g.new()
        lines = [l.format(t=t, v=v) for l in form]
        pos = g.rng.randrange(len(p.body) + 1)
        body = p.body[:pos] + [[l] for l in lines] + p.body[pos:]
        old = p.body
        p.body = body
        try:
            g.st.rebuild()
            g.st.check()
        except Exception:
            p.body = old
            continue
        if "{v}" in form[0] or v in "".join(lines):
            p.ret = p.ret + ["%s * 1.0" % v] if not lines[0].startswith(v + " = " + t + ".view(torch.int32)") \
                else p.ret + ["%s * 1" % v]
            try:
                g.st.rebuild()
                for ns in g.st.nss:
                    eval("(" + ", ".join(p.ret) + ",)", {"torch": torch}, ns)
            except Exception:
                p.ret = p.ret[:-1]
        return p
    raise SystemExit("gen.py: no refusal program for seed %d" % seed)


def program(pseed, mm=False):
    return Gen(pseed, mm=mm).generate()


def script_programs(seed, k=DEFAULT_K):
    mm = seed % 4 == 3
    return [program(seed * k + i, mm=mm) for i in range(k)]


def write(path, text):
    if path in (None, "-"):
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="random tngc model scripts (tests/diff)")
    ap.add_argument("seed", nargs="?", type=int, help="script seed: K programs")
    ap.add_argument("-k", type=int, default=DEFAULT_K, help="programs per script (default 30)")
    ap.add_argument("--program", type=int, help="one program, by its seed")
    ap.add_argument("--mm", action="store_true", help="with --program: matmuls allowed")
    ap.add_argument("--refuse", type=int, help="one program with a form tngc may refuse")
    ap.add_argument("-o", dest="out", help="output file (default stdout)")
    a = ap.parse_args(argv)
    if a.program is not None:
        p = program(a.program, a.mm)
        write(a.out, script([p], "program seed %d" % a.program))
    elif a.refuse is not None:
        p = refuse_program(a.refuse)
        write(a.out, script([p], "refusal program, --refuse %d" % a.refuse))
    elif a.seed is not None:
        ps = script_programs(a.seed, a.k)
        write(a.out, script(ps, "script seed %d, %d programs (program seed = %d * %d + index)"
                            % (a.seed, a.k, a.seed, a.k)))
    else:
        ap.error("a seed, --program or --refuse")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
