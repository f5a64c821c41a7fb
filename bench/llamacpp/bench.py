#!/usr/bin/env python3
"""Half-precision decode: one decode step of the LLaMA example's model
(examples/llama/modeling.py, its decode entry) at sizes where decode is
bound by reading the weights, LLaMA's proportions (head_dim 64, a quarter
as many key/value heads as query heads, FFN 2.75 x hidden, vocab 32000,
untied lm_head): hidden 512 x 8 layers (8 heads, FFN 1408: 39 M
parameters read per token) and hidden 2048 x 4 layers (32 heads, FFN
5632: 246 M), and hidden 1024 x 4 layers (16 heads, FFN 2816: 77 M) when
BENCH_LLAMA_SIZES names it (e.g. "512x8,2048x4,1024x4"; default
"512x8,2048x4"), with float32, float16 and bfloat16 weights, activations
and KV cache, at cache lengths 64 and 512, on 1 and 2 threads
(TNGRT_THREADS), and on the thread count a bundle picks by default
(TNGRT_THREADS unset: "dflt" rows).

Every configuration's bundle is built once (tngc build --no-cache), its
weights written once (the model at torch.manual_seed(0), rounded to the
dtype), and its logits checked against PyTorch's float32 decode over the
same rounded weights and cache (max |diff| / max |logit|: 1e-4 for
float32, 2e-2 for the half types). Timing: BENCH_ROUNDS rounds (default
3), each running every configuration's launcher in turn (its p50 over
BENCH_LLAMA_ITERS runs, default 20), the median of the rounds reported,
with the load average before and after (the machine is shared).

The context is CTX - 1 tokens prefilled by PyTorch (float32 over the
rounded weights; the cache then rounded to the dtype): the same context
llama.cpp prefills itself, so that both decode the same token at the same
position over the same cache content.

llama.cpp (npm @node-llama-cpp/linux-x64, pinned in bench/package.json,
installed by make bench-deps): the same rounded weights written as GGUF
(gguf.py), driven through libllama's C API by llama_driver.c: it prefills
the CTX - 1 context tokens, then times the decode step of the same token
at position CTX - 1 (its p50 over BENCH_LLAMA_ITERS steps), KV cache of
the model's dtype. Its logits are checked against PyTorch's float32
prefill and decode over the rounded weights (TOL_LLAMA). It runs right
after tngc's launcher for the same configuration and thread count, in
every round; the table gives the ratio llama.cpp / tngc (above 1: tngc is
faster). Without the package (or LLAMA_LIB_DIR), tngc's side alone.

Prefill: the first BENCH_LLAMA_PREFILL context tokens (default 128; 0:
none) into an empty cache, per dtype of the cases run, at the size
BENCH_LLAMA_PREFILL_SIZE (default 1024x4), by two bundles of tngc, each
built alone: the model's prefill entry (every token's logits) and
LAST_TOKEN_CLASS's prefill_last (the last token's logits: the last layer's
MLP, the final norm and lm_head on its row alone, as llama.cpp's graph
with one output row computes them), each one's logits checked against
PyTorch's float32 run of the same entry; and by llama.cpp twice: computing
the logits of every token (llama_driver --all-logits, every token's logits
checked) and of the last token only (its usual prefill). The table
compares equal work (every token with every token, last token with last
token) and, as a third row, tngc's every-token prefill with llama.cpp's
last-token one. 1 and 2 threads, the p50 over BENCH_LLAMA_PREFILL_ITERS
runs (default 5) after one untimed run, in the same rounds.

BENCH_LLAMA_CASES (e.g. "f16:64,f32:64") limits the run to those dtypes and
cache lengths; the table then shows them alone. Every table gives the
load average before and after its runs (the machine is shared).

usage: /usr/bin/python3 bench/llamacpp/bench.py TNGC [OUT_DIR]
"""
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import np, torch    # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELING = os.path.join(C.ROOT, "examples", "llama", "modeling.py")
DTYPES = (("f32", "torch.float32"), ("f16", "torch.float16"), ("bf16", "torch.bfloat16"))
CTXS = (64, 512)
THREADS = (1, 2)
# the thread count the bundle picks itself (TNGRT_THREADS unset) is timed
# too, as "dflt"; llama.cpp's column then repeats its 2-thread figure
DEFAULT = "dflt"
ITERS = int(os.environ.get("BENCH_LLAMA_ITERS", "20"))
# hidden x layers: (hidden, layers)
SIZE_DIMS = {"512x8": (512, 8), "1024x4": (1024, 4), "2048x4": (2048, 4)}
SIZES = [z for z in os.environ.get("BENCH_LLAMA_SIZES", "512x8,2048x4").split(",") if z]
PREFILL_SIZE = os.environ.get("BENCH_LLAMA_PREFILL_SIZE", "1024x4")


def config_of(size):
    """The model's config at size "HIDDENxLAYERS": head_dim 64, a quarter
    as many key/value heads, FFN 2.75 x hidden, vocab 32000."""
    if size not in SIZE_DIMS:
        C.die("BENCH_LLAMA_SIZES: %r is none of %s" % (size, ", ".join(SIZE_DIMS)))
    hidden, layers = SIZE_DIMS[size]
    return dict(vocab_size=32000, hidden_size=hidden, intermediate_size=hidden * 11 // 4,
                num_hidden_layers=layers, num_attention_heads=hidden // 64,
                num_key_value_heads=hidden // 256, num_slots=1, tie_word_embeddings=False)


def params_of(size):
    """Parameters read per decoded token (every weight but the embedding)."""
    c = config_of(size)
    h, f, kv = c["hidden_size"], c["intermediate_size"], c["num_key_value_heads"] * 64
    per_layer = 2 * h * h + 2 * h * kv + 3 * h * f + 2 * h
    return c["num_hidden_layers"] * per_layer + h + h * c["vocab_size"]
PREFILL = int(os.environ.get("BENCH_LLAMA_PREFILL", "128"))
PREFILL_ITERS = int(os.environ.get("BENCH_LLAMA_PREFILL_ITERS", "5"))
TOL = {"f32": 1e-4, "f16": 2e-2, "bf16": 2e-2}
# llama.cpp computes its own cache (prefill) in the dtype, and its
# matrix products with half weights round the activations to that type
TOL_LLAMA = {"f32": 1e-3, "f16": 2e-2, "bf16": 5e-2}
GGML = {"f32": gguf.GGML_F32, "f16": gguf.GGML_F16, "bf16": gguf.GGML_BF16}
NPM_LLAMA = "@node-llama-cpp/linux-x64"

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


# The prefill entry with the last token's logits alone, as serving engines
# and llama.cpp's usual prefill compute them: every layer's keys and values
# of the S tokens go to the cache, the last layer's MLP, the final norm and
# lm_head run on the last token's row (llama.cpp's graph with one output
# row selects it after the last layer's attention, as here). The bundle's
# script and the PyTorch reference both run this source.
LAST_TOKEN_CLASS = '''class LastTokenLlama(LlamaForCausalLM):
    def prefill_last(self, input_ids, slot_ids, kv_caches):
        """input_ids [1, S] int64, slot_ids [1] int64 -> logits [1, 1, vocab]"""
        seq_len = input_ids.shape[1]
        dtype = self.lm_head.weight.dtype
        position_ids = torch.arange(seq_len, device=input_ids.device)[None, :]
        min_dtype = torch.finfo(dtype).min
        causal_mask = torch.full((seq_len, seq_len), fill_value=min_dtype, dtype=dtype,
                                 device=input_ids.device)
        causal_mask = torch.triu(causal_mask, diagonal=1)[None, None, :, :]
        hidden_states = self.model.embed_tokens(input_ids)
        position_embeddings = self.model.rotary_emb(hidden_states, position_ids)
        for layer_idx, decoder_layer in enumerate(self.model.layers[:-1]):
            hidden_states = decoder_layer(hidden_states, position_embeddings, causal_mask,
                                          kv_caches[layer_idx], slot_ids)
        last = self.model.layers[-1]
        attn_output = last.self_attn(last.input_layernorm(hidden_states), position_embeddings,
                                     causal_mask, kv_caches[-1], slot_ids, None)
        hidden_states = hidden_states[:, -1:, :] + attn_output[:, -1:, :]
        hidden_states = hidden_states + last.mlp(last.post_attention_layernorm(hidden_states))
        return self.lm_head(self.model.norm(hidden_states)).float()
'''

PREFILL_SCRIPT = """import torch
import torch_npu
import torchair

from modeling import LlamaConfig, LlamaForCausalLM, init_kv_caches

DTYPE = %(dtype)s
N = %(n)d


%(cls)s

torch.manual_seed(0)
config = LlamaConfig(max_position_embeddings=N, %(config)s)
model = LastTokenLlama(config).to(DTYPE).npu().eval()
kv_caches = init_kv_caches(config, dtype=DTYPE)
for key_cache, value_cache in kv_caches:
    torch._dynamo.mark_static(key_cache)
    torch._dynamo.mark_static(value_cache)
npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
prefill = torch.compile(model.%(entry)s, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    prefill(torch.zeros(1, N, dtype=torch.long).npu(), torch.tensor([0]).npu(), kv_caches)
"""


def model_for(mod, size, ctx, dtype):
    torch.manual_seed(0)
    cfg = mod["LlamaConfig"](max_position_embeddings=ctx, **config_of(size))
    return cfg, mod["LlamaForCausalLM"](cfg).to(dtype).eval()


def context_tokens(ctx):
    """The CTX - 1 context token ids, then the decoded one."""
    return [(i * 7919 + 13) % 32000 for i in range(ctx - 1)] + [7]


def prefilled(mod, cfg, model, ctx):
    """PyTorch's float32 prefill of the context over model's rounded
    weights: (float32 model, its caches after the prefill)."""
    ref_model = model.float()
    caches = [(k.float(), v.float()) for k, v in mod["init_kv_caches"](cfg, dtype=torch.float32)]
    ids = torch.tensor([context_tokens(ctx)[:-1]])
    with torch.no_grad():
        ref_model.prefill(ids, torch.tensor([0]), caches)
    return ref_model, caches


def prepare(tngc, tmp, mod, size, ctx, tag, dtname, driver):
    """Builds the bundle and writes its weights and inputs; checks its
    logits against PyTorch's float32 decode; the same for llama.cpp where
    driver (its harness) is not None. -> (launcher, args, err, llama
    args or None, llama err)."""
    dtype = eval(dtname)
    d = os.path.join(tmp, "%s_%s_%d" % (size, tag, ctx))
    os.makedirs(d)
    shutil.copy(MODELING, d)
    script = os.path.join(d, "decode_%s.py" % tag)
    with open(script, "w") as f:
        f.write(SCRIPT % {"dtype": dtname, "ctx": ctx,
                          "config": ", ".join("%s=%r" % kv for kv in config_of(size).items())})
    C.build(tngc, script, os.path.join(d, "out"))
    exe = C.launcher(os.path.join(d, "out"))
    cfg, model = model_for(mod, size, ctx, dtype)
    wargs = C.save_weights(d, model)
    if driver is not None:
        gguf.write_llama(os.path.join(d, "model.gguf"), model, cfg, ctx, GGML[tag])
    ref_model, full = prefilled(mod, cfg, model, ctx)
    caches = [(k.to(dtype), v.to(dtype)) for k, v in full]
    ids, pos, slot = torch.tensor([[7]]), torch.tensor([ctx - 1]), torch.tensor([0])
    named = [("input_ids", ids), ("positions", pos), ("slot_ids", slot)]
    for i, (k, v) in enumerate(caches):
        named += [("kv_caches[%d][0]" % i, k.float()), ("kv_caches[%d][1]" % i, v.float())]
    args = C.save_inputs(os.path.join(d, "in"), named) + wargs
    # the reference: float32 over the rounded weights and cache
    with torch.no_grad():
        ref = ref_model.decode(ids, pos, slot, [(k.float(), v.float()) for k, v in caches])
        ref_llama = ref_model.decode(ids, pos, slot, full)
    out = os.path.join(d, "check")
    C.run_launcher(exe, args, out, 0, 1)
    got = np.load(os.path.join(out, "out0.npy"))
    err = float(np.max(np.abs(got - ref.numpy())) / np.max(np.abs(ref.numpy())))
    if not err <= TOL[tag]:
        C.die("decode %s %s ctx %d: logits differ from PyTorch's by %.3g of the largest" %
              (size, tag, ctx, err))
    if driver is None:
        return exe, args, err, None, None
    tokens = os.path.join(d, "tokens.i32")
    np.asarray(context_tokens(ctx), dtype="<i4").tofile(tokens)
    largs = ["--model", os.path.join(d, "model.gguf"), "--tokens", tokens, "--kv", tag]
    logits = os.path.join(d, "llama_logits.f32")
    run_llama(driver, largs + ["--logits", logits], 1, 0, 1)
    got = np.fromfile(logits, dtype="<f4")
    want = ref_llama.numpy().reshape(-1)
    lerr = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    if not lerr <= TOL_LLAMA[tag]:
        C.die("llama.cpp decode %s %s ctx %d: logits differ from PyTorch's by %.3g of the "
              "largest" % (size, tag, ctx, lerr))
    return exe, args, err, largs, lerr


def build_prefill(tngc, d, dtname, entry):
    """Builds the prefill script's entry (prefill: every token's logits,
    prefill_last: the last token's) in d -> its launcher."""
    script = os.path.join(d, "%s.py" % entry)
    with open(script, "w") as f:
        f.write(PREFILL_SCRIPT % {"dtype": dtname, "n": PREFILL, "cls": LAST_TOKEN_CLASS,
                                  "entry": entry,
                                  "config": ", ".join("%s=%r" % kv for kv in
                                                      config_of(PREFILL_SIZE).items())})
    C.build(tngc, script, os.path.join(d, "out_" + entry))
    return C.launcher(os.path.join(d, "out_" + entry))


def check_prefill(exe, args, ref, d, what, tag):
    """Runs the prefill launcher once; its logits against ref (PyTorch's):
    max |diff| / max |logit|, checked."""
    out = os.path.join(d, "check")
    C.run_launcher(exe, args, out, 0, 1)
    got = np.load(os.path.join(out, "out0.npy"))
    if got.shape != ref.shape:
        C.die("prefill %s %s: logits of shape %s, PyTorch's %s" % (what, tag, got.shape,
                                                                   ref.shape))
    err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
    if not err <= TOL[tag]:
        C.die("prefill %s %s: logits differ from PyTorch's by %.3g of the largest" %
              (what, tag, err))
    return err


def prepare_prefill(tngc, tmp, mod, tag, dtname, driver):
    """The prefill of PREFILL tokens: two bundles (every token's logits,
    the last token's) and llama.cpp's inputs, all checked against
    PyTorch's float32 prefill over the rounded weights. -> dict: exe,
    exe_last, args, err, err_last, largs (None without llama.cpp),
    lerr."""
    dtype = eval(dtname)
    n = PREFILL
    d = os.path.join(tmp, "prefill_%s" % tag)
    os.makedirs(d)
    shutil.copy(MODELING, d)
    p = {"exe": build_prefill(tngc, d, dtname, "prefill"),
         "exe_last": build_prefill(tngc, d, dtname, "prefill_last")}
    cfg, model = model_for(mod, PREFILL_SIZE, n, dtype)
    wargs = C.save_weights(d, model)
    if driver is not None:
        gguf.write_llama(os.path.join(d, "model.gguf"), model, cfg, n, GGML[tag])
    toks = context_tokens(n + 1)[:-1]
    ids, slot = torch.tensor([toks]), torch.tensor([0])
    caches = mod["init_kv_caches"](cfg, dtype=torch.float32)
    named = [("input_ids", ids), ("slot_ids", slot)]
    for i, (k, v) in enumerate(caches):
        named += [("kv_caches[%d][0]" % i, k), ("kv_caches[%d][1]" % i, v)]
    p["args"] = C.save_inputs(os.path.join(d, "in"), named) + wargs
    ref_model = model.float()
    with torch.no_grad():
        ref = ref_model.prefill(ids, slot, [(k.clone(), v.clone()) for k, v in caches]).numpy()
        ref_last = mod["LastTokenLlama"].prefill_last(
            ref_model, ids, slot, [(k.clone(), v.clone()) for k, v in caches]).numpy()
    # the two entries' last rows are the same function of the weights
    if not np.allclose(ref_last[0, -1], ref[0, -1], rtol=1e-4, atol=1e-4 * np.max(np.abs(ref))):
        C.die("prefill_last: PyTorch's last-token logits differ from its prefill's last row")
    p["err"] = check_prefill(p["exe"], p["args"], ref, d, "every token", tag)
    p["err_last"] = check_prefill(p["exe_last"], p["args"], ref_last, d, "last token", tag)
    p["largs"], p["lerr"] = None, None
    if driver is None:
        return p
    tokens = os.path.join(d, "tokens.i32")
    np.asarray(toks, dtype="<i4").tofile(tokens)
    p["largs"] = ["--model", os.path.join(d, "model.gguf"), "--tokens", tokens, "--kv", tag,
                  "--prefill"]
    p["lerr"] = max(llama_prefill_err(driver, p["largs"], ref[0, -1:], d, tag),
                    llama_prefill_err(driver, p["largs"] + ["--all-logits"], ref[0], d, tag))
    return p


def llama_prefill_err(driver, largs, want, d, tag):
    """llama.cpp's prefill logits (rows of want: the last token's or every
    token's) against PyTorch's: max |diff| / max |logit|, checked."""
    logits = os.path.join(d, "llama_logits.f32")
    run_llama(driver, largs + ["--logits", logits], 1, 0, 1)
    got = np.fromfile(logits, dtype="<f4").reshape(want.shape)
    lerr = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    if not lerr <= TOL_LLAMA[tag]:
        C.die("llama.cpp prefill %s: logits differ from PyTorch's by %.3g of the largest" %
              (tag, lerr))
    return lerr


def llama_lib_dir():
    """The folder of libllama.so and libggml*.so: $LLAMA_LIB_DIR, or the npm
    package make bench-deps installs; None when neither exists."""
    d = os.environ.get("LLAMA_LIB_DIR")
    if not d:
        arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
        d = os.path.join(C.ROOT, "bench", "node_modules", NPM_LLAMA, "bins", "linux-" + arch)
    return d if os.path.exists(os.path.join(d, "libllama.v0.5.0.so")) else None


def llama_driver(tmp):
    """[llama_driver, --lib, DIR] compiled here, or None without the library."""
    lib = llama_lib_dir()
    if lib is None:
        sys.stderr.write("bench: %s not installed (make bench-deps): no llama.cpp column\n"
                         % NPM_LLAMA)
        return None
    exe = os.path.join(tmp, "llama_driver")
    r = subprocess.run([os.environ.get("CC", "cc"), "-O2", "-std=c11", "-o", exe,
                        os.path.join(HERE, "llama_driver.c"), "-ldl"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        C.die("cannot compile bench/llamacpp/llama_driver.c:\n" + r.stdout)
    return [exe, "--lib", lib]


_LLAMA_LAT = re.compile(r"^(?:decode|prefill [0-9]+): p50 ([0-9.]+) us")
LLAMA_INFO = []


def run_llama(driver, largs, threads, warmup, iters):
    """Runs llama_driver; returns its p50 in us (decode step or prefill)."""
    r = subprocess.run(driver + largs + ["--threads", str(threads), "--warmup", str(warmup),
                                         "--iters", str(iters)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        C.die("llama_driver failed (%d):\n%s" % (r.returncode, r.stdout))
    for line in r.stdout.splitlines():
        if line.startswith("llama.cpp system info") and not LLAMA_INFO:
            LLAMA_INFO.append(line)
        m = _LLAMA_LAT.match(line)
        if m:
            return float(m.group(1))
    C.die("llama_driver printed no latency line:\n" + r.stdout)


def thread_env(th):
    """The launcher's environment for thread count th (DEFAULT: the
    bundle's own choice, TNGRT_THREADS empty)."""
    return dict(os.environ, TNGRT_THREADS="" if th == DEFAULT else str(th))


def measure(cases, pcases, driver, tmp):
    """Every round: each decode case on 1, 2 and the default threads, then
    llama.cpp on 1 and 2, then the prefills. -> medians (tngc decode,
    llama.cpp decode, prefill) and the load averages before and after."""
    load0 = os.getloadavg()
    acc, lacc, pacc = {}, {}, {}
    for _ in range(C.ROUNDS):
        for key, (exe, args, largs) in cases.items():
            for th in THREADS + (DEFAULT,):
                us = C.run_launcher(exe, args, os.path.join(tmp, "o"), 3, ITERS,
                                    env=thread_env(th))
                acc.setdefault(key + (th,), []).append(us)
                if largs is not None and th != DEFAULT:
                    us = run_llama(driver, largs, th, 3, ITERS)
                    lacc.setdefault(key + (th,), []).append(us)
        for tag, p in pcases.items():
            args, largs = p["args"], p["largs"]
            for th in THREADS:
                for who, exe in (("tngc", p["exe"]), ("tngc last", p["exe_last"])):
                    us = C.run_launcher(exe, args, os.path.join(tmp, "o"), 1, PREFILL_ITERS,
                                        env=thread_env(th))
                    pacc.setdefault((who, tag, th), []).append(us)
                if largs is not None:
                    us = run_llama(driver, largs + ["--all-logits"], th, 1, PREFILL_ITERS)
                    pacc.setdefault(("llama", tag, th), []).append(us)
                    us = run_llama(driver, largs, th, 1, PREFILL_ITERS)
                    pacc.setdefault(("llama last", tag, th), []).append(us)
    load1 = os.getloadavg()
    meds = [{k: statistics.median(v) for k, v in a.items()} for a in (acc, lacc, pacc)]
    return meds + ["load average (1, 5, 15 min) before %.2f %.2f %.2f, after %.2f %.2f %.2f; "
                   "%d cores" % (load0 + load1 + (os.cpu_count() or 0,))]


def decode_table(med, errs, load, path):
    """tngc's decode step: the three dtypes side by side, per size, context
    and thread count."""
    rows = []

    def ms(k):
        return "%.2f ms" % (med[k] / 1e3) if k in med else "-"

    def ratio(x, y):
        return "%.2fx" % (med[x] / med[y]) if x in med and y in med else "-"
    for size in SIZES:
        for ctx in CTXS:
            for th in THREADS + (DEFAULT,):
                if not any((size, ctx, t, th) in med for t, _ in DTYPES):
                    continue
                rows.append([size, "%d" % ctx, str(th)] +
                            [ms((size, ctx, t, th)) for t, _ in DTYPES] +
                            [ratio((size, ctx, "f32", th), (size, ctx, t, th))
                             for t in ("f16", "bf16")] +
                            [ratio((size, ctx, t, 1), (size, ctx, t, th)) for t, _ in DTYPES])
    C.table("LLaMA decode step, f32 vs f16 vs bf16 (parameters read per token: %s)"
            % ", ".join("%s %.0f M" % (z, params_of(z) / 1e6) for z in SIZES),
            ["size", "context", "threads", "f32", "f16", "bf16", "f32/f16", "f32/bf16",
             "f32 1t/this", "f16 1t/this", "bf16 1t/this"], rows, path,
            [load,
             "threads dflt: TNGRT_THREADS unset (the bundle's default, runtime/par.c); "
             "%d CPUs in the affinity set" % len(os.sched_getaffinity(0)),
             "logits vs PyTorch float32 over the rounded weights (max |diff| / max |logit|): " +
             ", ".join("%s %s ctx %d %.1e" % (z, t, c, e)
                       for (z, c, t), e in sorted(errs.items())),
             "%d rounds, the launcher's p50 over %d runs each, medians" % (C.ROUNDS, ITERS)])


def prefill_table(pmed, pcases, load, path):
    """The prefill of PREFILL tokens by tngc and llama.cpp: every token's
    logits on both sides, the last token's on both sides (the same work
    each), and tngc's every-token prefill against llama.cpp's last-token
    one (tngc doing the output layer over PREFILL rows, llama.cpp over one)."""
    rows = []
    for th in THREADS:
        for ours, theirs, what in (("tngc", "llama", "every token / every token"),
                                   ("tngc last", "llama last", "last token / last token"),
                                   ("tngc", "llama last", "every token / last token")):
            row = ["%d" % th, what]
            for t, _ in DTYPES:
                a, b = pmed.get((ours, t, th)), pmed.get((theirs, t, th))
                row += ["%.1f ms" % (a / 1e3) if a else "-",
                        "%.1f ms" % (b / 1e3) if b else "-",
                        "%.2fx" % (b / a) if a and b else "-"]
            rows.append(row)
    C.table("LLaMA prefill of %d tokens into an empty cache at %s: tngc vs llama.cpp"
            % (PREFILL, PREFILL_SIZE),
            ["threads", "logits: tngc / llama.cpp", "tngc f32", "llama.cpp f32",
             "llama.cpp/tngc", "tngc f16", "llama.cpp f16", "llama.cpp/tngc",
             "tngc bf16", "llama.cpp bf16", "llama.cpp/tngc"], rows, path,
            [load,
             "last token: tngc's prefill_last entry (the last layer's MLP, the final norm "
             "and lm_head on the last row, as llama.cpp's graph with one output row); every "
             "token: the example's prefill entry and llama.cpp with every token's logits",
             "logits vs PyTorch's float32 prefill (max |diff| / max |logit|; tngc every "
             "token's, then the last token's; llama.cpp the larger of its two prefills'): " +
             ", ".join("%s tngc %.1e, %.1e%s" % (t, p["err"], p["err_last"],
                                                 "" if p["lerr"] is None else
                                                 ", llama.cpp %.1e" % p["lerr"])
                       for t, p in pcases.items()),
             "%d rounds, each contender's p50 over %d prefills after one, medians"
             % (C.ROUNDS, PREFILL_ITERS)])


def llama_table(med, lmed, lerrs, load, path):
    """tngc's decode step against llama.cpp's, per size, context and
    thread count."""
    rows = []
    for size in SIZES:
        for ctx in CTXS:
            for th in THREADS:
                if not any((size, ctx, t, th) in lmed for t, _ in DTYPES):
                    continue
                row = [size, "%d" % ctx, "%d" % th]
                for t, _ in DTYPES:
                    k = (size, ctx, t, th)
                    row += (["%.2f ms" % (med[k] / 1e3), "%.2f ms" % (lmed[k] / 1e3),
                             "%.2fx" % (lmed[k] / med[k])] if k in lmed else ["-", "-", "-"])
                rows.append(row)
    C.table("LLaMA decode step: tngc vs llama.cpp, same weights, position and cache content",
            ["size", "context", "threads", "tngc f32", "llama.cpp f32", "llama.cpp/tngc",
             "tngc f16", "llama.cpp f16", "llama.cpp/tngc",
             "tngc bf16", "llama.cpp bf16", "llama.cpp/tngc"], rows, path,
            [load,
             "llama.cpp logits vs PyTorch's float32 prefill and decode (max |diff| / max "
             "|logit|): " + ", ".join("%s %s ctx %d %.1e" % (z, t, c, e)
                                      for (z, c, t), e in sorted(lerrs.items())),
             "llama.cpp: npm %s (libllama v0.5.0) through bench/llamacpp/llama_driver.c, "
             "KV cache of the model's dtype, flash attention and the CPU variant as the "
             "library chooses them; %s" % (NPM_LLAMA, LLAMA_INFO[0] if LLAMA_INFO else ""),
             "%d rounds, each contender's p50 over %d decode steps, medians; "
             "llama.cpp/tngc above 1: tngc is faster" % (C.ROUNDS, ITERS)])


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    mod = {}
    sys.path.insert(0, os.path.dirname(MODELING))
    exec(compile(open(MODELING).read(), MODELING, "exec"), mod)
    exec(LAST_TOKEN_CLASS, mod)
    cases, errs, lerrs = {}, {}, {}
    driver = llama_driver(tmp)
    only = [c.split(":") for c in os.environ.get("BENCH_LLAMA_CASES", "").split(",") if c]
    for size in SIZES:
        config_of(size)
        for ctx in CTXS:
            for tag, dtname in DTYPES:
                if only and [tag, str(ctx)] not in only:
                    continue
                exe, args, err, largs, lerr = prepare(tngc, tmp, mod, size, ctx, tag, dtname,
                                                      driver)
                cases[(size, ctx, tag)] = (exe, args, largs)
                errs[(size, ctx, tag)] = err
                if largs is not None:
                    lerrs[(size, ctx, tag)] = lerr
    pcases = {}
    if PREFILL > 0:
        config_of(PREFILL_SIZE)
        for tag, dtname in DTYPES:
            if any(t == tag for _, _, t in cases):
                pcases[tag] = prepare_prefill(tngc, tmp, mod, tag, dtname, driver)
    med, lmed, pmed, load = measure(cases, pcases, driver, tmp)
    path = os.path.join(outd, "tables.md")
    decode_table(med, errs, load, path)
    if pmed:
        prefill_table(pmed, pcases, load, path)
    if lmed:
        llama_table(med, lmed, lerrs, load, path)


if __name__ == "__main__":
    main()
