import torch
import torch.nn.functional as F
import torch_npu
import torchair


# Argument values of the neural net family's functions that tngc does not
# compile: each refused naming the argument.
class Model(torch.nn.Module):
    def forward(self, q, kv, x):
        a = F.scaled_dot_product_attention(q, kv, kv)  # expect: TNG203
        b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.1)  # expect: TNG203
        c = F.dropout(x, 0.5, training=True)  # expect: TNG203
        d = F.max_pool2d(x, 2, ceil_mode=True)  # expect: TNG203
        e = F.interpolate(x, scale_factor=2, mode="bicubic")  # expect: TNG203
        f = F.batch_norm(x, None, None, training=True)  # expect: TNG203
        return a, b, c, d, e, f


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
q = torch.randn(2, 8, 4, 16).npu()
kv = torch.randn(2, 2, 6, 16).npu()
x = torch.randn(2, 3, 8, 8).npu()
print(model(q, kv, x))
