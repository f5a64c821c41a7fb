# tolerance: matmul
# torch_npu.npu_grouped_matmul as torch_npu documents it (the reference is
# tests/ref/stubs/torch_npu), lowered to mm / addmm, slices and cat: one x
# per weight with and without bias (split_item 0: one result per group, 2:
# concatenated), and one x whose rows group_list splits (cumulative ends,
# group_list_type 0; counts, 1). float32, float16 and bfloat16. The rows of
# the per-group x take 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x1, x2, w1, w2, b1, b2, xs, w3):
        outs = []
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            a, b = x1.to(dt), x2.to(dt)
            v1, v2, v3 = w1.to(dt), w2.to(dt), w3.to(dt)
            outs += torch_npu.npu_grouped_matmul([a, b], [v1, v2], bias=[b1.to(dt), b2.to(dt)])
            outs += torch_npu.npu_grouped_matmul([a, b], [v1, v2], split_item=2)
            outs += torch_npu.npu_grouped_matmul([xs.to(dt)], [v1, v2, v3], group_list=[3, 7, 10],
                                                 split_item=2, group_type=0)
            outs += torch_npu.npu_grouped_matmul([xs.to(dt)], [v1, v2, v3], group_list=[2, 0, 8],
                                                 group_list_type=1, group_type=0,
                                                 bias=[b1.to(dt), b2.to(dt), b1.to(dt)])
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x1 = torch.randn(4, 16).npu()
x2 = torch.randn(4, 16).npu()
w1 = torch.randn(16, 8).npu()
w2 = torch.randn(16, 8).npu()
w3 = torch.randn(16, 8).npu()
b1 = torch.randn(8).npu()
b2 = torch.randn(8).npu()
xs = torch.randn(10, 16).npu()
torchair.inference.set_dim_gears(x1, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(x2, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x1, x2, w1, w2, b1, b2, xs, w3)
print(len(outs))
