#!/usr/bin/env python3
"""Records what a TorchAir example script computes, as files a tngc bundle's
launcher can be run on and compared with.

usage: python3 tests/ref/harness.py SCRIPT OUTDIR [--entry Class.method]
                                    [--inputs DIR] [-- SCRIPT_ARG...]

Runs SCRIPT under PyTorch with the stand-in torch_npu / torchair modules of
tests/ref/stubs (as tests/ref/run_example.sh does, in a fresh temporary
directory, with torch.manual_seed(0) first), and records the FIRST call of
every compiled entry the script calls: a module or bound method given to
torch.compile, or a method given to torchair.inference.cache_compile. For
each entry it writes OUTDIR/<bundle>/, where <bundle> is tngc's bundle name
(the script's stem, or <stem>_<Class>_<method> when the script compiles
several entries):

  inputs/<name>.npy        every tensor argument of the call, saved before
                           the call; <name> is tngc's input name (parameter
                           name, then [i] for list/tuple elements and
                           ['key'] / [0] for dict entries) with the
                           characters outside [A-Za-z0-9_.-] replaced by '_'
  inputs.txt               one line NAME=/abs/path/inputs/<name>.npy each
  weights.safetensors      the module's state_dict, when it has any tensor
  expected/out<k>.npy      the outputs (the returned tensor, or the tensors
                           of returned tuples/lists/dicts flattened in order)
  expected/<name>.npy      the inputs the call changed in place, after it
  entry.txt                Class.method

bfloat16 tensors have no .npy form: a bf16 output or updated input is left
out with a message on stderr; an entry with a bf16 input is not written at
all (a message says so).

--entry Class.method  record only that entry.
--inputs DIR          replace the tensor arguments of the recorded call by
                      DIR/<name>.npy where such a file exists (e.g. a batch
                      outside the example's shapes); the expected outputs are
                      PyTorch's on those inputs.

Exit status: the script's (0 when it ran to the end), 1 when it raised,
2 for a usage error or when no compiled entry was called.
"""
import inspect
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

    def __init__(self, kind, cls, method, module, fn, sig):
        self.kind, self.cls, self.method = kind, cls, method
        self.module, self.fn, self.sig = module, fn, sig
        self.recorded = False
        self.inputs = None      # [(name, tensor before the call)]
        self.outputs = None     # [tensor]
        self.updated = None     # [(name, tensor after the call)]
        self.weights = None     # [(name, tensor)]

    @property
    def key(self):
        return "%s.%s" % (self.cls, self.method) if self.cls else self.method


class Recorder:
    def __init__(self, torch, only=None, replace_dir=None):
        self.torch = torch
        self.only = only
        self.replace_dir = replace_dir
        self.entries = {}       # key -> Entry, in order of compilation

    def hook(self, kind, target):
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
        entry = Entry(kind, cls, method, module, fn, sig)
        entry = self.entries.setdefault(entry.key, entry)
        return self.wrap(entry, target)

    def wrap(self, entry, target):
        recorder = self

        def call(*args, **kwargs):
            if entry.recorded or (recorder.only and entry.key != recorder.only):
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
                    return torch.from_numpy(np.load(path))
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
        if entry.module is not None:
            entry.weights = [(k, v.detach().clone()) for k, v in entry.module.state_dict().items()
                             if isinstance(v, torch.Tensor)]
        result = target(*args, **kwargs)
        entry.outputs = [t.detach().clone() for t in flatten_outputs(torch, result, [])]
        entry.updated = [(name, t.detach().clone()) for (name, t), (_, before) in
                         zip(flat, entry.inputs) if not same(torch, t.detach(), before)]
        return result

    # ---- writing ----

    def bundle_name(self, stem, entry):
        if len(self.entries) == 1:
            return stem
        parts = [stem] + ([entry.cls] if entry.cls else []) + [entry.method]
        return "_".join(parts)

    def save_npy(self, path, t, what):
        import numpy as np
        if t.dtype == self.torch.bfloat16:
            log("%s: bfloat16 has no .npy form, left out" % what)
            return False
        np.save(path, t.detach().cpu().contiguous().numpy())
        return True

    def write(self, stem, outdir):
        written = 0
        for entry in self.entries.values():
            if not entry.recorded:
                if not self.only or entry.key == self.only:
                    log("%s: compiled but never called, nothing written" % entry.key)
                continue
            name = self.bundle_name(stem, entry)
            bf16 = [n for n, t in entry.inputs if t.dtype == self.torch.bfloat16]
            if bf16:
                log("%s: input %s is bfloat16, which .npy cannot hold: entry left out"
                    % (entry.key, bf16[0]))
                continue
            d = os.path.join(outdir, name)
            if os.path.isdir(d):
                shutil.rmtree(d)
            os.makedirs(os.path.join(d, "inputs"))
            os.makedirs(os.path.join(d, "expected"))
            lines = []
            for n, t in entry.inputs:
                path = os.path.abspath(os.path.join(d, "inputs", sanitise(n) + ".npy"))
                self.save_npy(path, t, "%s input %s" % (entry.key, n))
                lines.append("%s=%s\n" % (n, path))
            with open(os.path.join(d, "inputs.txt"), "w") as f:
                f.writelines(lines)
            if entry.weights:
                write_safetensors(self.torch, os.path.join(d, "weights.safetensors"), entry.weights)
            for k, t in enumerate(entry.outputs):
                self.save_npy(os.path.join(d, "expected", "out%d.npy" % k), t,
                              "%s output out%d" % (entry.key, k))
            for n, t in entry.updated:
                self.save_npy(os.path.join(d, "expected", sanitise(n) + ".npy"), t,
                              "%s updated input %s" % (entry.key, n))
            with open(os.path.join(d, "entry.txt"), "w") as f:
                f.write(entry.key + "\n")
            print("harness: %s -> %s (%d inputs, %d weights, %d outputs, %d updated in place)"
                  % (entry.key, d, len(entry.inputs), len(entry.weights or []),
                     len(entry.outputs), len(entry.updated)))
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
    args, script_args, only, replace_dir = [], [], None, None
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
        if a.startswith("--entry="):
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
                         "[-- SCRIPT_ARG...]\n" % os.path.basename(sys.argv[0]))
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
    recorder = Recorder(torch, only, replace_dir)
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
    if only and only not in recorder.entries:
        log("no compiled entry %s in %s (entries: %s)"
            % (only, args[0], ", ".join(recorder.entries) or "none"))
        return 2
    if written == 0:
        log("%s called no compiled entry" % args[0])
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
