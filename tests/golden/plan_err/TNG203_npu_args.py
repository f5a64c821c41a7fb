import torch
import torch_npu
import torchair


# torch_npu fused ops with argument values tngc does not compile: each is
# TNG203 naming the argument.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, q, k, v, lens, idx):
        a = torch_npu.npu_dynamic_quant(x, dst_type=torch.quint4x2)  # expect: TNG203
        b = torch_npu.npu_rotary_mul(x, x, x, rotary_mode="quarter")  # expect: TNG203
        m = torch_npu.npu_moe_gating_top_k(x, 2, renorm=1)  # expect: TNG203
        c = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=2, input_layout="TND")  # expect: TNG203
        d = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=2, sparse_mode=5)  # expect: TNG203
        e = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=2, pse_shift=x)  # expect: TNG203
        f = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=2, actual_seq_lengths=[1, 2])  # expect: TNG203
        g = torch_npu.npu_grouped_matmul([x], [x, x], group_list=lens, group_type=0)  # expect: TNG203
        h = torch_npu.scatter_update_(x, idx, x, 1)  # expect: TNG203
        return a, b, m, c, d, e, f, g, h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
q = torch.randn(2, 3, 16).npu()
k = torch.randn(2, 5, 16).npu()
v = torch.randn(2, 5, 16).npu()
lens = torch.tensor([2, 2]).npu()
idx = torch.zeros(4, 2, dtype=torch.int64).npu()
print(model(x, q, k, v, lens, idx))
