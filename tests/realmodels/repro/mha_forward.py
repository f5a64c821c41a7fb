# F.multi_head_attention_forward called directly with separate q/k/v
# projection weights (openai/CLIP's AttentionPool2d). PyTorch: nn.MultiheadAttention's
# arithmetic on [L, N, E] inputs. tngc, before it compiled this: TNG203 (not among the operators tngc
# compiles).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(8, 8)
        self.k_proj = nn.Linear(8, 8)
        self.v_proj = nn.Linear(8, 8)
        self.c_proj = nn.Linear(8, 8)

    def forward(self, x):
        x = x.permute(1, 0, 2)
        y, _ = F.multi_head_attention_forward(
            query=x[:1], key=x, value=x, embed_dim_to_check=8, num_heads=2,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight, in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0,
            out_proj_weight=self.c_proj.weight, out_proj_bias=self.c_proj.bias,
            use_separate_proj_weight=True, training=self.training, need_weights=False)
        return y[0]

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
