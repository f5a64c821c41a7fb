#!/usr/bin/env python3
"""The small vision model of bench/vision/model.py (conv/BN/ReLU stem,
max-pool, a ResNet basic block, a stride-2 conv, a 1 x 1 conv, global
average pool, Linear) at input 3 x 32 x 32 and 3 x 64 x 64, batch 2 and 4:
one forward as a bundle run vs ONNX Runtime vs PyTorch eager vs
TorchScript, every contender on 1 thread, interleaved rounds, medians.
Every contender's output is checked against PyTorch's; the load average is
printed before and after.

usage: /usr/bin/python3 bench/vision/bench.py TNGC [OUT_DIR]
"""
import os
import re
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "model.py")
SHAPES = [(2, 32), (4, 32), (2, 64), (4, 64)]


def script_for(tmp, batch, size):
    """model.py with its BATCH and SIZE lines set; returns the copy's path."""
    with open(MODEL) as f:
        text = f.read()
    text = re.sub(r"(?m)^BATCH = \d+$", "BATCH = %d" % batch, text)
    text = re.sub(r"(?m)^SIZE = \d+$", "SIZE = %d" % size, text)
    path = os.path.join(tmp, "vision_b%d_s%d.py" % (batch, size))
    with open(path, "w") as f:
        f.write(text)
    return path


def randomise_bn(model):
    """Random running statistics and affine parameters in every BatchNorm:
    the defaults (mean 0, var 1, weight 1, bias 0) would hide a fold that
    drops one of them."""
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(torch.randn(c, generator=g) * 0.2)
                m.running_var.copy_(torch.rand(c, generator=g) + 0.5)
                m.weight.copy_(torch.rand(c, generator=g) + 0.5)
                m.bias.copy_(torch.randn(c, generator=g) * 0.2)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def bench_shape(tngc, tmp, m, model, batch, size):
    d = os.path.join(tmp, "b%d_s%d" % (batch, size))
    os.makedirs(os.path.join(d, "w"))
    g = torch.Generator().manual_seed(1)
    x = torch.randn(batch, 3, size, size, generator=g)
    bdir = os.path.join(d, "bundle")
    C.build(tngc, script_for(d, batch, size), bdir)
    exe = C.launcher(bdir)
    largs = C.save_inputs(os.path.join(d, "in"), [("x", x)]) + \
        C.save_weights(os.path.join(d, "w"), model)
    with torch.no_grad():
        ref = model(x)
    ts = C.torchscript(model, (x,))
    ort = C.ort_harness()
    onnx = C.export_onnx(model, (x,), os.path.join(d, "vision.onnx"), ["x"]) if ort else None
    outs = {k: os.path.join(d, "out_" + k) for k in ("tngc", "ort")}
    warmup, iters = 50, 1000 if size <= 32 else 500

    r = C.rounds(lambda: C.contenders(exe, largs, outs, onnx, lambda: model(x), lambda: ts(x),
                                      warmup, iters))
    label = "batch %d, 3 x %d x %d" % (batch, size, size)
    errs = {k: C.check_close(label, k, ref, os.path.join(outs[k], "out0.npy"))
            for k in outs if k in r}
    with torch.no_grad():
        errs["torchscript"] = C.check_close(label, "TorchScript", ref, None, tensor=ts(x))
    return C.contender_row(label, r, errs, C.matmul_flops(lambda: model(x)))


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    C.set_torch_threads(1)
    m = runpy.run_path(MODEL, run_name="tngc_bench")
    torch.manual_seed(0)
    model = m["Vision"]().eval()
    randomise_bn(model)
    load0 = loadavg()
    rows = [bench_shape(tngc, tmp, m, model, b, s) for b, s in SHAPES]
    load1 = loadavg()
    notes = C.contender_notes() + [
        "Load average (1, 5, 15 min) before: %s, after: %s. The floor counts the "
        "convolutions as direct sums and the Linear (the Winograd form of tngc's "
        "3 x 3 stride-1 convolutions does fewer products)." % (load0, load1)]
    C.table("Vision (bench/vision): one forward, 1 thread",
            C.CONTENDER_HEADER, rows, os.path.join(outd, "tables.md"), notes)


if __name__ == "__main__":
    main()
