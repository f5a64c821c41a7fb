#!/usr/bin/env python3
"""The decoder example (examples/decoder/model.py): one decode step at each
gear (batch 1, 2, 4, 8) and a prefill of 8 tokens (bench/decoder/prefill.py,
the same layers), as one bundle run vs one ONNX Runtime run (the model
exported per shape) vs one PyTorch eager call vs one TorchScript call
(traced and frozen per shape, as the bundle has a graph per gear).

The weights are the model's at torch.manual_seed(0), written as safetensors
for the launcher; the inputs are the same .npy files for every contender.
The KV caches are updated in place by every run of every contender (the
same rows each time; the ONNX export computes the updated caches inside the
graph and leaves its inputs as they are, which gives the same logits).
Every contender's logits are checked against PyTorch's.
Also writes latency.dat (batch, bundle us, eager us, torchscript us) for
the plot.

usage: /usr/bin/python3 bench/decoder/bench.py TNGC [OUT_DIR]
"""
import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DECODE = os.path.join(C.ROOT, "examples", "decoder", "model.py")
PREFILL = os.path.join(HERE, "prefill.py")


def decode_inputs(m, batch, g):
    mask = torch.cat((torch.zeros(1, 1, 1, m["DECODE_POS"] + 1),
                      torch.full((1, 1, 1, m["MAX_SEQ"] - m["DECODE_POS"] - 1), -1e4)), dim=-1)
    tokens = torch.randint(0, m["VOCAB"], (batch, 1), generator=g)
    shape = (batch, m["MAX_SEQ"], m["HIDDEN"])
    ks = [torch.randn(shape, generator=g) for _ in range(m["N_LAYERS"])]
    vs = [torch.randn(shape, generator=g) for _ in range(m["N_LAYERS"])]
    return tokens, mask, ks, vs


def prefill_inputs(m, g):
    tokens = torch.randint(0, m["VOCAB"], (m["BATCH"], m["PROMPT"]), generator=g)
    shape = (m["BATCH"], m["MAX_SEQ"], m["HIDDEN"])
    ks = [torch.zeros(shape) for _ in range(m["N_LAYERS"])]
    vs = [torch.zeros(shape) for _ in range(m["N_LAYERS"])]
    return tokens, m["causal_mask"](), ks, vs


def named(args):
    tokens, mask, ks, vs = args
    return ([("tokens", tokens), ("attn_mask", mask)] +
            [("k_caches[%d]" % i, k) for i, k in enumerate(ks)] +
            [("v_caches[%d]" % i, v) for i, v in enumerate(vs)])


def clone(args):
    tokens, mask, ks, vs = args
    return tokens.clone(), mask.clone(), [k.clone() for k in ks], [v.clone() for v in vs]


def measure_case(exe, model, args, tmp, tag, wargs, label):
    """-> ({contender: us}, {contender: max rel err of its logits})."""
    with torch.no_grad():
        ref = model(*clone(args))
    nargs = named(args)
    inargs = C.save_inputs(os.path.join(tmp, "in_" + tag), nargs)
    largs = inargs + wargs
    ts = C.torchscript(model, clone(args))
    a_eager, a_ts = clone(args), clone(args)
    outs = {k: os.path.join(tmp, "out_%s_%s" % (k, tag)) for k in ("tngc", "ort")}
    onnx = None
    if C.ort_harness():
        onnx = C.export_onnx(model, clone(args), os.path.join(tmp, tag + ".onnx"),
                             [n for n, _ in nargs])

    def measure():
        r = {"tngc": C.run_launcher(exe, largs, outs["tngc"], 20, 500)}
        if onnx:
            r["ort"] = C.run_ort(onnx, inargs, outs["ort"], 20, 500)
        r["eager"] = C.time_torch(lambda: model(*a_eager), 20, 500)
        r["torchscript"] = C.time_torch(lambda: ts(*a_ts), 20, 500)
        return r
    # the launcher's first run sees the saved caches: its logits are
    # those of the reference call (every later run rewrites the same rows)
    res = C.rounds(measure)
    errs = {k: C.check_close(label, k, ref, os.path.join(outs[k], "out0.npy"))
            for k in outs if k in res}
    with torch.no_grad():
        errs["torchscript"] = C.check_close(label, "TorchScript", ref, None,
                                            tensor=ts(*clone(args)))
    return res, errs


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    g = torch.Generator().manual_seed(1)
    rows, dat = [], []
    for script, tag in ((DECODE, "decode"), (PREFILL, "prefill")):
        m = runpy.run_path(script, run_name="tngc_bench")
        torch.manual_seed(0)
        model = m["Decoder"]().eval()
        bdir = os.path.join(tmp, tag)
        C.build(tngc, script, bdir)
        exe = C.launcher(bdir)
        os.makedirs(os.path.join(tmp, "w_" + tag))
        wargs = C.save_weights(os.path.join(tmp, "w_" + tag), model)
        cases = ([("decode, batch %d" % b, b, decode_inputs(m, b, g)) for b in (1, 2, 4, 8)]
                 if tag == "decode" else
                 [("prefill, batch 1 x %d tokens" % m["PROMPT"], None, prefill_inputs(m, g))])
        for label, batch, args in cases:
            res, errs = measure_case(exe, model, args, tmp, "%s%s" % (tag, batch), wargs, label)
            flops = C.matmul_flops(lambda: model(*clone(args)))
            rows.append(C.contender_row(label, res, errs, flops))
            if batch is not None:
                dat.append("%d %.2f %.2f %.2f" % (batch, res["tngc"], res["eager"], res["torchscript"]))
    C.table("Decoder (examples/decoder): one step",
            C.CONTENDER_HEADER, rows, os.path.join(outd, "tables.md"),
            C.contender_notes() +
            ["500 calls per round. Target: decode at batch 1 at least 3x faster than eager."])
    with open(os.path.join(outd, "latency.dat"), "w") as f:
        f.write("# batch bundle_us eager_us torchscript_us (decode step)\n" + "\n".join(dat) + "\n")


if __name__ == "__main__":
    main()
