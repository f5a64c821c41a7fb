"""Writes the op sweep's model scripts: every elementwise row of ir/ops.def
(flag OPF_ELEMWISE) called the way PyTorch spells it, found by trying.

usage: gen.py OPS_DEF OUTDIR   (prints what it covers and what it skips)

For each row, the Python spelling is the first of these that PyTorch
accepts on float32 tensors: torch.NAME(x), torch.NAME(x, y),
torch.nn.functional.NAME(x), torch.NAME(c, x, y) (a bool c), with NAME the
row's dump name (a trailing "_tensor" dropped: pow_tensor is torch.pow).
A row none of them fits (it needs an argument the sweep cannot guess, or
tngc makes it from another spelling, as cast from .to()) is listed as
skipped with the reason; the conformance models of tests/conform/models
cover those by hand.

Each spelling is then called on every input dtype PyTorch's CPU accepts
for it (float32, float16, bfloat16, int32, bool; tried here with PyTorch,
so a dtype PyTorch refuses is left out rather than guessed), in two
layouts: x [B, 8] with y [1, 8] broadcast, and the transposed views x.t(),
y.t() (not contiguous); a binary op also with a Python int and a Python
float as y, where PyTorch takes them. B is a gear dim (2 or 4, zip gears): every gear is
run. One model per family (unary, binary, other) so the builds run in
parallel. No op needs a test of its own: a new elementwise row is swept
the day it is added.
"""
import re
import sys

import torch

SPELLINGS = [
    ("torch.{n}(x)", lambda f, x, y, c: f(x), "torch"),
    ("torch.{n}(x, y)", lambda f, x, y, c: f(x, y), "torch"),
    ("F.{n}(x)", lambda f, x, y, c: f(x), "F"),
    ("torch.{n}(c, x, y)", lambda f, x, y, c: f(c, x, y), "torch"),
]
DTYPES = ["float32", "float16", "bfloat16", "int32", "bool"]


def rows(path):
    text = open(path).read()
    for m in re.finditer(r'^OP\((\w+),\s*"(\w+)",\s*([\w|]+)', text, re.M):
        yield m.group(1), m.group(2), m.group(3)


def sample(dtype, shape):
    g = torch.Generator().manual_seed(7)
    if dtype == "bool":
        return torch.rand(shape, generator=g) > 0.5
    if dtype == "int32":
        return torch.randint(-4, 5, shape, generator=g, dtype=torch.int32)
    return (torch.rand(shape, generator=g) * 4 - 2).to(getattr(torch, dtype))


def spelling(name):
    """The first spelling PyTorch accepts on some input dtype, with those dtypes."""
    py = name[:-len("_tensor")] if name.endswith("_tensor") else name
    for form, call, ns in SPELLINGS:
        mod = torch if ns == "torch" else torch.nn.functional
        f = getattr(mod, py, None)
        if f is None or not callable(f):
            continue
        dts = dtypes_for(call, f)
        if dts:
            return form.format(n=py), dts
    return None, []


def dtypes_for(call, f):
    ok = []
    for dt in DTYPES:
        x, y = sample(dt, (4, 8)), sample(dt, (1, 8))
        c = sample("bool", (4, 8))
        try:
            out = call(f, x, y, c)
            if not isinstance(out, torch.Tensor):
                continue
            out.float().sum()
        except Exception:
            continue
        ok.append(dt)
    return ok


def scalar_ok(name, dt, num):
    py = name[:-len("_tensor")] if name.endswith("_tensor") else name
    try:
        out = getattr(torch, py)(sample(dt, (4, 8)), eval(num))
        return isinstance(out, torch.Tensor)
    except Exception:
        return False


HEADER = '''# Written by tests/sweep/gen.py from ir/ops.def: the {family} elementwise
# rows, each in the spelling PyTorch accepts, on the dtypes PyTorch's CPU
# takes for it, contiguous (x [B, 8], y [1, 8] broadcast) and transposed.
# tolerance: default
import torch
import torch.nn.functional as F
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, {params}):
        outs = []
'''
FOOTER = '''        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
compiled = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
{inputs}
for t in ({geared},):
    torchair.inference.set_dim_gears(t, dim_gears={{0: [2, 4]}})
with torch.no_grad():
    outs = compiled({args})
print(len(outs))
'''
MAKE = {
    "float32": "(torch.rand({s}) * 4 - 2)",
    "float16": "(torch.rand({s}) * 4 - 2).half()",
    "bfloat16": "(torch.rand({s}) * 4 - 2).bfloat16()",
    "int32": "torch.randint(-4, 5, {s}, dtype=torch.int32)",
    "bool": "(torch.rand({s}) > 0.5)",
}


def main():
    ops_def, outdir = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    families = {"unary": [], "binary": [], "other": []}
    used = set()
    skipped = []
    for enum, name, flags in rows(ops_def):
        if "OPF_ELEMWISE" not in flags:
            continue
        form, dts = spelling(name)
        if form is None:
            skipped.append("%s (%s): no spelling of torch.%s fits x, (x, y) or (c, x, y)" % (name, enum, name))
            continue
        fam = "unary" if form.endswith("(x)") else "binary" if "(x, y)" in form else "other"
        for dt in dts:
            used.add(dt)
            families[fam].append((name, form, dt))
    inputs_of = {dt: ("x_%s" % dt, "y_%s" % dt) for dt in DTYPES}
    for fam, calls in families.items():
        if not calls:
            continue
        dts = [dt for dt in DTYPES if any(c[2] == dt for c in calls)]
        params = ["c"] + [p for dt in dts for p in inputs_of[dt]]
        body = []
        for name, form, dt in calls:
            x, y = inputs_of[dt]
            layouts = [("", (x, y, "c")), (" transposed", (x + ".t()", y + ".t()", "c.t()"))]
            if fam == "binary":   # a Python number as the second operand, where PyTorch takes one
                for num in ("2", "1.5"):
                    if scalar_ok(name, dt, num):
                        layouts.append((" scalar " + num, (x, num, "c")))
            for layout, (xa, ya, ca) in layouts:
                expr = form.replace("(c, x, y)", "(%s, %s, %s)" % (ca, xa, ya)).replace("(x, y)", "(%s, %s)" % (xa, ya))
                expr = expr.replace("(x)", "(%s)" % xa)
                body.append("        outs.append(%s)   # %s %s%s\n" % (expr, name, dt, layout))
        inputs = ["c = torch.rand(4, 8) > 0.5"]
        for dt in dts:
            x, y = inputs_of[dt]
            inputs.append("%s = %s" % (x, MAKE[dt].format(s="(4, 8)")))
            inputs.append("%s = %s" % (y, MAKE[dt].format(s="(1, 8)")))
        geared = ", ".join(["c"] + [inputs_of[dt][0] for dt in dts])
        with open("%s/sweep_%s.py" % (outdir, fam), "w") as out:
            out.write(HEADER.format(family=fam, params=", ".join(params)))
            out.writelines(body)
            out.write(FOOTER.format(inputs="\n".join(inputs), geared=geared, args=", ".join(params)))
        print("sweep: %s: %d calls of %d rows" % (fam, len(body), len(set(c[0] for c in calls))))
    for s in skipped:
        print("sweep: skipped " + s)


main()
