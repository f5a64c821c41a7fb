import torch
import torch_npu
import torchair


# config.mode.value = "..." goes through the same validating setter as
# config.mode = "..." (configs/_option_base.py:42-48): every mode rule sees it.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.npu_stream_switch("1", 2):  # expect: TNG103
            y = torch.mm(x, w)
        return y


config = torchair.CompilerConfig()
config.mode.value = "reduce-overhead"  # expect: TNG175
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
config.debug.graph_dump.type = "pbtxt"  # expect: TNG163
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)

bad = torchair.CompilerConfig()
bad.mode.value = "reduce_overhead"  # expect: TNG165

ma = torchair.CompilerConfig()
ma.mode.value = "max-autotune"
ma.experimental_config.aclgraph._aclnn_static_shape_kernel = True  # expect: TNG160
x = torch.randn(4, 4).npu()
w = torch.randn(4, 4).npu()
out = model(x, w)
