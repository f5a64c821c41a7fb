import math

import torch
import torch_npu
import torchair


# Python ints are unbounded, tngc's are 64-bit: an int result past 2^63 is
# not wrapped (2**62 * 4 + 16 planned as 16 before) but not known, one
# TNG205 at the arithmetic; what is computed from it stays quiet. Exact
# results stay exact: 3**39 is computed without a double.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = x.reshape(2**62 * 4 + 16)  # expect: TNG205
        n = -2**62 * 2
        b = x.reshape(-n)  # expect: TNG205
        c = x.reshape(abs(n), 1)  # expect: TNG205
        d = x.reshape(n // -1)  # expect: TNG205
        e = x.reshape(1 << 64)  # expect: TNG205
        f = x.reshape(sum([2**62, 2**62]), -1)  # expect: TNG205
        g = x.reshape(int("99999999999999999999"))  # expect: TNG205
        h = x.reshape(math.prod([2**32, 2**32]))  # expect: TNG205
        k = 2**62 - 1 + 2**62 + 1  # expect: TNG205
        m = x.reshape(k // 2, 2)
        exact = x.reshape(3**39 // 3**37, -1)
        shifts = x.reshape(-((-5) >> 100) * 18, n % -1 + 1)
        items = [1, 2, 3][1::2**62 - 1 + 2**62] + [1, 2, 3][::n]
        same = x.reshape(9 + (2**62 + 1 == 2**62), 2 * (2**62 + 1 < 2**62 + 2))
        return exact, shifts, same, x.reshape(len(items) * 3, -1)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(18).npu()
print(model(x))
