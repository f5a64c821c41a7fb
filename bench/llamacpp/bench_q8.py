#!/usr/bin/env python3
"""Weight-only int8 decode: one decode step of the LLaMA example's model
(examples/llama/modeling.py) with its linear layers (lm_head included) as
w8a16, torch_npu.npu_weight_quant_batchmatmul over an int8 weight [in, out]
with one float16 scale per output channel, float16 activations and KV
cache; against llama.cpp's Q8_0 (blocks of 32 int8 along a row with one
float16 scale each) written from the same float16 weights. Hidden sizes
512 and 2048 (FFN 2.75x, head_dim 64, 4 layers, a quarter of the heads
for keys and values, vocab 32000), contexts 64 and 512, on 1 thread.

The two models are not bit-identical (per-channel vs per-block scales), so
each contender is checked against its own PyTorch reference: the float32
decode over the weights its quantisation gives back (tngc: int8 * scale;
llama.cpp: the Q8_0 blocks), after PyTorch's float32 prefill of the same
CTX - 1 context tokens (tngc's cache: that prefill, rounded to float16;
llama.cpp's: its own prefill), max |diff| / max |logit| within TOL (tngc)
and TOL_LLAMA (llama.cpp, whose Q8_0 products also quantise the
activations to 8 bits).

Timing: BENCH_ROUNDS rounds (default 3), each running tngc's launcher (its
p50 over BENCH_LLAMA_ITERS runs, default 20) and then llama.cpp's decode
step (its p50 over as many) for every configuration; the median of the
rounds, with the load average before and after. BENCH_Q8_CASES (e.g.
"512:64,2048:512") limits the run to those hidden sizes and contexts.
BENCH_Q8_BASE names a second tngc (an earlier build) whose bundles are
checked and timed in the same rounds, right after TNGC's (a "before"
column, and new/before).

usage: /usr/bin/python3 bench/llamacpp/bench_q8.py TNGC [OUT_DIR]
"""
import copy
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench as B    # noqa: E402
import gguf    # noqa: E402
from bench import C, np, torch    # noqa: E402

HIDDEN = (512, 2048)
CTXS = (64, 512)
ITERS = B.ITERS
TOL = 2e-2
TOL_LLAMA = 5e-2

# The example's linear layers as w8a16: the class below replaces
# nn.Linear, and the logits' dtype is read from the final norm (the
# lm_head's weight is int8).
W8_CLASS = '''import torch_npu


class W8A16Linear(nn.Module):
    """nn.Linear(in_features, out_features, bias=False) with an int8 weight
    [in_features, out_features] and one scale per output feature (w8a16)."""

    def __init__(self, in_features, out_features, bias=False):
        super().__init__()
        self.register_buffer("weight", torch.zeros(in_features, out_features, dtype=torch.int8))
        self.register_buffer("scale", torch.ones(out_features))

    def forward(self, x):
        y = torch_npu.npu_weight_quant_batchmatmul(x.reshape(-1, x.shape[-1]), self.weight, self.scale)
        return y.reshape(x.shape[0], x.shape[1], -1)

'''


def w8_modeling(src):
    """The example's modeling.py with W8A16Linear for nn.Linear."""
    text = open(src).read()
    anchor = "# transformers.activations.ACT2FN"
    if anchor not in text or "self.lm_head.weight.dtype" not in text:
        C.die("%s: the w8a16 rewrite's anchors are gone" % src)
    text = text.replace("nn.Linear(", "W8A16Linear(")
    text = text.replace("self.lm_head.weight.dtype", "self.model.norm.weight.dtype")
    return text.replace(anchor, W8_CLASS + anchor, 1)


def config_for(hidden):
    heads = hidden // 64
    return dict(vocab_size=32000, hidden_size=hidden, intermediate_size=hidden * 11 // 4,
                num_hidden_layers=4, num_attention_heads=heads, num_key_value_heads=heads // 4,
                num_slots=1, tie_word_embeddings=False)


def linears(model):
    return [(n, m) for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)]


def quantised(model):
    """{linear name: (int8 [out, in], float16 scale [out])}: symmetric per
    output channel, scale = max |w| / 127 rounded to float16."""
    out = {}
    for name, m in linears(model):
        w = m.weight.detach().float()
        s = (w.abs().amax(dim=1) / 127.0).half()
        s = torch.where(s == 0, torch.ones_like(s), s)
        q = torch.round(w / s.float()[:, None]).clamp(-127, 127).to(torch.int8)
        out[name] = (q, s)
    return out


def with_weights(model, values):
    """A float32 copy of model whose linear weights are values[name]."""
    ref = copy.deepcopy(model).float()
    for name, m in linears(ref):
        m.weight.data = torch.as_tensor(values[name], dtype=torch.float32).reshape(m.weight.shape)
    return ref


def rel_err(got, want):
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


def decode_ref(mod, cfg, ref_model, ctx):
    """PyTorch's float32 prefill of the context and decode of token 7 over
    ref_model: (logits, the caches after the prefill)."""
    caches = [(k.float(), v.float()) for k, v in mod["init_kv_caches"](cfg, dtype=torch.float32)]
    ids = torch.tensor([B.context_tokens(ctx)[:-1]])
    with torch.no_grad():
        ref_model.prefill(ids, torch.tensor([0]), caches)
        full = [(k.clone(), v.clone()) for k, v in caches]
        logits = ref_model.decode(torch.tensor([[7]]), torch.tensor([ctx - 1]), torch.tensor([0]), caches)
    return logits.numpy().reshape(-1), full


def prepare(tngc, tmp, mod, modq, hidden, ctx, driver, tag=""):
    """Builds the w8a16 bundle (in folder w8<tag>_<hidden>_<ctx>), writes its
    weights and inputs and the Q8_0 GGUF; checks both against their
    references. -> (launcher, args, err, llama args or None, llama err)."""
    conf = config_for(hidden)
    d = os.path.join(tmp, "w8%s_%d_%d" % (tag, hidden, ctx))
    os.makedirs(d)
    with open(os.path.join(d, "modeling.py"), "w") as f:
        f.write(w8_modeling(B.MODELING))
    script = os.path.join(d, "decode_w8.py")
    with open(script, "w") as f:
        f.write(B.SCRIPT % {"dtype": "torch.float16", "ctx": ctx,
                            "config": ", ".join("%s=%r" % kv for kv in conf.items())})
    C.build(tngc, script, os.path.join(d, "out"))
    exe = C.launcher(os.path.join(d, "out"))
    torch.manual_seed(0)
    cfg = mod["LlamaConfig"](max_position_embeddings=ctx, **conf)
    fmodel = mod["LlamaForCausalLM"](cfg).to(torch.float16).eval()
    q = quantised(fmodel)
    qmodel = modq["LlamaForCausalLM"](modq["LlamaConfig"](max_position_embeddings=ctx, **conf))
    qmodel = qmodel.to(torch.float16).eval()
    sd = {k: v for k, v in fmodel.state_dict().items()}
    for name, (w, s) in q.items():
        sd[name + ".weight"] = w.t().contiguous()
        sd[name + ".scale"] = s
    qmodel.load_state_dict(sd)
    wargs = C.save_weights(d, qmodel)
    ref_model = with_weights(fmodel, {n: w.float() * s.float()[:, None] for n, (w, s) in q.items()})
    ref, full = decode_ref(mod, cfg, ref_model, ctx)
    named = [("input_ids", torch.tensor([[7]])), ("positions", torch.tensor([ctx - 1])),
             ("slot_ids", torch.tensor([0]))]
    for i, (k, v) in enumerate(full):
        named += [("kv_caches[%d][0]" % i, k.half().float()), ("kv_caches[%d][1]" % i, v.half().float())]
    args = C.save_inputs(os.path.join(d, "in"), named) + wargs
    out = os.path.join(d, "check")
    C.run_launcher(exe, args, out, 0, 1)
    err = rel_err(np.load(os.path.join(out, "out0.npy")).reshape(-1), ref)
    if not err <= TOL:
        C.die("w8a16 decode hidden %d ctx %d: logits differ from PyTorch's by %.3g of the largest" %
              (hidden, ctx, err))
    if driver is None:
        return exe, args, err, None, None
    gguf.write_llama(os.path.join(d, "model.gguf"), fmodel, cfg, ctx, gguf.GGML_Q8_0)
    lref_model = with_weights(fmodel, {n: gguf.q8_0_values(m.weight) for n, m in linears(fmodel)})
    lref, _ = decode_ref(mod, cfg, lref_model, ctx)
    tokens = os.path.join(d, "tokens.i32")
    np.asarray(B.context_tokens(ctx), dtype="<i4").tofile(tokens)
    largs = ["--model", os.path.join(d, "model.gguf"), "--tokens", tokens, "--kv", "f16"]
    logits = os.path.join(d, "llama_logits.f32")
    B.run_llama(driver, largs + ["--logits", logits], 1, 0, 1)
    lerr = rel_err(np.fromfile(logits, dtype="<f4"), lref)
    if not lerr <= TOL_LLAMA:
        C.die("llama.cpp Q8_0 decode hidden %d ctx %d: logits differ from PyTorch's by %.3g of the "
              "largest" % (hidden, ctx, lerr))
    return exe, args, err, largs, lerr


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    mod, modq = {}, {}
    sys.path.insert(0, os.path.dirname(B.MODELING))
    exec(compile(open(B.MODELING).read(), B.MODELING, "exec"), mod)
    exec(compile(w8_modeling(B.MODELING), "modeling_w8a16", "exec"), modq)
    driver = B.llama_driver(tmp)
    only = [c.split(":") for c in os.environ.get("BENCH_Q8_CASES", "").split(",") if c]
    base = os.environ.get("BENCH_Q8_BASE")
    cases, bases = {}, {}
    for hidden in HIDDEN:
        for ctx in CTXS:
            if only and [str(hidden), str(ctx)] not in only:
                continue
            cases[(hidden, ctx)] = prepare(tngc, tmp, mod, modq, hidden, ctx, driver)
            if base:
                bases[(hidden, ctx)] = prepare(os.path.abspath(base), tmp, mod, modq, hidden, ctx, None,
                                               "_base")
    load0 = os.getloadavg()
    acc, bacc, lacc = {}, {}, {}
    env = dict(os.environ, TNGRT_THREADS="1")
    for _ in range(C.ROUNDS):
        for key, (exe, args, _, largs, _) in cases.items():
            acc.setdefault(key, []).append(C.run_launcher(exe, args, os.path.join(tmp, "o"), 3, ITERS,
                                                          env=env))
            if key in bases:
                bexe, bargs = bases[key][0], bases[key][1]
                bacc.setdefault(key, []).append(C.run_launcher(bexe, bargs, os.path.join(tmp, "o"), 3,
                                                               ITERS, env=env))
            if largs is not None:
                lacc.setdefault(key, []).append(B.run_llama(driver, largs, 1, 3, ITERS))
    load1 = os.getloadavg()
    rows = []
    for key in cases:
        t = statistics.median(acc[key])
        lt = statistics.median(lacc[key]) if key in lacc else None
        row = ["%d" % key[0], "%d" % key[1]]
        if bases:
            bt = statistics.median(bacc[key])
            row += ["%.2f ms" % (bt / 1e3), "%.2fx" % (bt / t)]
        rows.append(row + ["%.2f ms" % (t / 1e3), "%.2f ms" % (lt / 1e3) if lt else "-",
                           "%.2fx" % (lt / t) if lt else "-"])
    notes = ["load average (1, 5, 15 min) before %.2f %.2f %.2f, after %.2f %.2f %.2f; %d cores"
             % (load0 + load1 + (os.cpu_count() or 0,)),
             "logits vs PyTorch float32 over each contender's dequantised weights (max |diff| / "
             "max |logit|): " + ", ".join(
                 "%d ctx %d tngc %.1e%s" % (k[0], k[1], c[2], "" if c[4] is None else
                                            ", llama.cpp %.1e" % c[4]) for k, c in cases.items()),
             "%d rounds, each contender's p50 over %d decode steps on 1 thread, medians; "
             "llama.cpp/tngc above 1: tngc is faster" % (C.ROUNDS, ITERS)]
    C.table("LLaMA decode step, weight-only int8: tngc w8a16 (per channel) vs llama.cpp Q8_0",
            ["hidden", "context"] + (["before (BENCH_Q8_BASE)", "before/tngc"] if bases else []) +
            ["tngc w8a16", "llama.cpp Q8_0", "llama.cpp/tngc"], rows,
            os.path.join(outd, "tables.md"), notes)


if __name__ == "__main__":
    main()
