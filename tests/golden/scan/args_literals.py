# tngc scan golden: args_literals.py
#
# Literal argument values in Python notation: the JSON keeps str, int, float,
# bool and None apart; tuples are JSON arrays (written [2, 4] below); a non-str
# dict key is its JSON text ({0: ...} gives {"0": ...}).  Negative numbers are
# literals; adjacent strings are concatenated; escapes are decoded; hex ints are
# ints.  Positional arguments of a resolved call are named after the documented
# signature: super_kernel(scope, options), npu_stream_switch(stream_tag,
# stream_priority), npu_wait_tensor(self, dependency), limit_core_num(
# op_aicore_num, op_vectorcore_num), set_dim_gears(t, dim_gears), mark_static(t,
# index), cache_compile(func, ...), torch.compile(model, ...); keywords are kept.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   49:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"0": [2, 4]}) scopes[]
#   50:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"1": [2, 4, 8], "2": [1, 2]}) scopes[]
#   51:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"0": [2, 4]}) scopes[]
#   52:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"0": [2, -4, 0, 16]}) scopes[]
#   53:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"0": [2.0, 4, 1000.0]}) scopes[]
#   54:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears=[0, 2, 4]) scopes[]
#   55:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={}) scopes[]
#   56:6 npu_stream_switch resolved fn=<module> args(stream_tag=1, stream_priority=-1) scopes[]
#   58:6 npu_stream_switch resolved fn=<module> args(stream_tag="1", stream_priority=0) scopes[]
#   60:6 super_kernel resolved fn=<module> args(scope=None) scopes[]
#   62:6 super_kernel resolved fn=<module> args(scope="", options="stream-fusion=1:feed-sync-all=1") scopes[]
#   64:6 super_kernel resolved fn=<module> args(scope="sk", options=True) scopes[]
#   66:6 super_kernel resolved fn=<module> args(scope="tab\there", options="debug-aic-num=1:debug-aiv-num=2") scopes[]
#   68:6 limit_core_num resolved fn=<module> args(op_aicore_num=1.5, op_vectorcore_num=-2) scopes[]
#   70:1 mark_static resolved fn=<module> args(t=expr(x), index=[0, 1]) scopes[]
#   71:1 mark_static resolved fn=<module> args(t=expr(x), index=[]) scopes[]
#   72:7 compiler_config resolved fn=<module> args() scopes[]
#   73:1 config_option resolved fn=<module> set(cfg.ge_config.enable_single_stream = None) scopes[]
#   74:1 config_option resolved fn=<module> set(cfg.debug.graph_dump.type = "py") scopes[]
#   75:1 config_option resolved fn=<module> set(cfg.inference_config.dynamic_gears_merge_policy = ["zip"]) scopes[]
#   76:1 config_option resolved fn=<module> set(cfg.mode = -0.5) scopes[]
#   77:11 get_npu_backend resolved fn=<module> args(compiler_config=expr(cfg)) scopes[]
#   78:9 torch_compile resolved fn=<module> args(model=expr(torch.nn.Identity()), backend=expr(backend), fullgraph=False, dynamic=None, options={"a": 1, "b": [True, False], "3": [None]}) scopes[]
#
# Notes:
#   Values are reported whatever their validity (0 gears, int tags, float core counts are lint's business).
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair
from torchair.inference import set_dim_gears

x = torch.ones(8, 4, 2)
set_dim_gears(x, {0: [2, 4]})
set_dim_gears(x, dim_gears={1: (2, 4, 8), 2: [1, 2]})
set_dim_gears(x, {"0": [2, 4]})
set_dim_gears(x, {0: [2, -4, 0, 0x10]})
set_dim_gears(x, {0: [2.0, 4, 1e3]})
set_dim_gears(x, [0, 2, 4])
set_dim_gears(x, {})
with torchair.scope.npu_stream_switch(1, -1):
    pass
with torchair.scope.npu_stream_switch("1", stream_priority=0):
    pass
with torchair.scope.super_kernel(None):
    pass
with torchair.scope.super_kernel("", options="stream-fusion=1:" "feed-sync-all=1"):
    pass
with torchair.scope.super_kernel("sk", True):
    pass
with torchair.scope.super_kernel('tab\there', "debug-aic-num=1:debug-aiv-num=2"):
    pass
with torchair.scope.limit_core_num(op_aicore_num=1.5, op_vectorcore_num=-2):
    pass
torch._dynamo.mark_static(x, index=(0, 1))
torch._dynamo.mark_static(x, ())
cfg = torchair.CompilerConfig()
cfg.ge_config.enable_single_stream = None
cfg.debug.graph_dump.type = 'p\x79'
cfg.inference_config.dynamic_gears_merge_policy = ["zip"]
cfg.mode = -0.5
backend = torchair.get_npu_backend(compiler_config=cfg)
model = torch.compile(torch.nn.Identity(), backend=backend, fullgraph=False, dynamic=None, options={"a": 1, "b": [True, False], 3: (None,)})
