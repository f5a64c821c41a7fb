import torch
import torch_npu
import torchair


# npu_weight_quant_batchmatmul with arguments tngc does not model: an int8
# output (quant_scale, quant_offset), int4 weights held in int32, an int64
# scale (npu_trans_quant_param), inner_precise other than 0; and operands
# the op does not take (float32 x, a scale of another dtype, a per-group
# scale of the wrong shape, a 3-d x).
class Model(torch.nn.Module):
    def forward(self, x, w, s, qs, w4, s64, xf, x3, sg):
        a = torch_npu.npu_weight_quant_batchmatmul(x, w, s, quant_scale=qs)  # expect: TNG203
        b = torch_npu.npu_weight_quant_batchmatmul(x, w, s, quant_offset=qs)  # expect: TNG203
        c = torch_npu.npu_weight_quant_batchmatmul(x, w4, s)  # expect: TNG203
        d = torch_npu.npu_weight_quant_batchmatmul(x, w, s64)  # expect: TNG203
        e = torch_npu.npu_weight_quant_batchmatmul(x, w, s, inner_precise=1)  # expect: TNG203
        f = torch_npu.npu_weight_quant_batchmatmul(xf, w, s.float())  # expect: TNG207
        g = torch_npu.npu_weight_quant_batchmatmul(x, w, s.float())  # expect: TNG207
        h = torch_npu.npu_weight_quant_batchmatmul(x, w, sg, antiquant_group_size=32)  # expect: TNG206
        i = torch_npu.npu_weight_quant_batchmatmul(x3, w, s)  # expect: TNG206
        return a, b, c, d, e, f, g, h, i


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 64).half().npu()
w = torch.randint(-128, 128, (64, 16), dtype=torch.int8).npu()
s = torch.rand(16).half().npu()
qs = torch.rand(16).npu()
w4 = torch.randint(-100, 100, (64, 2), dtype=torch.int32).npu()
s64 = torch.randint(0x3A83126F, 0x3CA3D70A, (16,)).npu()
xf = torch.randn(2, 64).npu()
x3 = torch.randn(3, 2, 64).half().npu()
sg = torch.rand(3, 16).half().npu()
print(model(x, w, s, qs, w4, s64, xf, x3, sg))
