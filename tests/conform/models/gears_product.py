# tolerance: matmul
# Dynamic gears, product policy: rows of a (2 or 5), rows of b (3 or 6) and
# the columns of c (8 or 16): every combination is a gear, 8 in all, in
# lexicographic order over (input, dim). The outputs mix the geared dims
# (a @ b.T is [rows of a, rows of b]; cat along the rows; reductions over
# them); c is float16. (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, a, b, c):
        # a [m, 8], b [n, 8] float32; c [4, k] float16
        s = torch.matmul(a, b.t())                    # [m, n]
        both = torch.cat((a, b), dim=0)               # [m + n, 8]
        red = a.sum(dim=0) + b.amax(dim=0)            # [8]
        return s, torch.softmax(s, dim=-1), both * 2.0, red, c.sum(dim=-1), torch.relu(c) * 0.5


config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
a = torch.randn(5, 8).npu()
b = torch.randn(3, 8).npu()
c = torch.randn(4, 16, dtype=torch.float16).npu()
torchair.inference.set_dim_gears(a, dim_gears={0: [2, 5]})
torchair.inference.set_dim_gears(b, dim_gears={0: [3, 6]})
torchair.inference.set_dim_gears(c, dim_gears={1: [8, 16]})
with torch.no_grad():
    outs = model(a, b, c)
print([tuple(o.shape) for o in outs])
