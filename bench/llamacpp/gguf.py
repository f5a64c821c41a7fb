"""A GGUF (version 3) writer for the LLaMA example's model, so that
llama.cpp loads the same weights as tngc's bundles.

The file: the magic "GGUF", the version, the tensor and key/value counts,
the key/values (llama.* hyperparameters, general.*, a tokenizer.ggml.*
vocabulary), the tensor descriptions (name, dimensions innermost first,
ggml type, offset into the data section), then the tensor data, each
tensor aligned to 32 bytes. All numbers little-endian.

Tensor names are llama.cpp's: token_embd, blk.N.attn_norm, attn_q, attn_k,
attn_v, attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down, output_norm,
output (each ".weight"). A PyTorch Linear weight [out, in] is written as
it lies in memory, which is ggml's [in, out] (ne0 = in).

RoPE: the example rotates the two halves of each head (rotate_half), while
llama.cpp's LLAMA architecture (LLAMA_ROPE_TYPE_NORM) rotates adjacent
pairs (2i, 2i+1). Writing the Q and K rows of each head in the order
0, h, 1, h+1, ... (h = head_dim / 2) makes llama.cpp's pair i the example's
(i, i + h): the same rotation, and q.k is unchanged because Q and K are
permuted alike.

The vocabulary is a placeholder of vocab_size tokens ("llama", i.e.
SentencePiece: <unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, then
"t3"...): llama.cpp needs one to load the model; the benchmark passes
token ids directly and never tokenizes text.
"""
import struct

import numpy as np

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGN = 32

# GGUF value types
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
# ggml tensor types
GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
# general.file_type (llama_ftype): all float32, mostly float16, mostly Q8_0,
# mostly bfloat16
FTYPE = {GGML_F32: 0, GGML_F16: 1, GGML_Q8_0: 7, GGML_BF16: 32}
# Q8_0: blocks of 32 values along a row, each a float16 scale d then 32
# int8 q, the value d * q (ggml's block_q8_0)
Q8_0_BLOCK = 32


def _str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _value(vtype, v):
    if vtype == T_UINT32:
        return struct.pack("<I", v)
    if vtype == T_INT32:
        return struct.pack("<i", v)
    if vtype == T_FLOAT32:
        return struct.pack("<f", v)
    if vtype == T_BOOL:
        return struct.pack("<B", 1 if v else 0)
    if vtype == T_STRING:
        return _str(v)
    raise ValueError("gguf: no writer for value type %d" % vtype)


def _kv(key, vtype, v):
    return _str(key) + struct.pack("<I", vtype) + _value(vtype, v)


def _kv_array(key, etype, items):
    out = [_str(key), struct.pack("<IIQ", T_ARRAY, etype, len(items))]
    if etype == T_FLOAT32:
        out.append(np.asarray(items, dtype="<f4").tobytes())
    elif etype == T_INT32:
        out.append(np.asarray(items, dtype="<i4").tobytes())
    else:
        out.extend(_value(etype, x) for x in items)
    return b"".join(out)


def _rope_rows(w, n_head):
    """Q or K weight [n_head * head_dim, in]: each head's rows in the order
    0, h, 1, h+1, ... (h = head_dim / 2)."""
    rows, cols = w.shape
    hd = rows // n_head
    return w.reshape(n_head, 2, hd // 2, cols).transpose(1, 2).reshape(rows, cols)


def _bytes(t, gtype):
    """A torch tensor as the bytes of ggml type gtype (little-endian)."""
    import torch
    t = t.detach().contiguous()
    if gtype == GGML_F32:
        return t.float().numpy().astype("<f4").tobytes()
    if gtype == GGML_F16:
        return t.half().numpy().astype("<f2").tobytes()
    if gtype == GGML_BF16:
        return t.bfloat16().view(torch.int16).numpy().astype("<i2").tobytes()
    if gtype == GGML_Q8_0:
        d, q = q8_0(t)
        rec = np.empty(d.shape, dtype=[("d", "<f2"), ("q", "i1", (Q8_0_BLOCK,))])
        rec["d"], rec["q"] = d, q
        return rec.tobytes()
    raise ValueError("gguf: no ggml type %d" % gtype)


def q8_0(t):
    """A float tensor [rows, cols] (cols a multiple of 32) as ggml's Q8_0,
    as llama.cpp's quantize_row_q8_0 computes it: per block of 32 along a
    row, d = max |x| / 127 (float16), q = round(x / d) (round half away
    from zero). -> (d float16 [rows, cols / 32], q int8 [rows, cols / 32, 32])."""
    x = t.detach().float().numpy().reshape(t.shape[0], -1, Q8_0_BLOCK)
    d = np.abs(x).max(axis=2) / 127.0
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
    v = x * inv[:, :, None]
    q = (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int8)
    return d.astype(np.float16), q


def q8_0_values(t):
    """The values a Q8_0 tensor written from t holds, as float32 [rows, cols]."""
    d, q = q8_0(t)
    return (d.astype(np.float32)[:, :, None] * q.astype(np.float32)).reshape(t.shape[0], -1)


def llama_tensors(model, cfg):
    """[(gguf name, tensor)] of LlamaForCausalLM's state, Q/K rows permuted
    for llama.cpp's RoPE."""
    sd = {k: v.detach() for k, v in model.state_dict().items()}
    out = [("token_embd.weight", sd["model.embed_tokens.weight"])]
    for i in range(cfg.num_hidden_layers):
        p = "model.layers.%d." % i
        b = "blk.%d." % i
        out += [
            (b + "attn_norm.weight", sd[p + "input_layernorm.weight"]),
            (b + "attn_q.weight", _rope_rows(sd[p + "self_attn.q_proj.weight"],
                                             cfg.num_attention_heads)),
            (b + "attn_k.weight", _rope_rows(sd[p + "self_attn.k_proj.weight"],
                                             cfg.num_key_value_heads)),
            (b + "attn_v.weight", sd[p + "self_attn.v_proj.weight"]),
            (b + "attn_output.weight", sd[p + "self_attn.o_proj.weight"]),
            (b + "ffn_norm.weight", sd[p + "post_attention_layernorm.weight"]),
            (b + "ffn_gate.weight", sd[p + "mlp.gate_proj.weight"]),
            (b + "ffn_up.weight", sd[p + "mlp.up_proj.weight"]),
            (b + "ffn_down.weight", sd[p + "mlp.down_proj.weight"]),
        ]
    out.append(("output_norm.weight", sd["model.norm.weight"]))
    out.append(("output.weight", sd["lm_head.weight"]))
    return out


def llama_metadata(cfg, ctx, gtype, name):
    """The key/values llama.cpp reads for a LLaMA model, as bytes; their count."""
    kvs = [
        _kv("general.architecture", T_STRING, "llama"),
        _kv("general.name", T_STRING, name),
        _kv("general.alignment", T_UINT32, ALIGN),
        _kv("general.file_type", T_UINT32, FTYPE[gtype]),
        _kv("llama.context_length", T_UINT32, ctx),
        _kv("llama.embedding_length", T_UINT32, cfg.hidden_size),
        _kv("llama.block_count", T_UINT32, cfg.num_hidden_layers),
        _kv("llama.feed_forward_length", T_UINT32, cfg.intermediate_size),
        _kv("llama.rope.dimension_count", T_UINT32, cfg.head_dim),
        _kv("llama.attention.head_count", T_UINT32, cfg.num_attention_heads),
        _kv("llama.attention.head_count_kv", T_UINT32, cfg.num_key_value_heads),
        _kv("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, cfg.rms_norm_eps),
        _kv("llama.rope.freq_base", T_FLOAT32, cfg.rope_theta),
        _kv("llama.vocab_size", T_UINT32, cfg.vocab_size),
    ]
    n = cfg.vocab_size
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    tokens += ["t%d" % i for i in range(len(tokens), n)]
    # token types: 2 unknown, 3 control, 6 byte, 1 normal
    types = [2, 3, 3] + [6] * 256 + [1] * (n - 259)
    kvs += [
        _kv("tokenizer.ggml.model", T_STRING, "llama"),
        _kv_array("tokenizer.ggml.tokens", T_STRING, tokens),
        _kv_array("tokenizer.ggml.scores", T_FLOAT32, [0.0] * 259 + [-float(i) for i in range(n - 259)]),
        _kv_array("tokenizer.ggml.token_type", T_INT32, types),
        _kv("tokenizer.ggml.unknown_token_id", T_UINT32, 0),
        _kv("tokenizer.ggml.bos_token_id", T_UINT32, 1),
        _kv("tokenizer.ggml.eos_token_id", T_UINT32, 2),
        _kv("tokenizer.ggml.add_bos_token", T_BOOL, False),
    ]
    return b"".join(kvs), len(kvs)


def write_llama(path, model, cfg, ctx, gtype, name="tngc-bench-llama"):
    """Writes model (LlamaForCausalLM, its config cfg) as a GGUF file for a
    context of ctx tokens; matrices as gtype (GGML_F32/F16/BF16/Q8_0; with
    Q8_0 the token embedding float16, as llama.cpp's Q8_0 files hold it), norm
    weights as float32 (llama.cpp's converter keeps 1-D tensors float32;
    the values are those of the model's own dtype)."""
    tensors = llama_tensors(model, cfg)
    meta, nkv = llama_metadata(cfg, ctx, gtype, name)
    infos, blobs, off = [], [], 0
    for tname, t in tensors:
        tt = GGML_F32 if t.dim() == 1 else gtype
        if tt == GGML_Q8_0 and tname == "token_embd.weight":
            tt = GGML_F16
        data = _bytes(t, tt)
        pad = (-off) % ALIGN
        blobs.append(b"\0" * pad)
        off += pad
        dims = list(reversed(t.shape))
        infos.append(_str(tname) + struct.pack("<I", len(dims)) +
                     struct.pack("<%dQ" % len(dims), *dims) + struct.pack("<IQ", tt, off))
        blobs.append(data)
        off += len(data)
    with open(path, "wb") as f:
        f.write(GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, len(tensors), nkv))
        f.write(meta)
        for info in infos:
            f.write(info)
        f.write(b"\0" * ((-f.tell()) % ALIGN))
        for blob in blobs:
            f.write(blob)
