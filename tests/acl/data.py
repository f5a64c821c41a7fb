#!/usr/bin/env python3
"""data.py - input files of tests/acl/run.sh, with the standard library only.

    data.py npy FILE DESCR DIM...     a .npy of zeros ('<f4', '<f2', '<i8', ...)
    data.py st FILE NAME=DIM,DIM ...  a float32 safetensors file of zeros
"""
import json
import struct
import sys


def npy(path, descr, shape):
    size = int(descr[2:])
    n = 1
    for d in shape:
        n *= d
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(bytes(n * size))


def safetensors(path, specs):
    meta, data = {}, b""
    for spec in specs:
        name, dims = spec.split("=")
        shape = [int(d) for d in dims.split(",")]
        n = 4
        for d in shape:
            n *= d
        meta[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + n]}
        data += bytes(n)
    head = json.dumps(meta).encode()
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + data)


if __name__ == "__main__":
    if sys.argv[1] == "npy":
        npy(sys.argv[2], sys.argv[3], [int(d) for d in sys.argv[4:]])
    else:
        safetensors(sys.argv[2], sys.argv[3:])
