#!/usr/bin/env python3
"""Records what a TorchAir example script computes, as files a tngc bundle's
launcher can be run on and compared with.

usage: python3 tests/ref/harness.py SCRIPT OUTDIR [--entry Class.method]
                                    [--inputs DIR] [--all-gears] [--calls=N]
                                    [-- SCRIPT_ARG...]
       python3 tests/ref/harness.py --serve SOCKET

With TNGC_HARNESS_SOCKET=SOCKET set, a call is run by the fork server at
SOCKET (--serve; see serve() below): the same recording, without importing
torch again.

Runs SCRIPT under PyTorch with the stand-in torch_npu / torchair modules of
tests/ref/stubs (as tests/ref/run_example.sh does, in a fresh temporary
directory, with torch.manual_seed(0) first), and records the FIRST call of
every compiled entry the script calls: a module or bound method given to
torch.compile, or a method given to torchair.inference.cache_compile. Each
compile is its own entry, named as tngc names it: Class.method, and for a
second instance of a class compiled too, Class.method#N (N its place among
the entries in the order of their first calls). For each entry it writes
OUTDIR/<bundle>/, where <bundle> is tngc's bundle name (the script's stem,
or <stem>_<Class>_<method>[_N] when the script calls several entries):

  inputs/<name>.npy        every tensor argument of the call, saved before
                           the call; <name> is tngc's input name (parameter
                           name, then [i] for list/tuple elements and
                           ['key'] / [0] for dict entries) with the
                           characters outside [A-Za-z0-9_.-] replaced by '_'
  inputs.txt               one line NAME=/abs/path/inputs/<name>.npy each
  weights.safetensors      the module's state_dict, when it has any tensor,
                           and the tensor attributes (neither parameter nor
                           buffer) the call changed, under their attribute
                           paths, as they were before the call: state tngc
                           keeps as a buffer (frontend/lower/state.c)
  expected/out<k>.npy      the outputs (the returned tensor, or the tensors
                           of returned tuples/lists flattened in order)
  expected/<key>.npy       instead, the outputs of a returned dict, named
                           tuple or dataclass, by key/field (tngc names them so)
  expected/<name>.npy      the inputs the call changed in place, after it
  inputs/dtypes.txt,       one line "<file>.npy <torch dtype>" per .npy file
  expected/dtypes.txt      of the folder (float32, bfloat16, int64, ...)
  fallbacks.txt            the ops of the call computed in float32 and
                           rounded once (see below), one line each
  entry.txt                the entry's name: Class.method[#N]

bfloat16 has no numpy dtype: a bfloat16 tensor is saved as a '<u2' .npy of
its bit patterns (uint16; (bits << 16) viewed as float32 is the value), the
form tngc's launcher reads for a bf16 input and writes for a bf16 output;
dtypes.txt says "bfloat16" for such a file (tests/e2e/compare.py decodes it).

Half precision: PyTorch 1.13's CPU has no float16 kernel for many ops
(matmul, softmax, layer_norm, exp, ...), and some float16/bfloat16 kernels
it has round intermediate values. For those ops the stand-ins compute in
float32 on the operands' values and round once to the dtype (what tngc and
later PyTorch versions do; tests/ref/stubs/_tngc_ref.py). Every such op of a
recorded call is listed in fallbacks.txt ("OP DTYPE REASON COUNT", REASON
no-kernel or rounds-differently) and in one line on stderr.

--entry Class.method  record only that entry (Class.method#N: that instance).
--inputs DIR          replace the tensor arguments of the recorded call by
                      DIR/<name>.npy where such a file exists (e.g. a batch
                      outside the example's shapes); the expected outputs are
                      PyTorch's on those inputs ('<u2' files replace bfloat16
                      arguments bit for bit).
--calls=N             the outputs of the N-th call of each entry instead of
                      the first (every call up to N must pass the first
                      call's inputs, as they were after it: a launcher's N
                      runs from the recorded weights; for state kept
                      between calls)
--all-gears           also record every gear of an entry whose inputs carry
                      torchair.inference.set_dim_gears, in tngc's order (zip:
                      the k-th value of every list; product: the cartesian
                      product, the first (input, dim) varying slowest;
                      duplicates dropped), as OUTDIR/<bundle>/gear<k>/ with
                      inputs/, inputs.txt, expected/, fallbacks.txt, a link
                      weights.safetensors -> ../weights.safetensors and
                      gear.txt ("gear <k>: NAME[dim]=size ..."); OUTDIR/
                      <bundle>/gears.txt lists them all. The inputs of gear k
                      are the recorded call's, cut or grown along each geared
                      dim: cut to the first rows, or grown by appending copies
                      of the recorded tensor, copy j rolled by j along its
                      last other dim of size > 1 (along the geared dim when
                      there is none), so that the added rows differ from the
                      first ones (a kernel reading row i mod n would be
                      caught) yet hold the same values (token ids stay valid).
                      Each gear runs on copies of those inputs with the
                      module's weights and buffers as they were before the
                      recorded call; the script then goes on from the state
                      the recorded call left.

Exit status: the script's (0 when it ran to the end), 1 when it raised,
2 for a usage error or when no compiled entry was called.
"""
import inspect
import itertools
import json
import os
import re
import runpy
import shutil
import struct
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
STUBS = os.path.join(HERE, "stubs")

# safetensors dtype names
SAFETENSORS_DTYPES = {
    "float32": "F32", "float16": "F16", "bfloat16": "BF16", "float64": "F64",
    "int8": "I8", "uint8": "U8", "int16": "I16", "int32": "I32", "int64": "I64",
    "bool": "BOOL",
}


def log(msg):
    sys.stderr.write("harness: %s\n" % msg)


def sanitise(name):
    """The launcher's file name for a tensor name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


# ---- safetensors ----

def tensor_bytes(torch, t):
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def write_safetensors(torch, path, tensors):
    """tensors: list of (name, tensor). Header: 8-byte little-endian length,
    JSON {name: {dtype, shape, data_offsets}} padded with spaces to a
    multiple of 8, then the data."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors:
        dt = str(t.dtype).replace("torch.", "")
        if dt not in SAFETENSORS_DTYPES:
            raise ValueError("weight '%s': dtype %s has no safetensors name" % (name, dt))
        data = tensor_bytes(torch, t)
        header[name] = {"dtype": SAFETENSORS_DTYPES[dt], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


# ---- flattening ----

def flatten_args(torch, sig, args, kwargs):
    """[(tngc input name, tensor)] for the tensors of a call, in parameter order."""
    try:
        bound = sig.bind(*args, **kwargs) if sig is not None else None
    except TypeError:
        bound = None
    out = []

    def walk(name, v):
        if isinstance(v, torch.Tensor):
            out.append((name, v))
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk("%s[%d]" % (name, i), x)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk("%s[%r]" % (name, k), x)

    if bound is None:     # no signature: positional names arg0, arg1...
        for i, v in enumerate(args):
            walk("arg%d" % i, v)
        for k, v in kwargs.items():
            walk(k, v)
        return out
    for pname, v in bound.arguments.items():
        kind = sig.parameters[pname].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            for i, x in enumerate(v):
                walk("%s[%d]" % (pname, i), x)
        elif kind == inspect.Parameter.VAR_KEYWORD:
            for k, x in v.items():
                walk(k, x)
        else:
            walk(pname, v)
    return out


def named_outputs(torch, v):
    """[(file stem, tensor)] of a forward's result as tngc names them: a
    dict's string keys, a named tuple's fields or a dataclass's fields (in
    order, None left out) for a dict, namedtuple or dataclass result
    (HF-style ModelOutput included); out0, out1, ... of the flattened
    tensors otherwise."""
    import dataclasses
    pairs = None
    if isinstance(v, dict):
        pairs = list(v.items())
    elif isinstance(v, tuple) and hasattr(type(v), "_fields"):
        pairs = list(zip(type(v)._fields, v))
    elif dataclasses.is_dataclass(v) and not isinstance(v, type):
        pairs = [(f.name, getattr(v, f.name)) for f in dataclasses.fields(v)]
    if pairs is None:
        return [("out%d" % k, t) for k, t in enumerate(flatten_outputs(torch, v, []))]
    return [(str(k), t) for k, t in pairs if isinstance(t, torch.Tensor)]


def flatten_outputs(torch, v, acc):
    if isinstance(v, torch.Tensor):
        acc.append(v)
    elif isinstance(v, (list, tuple)):
        for x in v:
            flatten_outputs(torch, x, acc)
    elif isinstance(v, dict):
        for x in v.values():
            flatten_outputs(torch, x, acc)
    return acc


def npy_array(torch, t):
    """The numpy array a .npy of t holds: the values, or for bfloat16 the
    '<u2' bit patterns."""
    import numpy as np
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.dtype("<u2"))
    return t.numpy()


def dtype_name(torch, t):
    return str(t.dtype).replace("torch.", "")


def plain_tensor_attrs(torch, module):
    """The tensor attributes of module and its submodules that state_dict
    leaves out: neither parameters nor buffers (self.cache_k =
    torch.zeros(...)), and non-persistent buffers: (name, owner,
    attribute), name the dotted attribute path tngc gives the tensor when
    the compiled method writes it in place (its state)."""
    found = []
    for prefix, m in module.named_modules():
        names = [k for k, v in vars(m).items()
                 if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter)]
        names += [k for k in getattr(m, "_non_persistent_buffers_set", ())
                  if isinstance(m._buffers.get(k), torch.Tensor)]
        for k in names:
            found.append(((prefix + "." if prefix else "") + k, m, k))
    return found


def same(torch, a, b):
    """Bitwise-equal values (NaN equal to NaN)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool(torch.equal(a, b))


# ---- recording ----

class Entry:
    """One compiled entry: where its calls go and what its first call did."""

    def __init__(self, kind, cls, method, module, fn, sig, config=None):
        self.kind, self.cls, self.method = kind, cls, method
        self.module, self.fn, self.sig = module, fn, sig
        self.config = config
        self.recorded = False
        self.fallbacks = []     # [(op, dtype, reason)] of the recorded call
        self.gears = []         # --all-gears: [Gear]
        self.inputs = None      # [(name, tensor before the call)]
        self.outputs = None     # [(name, tensor)]
        self.updated = None     # [(name, tensor after the call)]
        self.weights = None     # [(name, tensor)]
        self.state = []         # [(name, module, attribute, tensor before the call)]
        self.ncalls = 1         # the calls recorded (--calls)
        self.first_inputs = []  # the first call's inputs after it (--calls)
        self.name = None        # tngc's entry name, given at the first call

    @property
    def key(self):
        return "%s.%s" % (self.cls, self.method) if self.cls else self.method


class Gear:
    """One gear of an entry (--all-gears): its sizes and what PyTorch
    computes at them."""

    def __init__(self, index, sizes):
        self.index = index
        self.sizes = sizes      # [(input name, dim, size)]
        self.inputs = None      # [(name, tensor before the call)]
        self.outputs = None
        self.updated = None
        self.fallbacks = []


def merge_policy(config):
    """The CompilerConfig's dynamic_gears_merge_policy ("zip" by default)."""
    inference = getattr(config, "inference_config", None)
    return getattr(inference, "dynamic_gears_merge_policy", None) or "zip"


def gear_table(flat, policy):
    """The gears of a call whose tensors are flat [(name, tensor)], in tngc's
    order: a list of [(name, dim, size)], one entry per geared dim."""
    specs = []                 # (name, dim, values), by input position then dim
    for name, t in flat:
        dims = getattr(t, "_tngc_ref_dim_gears", None) or {}
        for dim in sorted(dims):
            specs.append((name, dim, list(dims[dim])))
    if not specs:
        return []
    if policy == "product":
        rows = itertools.product(*[values for _, _, values in specs])
    else:
        lengths = {len(values) for _, _, values in specs}
        if len(lengths) != 1:
            raise ValueError("zip gears need gear lists of one length, got %s"
                             % ", ".join("%s[%d]: %d" % (n, d, len(v)) for n, d, v in specs))
        rows = zip(*[values for _, _, values in specs])
    seen, gears = set(), []
    for row in rows:
        if row in seen:
            continue
        seen.add(row)
        gears.append([(name, dim, size) for (name, dim, _), size in zip(specs, row)])
    return gears[:100]


def regear(torch, t, sizes):
    """t cut or grown along each geared dim to its size (see --all-gears)."""
    for dim, n in sorted(sizes.items()):
        cur = t.shape[dim]
        if n <= cur:
            t = t.narrow(dim, 0, n)
            continue
        if cur == 0:
            shape = list(t.shape)
            shape[dim] = n
            t = t.new_zeros(shape)
            continue
        other = [d for d in range(t.dim()) if d not in sizes and t.shape[d] > 1]
        roll_dim = other[-1] if other else dim
        copies = [t] + [t.roll(j, roll_dim) for j in range(1, -(-n // cur))]
        t = torch.cat(copies, dim).narrow(dim, 0, n)
    return t.contiguous().clone()


class Recorder:
    def __init__(self, torch, only=None, replace_dir=None, all_gears=False, calls=1):
        self.torch = torch
        self.only = only
        self.replace_dir = replace_dir
        self.all_gears = all_gears
        self.calls = calls
        self.entries = []       # [Entry], one per compile, in order of compilation
        self.called = []        # [Entry] in order of their first call (tngc's order)
        self.state_attrs = set()  # (id(module), attribute) some entry kept as state

    def hook(self, kind, target, config=None):
        torch = self.torch
        if isinstance(target, torch.nn.Module):
            module, fn = target, target.forward
            cls, method = type(target).__name__, "forward"
        elif inspect.ismethod(target):
            module, fn = target.__self__, target
            cls, method = type(target.__self__).__name__, target.__func__.__name__
            if not isinstance(module, torch.nn.Module):
                module = None
        elif callable(target):
            module, fn = None, target
            cls, method = None, getattr(target, "__name__", "fn")
        else:
            return target
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        entry = Entry(kind, cls, method, module, fn, sig, config)
        self.entries.append(entry)
        return self.wrap(entry, target)

    def name_entry(self, entry):
        """Names entry at its first call as tngc names its entries
        (frontend/lower/entry.c): Class.method (or the function's name), and
        when an entry called before has that name (a second instance of the
        class, compiled too), Class.method#N, N its place in call order."""
        name = entry.key
        if any(e.name == name for e in self.called):
            name = "%s#%d" % (name, len(self.called) + 1)
        entry.name = name
        self.called.append(entry)

    def wrap(self, entry, target):
        recorder = self

        def call(*args, **kwargs):
            if entry.name is None:
                recorder.name_entry(entry)
            if entry.recorded and entry.ncalls < recorder.calls:
                return recorder.record_again(entry, target, args, kwargs)
            if entry.recorded or (recorder.only and entry.name != recorder.only):
                return target(*args, **kwargs)
            return recorder.record(entry, target, args, kwargs)

        if isinstance(target, self.torch.nn.Module):
            return CompiledModule(target, call)
        call.__name__ = getattr(target, "__name__", "compiled")
        call.__doc__ = getattr(target, "__doc__", None)
        call.__wrapped__ = target
        return call

    def replace(self, args, kwargs, sig):
        """Replaces tensors of the call by DIR/<name>.npy where present."""
        torch = self.torch
        import numpy as np
        names = {}
        for name, t in flatten_args(torch, sig, args, kwargs):
            names[id(t)] = name

        def sub(v):
            if isinstance(v, torch.Tensor):
                name = names.get(id(v))
                path = os.path.join(self.replace_dir, sanitise(name) + ".npy") if name else None
                if path and os.path.exists(path):
                    log("input %s from %s" % (name, path))
                    a = np.load(path)
                    if v.dtype == torch.bfloat16 and a.dtype == np.uint16:
                        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
                    return torch.from_numpy(a)
                return v
            if isinstance(v, list):
                return [sub(x) for x in v]
            if isinstance(v, tuple):
                return tuple(sub(x) for x in v)
            if isinstance(v, dict):
                return {k: sub(x) for k, x in v.items()}
            return v

        return [sub(a) for a in args], {k: sub(v) for k, v in kwargs.items()}

    def record(self, entry, target, args, kwargs):
        torch = self.torch
        entry.recorded = True
        if self.replace_dir:
            args, kwargs = self.replace(args, kwargs, entry.sig)
        flat = flatten_args(torch, entry.sig, args, kwargs)
        entry.inputs = [(name, t.detach().clone()) for name, t in flat]
        plain = []
        if entry.module is not None:
            entry.weights = [(k, v.detach().clone()) for k, v in entry.module.state_dict().items()
                             if isinstance(v, torch.Tensor)]
            plain = [(n, m, k, getattr(m, k).detach().clone())
                     for n, m, k in plain_tensor_attrs(torch, entry.module)]
        import _tngc_ref
        _tngc_ref.start_fallback_log()
        try:
            result = target(*args, **kwargs)
        finally:
            entry.fallbacks = _tngc_ref.take_fallback_log()
        # tensor attributes the call wrote in place are state: the weights
        # file holds their values before the call, under their attribute path
        # a state attribute of an entry recorded before, which this one only
        # reads, is state shared with it (tngc: `state shared`): the weights
        # file holds it too
        entry.state = [(n, m, k, before) for n, m, k, before in plain
                       if not isinstance(getattr(m, k, None), torch.Tensor)
                       or not same(torch, getattr(m, k).detach(), before)
                       or (id(m), k) in self.state_attrs]
        self.state_attrs.update((id(m), k) for n, m, k, before in entry.state)
        if entry.weights is not None:
            entry.weights = entry.weights + [(n, before) for n, m, k, before in entry.state]
        entry.outputs = [(n, t.detach().clone()) for n, t in named_outputs(torch, result)]
        entry.updated = [(name, t.detach().clone()) for (name, t), (_, before) in
                         zip(flat, entry.inputs) if not same(torch, t.detach(), before)]
        entry.first_inputs = [(name, t.detach().clone()) for name, t in flat]
        if self.all_gears:
            self.record_gears(entry, target, args, kwargs, flat)
        return result

    def record_again(self, entry, target, args, kwargs):
        """Call 2, 3, ... of an entry (--calls N): on the first call's
        inputs, its outputs (and the inputs it updated in place, from the
        first call's values) replace the recorded ones, so that they are
        what a launcher's N runs from the recorded weights give."""
        torch = self.torch
        flat = flatten_args(torch, entry.sig, args, kwargs)
        if len(flat) != len(entry.inputs) or any(
                n != n0 or not same(torch, t.detach(), t0)
                for (n, t), (n0, t0) in zip(flat, entry.first_inputs)):
            raise RuntimeError("harness: --calls: call %d of %s has other inputs than the first"
                               % (entry.ncalls + 1, entry.name))
        result = target(*args, **kwargs)
        entry.ncalls += 1
        entry.outputs = [(n, t.detach().clone()) for n, t in named_outputs(torch, result)]
        entry.updated = [(name, t.detach().clone()) for (name, t), (_, before) in
                         zip(flat, entry.inputs) if not same(torch, t.detach(), before)]
        return result

    def record_gears(self, entry, target, args, kwargs, flat):
        """Runs target at every gear of the call (see --all-gears)."""
        torch = self.torch
        import _tngc_ref
        table = gear_table(flat, merge_policy(entry.config))
        if not table:
            return
        state = None
        if entry.module is not None:
            state = {k: v.detach().clone() for k, v in entry.module.state_dict().items()
                     if isinstance(v, torch.Tensor)}
        after = [(m, k, getattr(m, k)) for n, m, k, before in entry.state]
        for index, sizes in enumerate(table):
            per_input = {}
            for name, dim, size in sizes:
                per_input.setdefault(name, {})[dim] = size
            new = {}
            for name, t in entry.inputs:
                new[name] = regear(torch, t, per_input[name]) if name in per_input else t.clone()
            gear = Gear(index, sizes)
            gear.inputs = [(name, new[name].clone()) for name, _ in entry.inputs]
            by_id = {id(t): name for name, t in flat}

            def sub(v):
                if isinstance(v, torch.Tensor):
                    name = by_id.get(id(v))
                    return new[name] if name in new else v
                if isinstance(v, list):
                    return [sub(x) for x in v]
                if isinstance(v, tuple):
                    return tuple(sub(x) for x in v)
                if isinstance(v, dict):
                    return {k: sub(x) for k, x in v.items()}
                return v

            if entry.weights:
                with torch.no_grad():
                    live = entry.module.state_dict()
                    for k, w in entry.weights:
                        if k not in live:   # a tensor attribute kept as state
                            continue
                        if live[k].shape != w.shape:   # the call resized it (resize_)
                            live[k].resize_(w.shape)
                        live[k].copy_(w)
                    for n, m, k, before in entry.state:
                        setattr(m, k, before.clone())
            _tngc_ref.start_fallback_log()
            try:
                result = target(*[sub(a) for a in args], **{k: sub(v) for k, v in kwargs.items()})
            finally:
                gear.fallbacks = _tngc_ref.take_fallback_log()
            gear.outputs = [(n, t.detach().clone()) for n, t in named_outputs(torch, result)]
            gear.updated = [(name, new[name].detach().clone()) for name, t0 in gear.inputs
                            if not same(torch, new[name].detach(), t0)]
            entry.gears.append(gear)
        if state is not None:
            with torch.no_grad():
                live = entry.module.state_dict()
                for k, v in state.items():
                    live[k].copy_(v)
        for m, k, t in after:   # the state the recorded call left
            setattr(m, k, t)

    # ---- writing ----

    def bundle_name(self, stem, entry):
        """tngc's bundle name (tngc.c bundle_name): the script's stem, with
        _<entry name> when several entries are traced, as a C identifier
        (Net.forward#2 -> <stem>_Net_forward_2)."""
        traced = [e for e in self.called if e.recorded]
        raw = stem if len(traced) == 1 else "%s_%s" % (stem, entry.name)
        ident = re.sub(r"[^A-Za-z0-9_]", "_", raw)
        return "_" + ident if not ident or ident[0].isdigit() else ident

    def write_call(self, d, entry, inputs, outputs, updated, fallbacks, label):
        """Writes one call (the recorded one, or a gear's) into folder d:
        inputs/, inputs.txt, expected/, dtypes.txt files, fallbacks.txt."""
        import numpy as np
        torch = self.torch
        os.makedirs(os.path.join(d, "inputs"))
        os.makedirs(os.path.join(d, "expected"))
        lines, in_dtypes, exp_dtypes = [], [], []
        for n, t in inputs:
            f = sanitise(n) + ".npy"
            path = os.path.abspath(os.path.join(d, "inputs", f))
            np.save(path, npy_array(torch, t))
            in_dtypes.append("%s %s\n" % (f, dtype_name(torch, t)))
            lines.append("%s=%s\n" % (n, path))
        with open(os.path.join(d, "inputs.txt"), "w") as f:
            f.writelines(lines)
        results = list(outputs)
        results += [(sanitise(n), t) for n, t in updated]
        for n, t in results:
            np.save(os.path.join(d, "expected", n + ".npy"), npy_array(torch, t))
            exp_dtypes.append("%s.npy %s\n" % (n, dtype_name(torch, t)))
        with open(os.path.join(d, "inputs", "dtypes.txt"), "w") as f:
            f.writelines(in_dtypes)
        with open(os.path.join(d, "expected", "dtypes.txt"), "w") as f:
            f.writelines(exp_dtypes)
        counts = {}
        for rec in fallbacks:
            counts[rec] = counts.get(rec, 0) + 1
        with open(os.path.join(d, "fallbacks.txt"), "w") as f:
            f.write("# ops computed in float32 and rounded once to their dtype, where PyTorch "
                    "1.13's CPU kernel is missing (no-kernel) or rounds differently "
                    "(rounds-differently): OP DTYPE REASON COUNT\n")
            for (op, dt, why), n in counts.items():
                f.write("%s %s %s %d\n" % (op, dt, why, n))
        if counts:
            log("%s: computed in float32 and rounded once: %s" % (label, ", ".join(
                "%s %s (%s) x%d" % (op, dt, why, n) for (op, dt, why), n in counts.items())))

    def write(self, stem, outdir):
        written = 0
        for entry in self.entries:
            if not entry.recorded:
                if entry.name is None and (not self.only or entry.key == self.only):
                    log("%s: compiled but never called, nothing written" % entry.key)
                continue
            name = self.bundle_name(stem, entry)
            d = os.path.join(outdir, name)
            if os.path.isdir(d):
                shutil.rmtree(d)
            self.write_call(d, entry, entry.inputs, entry.outputs, entry.updated,
                            entry.fallbacks, entry.name)
            if entry.weights:
                write_safetensors(self.torch, os.path.join(d, "weights.safetensors"), entry.weights)
            with open(os.path.join(d, "entry.txt"), "w") as f:
                f.write(entry.name + "\n")
            table = []
            for gear in entry.gears:
                g = os.path.join(d, "gear%d" % gear.index)
                desc = "gear %d: %s" % (gear.index, " ".join(
                    "%s[%d]=%d" % (n, dim, size) for n, dim, size in gear.sizes))
                self.write_call(g, entry, gear.inputs, gear.outputs, gear.updated,
                                gear.fallbacks, "%s gear %d" % (entry.name, gear.index))
                if entry.weights:
                    os.symlink("../weights.safetensors", os.path.join(g, "weights.safetensors"))
                with open(os.path.join(g, "gear.txt"), "w") as f:
                    f.write(desc + "\n")
                with open(os.path.join(g, "entry.txt"), "w") as f:
                    f.write(entry.name + "\n")
                table.append(desc + "\n")
            if table:
                with open(os.path.join(d, "gears.txt"), "w") as f:
                    f.writelines(table)
            print("harness: %s -> %s (%d inputs, %d weights, %d outputs, %d updated in place%s)"
                  % (entry.name, d, len(entry.inputs), len(entry.weights or []),
                     len(entry.outputs), len(entry.updated),
                     ", %d gears" % len(entry.gears) if entry.gears else ""))
            written += 1
        return written


class CompiledModule:
    """What the recording torch.compile returns for a module: calls go
    through the recorder, attributes to the module (like OptimizedModule)."""

    def __init__(self, module, call):
        self.__dict__["_orig_mod"] = module
        self.__dict__["_call"] = call

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.__dict__["_orig_mod"], name)

    def __setattr__(self, name, value):
        setattr(self.__dict__["_orig_mod"], name, value)


def main(argv):
    args, script_args, only, replace_dir, all_gears, calls = [], [], None, None, False, 1
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            script_args = argv[i + 1:]
            break
        if a in ("--entry", "--inputs") and i + 1 < len(argv):
            if a == "--entry":
                only = argv[i + 1]
            else:
                replace_dir = os.path.abspath(argv[i + 1])
            i += 2
            continue
        if a == "--all-gears":
            all_gears = True
        elif a.startswith("--calls=") and a[8:].isdigit() and int(a[8:]) >= 1:
            calls = int(a[8:])
        elif a.startswith("--entry="):
            only = a.split("=", 1)[1]
        elif a.startswith("--inputs="):
            replace_dir = os.path.abspath(a.split("=", 1)[1])
        elif a.startswith("-") and a != "-":
            sys.stderr.write("harness: unknown option %s\n" % a)
            return 2
        else:
            args.append(a)
        i += 1
    if len(args) != 2 or not os.path.isfile(args[0]):
        sys.stderr.write("usage: %s SCRIPT OUTDIR [--entry Class.method] [--inputs DIR] "
                         "[--all-gears] [--calls=N] [-- SCRIPT_ARG...]\n" % os.path.basename(sys.argv[0]))
        return 2
    script = os.path.abspath(args[0])
    outdir = os.path.abspath(args[1])
    stem = os.path.splitext(os.path.basename(script))[0]

    sys.path.insert(0, STUBS)
    sys.path.insert(0, os.path.dirname(script))
    sys.dont_write_bytecode = True
    import _tngc_ref
    _tngc_ref.install()
    import torch
    if getattr(torch, "compile", None) is not _tngc_ref._compile:
        torch.compile = _tngc_ref._compile   # a real torch.compile would not call the hook
    recorder = Recorder(torch, only, replace_dir, all_gears, calls)
    _tngc_ref.set_compile_hook(recorder.hook)

    os.makedirs(outdir, exist_ok=True)
    status = 0
    tmp = tempfile.mkdtemp(prefix="tngc-harness-")
    cwd = os.getcwd()
    old_argv = sys.argv
    try:
        os.chdir(tmp)
        sys.argv = [script] + script_args
        torch.manual_seed(0)
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        sys.argv = old_argv
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
        _tngc_ref.set_compile_hook(None)
    written = recorder.write(stem, outdir)
    if status != 0:
        log("%s exited with status %s" % (args[0], status))
        return status
    if only and only not in [e.name for e in recorder.called]:
        log("no compiled entry %s in %s (entries: %s)"
            % (only, args[0], ", ".join(e.name or e.key for e in recorder.entries) or "none"))
        return 2
    if written == 0:
        log("%s called no compiled entry" % args[0])
        return 2
    return 0


# ---------------------------------------------------------------------------
# The fork server. Importing torch costs a second or more of CPU, more than
# most recordings: a test suite that records many scripts starts one server
# (--serve SOCKET) and sets TNGC_HARNESS_SOCKET=SOCKET for its harness
# calls. The server binds SOCKET, imports the stand-ins and torch once, and
# for each connection forks a child that takes the caller's stdin, stdout,
# stderr, working directory, environment and arguments and runs main() as a
# fresh process would (nothing has run in the server but the imports); the
# caller exits with the child's status. A caller that cannot reach the
# server (or whose call the server never took) runs main() itself, so
# results never depend on the server.

def serve(path):
    """--serve SOCKET: the fork server; returns when its parent is gone."""
    import signal
    import socket
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(64)   # callers queue here while torch is imported
    parent = os.getppid()
    sys.path.insert(0, STUBS)
    sys.dont_write_bytecode = True
    import _tngc_ref
    _tngc_ref.install()
    import torch   # noqa: F401 (the import is what is shared)
    import numpy   # noqa: F401
    sys.path.remove(STUBS)
    # SIGTERM (the suite is done): stop, and wait for the children, so that
    # their CPU time is counted where the suite's is
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    srv.settimeout(2.0)
    try:
        while os.getppid() == parent:
            reap(False)
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            if os.fork() == 0:
                srv.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os._exit(serve_one(conn))
            conn.close()
    finally:
        srv.close()
        reap(True)
    return 0


def reap(block):
    """Waits for the server's finished children (all of them when block)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
        if pid == 0:
            return


def serve_one(conn):
    """A forked child of the server: one caller's run of main()."""
    import socket
    status = 1
    try:
        conn.settimeout(None)
        msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        while not msg.endswith(b"\n"):
            more = conn.recv(1 << 20)
            if not more:
                return 1
            msg += more
        req = json.loads(msg)
        for k, fd in enumerate(fds):
            os.dup2(fd, k)
            os.close(fd)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.argv = [os.path.abspath(__file__)] + req["argv"]
        try:
            status = main(req["argv"])
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        try:
            conn.sendall(b"%d\n" % (status & 0xff))
        except OSError:
            pass
    return status & 0xff


def via_server(path, argv):
    """The caller's side: main(argv) run by the server at path; None when
    the server cannot be reached (the caller then runs main() itself)."""
    import socket
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        req = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
        socket.send_fds(conn, [json.dumps(req).encode() + b"\n"], [0, 1, 2])
    except OSError:
        conn.close()
        return None
    reply = b""
    while True:
        try:
            more = conn.recv(64)
        except OSError:
            more = b""
        if not more:
            break
        reply += more
    conn.close()
    if not reply:   # the server went away before its child took the call
        return None
    if not reply.endswith(b"\n"):
        log("the server's child ended without a status (TNGC_HARNESS_SOCKET=%s)" % path)
        return 1
    return int(reply)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        sys.exit(serve(sys.argv[2]))
    if os.environ.get("TNGC_HARNESS_SOCKET"):
        st = via_server(os.environ["TNGC_HARNESS_SOCKET"], sys.argv[1:])
        if st is not None:
            sys.exit(st)
    sys.exit(main(sys.argv[1:]))
