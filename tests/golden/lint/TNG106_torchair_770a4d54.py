# tngc-args: --torchair 770a4d54
import torch
import torchair


# At TorchAir 770a4d54, npu_stream_switch(stream_tag, stream_priority=0) has
# no enable_inner_parallel parameter (scope/__init__.py:22): passing it, by
# name or as the third argument, raises TypeError.
class Model(torch.nn.Module):
    def forward(self, x):
        with torchair.scope.npu_stream_switch("1", 0, enable_inner_parallel=False):  # expect: TNG106
            y = x * 2
        with torchair.scope.npu_stream_switch("2", 0, True):  # expect: TNG106
            y = y + 1
        with torchair.scope.npu_stream_switch("3", 0):
            return y - 1
