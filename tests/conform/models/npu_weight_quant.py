# tolerance: matmul
# torch_npu.npu_weight_quant_batchmatmul (weight-only int8, as the
# reference stand-in tests/ref/stubs/torch_npu computes it from torch_npu's
# documentation): float16 and bfloat16 activations; one scale per column
# ([n] and [1, n]), one in all ([1]), and one per column and group of 32
# rows of the weight (3 groups of k = 96, and of k = 80 whose last group
# has 16 rows); with and without antiquant_offset and bias (float16 with
# a float16 x, float32 with a bfloat16 x: the pairs CANN's
# aclnnWeightQuantBatchMatmulV2 takes; npu_weight_quant_bias.py has the
# others); the weight an int8 input [k, n], an int8 buffer [n, k]
# transposed, and an int8 buffer [k, n] of 130 columns (the bundle packs
# it at load in panels of 64 columns, the last part-filled), per column
# and per group with offsets. The rows of x take 2 or 5 (gears; 5: a block of 4 rows and
# one of 1): every gear is checked against PyTorch. On the ACL target each
# call is aclnnWeightQuantBatchMatmulV2 (tests/acl/run.sh, tests/aclsim).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

K, N, G = 96, 48, 32
NP = 130


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w_nk", torch.randint(-128, 128, (N, K), dtype=torch.int8))
        self.register_buffer("gscale", (torch.rand(3, N) * 0.02 + 0.001).half())
        self.register_buffer("goffset", (torch.randn(3, N) * 4).half())
        self.register_buffer("w_kn", torch.randint(-128, 128, (K, NP), dtype=torch.int8))
        self.register_buffer("pscale", (torch.rand(3, NP) * 0.02 + 0.001).half())
        self.register_buffer("poffset", (torch.randn(3, NP) * 4).half())

    def forward(self, x, w, scale, offset, bias_h, bias_f, tscale, toffset):
        xb = x.to(torch.bfloat16)
        outs = [
            torch_npu.npu_weight_quant_batchmatmul(x, w, scale),
            torch_npu.npu_weight_quant_batchmatmul(x, w, scale.reshape(1, N), offset.reshape(1, N),
                                                   bias=bias_h),
            torch_npu.npu_weight_quant_batchmatmul(x, w, tscale, toffset),
            torch_npu.npu_weight_quant_batchmatmul(xb, w, self.gscale.bfloat16(), self.goffset.bfloat16(),
                                                   bias=bias_f, antiquant_group_size=G),
            torch_npu.npu_weight_quant_batchmatmul(xb[:, :80], w[:80], self.gscale.bfloat16(),
                                                   antiquant_group_size=G),
            torch_npu.npu_weight_quant_batchmatmul(x, self.w_nk.t(), self.gscale, self.goffset,
                                                   bias=bias_h, antiquant_group_size=G),
            torch_npu.npu_weight_quant_batchmatmul(xb, w, scale.bfloat16(), offset.bfloat16(),
                                                   bias=bias_f),
            torch_npu.npu_weight_quant_batchmatmul(x, self.w_kn, self.pscale[0]),
            torch_npu.npu_weight_quant_batchmatmul(x, self.w_kn, self.pscale, self.poffset,
                                                   antiquant_group_size=G),
        ]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(5, K).half().npu()
w = torch.randint(-128, 128, (K, N), dtype=torch.int8).npu()
scale = (torch.rand(N) * 0.02 + 0.001).half().npu()
offset = (torch.randn(N) * 4).half().npu()
bias_h = torch.randn(N).half().npu()
bias_f = torch.randn(N).npu()
tscale = torch.tensor([0.0125]).half().npu()
toffset = torch.tensor([-3.0]).half().npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 5]})
with torch.no_grad():
    outs = model(x, w, scale, offset, bias_h, bias_f, tscale, toffset)
print(len(outs))
