#!/usr/bin/env python3
"""Writes the hostile scripts of t_inject.sh under OUT.

usage: cases.py OUT

Each case is a folder OUT/<case>/ holding a model script in which one
hostile string H reaches every field a script controls that tngc writes
into generated C:
  - entry 1 (class Mé, a non-ASCII entry name): a registered buffer named
    H (a weight name), a dict input keyed H (an input name), a stream tag
    H, a super_kernel scope named H with options H (an expression, so that
    lint leaves it to the planner);
  - entry 2 (reduce-overhead, static kernels): the static-kernel build dir
    H, created here (a path: its '/' make sub-folders).
The script's own path is hostile in the case "path": folders whose names
end a comment, splice lines, break strings and hold non-UTF-8 bytes, and a
file name that is no C identifier. OUT/<case>/path holds the script's
path relative to OUT/<case>/ (no newline added: it may hold newlines).

Every H carries the same payload in its own way: a constructor that would
create the file PWNED if the text ever became code.
"""
import os
import sys

PAYLOAD = ('extern int system(const char *); __attribute__((constructor)) static void pwn(void) '
           '{ system("touch PWNED"); }')

# name -> H as bytes (the Python source text of the string, between quotes)
CASES = {
    # the exploit: a scope name that ends the segment comment
    "comment_close": b'sp1 */ ' + PAYLOAD.encode().replace(b'"', b'\\"') + b' /*',
    # a new line, a preprocessor line, then code
    "newline": b'\\n#include <stdlib.h>\\n' + PAYLOAD.encode().replace(b'"', b'\\"') + b'\\n/*',
    # a quote that would end a string literal
    "quote": b'\\"); ' + PAYLOAD.encode().replace(b'"', b'\\"') + b' static const char *q = (\\"',
    # backslashes: an escaped quote, a star-backslash-newline-slash splice,
    # a trailing backslash
    "backslash": b'x\\\\\\" */ *\\\\\\n/ ' + PAYLOAD.encode().replace(b'"', b'\\"') + b' /* \\\\',
    # trigraphs: ??/ is a backslash in ISO C (before any other processing)
    "trigraph": b't??/\\" ??/\\n*??/\\n/ ' + PAYLOAD.encode().replace(b'"', b'??/\\"') + b' /* ??/',
    # a NUL: C strings end there, the rest must not come back as code
    "nul": b'n\\x00 */ ' + PAYLOAD.encode().replace(b'"', b'\\"') + b' /*',
    # control bytes, DEL, an escaped lone surrogate, and (latin-1 file)
    # raw non-UTF-8 bytes; a hex-looking tail after a byte escape
    "bytes": b'\\x01\\x1b[31m\\x7f \xff\xfe\\ud800 \xe9abc */ ' + PAYLOAD.encode().replace(b'"', b'\\"') + b' /*',
    # 10 kB, then the payload
    "long": b'A' * 10000 + b' */ ' + PAYLOAD.encode().replace(b'"', b'\\"') + b' /*',
    # a plain name; the hostile part is the script's path
    "path": b'sp1',
}

# The folders of case "path", one per component, and the script's name.
PATH_PARTS = [
    b'p*',
    b' ' + PAYLOAD.encode() + b' ',
    b'*q\n#define x "\\??/',
    b'nl\\\n*\xff\xfe ??/',
]
PATH_FILE = b'm\xff"??.py'

SCRIPT = b'''# -*- coding: latin-1 -*-
# tngc t_inject case %(name)s: one hostile string in every field.
import torch
import torch_npu
import torchair

H = "%(h)s" + ""


class M\xc3\xa9(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer(H, torch.ones(4, 8))

    def forward(self, x, d):
        with torchair.scope.npu_stream_switch(H, 0):
            with torchair.scope.super_kernel(H, H):
                y = torch.relu(x) + getattr(self, H)
                z = y * d[H]
        return z + 1


class Sk(torch.nn.Module):
    def forward(self, x):
        return torch.matmul(x, x) + 1


config = torchair.CompilerConfig()
model = torch.compile(M\xc3\xa9(), backend=torchair.get_npu_backend(compiler_config=config), dynamic=False)
model(torch.randn(4, 8), {H: torch.randn(4, 8)})

c2 = torchair.CompilerConfig()
c2.mode = "reduce-overhead"
c2.experimental_config.aclgraph._aclnn_static_shape_kernel = True
c2.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = %(dir)s
sk = torch.compile(Sk(), backend=torchair.get_npu_backend(compiler_config=c2), dynamic=False)
sk(torch.randn(8, 8))
'''


def unescape(src):
    """The bytes tngc's frontend makes of the Python literal src in a
    latin-1 file: a raw byte stays that byte, an escape \\xHH or \\uHHHH
    is that code point in UTF-8 (a lone surrogate too), and a NUL ends it
    (C strings end there)."""
    simple = {ord('n'): b'\n', ord('t'): b'\t', ord('r'): b'\r', ord('\\'): b'\\', ord('"'): b'"',
              ord("'"): b"'", ord('0'): b'\0'}
    out, i = bytearray(), 0
    while i < len(src):
        c = src[i]
        if c != ord('\\'):
            out.append(c)
            i += 1
            continue
        e = src[i + 1]
        if e in (ord('x'), ord('u')):
            n = 2 if e == ord('x') else 4
            cp = int(src[i + 2:i + 2 + n], 16)
            i += 2 + n
            out += bytes([cp]) if cp < 0x80 else (
                bytes([0xc0 | cp >> 6, 0x80 | cp & 0x3f]) if cp < 0x800 else
                bytes([0xe0 | cp >> 12, 0x80 | (cp >> 6) & 0x3f, 0x80 | cp & 0x3f]))
        else:
            out += simple[e]
            i += 2
    return bytes(out).split(b'\0')[0]


def main():
    out = os.fsencode(sys.argv[1])
    for name, h in CASES.items():
        case = os.path.join(out, name.encode())
        os.makedirs(case)
        # the build dir: H itself where the file system can hold it
        bdir = unescape(h)
        if max(len(c) for c in bdir.split(b'/')) > 200 or bdir.startswith(b'/') or bdir in (b'', b'.'):
            dir_src, bdir = b'"skb"', b'skb'
        else:
            dir_src = b'H'
        rel = b'model.py'
        if name == 'path':
            rel = os.path.join(*PATH_PARTS, PATH_FILE)
        # a relative build dir is the script's folder's
        os.makedirs(os.path.join(case, os.path.dirname(rel), bdir), exist_ok=True)
        with open(os.path.join(case, rel), 'wb') as f:
            f.write(SCRIPT % {b'name': name.encode(), b'h': h, b'dir': dir_src})
        with open(os.path.join(case, b'path'), 'wb') as f:
            f.write(rel)


if __name__ == '__main__':
    main()
