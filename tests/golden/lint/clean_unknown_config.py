import os
import torch
import torch_npu
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def forward(self, in1, in2):
        add_result = torch.add(in1, in2)
        with tng.scope.npu_stream_switch("1"):
            tng.scope.npu_wait_tensor(in2, add_result)
            mm_result = torch.mm(in1, in2)
        with tng.scope.super_kernel("sk", ""):
            return torch.relu(mm_result)


def build_config(mode):
    cfg = CompilerConfig()
    cfg.mode = mode
    return cfg


if __name__ == "__main__":
    # The mode depends on the environment: mode-dependent rules stay silent.
    config = CompilerConfig()
    if os.environ.get("USE_ACLGRAPH") == "1":
        config.mode = "reduce-overhead"
    config.debug.graph_dump.type = "pbtxt"
    npu_backend = tng.get_npu_backend(compiler_config=config)
    dynamic = os.environ.get("DYNAMIC", "0") == "1"
    model = torch.compile(Model(), backend=npu_backend, dynamic=dynamic, fullgraph=True)
    in1, in2 = torch.randn(4, 4).npu(), torch.randn(4, 4).npu()
    tng.inference.set_dim_gears(in1, {0: [4, 8]})
    out = model(in1, in2)
    # The mode is set after the static-kernel switch, before the backend is made.
    ro_config = CompilerConfig()
    ro_config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    ro_config.mode = "reduce-overhead"
    ro_backend = tng.get_npu_backend(compiler_config=build_config(os.environ["MODE"]))
