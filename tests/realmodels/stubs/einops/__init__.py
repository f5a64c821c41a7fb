"""Stand-in for einops (tests/realmodels): rearrange, repeat and einsum for
the patterns model files use (named axes, parenthesised groups, new axes of
repeat given by keyword), written on reshape, permute, expand and
torch.einsum."""
import torch


def _axes(side):
    """'b (h d) n' -> [['b'], ['h', 'd'], ['n']]"""
    groups, cur, depth = [], None, 0
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            cur, depth = [], 1
        elif tok == ")":
            groups.append(cur)
            cur, depth = None, 0
        elif depth:
            cur.append(tok)
        else:
            groups.append([tok])
    return groups


def _sides(x, pattern):
    """The axis groups of both sides, '...' standing for the dims the left
    side does not name."""
    left, right = [s.strip() for s in pattern.split("->")]
    lg, rg = _axes(left), _axes(right)
    extra = ["_dot%d" % i for i in range(x.dim() - len(lg) + 1)]
    def expand(groups):
        out = []
        for g in groups:
            if g == ["..."]:
                out += [[a] for a in extra]
            else:
                out.append(g)
        return out
    return expand(lg), expand(rg)


def _sizes(x, groups, known):
    sizes = dict(known)
    for dim, group in zip(x.shape, groups):
        unknown = [a for a in group if a not in sizes]
        rest = 1
        for a in group:
            if a in sizes:
                rest *= sizes[a]
        if len(unknown) == 1:
            sizes[unknown[0]] = dim // rest
    return sizes


def _positions(names):
    pos = {}
    for i, a in enumerate(names):
        pos[a] = i
    return pos


def rearrange(x, pattern, **known):
    lg, rg = _sides(x, pattern)
    sizes = _sizes(x, lg, known)
    flat = [a for g in lg for a in g]
    x = x.reshape([sizes[a] for a in flat])
    order = [a for g in rg for a in g]
    pos = _positions(flat)
    x = x.permute([pos[a] for a in order])
    shape = []
    for g in rg:
        n = 1
        for a in g:
            n *= sizes[a]
        shape.append(n)
    return x.reshape(shape)


def repeat(x, pattern, **known):
    lg, rg = _sides(x, pattern)
    sizes = _sizes(x, lg, known)
    flat = [a for g in lg for a in g]
    x = x.reshape([sizes[a] for a in flat])
    order = [a for g in rg for a in g]
    kept = [a for a in order if a in flat]
    pos = _positions(flat)
    x = x.permute([pos[a] for a in kept])
    view = [sizes[a] if a in flat else 1 for a in order]
    x = x.reshape(view).expand([sizes[a] for a in order])
    shape = []
    for g in rg:
        n = 1
        for a in g:
            n *= sizes[a]
        shape.append(n)
    return x.reshape(shape)


def einsum(*args):
    tensors, pattern = args[:-1], args[-1]
    left, right = [s.strip() for s in pattern.split("->")]
    letters = {}
    def spell(side):
        out = ""
        for a in side.split():
            if a not in letters:
                letters[a] = "abcdefghijklmnopqrstuvwxyz"[len(letters)]
            out += letters[a]
        return out
    ins = [spell(s) for s in left.split(",")]
    return torch.einsum(",".join(ins) + "->" + spell(right), *tensors)
