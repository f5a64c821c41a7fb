# npu_weight_quant_batchmatmul in the forms aclnnWeightQuantBatchMatmulV2
# does not take: an antiquant_offset of another shape than the scale's, a
# group size that is not a multiple of 32, one of k or more. `tngc gen
# --target acl` must fail at lines 15, 16 and 17; the CPU target builds it.
import torch
import torch_npu
import torchair

K, N = 64, 32


class Model(torch.nn.Module):
    def forward(self, x, w, scale, offset1, gscale16):
        return [
            torch_npu.npu_weight_quant_batchmatmul(x, w, scale, offset1),
            torch_npu.npu_weight_quant_batchmatmul(x, w, gscale16, antiquant_group_size=16),
            torch_npu.npu_weight_quant_batchmatmul(x, w, scale.reshape(1, N), antiquant_group_size=64),
        ]


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
model(torch.randn(3, K).half(), torch.randint(-128, 128, (K, N), dtype=torch.int8),
      torch.rand(N).half(), torch.randn(1).half(), torch.rand(4, N).half())
