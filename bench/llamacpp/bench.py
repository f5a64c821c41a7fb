#!/usr/bin/env python3
"""Half-precision decode: one decode step of the LLaMA example's model
(examples/llama/modeling.py, its decode entry) at a size where decode is
bound by reading the weights (hidden 1024, FFN 2816, 4 layers, 16 heads,
4 key/value heads, vocab 32000, untied lm_head: 77 M parameters read per
token), with float32, float16 and bfloat16 weights, activations and KV
cache, at cache lengths 64 and 512, on 1 and 2 threads (TNGRT_THREADS).

Every configuration's bundle is built once (tngc build --no-cache), its
weights written once (the model at torch.manual_seed(0), rounded to the
dtype), and its logits checked against PyTorch's float32 decode over the
same rounded weights and cache (max |diff| / max |logit|: 1e-4 for
float32, 2e-2 for the half types). Timing: BENCH_ROUNDS rounds (default
3), each running every configuration's launcher in turn (its p50 over
BENCH_LLAMA_ITERS runs, default 20), the median of the rounds reported,
with the load average before and after (the machine is shared).

The llama.cpp anchor (npm @node-llama-cpp/linux-x64, libllama.so through
its C API, the same weights written as GGUF) is not part of this script.

BENCH_LLAMA_CASES (e.g. "f16:64,f32:64") limits the run to those dtypes and
cache lengths; the table then shows them alone.

usage: /usr/bin/python3 bench/llamacpp/bench.py TNGC [OUT_DIR]
"""
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import np, torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELING = os.path.join(C.ROOT, "examples", "llama", "modeling.py")
DTYPES = (("f32", "torch.float32"), ("f16", "torch.float16"), ("bf16", "torch.bfloat16"))
CTXS = (64, 512)
THREADS = (1, 2)
ITERS = int(os.environ.get("BENCH_LLAMA_ITERS", "20"))
CONFIG = dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
              num_attention_heads=16, num_key_value_heads=4, num_slots=1,
              tie_word_embeddings=False)
TOL = {"f32": 1e-4, "f16": 2e-2, "bf16": 2e-2}

SCRIPT = """import torch
import torch_npu
import torchair

from modeling import LlamaConfig, LlamaForCausalLM, init_kv_caches

DTYPE = %(dtype)s
CTX = %(ctx)d

torch.manual_seed(0)
config = LlamaConfig(max_position_embeddings=CTX, %(config)s)
model = LlamaForCausalLM(config).to(DTYPE).npu().eval()
kv_caches = init_kv_caches(config, dtype=DTYPE)
for key_cache, value_cache in kv_caches:
    torch._dynamo.mark_static(key_cache)
    torch._dynamo.mark_static(value_cache)
npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
decode = torch.compile(model.decode, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    decode(torch.tensor([[7]]).npu(), torch.tensor([CTX - 1]).npu(), torch.tensor([0]).npu(),
           kv_caches)
"""


def model_for(mod, ctx, dtype):
    torch.manual_seed(0)
    cfg = mod["LlamaConfig"](max_position_embeddings=ctx, **CONFIG)
    return cfg, mod["LlamaForCausalLM"](cfg).to(dtype).eval()


def prepare(tngc, tmp, mod, ctx, tag, dtname):
    """Builds the bundle and writes its weights and inputs; checks its
    logits against PyTorch's float32 decode. -> (launcher, args)."""
    dtype = eval(dtname)
    d = os.path.join(tmp, "%s_%d" % (tag, ctx))
    os.makedirs(d)
    shutil.copy(MODELING, d)
    script = os.path.join(d, "decode_%s.py" % tag)
    with open(script, "w") as f:
        f.write(SCRIPT % {"dtype": dtname, "ctx": ctx,
                          "config": ", ".join("%s=%r" % kv for kv in CONFIG.items())})
    C.build(tngc, script, os.path.join(d, "out"))
    exe = C.launcher(os.path.join(d, "out"))
    cfg, model = model_for(mod, ctx, dtype)
    wargs = C.save_weights(d, model)
    g = torch.Generator().manual_seed(1)
    caches = [(torch.randn(c.shape, generator=g).to(dtype),
               torch.randn(c.shape, generator=g).to(dtype))
              for c, _ in mod["init_kv_caches"](cfg, dtype=dtype)]
    ids, pos, slot = torch.tensor([[7]]), torch.tensor([ctx - 1]), torch.tensor([0])
    named = [("input_ids", ids), ("positions", pos), ("slot_ids", slot)]
    for i, (k, v) in enumerate(caches):
        named += [("kv_caches[%d][0]" % i, k.float()), ("kv_caches[%d][1]" % i, v.float())]
    args = C.save_inputs(os.path.join(d, "in"), named) + wargs
    # the reference: float32 over the rounded weights and cache
    ref_model = model.float()
    with torch.no_grad():
        ref = ref_model.decode(ids, pos, slot, [(k.float(), v.float()) for k, v in caches])
    out = os.path.join(d, "check")
    C.run_launcher(exe, args, out, 0, 1)
    got = np.load(os.path.join(out, "out0.npy"))
    err = float(np.max(np.abs(got - ref.numpy())) / np.max(np.abs(ref.numpy())))
    if not err <= TOL[tag]:
        C.die("decode %s ctx %d: logits differ from PyTorch's by %.3g of the largest" %
              (tag, ctx, err))
    return exe, args, err


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    mod = {}
    sys.path.insert(0, os.path.dirname(MODELING))
    exec(compile(open(MODELING).read(), MODELING, "exec"), mod)
    cases, errs = {}, {}
    only = [c.split(":") for c in os.environ.get("BENCH_LLAMA_CASES", "").split(",") if c]
    for ctx in CTXS:
        for tag, dtname in DTYPES:
            if only and [tag, str(ctx)] not in only:
                continue
            exe, args, err = prepare(tngc, tmp, mod, ctx, tag, dtname)
            cases[(ctx, tag)] = (exe, args)
            errs[(ctx, tag)] = err
    load0 = os.getloadavg()
    acc = {}
    for _ in range(C.ROUNDS):
        for (ctx, tag), (exe, args) in cases.items():
            for th in THREADS:
                env = dict(os.environ, TNGRT_THREADS=str(th))
                us = C.run_launcher(exe, args, os.path.join(tmp, "o"), 3, ITERS, env=env)
                acc.setdefault((ctx, tag, th), []).append(us)
    load1 = os.getloadavg()
    med = {k: statistics.median(v) for k, v in acc.items()}
    rows = []

    def ms(c, t, h):
        return "%.2f ms" % (med[(c, t, h)] / 1e3) if (c, t, h) in med else "-"

    def ratio(x, y):
        return "%.2fx" % (med[x] / med[y]) if x in med and y in med else "-"
    for ctx in CTXS:
        for th in THREADS:
            if not any((ctx, t, th) in med for t, _ in DTYPES):
                continue
            rows.append(["%d" % ctx, "%d" % th] + [ms(ctx, t, th) for t, _ in DTYPES] +
                        [ratio((ctx, "f32", th), (ctx, t, th)) for t in ("f16", "bf16")] +
                        [ratio((ctx, t, 1), (ctx, t, th)) for t, _ in DTYPES])
    notes = ["load average (1, 5, 15 min) before %.2f %.2f %.2f, after %.2f %.2f %.2f; %d cores"
             % (load0 + load1 + (os.cpu_count() or 0,)),
             "logits vs PyTorch float32 over the rounded weights (max |diff| / max |logit|): " +
             ", ".join("%s ctx %d %.1e" % (t, c, e) for (c, t), e in sorted(errs.items())),
             "%d rounds, the launcher's p50 over %d runs each, medians" % (C.ROUNDS, ITERS)]
    C.table("LLaMA decode step (77 M parameters read per token), f32 vs f16 vs bf16",
            ["context", "threads", "f32", "f16", "bf16", "f32/f16", "f32/bf16",
             "f32 1t/this", "f16 1t/this", "bf16 1t/this"], rows,
            os.path.join(outd, "tables.md"), notes)


if __name__ == "__main__":
    main()
