# tngc-args: --streams-as-written
# Nested scopes: the innermost npu_stream_switch wins and the same tag is the
# same stream; super_kernel(None) clears the enclosing super kernel for its
# body; a nested super_kernel replaces the outer one for its body; the same
# scope name used again (here from stream "2") is the same super kernel.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w1, w2):
        with torchair.scope.npu_stream_switch("1"):
            a = torch.mm(x, w1)                          # stream "1"
            with torchair.scope.npu_stream_switch("2"):
                b = torch.mm(x, w2)                      # stream "2"
                with torchair.scope.npu_stream_switch("1"):
                    c = torch.relu(b)                    # stream "1" again
            d = a + c                                    # stream "1"
        with torchair.scope.super_kernel("sk_a", ""):
            e = torch.sigmoid(d)                         # default stream, sk_a
            with torchair.scope.super_kernel(None):
                f = torch.tanh(e)                        # no super kernel
            with torchair.scope.super_kernel("sk_b", ""):
                g = f * e                                # sk_b
                g = g - 1.0                              # sk_b
            h = g + e                                    # sk_a again
        with torchair.scope.npu_stream_switch("2"), torchair.scope.super_kernel("sk_a", ""):
            k = torch.exp(h)                             # stream "2", sk_a
            m = k / 2.0                                  # stream "2", sk_a
        return h, m


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(16, 16).npu()
w1 = torch.randn(16, 16).npu()
w2 = torch.randn(16, 16).npu()
h, m = model(x, w1, w2)
print(h.shape, m.shape)
