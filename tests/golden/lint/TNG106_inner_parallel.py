import torch
import torch_npu
import torchair

# npu_stream_switch(stream_tag, stream_priority=0, enable_inner_parallel=True)
# stores str(enable_inner_parallel) (scope/__init__.py:22-27) and reads it back
# as value == "True" (scope/_scope_attr.py:40-41): 1 or "yes" become False.


class Model(torch.nn.Module):
    def forward(self, x, flag):
        with torchair.scope.npu_stream_switch("1", 0, 1):  # expect: TNG106
            x = x + 1
        with torchair.scope.npu_stream_switch("2", enable_inner_parallel="yes"):  # expect: TNG106
            x = x + 1
        with torchair.scope.npu_stream_switch("3", enable_inner_parallel=False):
            x = x + 1
        with torchair.scope.npu_stream_switch("4", enable_inner_parallel="True"):
            x = x + 1
        with torchair.scope.npu_stream_switch("5", enable_inner_parallel=0):
            x = x + 1
        with torchair.scope.npu_stream_switch("6", enable_inner_parallel=flag):
            x = x + 1
        return x
