# Python's line structure where tngc's grammar reads it otherwise unless
# corrected: a statement that is a tuple ending in a comma, followed by an
# assignment, is two statements (`y,` then `z = x + 1`); read as one it
# would unpack x + 1 along dim 0 into y and z and still run, with other
# numbers. In a method body and at module level, after a comment line, with
# a comment after the comma, and several elements; with semicolons and
# backslash continuations beside them. float32 [2, 8].
import torch
import torch_npu
import torchair

SCALE = 3
SCALE,
# a comment line between the two statements
OFFSET = 2


class Model(torch.nn.Module):
    def forward(self, x):
        y = x * SCALE
        y,
        z = x + OFFSET
        w = y - z; v = w * 2
        y.shape, z[0],   # a comment after the comma
        u = \
            v + 1
        return y * z, u, v


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
compiled = torch.compile(Model().npu().eval(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 8).npu()
with torch.no_grad():
    outs = compiled(x)
print(len(outs))
