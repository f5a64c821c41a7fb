import torch
import torch_npu
import torchair

# torchair.ops: npu_print checks its arguments (ops/_print_ops.py:93-105),
# wait() its tensor list (ops/_record_wait.py:40-46), and
# npu_create_tagged_event refuses a tag already in use
# (ops/_tagged_event.py:137-138).


class Model(torch.nn.Module):
    def forward(self, x, y):
        torchair.ops.npu_print("x is", x, summarize_size=0)  # expect: TNG174
        torchair.ops.npu_print("no tensor", 1)  # expect: TNG174
        torchair.ops.npu_print(x, [1, 2])  # expect: TNG174
        torchair.ops.npu_print(x, tensor_detail=1)  # expect: TNG174
        torchair.ops.npu_print("x", x, summarize_size=-1, tensor_detail=True)
        torchair.ops.npu_print(x, summarise_size=2)  # expect: TNG172
        torchair.ops.wait([])  # expect: TNG174
        torchair.ops.wait([x, 1])  # expect: TNG174
        torchair.ops.wait([x, y])
        return x + y


def make_events(flag):
    first = torchair.ops.npu_create_tagged_event("ev")
    second = torchair.ops.npu_create_tagged_event(tag="ev")  # expect: TNG174
    other = torchair.ops.npu_create_tagged_event("ev2")
    if flag:
        maybe = torchair.ops.npu_create_tagged_event("ev2")
    return first, second, other, maybe


class Untagged(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = torch.npu.Event()
        self.tagged = torchair.ops.npu_create_tagged_event("ev3")

    def forward(self, x):
        torchair.ops.npu_tagged_event_record(self.plain)  # expect: TNG174
        torchair.ops.npu_tagged_event_wait(torch.npu.Event())  # expect: TNG174
        torchair.ops.npu_tagged_event_record(self.tagged)
        return x
