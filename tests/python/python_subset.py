# The Python model code is written in, as Python evaluates it: each VALUES
# entry is a str naming one super-kernel scope; tests/python_subset.sh runs
# the part between the markers in python3 and compares.
import torchair

# --- python: begin
import math
import numpy as np
import torch
import torch.nn as nn

import functools
from functools import partial
from types import SimpleNamespace

name, n, x = "blk", 7, 2.5


def act(a, b=2, *rest, scale=1, **kw):
    return "act(%r,%r,%r,%r,%r)" % (a, b, rest, scale, sorted(kw.items()))


class Base:
    kind = "base"

    def __init__(self, width, **kwargs):
        self.width = width
        for k, v in kwargs.items():
            setattr(self, k, v)

    @property
    def double(self):
        return self.width * 2

    @staticmethod
    def tag(s):
        return "<" + s + ">"

    @classmethod
    def make(cls, w):
        return cls(w)


class Child(Base):
    kind = "child"


class Other:
    pass


import dataclasses
from dataclasses import dataclass, field


@dataclass
class Cfg:
    hidden_size: int = 64
    num_heads: int = 4
    name: str = "cfg"
    layers: list = field(default_factory=list)
    eps: float = field(default=1e-6)
    SCALE = 3


@dataclasses.dataclass(frozen=False)
class BigCfg(Cfg):
    num_heads: int = 8
    experts: int = 2

    def __post_init__(self):
        self.head_dim = self.hidden_size // self.num_heads


@dataclass
class Pair:
    a: int
    b: str = "b"


class HFConfig:
    model_type = "llama"

    def __init__(self, hidden_size=32, num_attention_heads=4, rope_theta=10000.0, **kwargs):
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.rope_theta = rope_theta
        for key, value in kwargs.items():
            setattr(self, key, value)


cfg1 = Cfg()
cfg2 = Cfg(128, name="x")
cfg2.layers.append(1)
big = BigCfg(hidden_size=256, experts=4)
pair = Pair(1)
hf = HFConfig(hidden_size=64, num_key_value_heads=2, tie=True)
p1 = partial(act, 1, scale=3)
p2 = functools.partial(p1, 5, extra=True)
norm = partial(nn.LayerNorm, eps=1e-6)
b = Base(4, heads=8, name="b")
c = Child.make(3)
setattr(c, "late", [1, 2])
ns = SimpleNamespace(hidden=16, act="gelu")
ns.layers = 2
setattr(ns, "late", 1.5)

import collections
from typing import NamedTuple

Pt = collections.namedtuple("Pt", "x, y z", defaults=[7])
Sz = collections.namedtuple("Sz", ["h", "w"])


class Span(NamedTuple):
    start: int
    stop: int = 10

    def width(self, scale=1):
        return (self.stop - self.start) * scale

    @property
    def mid(self):
        return (self.start + self.stop) // 2


class Pt2(Pt):
    def norm1(self):
        return abs(self.x) + abs(self.y) + abs(self.z)


pt = Pt(1, z=3, y=2)
sp = Span(4)

VALUES = [
    # % formatting
    "%s_%d" % (name, n),
    "%r %f %.3f %5d %x %%" % (name, 1.5, 2.0 / 3, 42, 255),
    "%-5s|%05.1f|%+d|% d|%#x|%#o|%X" % ("ab", 3.14159, 5, 5, 255, 8, 255),
    "%s" % name,
    "%d" % 3.99,
    "%s %s" % (True, None),
    "%e|%.2E|%g|%G" % (12345.678, 0.000123, 0.0001, 1e20),
    "%(a)s-%(b)03d" % {"a": "k", "b": 7},
    "%s" % ([1, "a", (2.5,)],),
    "%5.2s|" % "abc",
    "%i %u" % (-3, 4),
    "%a" % "q",
    "layer%d.attn" % 0 + "/" + "%.1f%%" % 12.34,
    # functools.partial: positional then call's, keywords merged as Python
    p1(2) + p1(b=4, scale=9, z=1) + p2() + p2(6, 7, extra=False),
    repr(p2.args) + str(sorted(p2.keywords)) + str(p2.func is act),
    str(norm(8).eps) + str(norm(8, eps=1e-5).eps) + str(norm(8).normalized_shape),
    # hasattr, getattr with defaults, setattr on instances
    str([hasattr(b, "heads"), hasattr(b, "missing"), hasattr(c, "late"), hasattr(c, "double"), hasattr(c, "tag")]),
    str([getattr(b, "heads", 1), getattr(b, "kv_heads", 2), getattr(c, "late"), b.name, c.width, c.late]),
    str([b.double, c.double, Base.tag("t"), c.tag("u"), b.kind, c.kind, Child.kind]),
    # isinstance against classes, types and tuples of them
    str([isinstance(c, Base), isinstance(b, Child), isinstance(c, (Other, Child)), isinstance(b, Other)]),
    str([isinstance(1, int), isinstance(True, int), isinstance(True, bool), isinstance(1, bool), isinstance(1.0, int),
         isinstance(1.0, float), isinstance("s", str), isinstance((1,), tuple), isinstance([1], (tuple, list)),
         isinstance({}, dict), isinstance(None, int), isinstance(p1, partial), isinstance(ns, SimpleNamespace)]),
    str([isinstance(norm(4), nn.Module), isinstance(norm(4), nn.LayerNorm), isinstance(norm(4), nn.Linear),
         isinstance(torch.ones(2), torch.Tensor), isinstance(3, torch.Tensor), isinstance(b, nn.Module)]),
    str([callable(act), callable(p1), callable(b), callable(Base), callable(3), callable(norm(4))]),
    # dataclasses and HF-style configs
    str([cfg1.hidden_size, cfg1.num_heads, cfg1.name, cfg1.layers, cfg1.eps, cfg2.hidden_size, cfg2.name, cfg2.layers]),
    str([big.hidden_size, big.num_heads, big.experts, big.head_dim, big.layers, big.SCALE, Cfg.SCALE, Cfg.eps]),
    str([pair.a, pair.b, Pair(2, "c").b, Pair(b="d", a=3).a, isinstance(big, Cfg), Cfg.hidden_size]),
    str([hf.hidden_size, hf.num_attention_heads, hf.rope_theta, hf.num_key_value_heads, hf.tie, hf.model_type]),
    str([getattr(hf, "num_key_value_heads", 9), getattr(hf, "head_dim", hf.hidden_size // hf.num_attention_heads),
         getattr(cfg1, "missing", None), hasattr(hf, "tie"), hasattr(hf, "nope")]),
    str([dataclasses.asdict(big), dataclasses.replace(cfg1, num_heads=2).num_heads, dataclasses.is_dataclass(cfg1),
         dataclasses.is_dataclass(hf), dataclasses.replace(big, experts=1).head_dim]),
    # SimpleNamespace
    "%d %s %d %s %s" % (ns.hidden, ns.act, ns.layers, ns.late, getattr(ns, "nope", "dflt")),
    # builtins on known values
    str(list(enumerate("ab", start=3))) + str(list(zip([1, 2, 3], "ab", (7, 8, 9)))) + str(list(reversed([1, 2, 3]))),
    str(sorted([3, 1, 2], reverse=True)) + str(sorted(["bb", "a", "ccc"], key=len)) + str(sorted([(1, "b"), (0, "z"), (1, "a")])),
    str(sorted([-3, 1, -2], key=abs, reverse=True)) + str(sorted({"b": 1, "a": 2})) + str(sorted([1, 2, 3, 4], key=lambda v: v % 2)),
    str([min(3, 1, 2), max([4, 9, 2]), min("bca"), max(["ab", "b"]), max([1, -5, 3], key=abs), min([], default=7),
         max(2, 3.5), min((2, "a"), (1, "z")), max(["aa", "b", "cc"], key=len), min(3, 1, key=lambda v: -v)]),
    str([sum([1, 2, 3]), sum([0.5, 0.25], 1), sum((1, 2), 10), any([0, "", None]), any([0, 3]), all([1, "x"]), all([])]),
    # math on known numbers
    str([math.sqrt(16), math.floor(2.7), math.ceil(2.1), math.floor(-2), math.log(math.e), math.log(8, 2), math.exp(0)]),
    str([math.pow(2, 10), math.isqrt(17), math.log2(1024), math.gcd(12, 18), math.gcd(0, 5), math.prod([2, 3, 4])]),
    str([math.prod([1.5, 2]), math.trunc(-2.7), math.cos(0), math.sin(0), math.pi, math.e, math.inf, -math.inf]),
    str([round(math.pi, 3), math.fabs(-2), math.log10(1000), math.tau, round(2.5), round(3.5), abs(-3)]),
    # str subscripts, str of dtypes
    "abcdef"[1:4] + "abcdef"[::-1] + "abcdef"[-1] + "abcdef"[::2] + "abcdef"[4:1:-1] + "ab"[5:] + "|" + str(torch.float16),
    "-" * 3 + 2 * "ab" + "x" * 0 + "y" * -2 + "%" * 2,
    # type, __class__, __name__, more builtins and str methods
    type(b).__name__ + c.__class__.__name__ + type(norm(4)).__name__ + act.__name__ + Base.__name__ + str(type(3) is int),
    str([divmod(7, 2), divmod(-7, 2), pow(2, 5), chr(65), ord("a"), hex(255), bin(5), oct(8), hex(-1)]),
    str([list(map(int, ["1", "2"])), list(map(lambda u, v: u + v, [1, 2], [10, 20, 30])), list(filter(None, [0, 1, 2]))]),
    str([issubclass(Child, Base), issubclass(Base, Child), issubclass(Child, (Other, Base)), issubclass(Base, object)]),
    str([math.isclose(0.1 + 0.2, 0.3), math.isfinite(1.0), math.isinf(math.inf), math.isnan(1.0)]),
    str(["12".isdigit(), "a1".isalpha(), "a1".isalnum(), " ".isspace(), "ab".islower(), "AB".isupper(), "".isdigit()]),
    str(["abcab".count("ab"), "abc".find("c"), "abca".rfind("a"), "abc".find("z"), "abc".index("b")]),
    "7".zfill(3) + "-7".zfill(4) + "ab".rjust(4) + "ab".ljust(3, ".") + "|" + "ab".center(7) + "|" + "abc".center(6, "*"),
    str(["a/b/c".rsplit("/", 1), "x.y".partition("."), "x.y.z".rpartition("."), "nope".partition("."), "a b c".rsplit(" ")]),
    "model.layer".removeprefix("model.") + "w.bias".removesuffix(".bias") + "hello".capitalize(),
    str([round(2.675, 2), round(1234.5, -2), round(0.5), round(-1.5), round(1e300, 2)]),
    # repr/str of containers
    str([1, 2.0, "x", None, True]) + repr((1,)) + str({"a": [1, (2, 3)]}) + repr(()),
    # named tuples (collections.namedtuple, typing.NamedTuple)
    str([pt.x, pt.y, pt.z, pt[0], pt[-1], len(pt), list(pt), pt == (1, 2, 3), isinstance(pt, tuple)]),
    str([sp.start, sp.stop, sp[1], tuple(sp) == (4, 10), Sz(1, 2).w, Pt(0, 1).z, Span(stop=2, start=1)[0]]),
    str([isinstance(pt, Pt), isinstance(sp, Span), isinstance(pt, Span), isinstance(sp, tuple), type(pt) == Pt,
         type(sp).__name__]),
    str([Pt2(-1, 2).norm1(), Pt2(1, 2, 3).z, isinstance(Pt2(1, 2), Pt), isinstance(pt, Pt2), Pt2._fields]),
    str([pt._fields, sp._fields, sp.width(), sp.width(scale=2), sp.mid, Span(2, 4).mid]),
]
# sets: literals, set(), add, discard, in, len, sorted, methods, comprehensions
s1 = {3, 1, 2, 3}
s1.add(5)
s1.add(1)
s1.discard(2)
s1.discard(99)
s2 = set([1, 2, 2, 4])
s3 = set()
s3.add("a")
s4 = {x % 3 for x in range(10)}
s5 = set("hello")
s6 = {*[1, 1], *(2, 1)}
s7 = s2.copy()
s7.update([0], (9,))
s7.remove(0)
VALUES.extend([
    str([sorted(s1), len(s1), 3 in s1, 2 in s1, 7 not in s1, sorted(s2), len(set()), str(set()), str(s3), sorted(s4)]),
    str([sorted(s5), len(s5), sorted(s6), sorted(s7), len(s2), str({7}), repr({"x"}), {1, 2} == {2, 1}, {1} == {1, 2}]),
    str([sorted(s2.union([9, 1])), sorted(s2.intersection((2, 4, 8))), sorted(s2.difference({1})),
         {1, 2}.issubset([1, 2, 3]), {1, 5}.issuperset({5}), type(s2).__name__, isinstance(s2, set), bool(set()),
         sorted(s2, reverse=True)]),
    str([[v for v in sorted({"b", "a"})], max({4, 9, 2}), sum({1, 2, 2}), min(set([5, 3])), list(sorted(set((3, 3))))]),
])
# iter / next: on lists, tuples, ranges, zip, strings, dicts; with a default
it = iter([10, 20, 30])
a1 = next(it)
a2 = next(it)
rest = list(it)
e1 = next(it, "done")
itr = iter(range(2, 5))
tz = iter(zip("ab", (1, 2)))
tt = iter((7, 8))
it2 = iter([1, 2, 3])
first = next(it2)
after = [v * 10 for v in it2]
it3 = iter([4, 5, 6])
for v in it3:
    if v == 5:
        break
VALUES.extend([
    str([a1, a2, rest, e1, next(itr), next(itr), next(itr), next(itr, None), next(tz), next(tz), next(tz, -1)]),
    str([next(tt), list(tt), next(iter("xyz")), next(iter({"k": 1})), next(iter([]), 0), sorted(iter({3, 1}))]),
    str([first, after, next(it2, "end"), iter(it2) is it2, next(iter(enumerate("q"))), list(it3)]),
])
# dict equality: the same keys with equal values, in any order
VALUES.extend([
    str([{"h": 2} == {"h": 2}, {"a": 1, "b": (2, 3)} == {"b": (2, 3), "a": 1}, {"h": 2} == {"h": 3},
         {"h": 2} == {"w": 2}, {"h": 2} != {"h": 2}, {} == {}, {"h": {"i": [1]}} == {"h": {"i": [1]}},
         {1: "x"} == {1.0: "x"}, {"h": 2} == {"h": 2, "w": 3}]),
])
# an instance's __dict__ is its namespace: writes either way are seen by
# the other, a dict held across attribute writes included
class Bag:
    kind = "bag"

    def __init__(self, **kw):
        self.__dict__.update(kw)


bag = Bag(a=1, b=2)
view = bag.__dict__
bag.c = 3
view["a"] = 10
view.setdefault("d", 4)
del view["b"]
bag.e = view.pop("d") + 1
bag.f = 6
last = bag.__dict__.popitem()
bag2 = Bag()
for k, v in {"x": 1, "y": "z"}.items():
    setattr(bag2, k, v)
Bag.kind = "sack"
bag2.kind = "own"
nums = [3, 1, 2, 1]
cp = nums.copy()
cp.sort()
nums.sort(key=lambda v: -v)
left = {"p": 1, "q": 2, "r": 3}
popped = left.popitem()
VALUES.extend([
    str([sorted(view.items()), last, hasattr(bag, "f"), bag.a, hasattr(bag, "b"), bag.e, view is bag.__dict__, len(bag.__dict__),
         sorted(bag2.__dict__), vars(bag2) is bag2.__dict__, vars(bag2)["y"], "kind" in bag.__dict__, bag.kind, Bag.kind, bag2.kind, list(Bag(q=1).__dict__)]),
    str([nums, cp, [3, 1, 2, 1].index(1), [3, 1, 2, 1].index(1, 2), [3, 1, 2].index(2, -2), [1, 1, 2].count(1),
         (1, 2, 1).count(1), ("a", "b").index("b"), [[1], [2]].index([2]), [1, 2, 1].index(1, -1, 3),
         "a.b.c".rindex("."), "a.b".index("."), popped, left]),
])
# nn.Module's parameters and buffers in PyTorch's order: each module's own
# first, then its children's; tied ones once


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 3), nn.LayerNorm(3)])
        self.scale = nn.Parameter(torch.ones(3))
        self.seq = nn.Sequential(nn.Linear(3, 3, bias=False), nn.ReLU())
        self.plist = nn.ParameterList([nn.Parameter(torch.ones(1)), nn.Parameter(torch.ones(2))])
        self.register_buffer("buf", torch.zeros(2))
        self.emb = nn.Embedding(3, 3)
        self.emb.weight = self.seq[0].weight
        self.again = self.blocks[1]


net = Net()
VALUES.extend([
    str([[n for n, _ in net.named_parameters()], [tuple(p.shape) for p in net.parameters()],
         [n for n, _ in net.named_buffers()], len(list(net.parameters(recurse=False))),
         [n for n, _ in net.seq.named_parameters(prefix="m")], str(next(net.parameters()).dtype),
         sum(p.numel() for p in net.parameters())]),
])
# numpy at build time: constants, numpy.float64 scalars and Python's
# operators on them; hasattr on torch.nn modules
VALUES.extend([
    str([np.pi, np.e, -np.inf, np.newaxis, np.log(1 / 0.07), np.exp(1), np.sqrt(2), -np.sqrt(3) * 2,
         abs(-np.exp(0.5)), np.float64(3) // 2, 2 ** np.sqrt(2), type(np.log(2)).__name__, round(np.log(3)),
         isinstance(np.exp(1), float), f"{np.log(2.0):.3f}", float(np.sqrt(2)) * 2]),
    str([hasattr(nn.Linear(2, 2), "scales"), hasattr(nn.Linear(2, 2), "in_features"), hasattr(nn.LayerNorm(2), "eps"),
         hasattr(nn.Linear(2, 2), "extra_repr"), hasattr(nn.GELU(), "approximate"), hasattr(nn.ReLU(), "p")]),
])
# --- python: end


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        x = self.fc(x)
        for i, v in enumerate(VALUES):
            with torchair.scope.super_kernel(f"{i}:{v}", ""):
                x = x * 2
        return x


model = Model()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
