#!/usr/bin/env python3
"""The decoder example (examples/decoder/model.py): one decode step at each
gear (batch 1, 2, 4, 8) and a prefill of 8 tokens (bench/decoder/prefill.py,
the same layers), as one bundle run vs one PyTorch eager call vs one
TorchScript call (traced and frozen per shape, as the bundle has a graph
per gear).

The weights are the model's at torch.manual_seed(0), written as safetensors
for the launcher; the inputs are the same .npy files for every contender.
The KV caches are updated in place by every run of every contender (the
same rows each time). The bundle's logits are checked against PyTorch's.
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


def measure_case(exe, model, args, tmp, tag, wargs):
    """-> ({contender: us}, max rel err of the bundle's logits)."""
    with torch.no_grad():
        ref = model(*clone(args))
    largs = C.save_inputs(os.path.join(tmp, "in_" + tag), named(args)) + wargs
    ts = C.torchscript(model, clone(args))
    a_eager, a_ts = clone(args), clone(args)
    out = os.path.join(tmp, "out_" + tag)

    def measure():
        return {"bundle": C.run_launcher(exe, largs, out, 20, 500),
                "eager": C.time_torch(lambda: model(*a_eager), 20, 500),
                "torchscript": C.time_torch(lambda: ts(*a_ts), 20, 500)}
    # the launcher's first run sees the saved caches: its logits are
    # those of the reference call (every later run rewrites the same rows)
    res = C.rounds(measure)
    return res, C.max_rel_err(ref, os.path.join(out, "out0.npy"))


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
            res, err = measure_case(exe, model, args, tmp, "%s%s" % (tag, batch), wargs)
            if err > 1e-4:
                C.die("%s: the bundle's logits differ from PyTorch's (rel err %.2g)" % (label, err))
            rows.append([label, C.fmt_us(res["bundle"]), C.fmt_us(res["eager"]),
                         C.fmt_us(res["torchscript"]), "%.1fx" % (res["eager"] / res["bundle"]),
                         "%.1fx" % (res["torchscript"] / res["bundle"]), "%.1e" % err])
            if batch is not None:
                dat.append("%d %.2f %.2f %.2f" % (batch, res["bundle"], res["eager"], res["torchscript"]))
    C.table("Decoder (examples/decoder): one step",
            ["", "bundle", "PyTorch eager", "TorchScript", "eager / bundle", "TorchScript / bundle",
             "max rel err"],
            rows, os.path.join(outd, "tables.md"),
            ["Medians of %d rounds of 500 calls. Target: decode at batch 1 at least 3x faster "
             "than eager." % C.ROUNDS])
    with open(os.path.join(outd, "latency.dat"), "w") as f:
        f.write("# batch bundle_us eager_us torchscript_us (decode step)\n" + "\n".join(dat) + "\n")


if __name__ == "__main__":
    main()
