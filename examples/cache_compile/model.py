# Compile cache: torchair.inference.cache_compile compiles
# a module's method once and saves the result to disk (.torchair_cache by
# default), so that later runs load it instead of compiling again.
#
# TorchAir's documented adapted model: forward's body moves to _forward, __init__ stores
# the cache-compiled _forward as self.cached_forward, and forward calls it.
# _forward must be a method of the module, undecorated, one full graph, and
# inference only.
import torch, torch_npu, torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached_forward = torchair.inference.cache_compile(self._forward)

    def forward(self, x, y):
        # 修改为编译后的模型 (call the compiled method)
        return self.cached_forward(x, y)

    def _forward(self, x, y):
        return x + y


if __name__ == "__main__":
    model = Model().npu()
    x = torch.randn(2, 16, dtype=torch.float16).npu()
    y = torch.randn(2, 16, dtype=torch.float16).npu()
    with torch.no_grad():
        # The first run of the program compiles and writes the cache; the
        # next run of the program loads it.
        print(model(x, y))
        print(model(x, y))

# Conformance (tests/e2e/compare.py): no float contraction (elementwise ops
# only), so the outputs are compared at the default tolerances.
# tolerance: default
