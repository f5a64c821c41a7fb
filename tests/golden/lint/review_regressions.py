# Regressions found in review: each line below once misbehaved.
import functools
import torch
import torchair as tng
from torchair.inference import cache_compile

config = tng.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
backend = tng.get_npu_backend(compiler_config=config)

if torch.npu.is_available():
    TAG = 1
for PRIO in (1, 2):
    pass


class Cached(torch.nn.Module):
    @cache_compile(config=None)  # expect: TNG150
    def forward(self, x):
        return x


comp = torch.compile(backend=backend, fullgraph=True, dynamic=False)


@comp
def first(x):
    tng.scope.npu_wait_tensor(x, x)  # expect: TNG104
    return x


@comp
def second(x):
    tng.scope.npu_wait_tensor(x, x)  # expect: TNG104
    with tng.scope.npu_stream_switch(TAG, PRIO):
        return x


@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
@functools.lru_cache()
def many_decorators(x):
    with tng.scope.super_kernel("sk", "stream-fusion=1=1"):  # expect: TNG112
        return x


ng = tng.CompilerConfig()
ng.mode = "npugraph_ex"
ng.experimental_config.aclgraph._aclnn_static_shape_kernel = True

a = torch.ones(4, 2)
tng.inference.set_dim_gears(a, {0: [0, 2]})  # expect: TNG125
tng.inference.set_dim_gears(a, {0: [2, 4]})

DEBUG = torch.npu.is_available()
if DEBUG:
    TAG2 = 5   # only on some paths: not a constant, whatever follows in the file
with tng.scope.npu_stream_switch(TAG2):
    pass

if __name__ == "__main__":
    pass
