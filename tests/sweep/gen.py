"""Writes the op sweep's model scripts: every row of ir/ops.def called the
way PyTorch spells it, on the dtypes PyTorch takes for it, broadcast where
the op broadcasts, on transposed and sliced (not contiguous) operands.

usage: gen.py OPS_DEF OUTDIR   (prints what it covers per family)

A row is placed in a family by its columns:
- an elementwise row (flag OPF_ELEMWISE) whose shape rule has no family of
  its own in FAMILIES: its Python spelling is the first of torch.NAME(x),
  torch.NAME(x, y), torch.nn.functional.NAME(x), torch.NAME(c, x, y) (a
  bool c) that PyTorch accepts, NAME the row's dump name (a trailing
  "_tensor" dropped: pow_tensor is torch.pow); it is called contiguous with
  a broadcast second operand, transposed, and (two operands) with a Python
  int and a Python float as the second operand;
- any other row by its shape rule (COL_SHAPE_RULE): FAMILIES[rule] lists
  the family's call templates, written once for every row of the family
  and filled in with the row's Python function ({f}, {n}: the dump name,
  or the family's `names` entry where the Python spelling differs).
A row of no family and not in NOT_SWEPT (sources no Python call produces)
makes gen.py fail naming the row, so that a new row of a new family is
noticed. A row none of whose calls PyTorch accepts fails too, and so does
a family template PyTorch takes for none of the family's rows (a typo).

Every template is tried in PyTorch (CPU, with tests/ref/stubs' stand-ins
for torch_npu and the float32 fallbacks the reference harness uses) on each
dtype of the family at gen time; a (template, dtype) PyTorch refuses is
left out rather than guessed. A call listed in KNOWN_FAILURES is left out
with its reason printed. The batch dim B of every operand that has one is
a gear dim (2 or 4, zip gears): every gear is run. Each call's comment
names its row, dtype and form, so that a failing output names the row.
"""
import os
import re
import sys

# Cells of an OP( ... ) row of ir/ops.def, counted from 0. The row's header
# there reads:
#   OP(enum, dump name, flags, inputs min, max, optional from,
#      int attrs min, max, shape rule, dtype rule,
#      row rule, plan attributes, fusion, op type, ...)
COL_ENUM = 0
COL_NAME = 1
COL_FLAGS = 2
COL_SHAPE_RULE = 8
COL_DTYPE_RULE = 9
COL_ROW_RULE = 10

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ref", "stubs"))
import torch  # noqa: E402
import _tngc_ref  # noqa: E402
_tngc_ref.install()
import torch_npu  # noqa: E402,F401
F = torch.nn.functional

DTYPES = ["float32", "float16", "bfloat16", "int32", "bool"]
FLOATS = ["float32", "float16", "bfloat16"]
NONBOOL = ["float32", "float16", "bfloat16", "int32"]
# The arithmetic rows that are not elementwise (reductions, scans, sorts):
# bfloat16 left out to keep the sweep's time down (float16 takes the same
# half-precision paths; the elementwise rows and casts cover bfloat16).
ARITH = ["float32", "float16", "int32", "bool"]
ARITH_NONBOOL = ["float32", "float16", "int32"]
# Rows that move elements without arithmetic: one dtype of each element size
# (4, 2 and 1 bytes) suffices.
SIZES = ["float32", "float16", "bool"]
# The index and scatter rows: 4- and 2-byte elements (the views and cat
# take the 1-byte bool), to keep the sweep's time down.
INDEX_SIZES = ["float32", "float16"]

# Rows no Python call produces on its own, with the reason.
NOT_SWEPT = {
    "INPUT": "a graph input: every call's operands are inputs",
    "WEIGHT": "a weight or buffer: the sweep's models have none",
    "ALL_REDUCE": "a collective: only with --world-size N > 1 (tests/tp_mpi), one process has none",
    "ALL_GATHER": "a collective: only with --world-size N > 1 (tests/tp_mpi), one process has none",
    "REDUCE_SCATTER": "a collective: only with --world-size N > 1 (tests/tp_mpi), one process has none",
    "BROADCAST": "a collective: only with --world-size N > 1 (tests/tp_mpi), one process has none",
    "ALL_TO_ALL": "a collective: only with --world-size N > 1 (tests/tp_mpi), one process has none",
}

# Calls left out because tngc gets them wrong or refuses them, keyed by
# the call's comment, with the reason (printed by gen.py).
KNOWN_FAILURES = {
}

# Operands. Per dtype (named NAME_DTYPE in the model): B is the gear dim.
PER_DTYPE = {
    "x": ("[B, 8]", "(4, 8)"),
    "y": ("[1, 8]", "(1, 8)"),
    "u": ("[B, 8], distinct values", "(4, 8)"),
    "m": ("[8, 6]", "(8, 6)"),
    "a3": ("[B, 4, 6]", "(4, 4, 6)"),
    "b3": ("[B, 6, 5]", "(4, 6, 5)"),
    "img": ("[B, 3, 6, 6]", "(4, 3, 6, 6)"),
    "k": ("[4, 3, 3, 3]", "(4, 3, 3, 3)"),
}
MAKE = {
    "float32": "(torch.rand({s}) * 4 - 2)",
    "float16": "(torch.rand({s}) * 4 - 2).half()",
    "bfloat16": "(torch.rand({s}) * 4 - 2).bfloat16()",
    "int32": "torch.randint(-4, 5, {s}, dtype=torch.int32)",
    "bool": "(torch.rand({s}) > 0.5)",
}
MAKE_DISTINCT = "(torch.argsort(torch.rand(32)).reshape(4, 8) - 16).to(torch.{dt})"
# Operands of every model whatever the dtype: (construction, geared).
SHARED = {
    "c": ("torch.rand(4, 8) > 0.5", True),
    "ix": ("torch.tensor([3, 0, 2])", False),
    "g": ("torch.randint(0, 8, (4, 8))", True),
    "p": ("torch.argsort(torch.rand(4, 8), dim=1)", True),
    "pos": ("torch.randint(0, 4, (4,))", True),
    "nd": ("torch.tensor([[5], [1]])", False),
    "q1": ("torch.randint(-10, 10, (4, 8), dtype=torch.int8)", True),
    "q2": ("torch.randint(-10, 10, (8, 6), dtype=torch.int8)", False),
    "s6": ("torch.rand(6) * 0.02 + 0.01", False),
    "s8": ("torch.rand(8) * 0.02 + 0.01", False),
    "sb": ("torch.rand(4) + 0.5", True),
}


class Family:
    """Call templates of the rows of some shape rules, written to one model.

    A template is Python with the operands in braces ({x}, {c}, ...), {dt}
    the dtype (torch.DTYPE), {f} the row's Python function, {n} its name,
    {extra} one of the row's NAMES extras; statements separated by "; ",
    the last one the call's value, {t} a temporary of the call's own. A
    template with no per-dtype operand and no {dt} is called once."""

    def __init__(self, model, dtypes, templates, names=None, tolerance="default"):
        self.model, self.dtypes, self.templates = model, dtypes, templates
        self.names, self.tolerance = names or {}, tolerance
        self.rows, self.taken = [], set()   # the rows placed here; the templates some row takes


REDUCE = [
    "torch.{n}({x})",
    "torch.{n}({x}, dim=-1)",
    "torch.{n}({x}, dim=0, keepdim=True)",
    "torch.{n}({x}.t(), dim=1, keepdim=True)",
    "torch.{n}({a3}, dim=(0, 2))",
    "torch.{n}({a3}[:, ::2], dim=1, keepdim=True)",
]
VALUES_BY_DIM = ["{f}({u}, dim=-1)", "{f}({u}.t(), dim=0)", "{f}({a3}, dim=2, keepdim=True)"]

FAMILIES = {}


# The family of rows whose shape rule is RULE, or (checked first) whose
# shape rule and dtype rule are RULE/DTYPE: rows of one shape rule whose
# Python calls differ (identity: casts, clamps, pow, isnan) are told apart
# by their dtype rule. ELEMENTWISE sends such rows to the elementwise path.
ELEMENTWISE = "elementwise"


def family(rules, fam):
    for r in rules.split():
        FAMILIES[r] = fam


family("identity/attr", Family("unary", DTYPES, [
    "{x}.to(torch.float32)", "{x}.t().to(torch.float16)", "{x}.to(torch.bfloat16)",
    "{x}.to(torch.int32)", "{x}.t().to(torch.bool)", "{x}.to(torch.int64)", "{x}.float()",
    "({x} * 40).to(torch.int8)",
]))
family("identity/with_scalar", Family("unary", DTYPES, [
    "{f}({x}, -1, 1)", "{f}({x}.t(), min=0.5)", "{f}({x}, max=1)", "{f}({x}, 0.5)",
], {"clamp_min": ("torch.clamp_min", []), "clamp_max": ("torch.clamp_max", [])}))
family("full", Family("shape", DTYPES, [
    "torch.full(({x}.shape[0], 3), 2.5, dtype={dt})", "torch.zeros_like({x}.t())",
    "{x}.new_full(({x}.shape[0], 2), -1)",
    "torch.full((3, {x}.shape[0]), 7)", "torch.full((2,), True)",
]))
family("arange", Family("shape", NONBOOL, [
    "torch.arange({x}.shape[0])", "torch.arange(1, {x}.shape[0] * 3, 2, dtype={dt})",
    "torch.arange({x}.shape[0], 0, -1, dtype={dt})", "torch.arange(8, dtype={dt})",
    "torch.arange(0.5, 4, 0.75, dtype={dt})", "torch.arange(2, {x}.shape[0] * 2, 3, dtype={dt})",
]))
family("reshape", Family("shape", SIZES, [
    "{x}.reshape(-1)", "{x}.t().reshape(2, -1)", "{a3}.view({a3}.shape[0], -1)",
    "{x}.unsqueeze(1)", "{y}.squeeze(0)", "torch.flatten({a3}.transpose(1, 2), 1)",
]))
family("permute", Family("shape", SIZES, [
    "{a3}.permute(2, 0, 1)", "{x}.t()", "torch.transpose({a3}, 0, 2)",
    "{a3}[:, ::2].permute(0, 2, 1)",
]))
family("identity", Family("shape", SIZES, [
    "{f}({x}.t(){extra})", "{f}({a3}[:, ::2]{extra})", "{f}({x}{extra})",
], {"contiguous": ("", [".contiguous()"]), "clone": ("torch.clone", [""]),
    "format_cast": ("torch_npu.npu_format_cast", [", 2"])}))
family("slice", Family("shape", SIZES, [
    "{x}[:, 1:7]", "{x}[:, ::3]", "{x}.t()[2:-1]", "{a3}.narrow(2, 1, 3)", "{x}[-1:]",
    "{x}[:, 5:100]", "{x}[:, -100:3]", "{x}[:, 6:2]", "{x}[1:, -3::2]",
]))
family("slice_dyn", Family("shape", SIZES, [
    "{x}[:, :{x}.shape[0]]", "{x}.t()[{x}.shape[0]:]", "{x}.narrow(1, {x}.shape[0], 2)",
]))
family("select", Family("shape", SIZES, [
    "{x}[:, 3]", "{a3}[:, -1]", "{x}.t()[5]", "{x}[0]",
]))
family("cat stack", Family("shape", SIZES, [
    "torch.{n}(({x}, {x}.t().t() * 2), 1)", "torch.{n}(({x}.t(), {x}.t()), 0)",
    "torch.{n}(({y}, {x}), 0)", "torch.{n}([{x}, {x}[:, :3]], -1)",
    "torch.{n}(({a3}[:, 1], {x}[:, :6]), -1)", "torch.{n}(({x}, {x}.to(torch.float16)), 0)",
    "torch.{n}(({x}, {c}), 1)", "torch.{n}(({x}, {x}[:, :0]), 1)",
]))
family("expand", Family("shape", SIZES, [
    "{y}.expand({x}.shape[0], 8)", "{y}.expand_as({x})", "{m}[:, :1].expand(8, 3)",
    "{a3}[:, :1].expand(-1, 3, -1)",
]))
family("flip roll", Family("shape", SIZES, [
    "torch.flip({x}, (0,))", "torch.flip({a3}, (1, 2))", "{x}.t().flip(1)",
    "torch.roll({x}, -3, 0)", "torch.roll({x}, 2)", "torch.roll({a3}, (1, -2), (1, 2))",
    "{x}.t().roll(3, 0)", "torch.roll({x}, 19, -1)",
]))
family("tri", Family("shape", SIZES, [
    "torch.{n}({x})", "torch.{n}({x}.t(), -1)", "{a3}.{n}(2)", "torch.{n}({x}, 9)",
    "torch.{n}({x}, -9)",
]))
family("reduce any_all", Family("reduce", ARITH, REDUCE))
family("identity/pow identity/bool_out", ELEMENTWISE)
family("softmax", Family("reduce", ARITH, [
    "{f}({x}, dim=-1)", "{f}({x}.t(), dim=1)", "{f}({a3}, dim=1)", "{f}({x}, dim=0)",
]))
family("layer_norm", Family("reduce", ARITH, [
    "F.layer_norm({x}, (8,))", "F.layer_norm({a3}, (6,), {m}[0], {m}[1], eps=1e-3)",
    "F.layer_norm({a3}.transpose(1, 2), (4,))", "F.layer_norm({a3}, (4, 6))",
]))
family("rms_norm", Family("reduce", FLOATS, [
    "{f}({x}, {y}[0])", "{f}({a3}.transpose(1, 2), {m}[:4, 0], epsilon=1e-5)",
], {"rms_norm": ("torch_npu.npu_rms_norm", [])}))
family("add_rms_norm", Family("reduce", FLOATS, [
    "{f}({x}, {x}.flip(0), {y}[0])", "{f}({x}.t(), {x}.t(), {m}[0, :1].expand({x}.shape[0]), 1e-5)",
], {"add_rms_norm": ("torch_npu.npu_add_rms_norm", [])}))
family("topk", Family("reduce", ARITH_NONBOOL, [
    "torch.topk({u}, 3)", "torch.topk({u}.t(), 2, dim=0, largest=False)",
    "torch.topk({u}[:, 1:], 4, sorted=True)", "torch.topk({u}, 8, dim=-1)",
]))
family("sort", Family("reduce", ARITH_NONBOOL, [
    "{f}({u}, dim=-1)", "{f}({u}.t(), dim=0)", "{f}({u}[:, ::2], descending=True)",
]))
family("arg_reduce", Family("reduce", ARITH_NONBOOL, VALUES_BY_DIM,
                            {"max_dim": ("torch.max", []), "min_dim": ("torch.min", [])}))
family("cumsum", Family("reduce", ARITH, [
    "torch.cumsum({x}, 1)", "torch.cumsum({x}.t(), 0)", "torch.cumsum({a3}, dim=1)",
    "torch.cumsum({x}, -1, dtype=torch.float32)",
]))
family("mm bmm matmul addmm linear", Family("contract", NONBOOL, [
    "torch.{n}({x}, {m})", "torch.{n}({x}[:, ::2], {m}[::2])", "torch.{n}({m}.t(), {x}.t())",
    "torch.{n}({a3}, {b3})", "torch.{n}({b3}.transpose(1, 2), {a3}.transpose(1, 2))",
    "torch.{n}({a3}, {m}[:6])", "torch.{n}({x}, {m}[:, 0])", "torch.{n}({m}[:, 0], {m})",
    "torch.{n}({m}[0], {x}, {m})", "torch.{n}({m}[:1], {x}, {m}, beta=0.5, alpha=2)",
    "torch.{n}({x}[:, :6], {x}, {m})",
    "F.{n}({x}, {m}.t())", "F.{n}({x}, {m}.t(), {m}[0])", "F.{n}({a3}, {m}, {x}[0])",
], tolerance="matmul"))
family("embedding", Family("shape", INDEX_SIZES, [
    "F.embedding({g}, {m})", "F.embedding({g}.t(), {m})", "F.embedding({ix}, {m}.t())",
]))
family("index_select", Family("shape", INDEX_SIZES, [
    "torch.index_select({x}, 1, {ix})", "{x}.t().index_select(0, {ix})",
    "{a3}.index_select(2, {ix}.int())",
]))
family("gather", Family("shape", INDEX_SIZES, [
    "torch.gather({x}, 1, {g})", "torch.gather({x}.t(), 0, {g}.t())", "{x}.gather(1, {g}[:, :3])",
    "torch.gather({x}, -1, {g}[:, 2:5])",
]))
family("index", Family("shape", INDEX_SIZES, [
    "{x}[:, {ix}]", "{a3}[:, {ix}, {ix}]", "{x}.t()[{ix}]", "{a3}[..., {ix}.flip(0)]",
    "{x}[:, {ix} - 8]", "{a3}[:, {ix}.unsqueeze(1), {ix}]",
]))
family("index_put", Family("shape", INDEX_SIZES, [
    "{x}.t().index_put(({ix},), {x}.t()[:1])", "{x}.t().index_put(({ix},), {x}.t()[:1], accumulate=True)",
    "{t} = {x}.clone(); {t}[:, {ix}] = {y}[:, :3]; {t}",
]))
family("scatter", Family("shape", INDEX_SIZES, [
    "{x}.{n}(1, {p}[:, :3], {x}[:, 2:5])", "{x}.{n}(1, {p}[:, :3], 2.5)",
    "{x}.{n}(1, {g}, {x}.t().t(), reduce='add')", "{x}.t().{n}(0, {p}.t()[:2], {x}.t()[:2])",
]))
family("index_update", Family("shape", INDEX_SIZES, [
    "{x}.{n}(1, {ix}, {x}[:, :3])", "{x}.t().{n}(0, {ix}, {x}.t()[:3])",
    "{x}.{n}(1, {ix}, {x}[:, 5:], alpha=2)",
]))
family("copy", Family("shape", INDEX_SIZES, [
    "{t} = {x}.clone(); {t}.copy_({y}); {t}", "{t} = {x}.t().clone(); {t}.copy_({x}.t()); {t}",
]))
family("slice_store", Family("shape", INDEX_SIZES, [
    "{t} = {x}.clone(); {t}[:, 1:3] = {y}[:, :2]; {t}", "{t} = {x}.t().clone(); {t}[2:5] = 1; {t}",
]))
family("masked_fill", Family("shape", INDEX_SIZES, [
    "{x}.masked_fill({c}, 1.5)", "{x}.t().masked_fill({c}.t(), -1)", "{x}.masked_fill({c}[:1], 2)",
]))
family("sdpa", Family("nn", FLOATS, [
    "F.scaled_dot_product_attention({a3}, {a3}, {a3})",
    "F.scaled_dot_product_attention({a3}, {a3}.flip(1), {a3}[:, :, :3], is_causal=True)",
    "F.scaled_dot_product_attention({a3}, {a3}, {a3}, {c}[:, :4].unsqueeze(1))",
]))
family("conv", Family("nn", FLOATS, [
    "F.conv2d({img}, {k})", "F.conv2d({img}, {k}, {k}[:, 0, 0, 0], stride=2, padding=1)",
    "F.conv2d({img}.transpose(2, 3), {k}, None, 1, (0, 1), 2)",
    "F.conv1d({img}[:, :, 0], {k}[:, :, 0], padding=1)",
]))
family("batch_norm", Family("nn", FLOATS, [
    "F.batch_norm({img}, {y}[0, :3], {y}[0, 3:6] * {y}[0, 3:6] + 0.5, {y}[0, 5:], {y}[0, 2:5], False, 0.1, 1e-3)",
    "F.batch_norm({img}, {y}[0, :3], {y}[0, 3:6] * {y}[0, 3:6] + 0.5)",
]))
family("group_norm", Family("nn", FLOATS, [
    "F.group_norm({img}, 3)", "F.group_norm({img}, 1, {y}[0, :3], {y}[0, 3:6])",
]))
family("pool2d", Family("nn", FLOATS, [
    "{f}({img}, 2)", "{f}({img}.transpose(2, 3), 3, 2, 1)", "{f}({img}, (2, 3), padding=1)",
    "{f}({img}[0], 2)", "{f}({img}, 3, 2, 1, count_include_pad=False)",
]))
family("adaptive_pool2d", Family("nn", FLOATS, [
    "{f}({img}, 2)", "{f}({img}, (4, 3))", "{f}({img}.transpose(2, 3), 1)", "{f}({img}, (5, 6))",
]))
family("interpolate", Family("nn", FLOATS, [
    "{f}({img}, scale_factor=2{extra})", "{f}({img}, size=(4, 9){extra})",
    "{f}({img}.transpose(2, 3), scale_factor=1.5{extra})",
], {"upsample_nearest2d": ("F.interpolate", [""]),
    "upsample_bilinear2d": ("F.interpolate", [", mode='bilinear'",
                                              ", mode='bilinear', align_corners=True"])}))
family("swiglu", Family("nn", FLOATS, [
    "{f}({x}, dim=-1)", "{f}({x}.t(), dim=0)", "{f}({a3}, dim=-1)",
]))
family("quant_matmul", Family("nn", FLOATS, [
    "{f}({q1}, {q2}, {s6})", "{f}({q1}, {q2}, {s6}, pertoken_scale={sb}, output_dtype={dt})",
    "{f}({q1}, {q2}.t().contiguous().t(), {s6}, output_dtype=torch.int32)",
]))
family("weight_quant_matmul", Family("nn", FLOATS, [
    "{f}({x}, {q2}, {s6}.to({dt}))",
    "{f}({x}, {q2}.t().contiguous().t(), {s6}.to({dt}), ({s6} * 300).to({dt}), bias={s6})",
    "{f}({x}, {q2}, torch.stack([{s6}, {s6} * 2]).to({dt}), antiquant_group_size=4)",
], {"weight_quant_matmul": ("torch_npu.npu_weight_quant_batchmatmul", [])}))
family("dequant_swiglu_quant", Family("nn", FLOATS + ["int32"], [
    "{f}({x}, quant_mode=1)",
    "{f}({x}, weight_scale={s8}, activation_scale={sb}, quant_mode=1)",
]))
family("moe_gating_top_k", Family("nn", FLOATS, [
    "{f}({u}, 2)", "{f}({u}, 3, bias={y}[0], norm_type=1)",
    "{f}({u}, 2, k_group=2, group_count=4, group_select_mode=1, norm_type=1)",
]))
family("moe_gating_top_k_softmax", Family("nn", FLOATS, [
    "{f}({u}, None, k=2)", "{f}({u}, {c}[:, 0], k=1)", "{f}({u}.t().t(), k=3)",
]))
family("rotary_mul", Family("nn", FLOATS, [
    "{f}({a3}.unsqueeze(2), {a3}[:1].unsqueeze(2).flip(1), {a3}[:1].unsqueeze(2){extra})",
    "{f}({a3}.unsqueeze(2), {a3}[:1].unsqueeze(2), {a3}[:1].unsqueeze(2).flip(-1){extra})",
], {"rotary_mul": ("torch_npu.npu_rotary_mul", ["", ", rotary_mode='interleave'"])}))
family("dynamic_quant", Family("nn", FLOATS, [
    "{f}({x})", "{f}({a3}, smooth_scales={m}[0])", "{f}({x}.t())",
]))
family("fused_attention", Family("nn", FLOATS, [
    "{f}({a3}, {a3}, {a3}.flip(1), num_heads=2, input_layout='BSH', scale=0.5)",
    "{f}({a3}.unsqueeze(1), {a3}.unsqueeze(1), {a3}.unsqueeze(1), num_heads=1, input_layout='BNSD')",
], {"fused_attention": ("torch_npu.npu_fused_infer_attention_score", [])}))
family("scatter_update", Family("nn", SIZES, [
    "{f}({a3}, {pos}, {a3}[:, :1].flip(2), 1)", "{f}({a3}, {pos}.flip(0), {a3}[:, 3:], -2)",
], {"scatter_update": ("torch_npu.scatter_update", [])}))
family("scatter_nd_update", Family("nn", SIZES, [
    "{f}({m}, {nd}, {m}[:2].flip(1))", "{f}({m}, {nd} + 1, {m}[3:5])",
], {"scatter_nd_update": ("torch_npu.npu_scatter_nd_update", [])}))

SPELLINGS = [
    ("torch.{n}(x)", lambda f, x, y, c: f(x), "torch"),
    ("torch.{n}(x, y)", lambda f, x, y, c: f(x, y), "torch"),
    ("F.{n}(x)", lambda f, x, y, c: f(x), "F"),
    ("torch.{n}(c, x, y)", lambda f, x, y, c: f(c, x, y), "torch"),
]


def split_cells(body, where):
    """The comma-separated cells of an OP( ... ) row's text (after "OP("),
    commas inside parentheses or string literals not splitting."""
    cells, cur, depth, i = [], [], 0, 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            j = i + 1
            while j < len(body) and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            if j >= len(body):
                sys.exit("gen.py: %s: an unterminated string in an OP row" % where)
            cur.append(body[i:j + 1])
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                cells.append("".join(cur).strip())
                return cells
            depth -= 1
        elif ch == "," and depth == 0:
            cells.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    sys.exit("gen.py: %s: an OP row without its closing parenthesis" % where)


def rows(path):
    text = open(path).read()
    for m in re.finditer(r"^OP\(", text, re.M):
        where = "%s:%d" % (path, text.count("\n", 0, m.start()) + 1)
        cells = split_cells(text[m.end():], where)
        need = max(COL_ENUM, COL_NAME, COL_FLAGS, COL_SHAPE_RULE, COL_DTYPE_RULE, COL_ROW_RULE)
        if len(cells) <= need:
            sys.exit("gen.py: %s: an OP row of %d cells (the sweep reads cell %d)" % (where, len(cells), need))
        yield {"enum": cells[COL_ENUM], "name": cells[COL_NAME].strip('"'),
               "flags": cells[COL_FLAGS], "shape": cells[COL_SHAPE_RULE], "dtype": cells[COL_DTYPE_RULE],
               "row": cells[COL_ROW_RULE], "where": where}


# ---- the elementwise rows: spellings found by trying ----

def sample(dtype, shape):
    g = torch.Generator().manual_seed(7)
    if dtype == "bool":
        return torch.rand(shape, generator=g) > 0.5
    if dtype == "int32":
        return torch.randint(-4, 5, shape, generator=g, dtype=torch.int32)
    return (torch.rand(shape, generator=g) * 4 - 2).to(getattr(torch, dtype))


def pyname(name):
    return name[:-len("_tensor")] if name.endswith("_tensor") else name


def spelling(name):
    """The first spelling PyTorch accepts on some input dtype, with those dtypes."""
    py = pyname(name)
    for form, call, ns in SPELLINGS:
        mod = torch if ns == "torch" else F
        f = getattr(mod, py, None)
        if f is None or not callable(f):
            continue
        dts = []
        for dt in DTYPES:
            try:
                out = call(f, sample(dt, (4, 8)), sample(dt, (1, 8)), sample("bool", (4, 8)))
                if isinstance(out, torch.Tensor):
                    out.float().sum()
                    dts.append(dt)
            except Exception:
                pass
        if dts:
            return form.format(n=py), dts
    return None, []


def scalar_ok(name, dt, num):
    try:
        return isinstance(getattr(torch, pyname(name))(sample(dt, (4, 8)), eval(num)), torch.Tensor)
    except Exception:
        return False


def elementwise_calls(row):
    """[(lines, comment, operands)] of an elementwise row, or an error."""
    name = row["name"]
    form, dts = spelling(name)
    if form is None:
        return None, "no spelling of torch.%s fits x, (x, y) or (c, x, y)" % pyname(name)
    two = "(x, y)" in form
    calls = []
    for dt in dts:
        x, y = "x_" + dt, "y_" + dt
        layouts = [("", (x, y, "c")), (" transposed", (x + ".t()", y + ".t()", "c.t()"))]
        if two:   # a Python number as the second operand, where PyTorch takes one
            for num in ("2", "1.5"):
                if scalar_ok(name, dt, num):
                    layouts.append((" scalar " + num, (x, num, "c")))
        for layout, (xa, ya, ca) in layouts:
            expr = form.replace("(c, x, y)", "(%s, %s, %s)" % (ca, xa, ya))
            expr = expr.replace("(x, y)", "(%s, %s)" % (xa, ya)).replace("(x)", "(%s)" % xa)
            calls.append(([expr], "%s %s%s" % (name, dt, layout)))
    model = "binary" if two else "unary"
    return (model, "default", calls), None


# ---- the other rows: the family's templates, tried in PyTorch ----

def resolve(fam, name):
    """The row's Python function path and name, and its extras."""
    if name in fam.names:
        path, extras = fam.names[name]
        return path, path.rsplit(".", 1)[-1], extras or [""]
    py = pyname(name)
    for path, mod in (("torch." + py, torch), ("F." + py, F), ("torch_npu.npu_" + py, torch_npu),
                      ("torch_npu." + py, torch_npu)):
        attr = path.rsplit(".", 1)[-1]
        if callable(getattr(mod, attr, None)):
            return path, py, [""]
    return "torch." + py, py, [""]


def operands(dt):
    """The sample operands of dtype dt, as the model makes them (B = 4)."""
    torch.manual_seed(3)
    env = {}
    for k, (_, shape) in PER_DTYPE.items():
        env[k] = eval(MAKE_DISTINCT.format(dt=dt) if k == "u" else MAKE[dt].format(s=shape))
    for k, (make, _) in SHARED.items():
        env[k] = eval(make)
    return env


def fill(template, names, f, n, extra, dt, tmp):
    subst = {k: names.get(k, k) for k in list(PER_DTYPE) + list(SHARED)}
    subst.update(f=f, n=n, extra=extra, dt="torch." + dt if dt else "torch.float32", t=tmp)
    return template.format(**subst)


def try_call(stmts, env):
    """PyTorch's value of the statements (the last an expression): a list of
    tensors, or None where PyTorch refuses."""
    ns = dict(env, torch=torch, F=F, torch_npu=torch_npu)
    try:
        for s in stmts[:-1]:
            exec(s, ns)
        out = eval(stmts[-1], ns)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
            return None
        for o in outs:
            o.float().sum()
        return outs
    except Exception:
        return None


def template_calls(row, fam):
    name = row["name"]
    f, n, extras = resolve(fam, name)
    calls, taken = [], set()
    for ti, template in enumerate(fam.templates):
        per_dtype = "{dt}" in template or any("{%s}" % k in template for k in PER_DTYPE)
        for extra in extras:
            for dt in fam.dtypes if per_dtype else [None]:
                env = operands(dt or "float32")
                tmp = "t%d" % len(calls)
                stmts = fill(template, {}, f, n, extra, dt, tmp).split("; ")
                outs = try_call(stmts, env)
                if outs is None:
                    continue
                taken.add(ti)
                names = {k: "%s_%s" % (k, dt) for k in PER_DTYPE} if dt else {}
                tmp = "t_%s_%d" % (name, len(calls))
                stmts = fill(template, names, f, n, extra, dt, tmp).split("; ")
                shown = fill(template, {}, f, n, extra, dt, "t")
                calls.append((stmts, "%s %s: %s" % (name, dt or "-", shown), len(outs)))
    return calls, taken


# ---- the models ----

HEADER = '''# Written by tests/sweep/gen.py from ir/ops.def: the {model} rows, each
# in the spelling PyTorch accepts, on the dtypes PyTorch's CPU takes for it,
# contiguous and not (transposed, sliced), broadcast where the op broadcasts.
# tolerance: {tolerance}
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
torch.manual_seed(0)
{inputs}
for t in ({geared},):
    torchair.inference.set_dim_gears(t, dim_gears={{0: [2, 4]}})
with torch.no_grad():
    outs = compiled({args})
print(len(outs))
'''


def write_model(outdir, model, tolerance, body):
    text = "".join(body)
    used = [k for k in SHARED if re.search(r"\b%s\b" % k, text)]
    for dt in DTYPES:
        used += ["%s_%s" % (k, dt) for k in PER_DTYPE if re.search(r"\b%s_%s\b" % (k, dt), text)]
    inputs, geared = [], []
    for v in used:
        if v in SHARED:
            make, gear = SHARED[v]
        else:
            k, dt = v.split("_", 1)
            make = MAKE_DISTINCT.format(dt=dt) if k == "u" else MAKE[dt].format(s=PER_DTYPE[k][1])
            gear = PER_DTYPE[k][0].startswith("[B")
        inputs.append("%s = %s" % (v, make))
        if gear:
            geared.append(v)
    with open(os.path.join(outdir, "sweep_%s.py" % model), "w") as out:
        out.write(HEADER.format(model=model, tolerance=tolerance, params=", ".join(used)))
        out.write(text)
        out.write(FOOTER.format(inputs="\n".join(inputs), geared=", ".join(geared),
                                args=", ".join(used)))


def main():
    ops_def, outdir = sys.argv[1], sys.argv[2]
    models = {}        # model -> [tolerance, body lines]
    report = {}        # family -> [rows, calls]
    errors, notes = [], []
    seen = set()       # every call's comment
    for row in rows(ops_def):
        name = row["name"]
        if row["enum"] in NOT_SWEPT:
            notes.append("sweep: not swept: %s (%s): %s" % (name, row["enum"], NOT_SWEPT[row["enum"]]))
            continue
        fam = FAMILIES.get(row["shape"] + "/" + row["dtype"], FAMILIES.get(row["shape"]))
        if fam == ELEMENTWISE or (fam is None and "OPF_ELEMWISE" in row["flags"]):
            res, err = elementwise_calls(row)
            if err:
                errors.append("%s: %s (%s, shape rule %s): %s" % (row["where"], name, row["enum"], row["shape"], err))
                continue
            model, tolerance, calls = res
            calls = [(lines, comment, 1) for lines, comment in calls]
            famname = "elementwise " + model
        elif fam is None:
            errors.append("%s: %s (%s): no family for shape rule '%s' (row rule '%s'): give the rule "
                          "a Family in tests/sweep/gen.py, or list the row in NOT_SWEPT with the reason"
                          % (row["where"], name, row["enum"], row["shape"], row["row"]))
            continue
        else:
            calls, taken = template_calls(row, fam)
            fam.taken |= taken
            fam.rows.append(name)
            if not calls:
                errors.append("%s: %s (%s): PyTorch takes none of the calls of family '%s'"
                              % (row["where"], name, row["enum"], row["shape"]))
                continue
            model, tolerance = fam.model, fam.tolerance
            famname = row["shape"]
        entry = models.setdefault(model, [tolerance, []])
        if entry[0] != tolerance:
            sys.exit("gen.py: the families of model %s differ in tolerance class" % model)
        kept = 0
        for stmts, comment, nout in calls:
            seen.add(comment)
            if comment in KNOWN_FAILURES:
                notes.append("sweep: known failure, left out: %s: %s" % (comment, KNOWN_FAILURES[comment]))
                continue
            kept += 1
            # one line per output (run.sh leaves out a refused call by its line)
            pre = "".join(s + "; " for s in stmts[:-1])
            if nout == 1:
                entry[1].append("        %souts.append(%s)   # %s\n" % (pre, stmts[-1], comment))
            else:
                for i in range(nout):
                    entry[1].append("        %souts.append((%s)[%d])   # %s [output %d]\n"
                                    % (pre, stmts[-1], i, comment, i))
        rep = report.setdefault(famname, [set(), 0])
        rep[0].add(name)
        rep[1] += kept
    for fam in {id(f): f for f in FAMILIES.values() if f != ELEMENTWISE}.values():
        for ti, template in enumerate(fam.templates):
            if fam.rows and ti not in fam.taken:
                errors.append("call %s of the family of %s: PyTorch takes it for none of the rows"
                              % (template, ", ".join(fam.rows)))
    for k in sorted(set(KNOWN_FAILURES) - seen):
        errors.append("KNOWN_FAILURES names no call: %s" % k)
    if errors:
        for e in errors:
            print("gen.py: " + e)
        sys.exit(1)
    for model, (tolerance, body) in sorted(models.items()):
        write_model(outdir, model, tolerance, body)
    for famname, (names, ncalls) in sorted(report.items()):
        print("sweep: %s: %d calls of %d rows" % (famname, ncalls, len(names)))
    for n in notes:
        print(n)


main()
