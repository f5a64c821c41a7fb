# tolerance: matmul
# torch_npu.npu_weight_quant_batchmatmul with a bias whose dtype CANN's
# aclnnWeightQuantBatchMatmulV2 does not take with that x (a float32 bias
# with a float16 x, a bfloat16 bias with a bfloat16 x), per column and per
# group of 32 rows: the CPU target computes them as the reference
# stand-in tests/ref/stubs/torch_npu does; the ACL target refuses them
# (TNG203, tests/acl/run.sh). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

K, N, G = 64, 32, 32


class Model(torch.nn.Module):
    def forward(self, x, w, scale, gscale, bias_f):
        xb = x.to(torch.bfloat16)
        return [
            torch_npu.npu_weight_quant_batchmatmul(x, w, gscale, bias=bias_f, antiquant_group_size=G),
            torch_npu.npu_weight_quant_batchmatmul(xb, w, scale.bfloat16(), bias=bias_f.bfloat16()),
        ]


x = torch.randn(3, K).half().npu()
w = torch.randint(-128, 128, (K, N), dtype=torch.int8).npu()
scales = (torch.rand(3, N) * 0.02 + 0.001).half().npu()
bias_f = torch.randn(N).npu()
config = torchair.CompilerConfig()
model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(compiler_config=config),
                      dynamic=False, fullgraph=True)
with torch.no_grad():
    outs = model(x, w, scales[0], scales[1:], bias_f)
print(len(outs))
