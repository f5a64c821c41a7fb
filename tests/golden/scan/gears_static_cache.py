# tngc scan golden: gears_static_cache.py
#
# Gears, mark_static and cache_compile as TorchAir's examples use them: set_dim_gears on
# example inputs, mark_static on inputs and on KV-cache entries inside a loop,
# cache_compile of `self.<method>` in __init__ (one per phase, with config=), and
# torch.compile of a bound method assigned back.  Subscript and attribute
# arguments are expr with their exact source text (quotes included).
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   41:18 compiler_config resolved fn=Whisper.__init__ args() scopes[]
#   42:9 config_option resolved fn=Whisper.__init__ set(config.mode = "max-autotune") scopes[]
#   43:31 cache_compile resolved fn=Whisper.__init__ args(func=expr(self.prefill), config=expr(config)) scopes[]
#   44:30 cache_compile resolved fn=Whisper.__init__ args(func=expr(self.decode), config=expr(config), dynamic=True, ge_cache=False) scopes[]
#   59:9 mark_static resolved fn=Whisper.compute_logits args(t=expr(x)) scopes[]
#   61:13 mark_static resolved fn=Whisper.compute_logits args(t=expr(self.kv_cache[i]['attn']["key"])) scopes[]
#   67:10 compiler_config resolved fn=<module> args() scopes[]
#   68:1 config_option resolved fn=<module> set(config.inference_config.dynamic_gears_merge_policy = "zip") scopes[]
#   69:15 get_npu_backend resolved fn=<module> args(compiler_config=expr(config)) scopes[]
#   71:24 torch_compile resolved fn=<module> args(model=expr(model.compute_logits), dynamic=True, fullgraph=True, backend=expr(npu_backend)) scopes[]
#   72:1 set_dim_gears resolved fn=<module> args(t=expr(input1), dim_gears={"0": [2, 4]}) scopes[]
#   73:1 set_dim_gears resolved fn=<module> args(t=expr(input2), dim_gears={"0": [2, 4]}) scopes[]
#
# Notes:
#   `config` in Whisper.__init__ is a local config object, so `config.mode = ...` there is a
#   config_option of that object; the module-level `config` is another object.
#   Line 68: the `zip` policy on the module-level config.
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torch_npu
import torchair

N_LAYER = 2


class Whisper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = torchair.CompilerConfig()
        config.mode = "max-autotune"
        self.cached_prefill = torchair.inference.cache_compile(self.prefill, config=config)
        self.cached_decode = torchair.inference.cache_compile(self.decode, config=config, dynamic=True, ge_cache=False)
        self.kv_cache = [{"attn": {"key": None, "value": None}} for _ in range(N_LAYER)]

    def forward(self, x, xa):
        if x.size(1) > 1:
            return self.cached_prefill(x, xa)
        return self.cached_decode(x, xa)

    def prefill(self, x, xa):
        return x

    def decode(self, x, xa):
        return x + xa

    def compute_logits(self, x, xa):
        torch._dynamo.mark_static(x)
        for i in range(N_LAYER):
            torch._dynamo.mark_static(self.kv_cache[i]['attn']["key"])
        return self.decode(x, xa)


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "zip"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Whisper().npu()
model.compute_logits = torch.compile(model.compute_logits, dynamic=True, fullgraph=True, backend=npu_backend)
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(input2, dim_gears={0: [2, 4]})
