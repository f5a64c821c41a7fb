import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


# F.multi_head_attention_forward with the arguments tngc does not compile:
# add_zero_attn=True, a bias_k / bias_v appended to the keys and values,
# and projection weights whose rows are not embed_dim (PyTorch's assertion).
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(48, 16))
        self.wq = nn.Parameter(torch.randn(8, 16))
        self.bk = nn.Parameter(torch.randn(1, 1, 16))
        self.out = nn.Linear(16, 16)

    def forward(self, x):
        a, _ = F.multi_head_attention_forward(x, x, x, 16, 4, self.w, None, None, None, True, 0.0,  # expect: TNG203
                                              self.out.weight, self.out.bias, training=False)
        b, _ = F.multi_head_attention_forward(x, x, x, 16, 4, self.w, None, self.bk, self.bk, False, 0.0,  # expect: TNG203
                                              self.out.weight, self.out.bias, training=False)
        c, _ = F.multi_head_attention_forward(x, x, x, 16, 4, None, None, None, None, False, 0.0,  # expect: TNG206
                                              self.out.weight, self.out.bias, training=False,
                                              use_separate_proj_weight=True, q_proj_weight=self.wq,
                                              k_proj_weight=self.w, v_proj_weight=self.w)
        return a + b + c


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(5, 2, 16).npu()
print(model(x))
