# scaled_dot_product_attention with a sequence length known at run time
# only: the ACL target refuses it (its scores are scratch at constant
# offsets after a static gear's arena). (tests/acl/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair


class M(torch.nn.Module):
    def forward(self, q):
        return F.scaled_dot_product_attention(q, q, q, is_causal=True)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(M().npu(), backend=npu_backend, dynamic=True)
q = torch.randn(2, 4, 6, 16).npu()
torch._dynamo.mark_dynamic(q, 2)
print(model(q).shape)
