#!/usr/bin/env python3
"""mknpy.py - test data of tests/launcher/run.sh, with the standard library only.

    mknpy.py make DIR      writes the inputs, weights, hostile files and the
                           expected results of the fake bundle (fake_bundle.c)
    mknpy.py same A B      exit 0 when two .npy files hold the same dtype,
                           shape and bytes; else prints the difference, exit 1

The fake model: out0 = (x + w) * y, out1 = x * 2, out2 = (x + w).t(), and
every run adds x to cache['k'] in place. All values are small multiples of
1/4, so float32 results are exact and compared bit for bit.
"""
import json
import os
import struct
import sys

W = [0.5, 1.0, 1.5, 2.0]
Y = [1.0, 2.0, 3.0, -4.0]


def f32(v):
    """Rounds v to float32."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def npy_bytes(descr, shape, data):
    """A v1.0 .npy image, padded as numpy pads it."""
    dims = ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    total = (10 + len(head) + 1 + 63) // 64 * 64
    head = head + " " * (total - 10 - len(head) - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + data


def f32_npy(path, shape, values):
    with open(path, "wb") as f:
        f.write(npy_bytes("<f4", shape, struct.pack("<%df" % len(values), *values)))


def safetensors(path, tensors):
    """tensors: list of (name, dtype, shape, raw bytes); the header is not
    padded, so the data starts unaligned."""
    header, blob = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob)


def xs(n):
    return [(i - 3) * 0.25 for i in range(4 * n)]


def cache0(n):
    return [1.0 + 0.5 * i for i in range(4 * n)]


def bf16_npy(path, shape, values):
    """values (exact in bfloat16) as a '<u2' .npy of their bit patterns."""
    bits = [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in values]
    with open(path, "wb") as f:
        f.write(npy_bytes("<u2", shape, struct.pack("<%dH" % len(bits), *bits)))


def make_inputs(d):
    for n in range(1, 6):
        f32_npy(os.path.join(d, "x%d.npy" % n), [n, 4], xs(n))
        f32_npy(os.path.join(d, "c%d.npy" % n), [n, 4], cache0(n))
    f32_npy(os.path.join(d, "y.npy"), [4], Y)
    f32_npy(os.path.join(d, "y_fail.npy"), [4], [-1234.0, 1.0, 1.0, 1.0])
    f32_npy(os.path.join(d, "y_bad.npy"), [4], [-4321.0, 1.0, 1.0, 1.0])
    bf16_npy(os.path.join(d, "y_bf16.npy"), [4], Y)      # Y is exact in bfloat16
    # ties (to even) and values near Y that round to Y in bfloat16
    f32_npy(os.path.join(d, "y_round.npy"), [4], [1.00390625, 2.0078125, 3.005, -4.015625])
    with open(os.path.join(d, "y_i2.npy"), "wb") as f:    # int16: no bfloat16 either
        f.write(npy_bytes("<i2", [4], b"\0\0" * 4))
    f32_npy(os.path.join(d, "y5.npy"), [5], Y + [5.0])
    f32_npy(os.path.join(d, "x_rank3.npy"), [2, 4, 1], xs(2))
    with open(os.path.join(d, "x_f16.npy"), "wb") as f:
        f.write(npy_bytes("<f2", [2, 4], b"\0\0" * 8))


def make_hostile(d):
    whole = open(os.path.join(d, "x2.npy"), "rb").read()
    with open(os.path.join(d, "trunc.npy"), "wb") as f:
        f.write(whole[:-5])
    with open(os.path.join(d, "hostile.npy"), "wb") as f:   # 2^80 elements, 32 bytes of data
        f.write(npy_bytes("<f4", [1 << 40, 1 << 40], b"\0" * 32))
    with open(os.path.join(d, "hostile2.npy"), "wb") as f:  # a newline inside the descr
        f.write(npy_bytes("<f4\n\x1b[31m", [2, 4], b"\0" * 32))


def make_weights(d):
    w = struct.pack("<4f", *W)
    safetensors(os.path.join(d, "w.safetensors"), [("w", "F32", [4], w)])
    safetensors(os.path.join(d, "w_unused.safetensors"),
                [("unused", "F32", [1], struct.pack("<f", 9.0)), ("w", "F32", [4], w)])
    # state_dict()'s file: the weight and a key the model never reads; with
    # an unknown extra tensor; without the weight
    nbt = ("bn.num_batches_tracked", "I64", [], struct.pack("<q", 0))
    safetensors(os.path.join(d, "w_state.safetensors"), [nbt, ("w", "F32", [4], w)])
    safetensors(os.path.join(d, "w_state_extra.safetensors"),
                [nbt, ("w", "F32", [4], w), ("bn.running_men", "F32", [4], w)])
    safetensors(os.path.join(d, "w_state_missing.safetensors"), [nbt])
    with open(os.path.join(d, "w.safetensors"), "rb") as f:
        whole = f.read()
    with open(os.path.join(d, "w_trailing.safetensors"), "wb") as f:
        f.write(whole + b"\0" * 4)
    safetensors(os.path.join(d, "w_shape.safetensors"), [("w", "F32", [2, 2], w)])
    safetensors(os.path.join(d, "w_dtype.safetensors"), [("w", "F16", [4], b"\0" * 8)])
    safetensors(os.path.join(d, "w_missing.safetensors"), [("v", "F32", [4], w)])
    with open(os.path.join(d, "w_garbage.safetensors"), "wb") as f:
        f.write(b"\xff" * 12)


def make_expected(d):
    for n in range(1, 6):
        x, c = xs(n), cache0(n)
        out0 = [f32(f32(v + W[i % 4]) * Y[i % 4]) for i, v in enumerate(x)]
        f32_npy(os.path.join(d, "exp_out0_%d.npy" % n), [n, 4], out0)
        f32_npy(os.path.join(d, "exp_out1_%d.npy" % n), [n, 4], [f32(v * 2) for v in x])
        t = [f32(v + W[i % 4]) for i, v in enumerate(x)]
        f32_npy(os.path.join(d, "exp_out2_%d.npy" % n), [4, n],
                [t[i * 4 + j] for j in range(4) for i in range(n)])
        for runs in (2, 11):
            cache = list(c)
            for _ in range(runs):
                cache = [f32(a + b) for a, b in zip(cache, x)]
            f32_npy(os.path.join(d, "exp_cache%d_r%d.npy" % (n, runs)), [n, 4], cache)


def read_npy(path):
    raw = open(path, "rb").read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    hlen = struct.unpack("<H", raw[8:10])[0]
    return raw[10:10 + hlen].decode().strip(), raw[10 + hlen:]


def same(a, b):
    ha, da = read_npy(a)
    hb, db = read_npy(b)
    if ha != hb or da != db:
        print("%s differs from %s:\n  %s %r\n  %s %r" % (a, b, ha, da, hb, db))
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "make":
        make_inputs(argv[2])
        make_hostile(argv[2])
        make_weights(argv[2])
        make_expected(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "same":
        return same(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
