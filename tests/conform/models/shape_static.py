# The shape family as static kernels: reduce-overhead with
# _aclnn_static_shape_kernel, so that each op is compiled with its gear's
# shapes as constants; with gears, and an arange whose start is a geared
# dim but whose length is not (arange(past, past + 3): same shapes in both
# gears, different values: two kernels, not one), a slice at a symbolic
# start, triu, flip, roll, expand, repeat_interleave. float32, float16,
# int64. (tests/conform/run.sh builds a copy of this script next to an empty
# static_kernel_build folder.)
import os

import torch
import torch_npu
import torchair

BUILD_DIR = "./static_kernel_build"


class Model(torch.nn.Module):
    def forward(self, x, cache, h):
        # x [4, 6] float32; cache [P, 4] float32 (P geared: past length);
        # h [4, 6] float16
        past = cache.shape[0]
        pos = torch.arange(past, past + 3)
        win = torch.cat((cache, x[:, :4]), dim=0)[past:past + 2]
        mask = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)
        y = x[:, :4] + mask + cache[:1]
        return (pos, win, y, torch.flip(h, [1]), torch.roll(x, 2, 1),
                h[:, None, :].expand(4, 2, 6), torch.repeat_interleave(x, 2, dim=0))


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True)
    x = torch.randn(4, 6).npu()
    cache = torch.randn(5, 4).npu()
    h = torch.randn(4, 6, dtype=torch.float16).npu()
    torchair.inference.set_dim_gears(cache, dim_gears={0: [2, 5]})
    with torch.no_grad():
        outs = model(x, cache, h)
    print([tuple(o.shape) for o in outs])
