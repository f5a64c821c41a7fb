"""torch_npu stand-in for the tngc reference: CPU implementations of the
torch_npu operators tngc compiles, following torch_npu's documentation.

Computation is in float32 (float64 where int32 accumulation must be exact)
and the result is cast to the documented output dtype, as on the NPU.
"""
import torch
import torch.nn.functional as F

import _tngc_ref

_tngc_ref.install()

__version__ = "0.0+tngc.ref"

# aclFormat values used with npu_format_cast
FORMAT_ND = 2
FORMAT_NZ = 29


def npu_format_cast(tensor, acl_format, *args, **kwargs):
    """Changes the NPU storage layout (e.g. 29 = FRACTAL_NZ); the values,
    shape and dtype stay the same, so on the CPU it is the identity."""
    if not isinstance(acl_format, int):
        raise TypeError("npu_format_cast: acl_format must be an int, got %r" % (acl_format,))
    return tensor


def get_npu_format(tensor):
    return FORMAT_ND


def npu_rms_norm(x, gamma, epsilon=1e-6):
    """RMSNorm over the trailing gamma.dim() dims of x.

    rstd = 1 / sqrt(mean(x^2) + epsilon), y = x * rstd * gamma.
    Returns (y, rstd): y has x's dtype; rstd is float32 with shape
    x.shape[:-gamma.dim()] + [1] * gamma.dim().
    """
    nd = gamma.dim()
    if tuple(x.shape[x.dim() - nd:]) != tuple(gamma.shape):
        raise RuntimeError("npu_rms_norm: gamma shape %s does not match the trailing dims of x %s"
                           % (tuple(gamma.shape), tuple(x.shape)))
    dims = tuple(range(x.dim() - nd, x.dim()))
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=dims, keepdim=True) + epsilon)
    y = (xf * rstd * gamma.float()).to(x.dtype)
    return y, rstd


def npu_swiglu(x, dim=-1):
    """SwiGLU: x is split into halves A, B along dim; returns silu(A) * B."""
    if x.shape[dim] % 2:
        raise RuntimeError("npu_swiglu: dim %d of x has odd size %d" % (dim, x.shape[dim]))
    a, b = x.float().chunk(2, dim=dim)
    return (F.silu(a) * b).to(x.dtype)


def _unpack_scale(scale):
    # npu_trans_quant_param packs a float32 scale into the low 32 bits of an int64.
    if scale.dtype == torch.int64:
        return (scale & 0xFFFFFFFF).to(torch.int32).view(torch.float32)
    return scale.float()


def _int_matmul(x1, x2):
    """The exact int32 accumulation of an int8 matmul, as float64.

    float32 holds every partial sum exactly while k * max|x1| * max|x2| <
    2^24 (examples/super_kernel's int8 values in [-10, 10) with k = 7168 qualify), and
    its matmul is faster; otherwise float64."""
    k = x1.shape[-1]
    bound = k * int(x1.to(torch.int32).abs().max()) * int(x2.to(torch.int32).abs().max()) if x1.numel() and x2.numel() else 0
    acc_dtype = torch.float32 if bound < (1 << 24) else torch.float64
    return torch.matmul(x1.to(acc_dtype), x2.to(acc_dtype)).double()


def npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None, bias=None,
                     output_dtype=None, **kwargs):
    """Quantised matmul: x1 int8 [..., m, k] @ x2 int8 [..., k, n], int32
    accumulation.

    - int32 bias is added to the accumulator before dequantisation;
    - output_dtype None / torch.int8: round((acc + bias) * scale + offset),
      saturated to int8 (scale may be int64 from npu_trans_quant_param);
    - torch.int32: the accumulator (+ bias);
    - torch.float16 / torch.bfloat16: acc * scale [* pertoken_scale per row]
      [+ bias when bias is a float type].
    """
    if x1.dtype != torch.int8 or x2.dtype != torch.int8:
        raise RuntimeError("npu_quant_matmul: x1 and x2 must be int8, got %s and %s" % (x1.dtype, x2.dtype))
    acc = _int_matmul(x1, x2)
    float_bias = None
    if bias is not None:
        if bias.dtype == torch.int32:
            acc = acc + bias.double()
        else:
            float_bias = bias.double()
    out_dtype = torch.int8 if output_dtype is None else output_dtype
    if out_dtype == torch.int32:
        return acc.to(torch.int32)
    s = _unpack_scale(scale).double()
    if out_dtype == torch.int8:
        y = acc * s
        if offset is not None:
            y = y + offset.double()
        return torch.round(y).clamp(-128, 127).to(torch.int8)
    y = acc * s
    if pertoken_scale is not None:
        y = y * pertoken_scale.double().unsqueeze(-1)
    if float_bias is not None:
        y = y + float_bias
    return y.to(out_dtype)


def npu_weight_quant_batchmatmul(x, weight, antiquant_scale, antiquant_offset=None,
                                 quant_scale=None, quant_offset=None, bias=None,
                                 antiquant_group_size=0, inner_precise=0):
    """Weight-only int8 matmul: x float16/bfloat16 [m, k] @ weight int8 [k, n]
    dequantised as (weight + antiquant_offset) * antiquant_scale.

    antiquant_scale / antiquant_offset: one value ([1]), one per column ([n],
    [1, n]) or, with antiquant_group_size g > 0, one per column and group of
    g rows of weight ([ceil(k / g), n]); x's dtype. The product and the bias
    (float32 or x's dtype, [n]) in float32, the result rounded once to x's
    dtype. quant_scale / quant_offset (an int8 output) are not modelled.
    """
    if x.dtype not in (torch.float16, torch.bfloat16) or weight.dtype != torch.int8:
        raise RuntimeError("npu_weight_quant_batchmatmul: x must be float16/bfloat16 and weight int8")
    if quant_scale is not None or quant_offset is not None or inner_precise != 0:
        raise RuntimeError("npu_weight_quant_batchmatmul: quant_scale, quant_offset and inner_precise "
                           "are not modelled")
    k, n = weight.shape

    def per_row(p):
        p = p.float()
        if antiquant_group_size > 0 and antiquant_group_size < k:
            return p.reshape(-1, n).repeat_interleave(antiquant_group_size, dim=0)[:k]
        return p.reshape(1, -1)

    w = weight.float()
    if antiquant_offset is not None:
        w = w + per_row(antiquant_offset)
    w = w * per_row(antiquant_scale)
    y = torch.matmul(x.float(), w)
    if bias is not None:
        y = y + bias.float().reshape(-1)
    return y.to(x.dtype)


def _dequant_swiglu_quant_rows(x, weight_scale, activation_scale, bias, quant_scale,
                               quant_offset, activate_left, quant_mode):
    if x.dtype == torch.int32:
        # dequantisation: weight (per column) and activation (per row) scales
        acc = x.double()
        if bias is not None and bias.dtype == torch.int32:
            acc = acc + bias.double()
        if weight_scale is not None:
            acc = acc * weight_scale.double().reshape(-1)
        if activation_scale is not None:
            acc = acc * activation_scale.double().reshape(-1, 1)
        if bias is not None and bias.dtype != torch.int32:
            acc = acc + bias.double()
        xf = acc.float()
    else:
        # float16 / bfloat16 input: nothing to dequantise
        xf = x.float()
        if bias is not None:
            xf = xf + bias.float()
    left, right = xf.chunk(2, dim=-1)
    y = F.silu(left) * right if activate_left else left * F.silu(right)
    if quant_scale is not None:
        y = y * quant_scale.float().reshape(-1)
    if quant_mode == 0:
        if quant_offset is not None:
            y = y + quant_offset.float().reshape(-1)
        scale = torch.ones(y.shape[:-1], dtype=torch.float32)
    else:
        row_max = y.abs().amax(dim=-1, keepdim=True).clamp_min(1e-12)
        y = y * (127.0 / row_max)
        scale = (row_max / 127.0).squeeze(-1)
    return torch.round(y).clamp(-128, 127).to(torch.int8), scale


def npu_dequant_swiglu_quant(x, *, weight_scale=None, activation_scale=None, bias=None,
                             quant_scale=None, quant_offset=None, group_index=None,
                             activate_left=False, quant_mode=0, **kwargs):
    """Dequantisation + SwiGLU + quantisation of x [T, 2H].

    - int32 x: x * weight_scale (per column) * activation_scale (per row);
      float16/bfloat16 x is used as it is;
    - SwiGLU on the halves A | B of the last dim: A * silu(B), or
      silu(A) * B with activate_left=True;
    - y * quant_scale (smooth scale, when given), then quant_mode 0
      (static): round(y + quant_offset); 1 (dynamic): per-row scale
      127 / max|y|;
    - returns (int8 [T, H], float32 scale [T]): the dequantisation scale
      max|y| / 127 per row in dynamic mode, ones in static mode.
    group_index (count mode) splits the rows into groups that use row g of
    weight_scale, quant_scale and quant_offset.
    """
    if x.dim() < 2 or x.shape[-1] % 2:
        raise RuntimeError("npu_dequant_swiglu_quant: x must be [T, 2H], got %s" % (tuple(x.shape),))
    if quant_mode not in (0, 1):
        raise RuntimeError("npu_dequant_swiglu_quant: quant_mode must be 0 or 1, got %r" % (quant_mode,))
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    act = activation_scale.reshape(-1) if activation_scale is not None else None
    if group_index is None:
        # one group: the scales are [2H] / [1, 2H] and [H] / [1, H]
        y, scale = _dequant_swiglu_quant_rows(x2, weight_scale, act, bias, quant_scale, quant_offset,
                                              activate_left, quant_mode)
    else:
        ys, scales = [], []
        begin = 0
        for g, count in enumerate(group_index.reshape(-1).tolist()):
            end = begin + int(count)
            def pick(t):
                return None if t is None else t.reshape(-1, t.shape[-1])[g]
            y_g, s_g = _dequant_swiglu_quant_rows(
                x2[begin:end], pick(weight_scale), None if act is None else act[begin:end], bias,
                pick(quant_scale), pick(quant_offset), activate_left, quant_mode)
            ys.append(y_g)
            scales.append(s_g)
            begin = end
        y = torch.cat(ys) if ys else x2.new_zeros((0, x2.shape[-1] // 2), dtype=torch.int8)
        scale = torch.cat(scales) if scales else torch.zeros(0)
    return y.reshape(*lead, -1), scale.reshape(lead)


def npu_add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    """x = x1 + x2, then RMSNorm of x over the trailing gamma.dim() dims.

    Returns (y, rstd, x): x1 and x2 have one shape and dtype; the sum is
    taken in float32 and the norm uses that float sum (x is returned rounded
    to x1's dtype); rstd = 1 / sqrt(mean(x^2) + epsilon), float32 with shape
    x.shape[:-gamma.dim()] + [1] * gamma.dim(); y = x * rstd * gamma in x1's
    dtype.
    """
    if x1.shape != x2.shape or x1.dtype != x2.dtype:
        raise RuntimeError("npu_add_rms_norm: x1 %s %s and x2 %s %s differ"
                           % (tuple(x1.shape), x1.dtype, tuple(x2.shape), x2.dtype))
    nd = gamma.dim()
    if tuple(x1.shape[x1.dim() - nd:]) != tuple(gamma.shape):
        raise RuntimeError("npu_add_rms_norm: gamma shape %s does not match the trailing dims of x %s"
                           % (tuple(gamma.shape), tuple(x1.shape)))
    dims = tuple(range(x1.dim() - nd, x1.dim()))
    xf = x1.float() + x2.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=dims, keepdim=True) + epsilon)
    y = (xf * rstd * gamma.float()).to(x1.dtype)
    return y, rstd, xf.to(x1.dtype)


def _rotate(x, rotary_mode):
    """rotate_half (-x[..., D/2:], x[..., :D/2]) for 'half'; for 'interleave'
    each pair (x[2i], x[2i+1]) becomes (-x[2i+1], x[2i])."""
    if x.shape[-1] % 2:
        raise RuntimeError("rotary: the last dim of x has odd size %d" % x.shape[-1])
    if rotary_mode == "half":
        a, b = x.chunk(2, dim=-1)
        return torch.cat((-b, a), dim=-1)
    if rotary_mode == "interleave":
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack((-b, a), dim=-1).reshape(x.shape)
    raise RuntimeError("rotary_mode must be 'half' or 'interleave', got %r" % (rotary_mode,))


def npu_rotary_mul(input, r1, r2, rotary_mode="half"):
    """Rotary position embedding: input * r1 + rotate(input) * r2, r1 and r2
    broadcast to input; computed in float32 and rounded once to input's
    dtype (the shape is input's)."""
    x = input.float()
    y = x * r1.float() + _rotate(x, rotary_mode) * r2.float()
    if y.shape != input.shape:
        raise RuntimeError("npu_rotary_mul: r1/r2 do not broadcast to x %s" % (tuple(input.shape),))
    return y.to(input.dtype)


def npu_apply_rotary_pos_emb(query, key, cos, sin, layout="BSH", rotary_mode="half"):
    """query and key rotated in place (q * cos + rotate_half(q) * sin, the
    same for key, as npu_rotary_mul computes it) and returned. cos and sin
    broadcast to both (layout BSH/BSND: [B, S, 1, D])."""
    if layout not in ("BSH", "BSND", "SBH", "BNSD", "TND", 1, 2, 3, 4):
        raise RuntimeError("npu_apply_rotary_pos_emb: unknown layout %r" % (layout,))
    q = npu_rotary_mul(query, cos, sin, rotary_mode)
    k = npu_rotary_mul(key, cos, sin, rotary_mode)
    query.copy_(q)
    key.copy_(k)
    return query, key


def npu_prefetch(input, dependency, max_size, offset=0):
    """A hint to load input's bytes into the NPU's L2 cache: nothing to do on
    the CPU. max_size must be positive, offset not negative."""
    if max_size <= 0 or offset < 0:
        raise RuntimeError("npu_prefetch: max_size must be > 0 and offset >= 0")
    return None


def npu_dynamic_quant(x, *, smooth_scales=None, group_index=None, dst_type=None):
    """Per-row (last dim) symmetric int8 quantisation.

    v = x [* smooth_scales] in float32; scale = max|v| / 127 per row
    (float32, x.shape[:-1]); y = round(v / scale) (halves to even),
    saturated to int8; y = 0 in a row whose scale is 0.
    """
    if group_index is not None or dst_type not in (None, torch.int8):
        raise RuntimeError("npu_dynamic_quant: group_index and int4 output are not modelled")
    v = x.float()
    if smooth_scales is not None:
        v = v * smooth_scales.float()
    m = v.abs().amax(dim=-1, keepdim=True)
    scale = m / 127.0
    q = torch.where(scale > 0, torch.round(v / scale), torch.zeros_like(v))
    return q.clamp(-128, 127).to(torch.int8), scale.squeeze(-1)


def npu_moe_gating_top_k_softmax(x, finished=None, k=1):
    """Softmax over the experts (last dim, float32), then its k largest values
    in descending order (ties: the lower expert first).

    Returns (y in x's dtype, expert_idx int32, row_idx int32), each
    x.shape[:-1] + [k]; expert_idx is num_expert (x.shape[-1]) in rows
    where finished is True; with R rows (x.shape[:-1] flattened),
    row_idx[r, j] = j * R + r.
    """
    e = x.shape[-1]
    if not 1 <= k <= min(e, 1024):
        raise RuntimeError("npu_moe_gating_top_k_softmax: k = %d out of range" % k)
    p = torch.softmax(x.float(), dim=-1)
    vals, idx = torch.sort(p, dim=-1, descending=True, stable=True)
    vals, idx = vals[..., :k], idx[..., :k]
    if finished is not None:
        idx = torch.where(finished.unsqueeze(-1), torch.full_like(idx, e), idx)
    rows = p.numel() // e if e else 0
    row_idx = (torch.arange(k).reshape(1, k) * rows + torch.arange(rows).reshape(rows, 1))
    return vals.to(x.dtype), idx.to(torch.int32), row_idx.reshape(idx.shape).to(torch.int32)


def npu_moe_gating_top_k(x, k, *, bias=None, k_group=1, group_count=1, group_select_mode=0,
                         renorm=0, norm_type=1, out_flag=False, routed_scaling_factor=1.0,
                         eps=1e-20):
    """MoE routing of x [tokens, experts], all in float32:
    norm = sigmoid(x) (norm_type 1) or softmax(x, -1) (norm_type 0);
    sel = norm + bias (bias [experts], optional); with group_count > 1 the
    experts split into group_count equal groups scored by their maximum
    (group_select_mode 0) or the sum of their two largest sel values (1),
    and all but the k_group best groups (ties: the lower group) are set to
    -inf; expert_idx = the k largest sel in descending order (ties: the
    lower expert); y = norm at expert_idx, divided by (its row sum + eps)
    when norm_type is 1 (sigmoid), then times routed_scaling_factor.

    Returns (y in x's dtype, expert_idx int32, out = norm float32
    [tokens, experts]; torch_npu fills out only with out_flag, this
    stand-in always does). renorm must be 0 (normalise, then top-k).
    """
    if x.dim() != 2:
        raise RuntimeError("npu_moe_gating_top_k: x must be 2-D")
    if renorm != 0 or norm_type not in (0, 1) or group_select_mode not in (0, 1):
        raise RuntimeError("npu_moe_gating_top_k: renorm 0, norm_type 0/1, group_select_mode 0/1")
    t, e = x.shape
    if group_count < 1 or e % group_count or not 1 <= k_group <= group_count:
        raise RuntimeError("npu_moe_gating_top_k: bad group_count / k_group")
    gsize = e // group_count
    if not 1 <= k <= gsize * k_group:
        raise RuntimeError("npu_moe_gating_top_k: k = %d out of range" % k)
    xf = x.float()
    norm = torch.sigmoid(xf) if norm_type == 1 else torch.softmax(xf, dim=-1)
    sel = norm + bias.float() if bias is not None else norm
    if group_count > 1:
        g = sel.reshape(t, group_count, gsize)
        if group_select_mode == 0:
            score = g.amax(dim=-1)
        else:
            score = torch.sort(g, dim=-1, descending=True, stable=True)[0][..., :2].sum(dim=-1)
        keep_idx = torch.sort(score, dim=-1, descending=True, stable=True)[1][:, :k_group]
        keep = torch.zeros(t, group_count, dtype=torch.bool).scatter(1, keep_idx, True)
        sel = torch.where(keep.unsqueeze(-1), g, torch.full_like(g, float("-inf"))).reshape(t, e)
    idx = torch.sort(sel, dim=-1, descending=True, stable=True)[1][:, :k]
    y = norm.gather(1, idx)
    if norm_type == 1:
        y = y / (y.sum(dim=-1, keepdim=True) + eps)
    y = y * routed_scaling_factor
    return y.to(x.dtype), idx.to(torch.int32), norm


def _lengths(v, b, full):
    """Length of batch b from a list/tuple or tensor of per-batch lengths
    (None: full)."""
    if v is None:
        return full
    n = int(v[b])
    if not 0 <= n <= full:
        raise RuntimeError("attention: actual length %d outside [0, %d]" % (n, full))
    return n


def _to_bnsd(t, layout, heads):
    if layout == "BSH":
        b, s, h = t.shape
        return t.reshape(b, s, heads, h // heads).transpose(1, 2)
    if layout == "BSND":
        return t.transpose(1, 2)
    if layout == "BNSD":
        return t
    raise RuntimeError("attention: layout %r is not modelled" % (layout,))


def _attention(query, key, value, atten_mask, lq, lkv, block_table, num_heads, scale, pre_tokens,
               next_tokens, layout, num_kv_heads, sparse_mode, block_size):
    """The attention every torch_npu entry point below computes, in float32:
    query, key and value as [B, N, S, D] (BSH is [B, S, N * D], BSND
    [B, S, N, D]); query head h reads key/value head h // (N // N_kv)
    (GQA). For batch b only the first lq[b] query rows and lkv[b] key rows
    count (None: all). scores = (q @ k^T) * scale, masked out (-inf) where
    sparse_mode 2: j > i (causal from the top left); 3: j > i + lkv - lq
    (causal from the bottom right); 4: the band from the bottom right,
    j - i - (lkv - lq) > next_tokens or i + (lkv - lq) - j > pre_tokens
    (modes 2 to 4 ignore the compressed atten_mask they are given);
    sparse_mode 0: atten_mask (True / nonzero = masked; [Sq, Skv],
    [B or 1, Sq, Skv] or [B or 1, N or 1, Sq, Skv]) and, with a mask, the
    band j - i > next_tokens or i - j > pre_tokens; 1: atten_mask alone. out = softmax(scores) @ v,
    lse = log(sum(exp(scores))) per row (float32 [B, N, Sq, 1]). Rows with
    nothing to attend (beyond lq, or all masked): out 0, lse +inf. With a
    block_table [B, blocks], key/value are paged [blocks, block_size, N_kv *
    D] or [blocks, N_kv, block_size, D], and key row j of batch b is row
    j % block_size of block block_table[b, j // block_size]."""
    n = num_heads
    nkv = num_kv_heads or n
    if n % nkv:
        raise RuntimeError("attention: num_key_value_heads must divide num_heads")
    q = _to_bnsd(query, layout, n).float()
    bsz = q.shape[0]
    if block_table is not None:
        def paged(t):
            if t.dim() == 3:
                t = t.reshape(t.shape[0], t.shape[1], nkv, -1)
            else:
                t = t.transpose(1, 2)
            g = t[block_table.long()]                 # [B, blocks, bs, nkv, D]
            return g.reshape(bsz, -1, nkv, g.shape[-1]).transpose(1, 2).float()
        k, v = paged(key), paged(value)
    else:
        k, v = _to_bnsd(key, layout, nkv).float(), _to_bnsd(value, layout, nkv).float()
    sq, skv = q.shape[2], k.shape[2]
    out = torch.zeros(q.shape, dtype=torch.float32)
    lse = torch.full(q.shape[:3] + (1,), float("inf"), dtype=torch.float32)
    mask = None
    if atten_mask is not None and sparse_mode in (0, 1):
        mask = atten_mask
        while mask.dim() < 4:
            mask = mask.unsqueeze(0)
    for b in range(bsz):
        nq, nk = _lengths(lq, b, sq), _lengths(lkv, b, skv)
        i = torch.arange(nq).reshape(-1, 1)
        j = torch.arange(nk).reshape(1, -1)
        for h in range(n):
            kh = h // (n // nkv)
            s = (q[b, h, :nq] @ k[b, kh, :nk].transpose(0, 1)) * scale
            if sparse_mode == 2:      # leftUpCausal
                masked = j > i
            elif sparse_mode == 3:    # rightDownCausal
                masked = j > i + (nk - nq)
            elif sparse_mode == 4:    # band, from the bottom-right corner
                masked = (j - i - (nk - nq) > next_tokens) | (i + (nk - nq) - j > pre_tokens)
            elif mask is not None:
                m = mask[b if mask.shape[0] > 1 else 0, h if mask.shape[1] > 1 else 0, :nq, :nk] != 0
                if sparse_mode == 0:  # defaultMask: the mask and the pre/next band
                    m = m | (j - i > next_tokens) | (i - j > pre_tokens)
                masked = m
            else:
                masked = torch.zeros(nq, nk, dtype=torch.bool)
            s = s.masked_fill(masked, float("-inf"))
            ok = ~masked.all(dim=1) if nk else torch.zeros(nq, dtype=torch.bool)
            if not bool(ok.any()):
                continue
            p = torch.softmax(s[ok], dim=-1)
            out[b, h, :nq][ok] = p @ v[b, kh, :nk]
            mx = s[ok].max(dim=-1).values
            lse[b, h, :nq, 0][ok] = mx + torch.log(torch.exp(s[ok] - mx.unsqueeze(-1)).sum(-1))
    if layout == "BSH":
        out = out.transpose(1, 2).reshape(query.shape)
    elif layout == "BSND":
        out = out.transpose(1, 2)
    return out.to(query.dtype), lse


def _one(t):
    """key/value: a tensor or a list of one tensor."""
    if isinstance(t, (list, tuple)):
        if len(t) != 1:
            raise RuntimeError("attention: key/value lists of %d tensors are not modelled" % len(t))
        return t[0]
    return t


def _no_extras(name, kwargs):
    for k, v in kwargs.items():
        if v is not None:
            raise RuntimeError("%s: argument %s is not modelled" % (name, k))


def npu_fused_infer_attention_score(query, key, value, *, atten_mask=None, actual_seq_lengths=None,
                                    actual_seq_lengths_kv=None, block_table=None, num_heads=1,
                                    scale=1.0, pre_tokens=2147483647, next_tokens=2147483647,
                                    input_layout="BSH", num_key_value_heads=0, sparse_mode=0,
                                    inner_precise=0, block_size=0, antiquant_mode=0,
                                    softmax_lse_flag=False, **kwargs):
    """Fused inference attention (see _attention) -> (attention_out,
    softmax_lse); without softmax_lse_flag softmax_lse is a [1] zero."""
    _no_extras("npu_fused_infer_attention_score", kwargs)
    if input_layout == "TND":
        # query [T, N, D], key/value [Tkv, Nkv, D]; batch b is the rows from
        # the cumulative length before it to actual_seq_lengths[b]
        # (actual_seq_lengths_kv[b]); softmax_lse [T, N, 1]
        outs, lses, q0, k0 = [], [], 0, 0
        for qe, ke in zip(actual_seq_lengths, actual_seq_lengths_kv):
            qe, ke = int(qe), int(ke)
            if qe > q0:
                o, l = _attention(query[q0:qe].unsqueeze(0), _one(key)[k0:ke].unsqueeze(0),
                                  _one(value)[k0:ke].unsqueeze(0), atten_mask, None, None, None,
                                  num_heads, scale, pre_tokens, next_tokens, "BSND",
                                  num_key_value_heads, sparse_mode, block_size)
                outs.append(o[0])
                lses.append(l[0].transpose(0, 1).reshape(qe - q0, -1, 1))
            q0, k0 = qe, ke
        lse = torch.cat(lses) if softmax_lse_flag else torch.zeros(1)
        return torch.cat(outs), lse
    out, lse = _attention(query, _one(key), _one(value), atten_mask, actual_seq_lengths,
                          actual_seq_lengths_kv, block_table, num_heads, scale, pre_tokens,
                          next_tokens, input_layout, num_key_value_heads, sparse_mode, block_size)
    return out, (lse if softmax_lse_flag else torch.zeros(1))


def npu_incre_flash_attention(query, key, value, *, atten_mask=None, actual_seq_lengths=None,
                              block_table=None, num_heads=1, scale_value=1.0, input_layout="BSH",
                              num_key_value_heads=0, block_size=0, inner_precise=1, **kwargs):
    """Incremental (decode) attention: _attention with actual_seq_lengths as
    the key/value lengths; returns attention_out."""
    _no_extras("npu_incre_flash_attention", kwargs)
    return _attention(query, _one(key), _one(value), atten_mask, None, actual_seq_lengths,
                      block_table, num_heads, scale_value, 2147483647, 2147483647, input_layout,
                      num_key_value_heads, 0, block_size)[0]


def npu_prompt_flash_attention(query, key, value, *, atten_mask=None, actual_seq_lengths=None,
                               num_heads=1, scale_value=1.0, pre_tokens=2147473647, next_tokens=0,
                               input_layout="BSH", num_key_value_heads=0, actual_seq_lengths_kv=None,
                               sparse_mode=0, **kwargs):
    """Prompt (prefill) attention: _attention; returns attention_out."""
    _no_extras("npu_prompt_flash_attention", kwargs)
    return _attention(query, key, value, atten_mask, actual_seq_lengths, actual_seq_lengths_kv, None,
                      num_heads, scale_value, pre_tokens, next_tokens, input_layout,
                      num_key_value_heads, sparse_mode, 0)[0]


def scatter_update_(data, indices, updates, axis):
    """In place on data: for every row b of dim 0, the updates.shape[axis]
    slices of updates[b] along axis replace data[b]'s from position
    indices[b] on (a KV-cache write: data [B, .., S, ..], indices [B]).
    Returns data."""
    if indices.dim() != 1 or indices.shape[0] != data.shape[0]:
        raise RuntimeError("scatter_update_: indices must be [data.shape[0]] (2-d indices are not modelled)")
    ax = axis % data.dim()
    if ax == 0:
        raise RuntimeError("scatter_update_: axis 0 is the batch dim")
    n = updates.shape[ax]
    for b in range(data.shape[0]):
        p = int(indices[b])
        if p < 0 or p + n > data.shape[ax]:
            raise RuntimeError("scatter_update_: indices[%d] = %d out of range" % (b, p))
        data[b].narrow(ax - 1, p, n).copy_(updates[b])
    return data


def scatter_update(data, indices, updates, axis):
    """scatter_update_ on a copy of data."""
    return scatter_update_(data.clone(), indices, updates, axis)


def npu_scatter_nd_update_(var, indices, updates):
    """In place on var: var[tuple(indices[i])] = updates[i] for every index
    tuple i of indices [.., K] (in order: the last write wins). Returns var."""
    k = indices.shape[-1]
    idx = indices.reshape(-1, k).tolist()
    up = updates.reshape((len(idx),) + tuple(var.shape[k:]))
    for i, t in enumerate(idx):
        for j, v in enumerate(t):
            if not 0 <= v < var.shape[j]:
                raise RuntimeError("npu_scatter_nd_update_: index %d out of range" % v)
        var[tuple(t)] = up[i]
    return var


def npu_scatter_nd_update(var, indices, updates):
    """npu_scatter_nd_update_ on a copy of var."""
    return npu_scatter_nd_update_(var.clone(), indices, updates)


def npu_interleave_rope(x, cos, sin):
    """Rotary embedding of an interleaved x: q = x's last dim de-interleaved
    (x[..., 0::2] then x[..., 1::2]), then q * cos + rotate_half(q) * sin
    in float32 (cos, sin broadcast to x), rounded once to x's dtype."""
    xf = x.float()
    q = torch.cat((xf[..., 0::2], xf[..., 1::2]), dim=-1)
    y = q * cos.float() + _rotate(q, "half") * sin.float()
    return y.to(x.dtype)


def npu_grouped_matmul(x, weight, *, bias=None, group_list=None, split_item=0, group_type=None,
                       group_list_type=0, output_dtype=None, act_type=0, **kwargs):
    """Grouped matmul: group i computes x_i @ weight_i (+ bias_i) in float32,
    rounded once to x's dtype. x is one tensor per weight, or one tensor
    whose rows group_list (ints: cumulative ends with group_list_type 0,
    counts with 1) splits among the weights. split_item 0/1: a list of the
    group results; 2/3: a list of one tensor, the results concatenated by
    rows."""
    for k, v in kwargs.items():
        if v is not None and not (isinstance(v, (list, tuple)) and len(v) == 0):
            raise RuntimeError("npu_grouped_matmul: argument %s is not modelled" % k)
    if act_type:
        raise RuntimeError("npu_grouped_matmul: act_type is not modelled")
    if len(x) == 1 and len(weight) > 1:
        ends, at = [], 0
        for v in group_list:
            at = at + int(v) if group_list_type == 1 else int(v)
            ends.append(at)
        starts = [0] + ends[:-1]
        xs = [x[0][s:e] for s, e in zip(starts, ends)]
    else:
        xs = list(x)
    bias = list(bias) if bias else [None] * len(weight)
    ys = []
    for xi, wi, bi in zip(xs, weight, bias):
        y = xi.float() @ wi.float()
        if bi is not None:
            y = y + bi.float()
        ys.append(y.to(output_dtype or xi.dtype))
    if split_item in (2, 3):
        return [torch.cat(ys, dim=0)]
    return ys
