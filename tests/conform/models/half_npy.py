# Half-precision tensors at the launcher's edges (tests/conform/half_npy.sh
# gives the bfloat16 and float16 inputs as float32 .npy files, and writes
# the outputs widened with --widen-outputs): copies of a bfloat16 and a
# float16 input (the launcher's rounding, seen unchanged), a product in each
# dtype, and a bfloat16 state updated in place.
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, b, h, s):
        # b, s: [64] bfloat16; h: [64] float16
        s.add_(b)
        return b.clone(), h.clone(), b * 3, h * 3


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
b = (torch.randn(64) * 4).bfloat16().npu()
h = (torch.randn(64) * 4).half().npu()
s = torch.randn(64).bfloat16().npu()
with torch.no_grad():
    outs = model(b, h, s)
print(len(outs))
