import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x, w):
        with tng.scope.npu_stream_switch(1):  # tngc: ignore[TNG102]
            a = torch.mm(x, w)
        with tng.scope.npu_stream_switch(2, 1):  # tngc: ignore[TNG102,TNG103]
            b = torch.mm(x, w)
        with tng.scope.npu_stream_switch(3, 1):  # tngc: ignore[TNG103]  # expect: TNG102
            c = torch.mm(x, w)
        with tng.scope.npu_stream_switch(4):  # expect: TNG102
            d = torch.mm(x, w)
        return a + b + c + d


config = tng.CompilerConfig()
config.mdoe = "reduce-overhead"  # tngc: ignore[TNG164]
config.graph_mode = "static"  # expect: TNG164
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
