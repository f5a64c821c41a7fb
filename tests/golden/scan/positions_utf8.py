# tngc scan golden: positions_utf8.py
#
# Positions: `line` is 1-based; `col` is the 1-based *byte* column of the first
# byte of the call (its callee), counted in UTF-8 bytes.  On lines with non-ASCII
# text or tabs before the call, byte and character columns differ; a call that
# spans several lines is at its first line; a call after a backslash
# continuation is on the continued line.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   36:17 npu_wait_tensor resolved fn=forward args(self=expr(x), dependency=expr(y)) scopes[]
#   37:10 npu_stream_switch resolved fn=forward args(stream_tag="多流") scopes[]
#   39:10 npu_stream_switch resolved fn=forward args(stream_tag="流一") scopes[]
#   41:29 super_kernel resolved fn=forward args(scope="é", options="") scopes[]
#   42:12 npu_wait_tensor resolved fn=forward args(self=expr(x), dependency=expr(y)) scopes[]
#   43:5 npu_wait_tensor resolved fn=forward args(self=expr(x), dependency=expr(y)) scopes[]
#   47:9 npu_wait_tensor resolved fn=forward args(self=expr(x), dependency=expr(y)) scopes[]
#   48:22 limit_core_num resolved fn=forward args(op_aicore_num=1, op_vectorcore_num=1) scopes[]
#
# Notes:
#   Line 36 has `    名 = "é"; ` (13 characters, 16 bytes) before the call: col 17, not 14.
#   Line 42 has a tab before the call: one byte.
#   Non-ASCII tags are reported as the decoded strings ("多流", "流一", "é").
# Diagnostics: none.
# ---- end of expectations ----

# 多流并行: 中文注释
import torch
import torchair as tng

标签 = "流一"


def forward(x, y):
    # 多流
    名 = "é"; tng.scope.npu_wait_tensor(x, y)
    with tng.scope.npu_stream_switch("多流"):
        pass
    with tng.scope.npu_stream_switch(标签):  # 标签 is a module constant
        pass
    z = {"é": 1, "ü": 2}; tng.scope.super_kernel("é", "")
    x = 1;	tng.scope.npu_wait_tensor(x, y)
    tng.scope.npu_wait_tensor(
        x,
        y)
    w = x + \
        tng.scope.npu_wait_tensor(x, y)
    s = "ǅ€𝄞"; tng.scope.limit_core_num(1, 1)
    return z, w, s, 名
