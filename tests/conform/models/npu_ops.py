# The torch_npu fused operators as torch_npu documents them (the reference
# is tests/ref/stubs/torch_npu): npu_swiglu on float32, float16 and
# bfloat16 along the last and the first dim; npu_quant_matmul with int8
# output (scale and offset), int32 output (int32 bias), float16 output
# (pertoken_scale), bfloat16 output (bfloat16 bias), a batched x1 with a
# (batch, 1, n) int32 bias and an int64 scale (float32 bits in the low 32
# bits, as npu_trans_quant_param packs it); npu_dequant_swiglu_quant on int32 input with
# weight_scale, activation_scale and an int32 bias, in static (quant_scale,
# quant_offset) and dynamic mode, with activate_left, with group_index, and
# on bfloat16 input; npu_format_cast. int8 results must match exactly.
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

M, K, N = 8, 64, 32


class Model(torch.nn.Module):
    def forward(self, x, h, b, x1, x2, x1b, scale, offset, bias32, bias_b32, pertoken, bias_bf,
                acc, wscale, ascale, qscale, qoffset, groups, gwscale, gqscale, scale64):
        outs = []
        for v in (x, h, b):
            outs.append(torch_npu.npu_swiglu(v, dim=-1))
            outs.append(torch_npu.npu_swiglu(v, dim=0))
        x2nz = torch_npu.npu_format_cast(x2, 29)
        outs.append(torch_npu.npu_quant_matmul(x1, x2nz, scale, offset=offset))
        outs.append(torch_npu.npu_quant_matmul(x1, x2, scale, bias=bias32, output_dtype=torch.int8))
        outs.append(torch_npu.npu_quant_matmul(x1, x2, scale, bias=bias32, output_dtype=torch.int32))
        outs.append(torch_npu.npu_quant_matmul(x1, x2, scale, pertoken_scale=pertoken,
                                               output_dtype=torch.float16))
        qb = torch_npu.npu_quant_matmul(x1, x2, scale, bias=bias_bf, pertoken_scale=pertoken,
                                        output_dtype=torch.bfloat16)
        outs.append(qb)
        outs.append(torch_npu.npu_quant_matmul(x1b, x2, scale, bias=bias_b32,
                                               output_dtype=torch.float16))
        outs.append(torch_npu.npu_quant_matmul(x1, x2, scale64, bias=bias32))
        outs.append(torch_npu.npu_quant_matmul(x1, x2, scale64, output_dtype=torch.float16))
        y, s = torch_npu.npu_dequant_swiglu_quant(acc, weight_scale=wscale, activation_scale=ascale,
                                                  bias=bias32, quant_scale=qscale,
                                                  quant_offset=qoffset, quant_mode=0)
        outs += [y, s]
        y, s = torch_npu.npu_dequant_swiglu_quant(acc, weight_scale=wscale, activation_scale=ascale,
                                                  quant_mode=1)
        outs += [y, s]
        y, s = torch_npu.npu_dequant_swiglu_quant(acc, weight_scale=wscale, activation_scale=ascale,
                                                  quant_scale=qscale, activate_left=True,
                                                  quant_mode=1)
        outs += [y, s]
        y, s = torch_npu.npu_dequant_swiglu_quant(acc, weight_scale=gwscale, activation_scale=ascale,
                                                  quant_scale=gqscale, group_index=groups,
                                                  quant_mode=1)
        outs += [y, s]
        y, s = torch_npu.npu_dequant_swiglu_quant(qb, quant_mode=1)
        outs += [y, s]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False)
x = torch.randn(6, 16).npu()
h = torch.randn(6, 16, dtype=torch.float16).npu()
b = torch.randn(6, 16).bfloat16().npu()
x1 = torch.randint(-10, 10, (M, K), dtype=torch.int8).npu()
x2 = torch.randint(-10, 10, (K, N), dtype=torch.int8).npu()
x1b = torch.randint(-10, 10, (3, M, K), dtype=torch.int8).npu()
scale = (torch.rand(N) * 0.02).npu()
offset = torch.randn(N).npu()
bias32 = torch.randint(-100, 100, (N,), dtype=torch.int32).npu()
bias_b32 = torch.randint(-100, 100, (3, 1, N), dtype=torch.int32).npu()
pertoken = torch.rand(M).npu()
bias_bf = torch.randn(N).bfloat16().npu()
acc = torch.randint(-2000, 2000, (M, N), dtype=torch.int32).npu()
wscale = (torch.rand(N) * 0.01).npu()
ascale = torch.rand(M).npu()
qscale = (torch.rand(N // 2) * 10 + 5).npu()
qoffset = torch.randn(N // 2).npu()
groups = torch.tensor([3, 0, 5]).npu()
gwscale = (torch.rand(3, N) * 0.01).npu()
gqscale = (torch.rand(3, N // 2) + 0.5).npu()
# float32 bit patterns of 0.001 .. 0.02 in int64s
scale64 = torch.randint(0x3A83126F, 0x3CA3D70A, (N,)).npu()
with torch.no_grad():
    outs = model(x, h, b, x1, x2, x1b, scale, offset, bias32, bias_b32, pertoken, bias_bf,
                 acc, wscale, ascale, qscale, qoffset, groups, gwscale, gqscale, scale64)
print(len(outs))
