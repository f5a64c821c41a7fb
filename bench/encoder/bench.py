#!/usr/bin/env python3
"""The 3-layer encoder of bench/encoder/model.py (hand-written RMSNorm,
attention, SiLU-gated MLP; d = 64, 2 x 10 tokens): one forward as a bundle
run vs ONNX Runtime vs PyTorch eager vs TorchScript, with its compute floor
(the matmul FLOPs at one core's measured peak). Every contender's output is
checked against PyTorch's.

usage: /usr/bin/python3 bench/encoder/bench.py TNGC [OUT_DIR]
"""
import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "model.py")


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    m = runpy.run_path(MODEL, run_name="tngc_bench")
    torch.manual_seed(0)
    model = m["Encoder"]().eval()
    # RMSNorm weights of ones would hide a missing multiply: perturb them.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.add_(torch.randn(p.shape) * 0.1)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(m["BATCH"], m["TOKENS"], m["HIDDEN"], generator=g)
    bdir = os.path.join(tmp, "bundle")
    C.build(tngc, MODEL, bdir)
    exe = C.launcher(bdir)
    os.makedirs(os.path.join(tmp, "w"))
    largs = C.save_inputs(os.path.join(tmp, "in"), [("x", x)]) + \
        C.save_weights(os.path.join(tmp, "w"), model)
    with torch.no_grad():
        ref = model(x)
    ts = C.torchscript(model, (x,))
    ort = C.ort_harness()
    onnx = C.export_onnx(model, (x,), os.path.join(tmp, "encoder.onnx"), ["x"]) if ort else None
    outs = {k: os.path.join(tmp, "out_" + k) for k in ("tngc", "ort")}
    warmup, iters = 50, 2000

    r = C.rounds(lambda: C.contenders(exe, largs, outs, onnx, lambda: model(x), lambda: ts(x),
                                      warmup, iters))
    label = "3-layer encoder, 2 x 10 tokens, d 64"
    errs = {k: C.check_close(label, k, ref, os.path.join(outs[k], "out0.npy"))
            for k in outs if k in r}
    with torch.no_grad():
        errs["torchscript"] = C.check_close(label, "TorchScript", ref, None, tensor=ts(x))
    flops = C.matmul_flops(lambda: model(x))
    C.table("Encoder (bench/encoder): one forward",
            C.CONTENDER_HEADER, [C.contender_row(label, r, errs, flops)],
            os.path.join(outd, "tables.md"), C.contender_notes())


if __name__ == "__main__":
    main()
