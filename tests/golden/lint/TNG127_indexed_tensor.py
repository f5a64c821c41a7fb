import dataclasses
from typing import List

import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


@dataclasses.dataclass
class InputMeta:
    data: torch.Tensor
    is_prompt: bool


# A tensor reached from a name by literal indices and attributes is the same
# tensor each time the name has not been assigned again: a second
# set_dim_gears with other gears raises AssertionError
# (inference/_gear_utils.py:31-33).
prompt = InputMeta(torch.ones(3, 2), True), [torch.ones(3, 2)]
set_dim_gears(prompt[0].data, {0: [2, 3]})
set_dim_gears(prompt[1][0], {0: [2, 3]})
set_dim_gears(prompt[0].data, {0: [2, 3]})
set_dim_gears(prompt[0].data, {0: [2, 3, 4]})  # expect: TNG127
set_dim_gears(prompt[1][0], dim_gears={0: [2, 4]})  # expect: TNG127

# another element, or the name assigned again: another tensor
set_dim_gears(prompt[1][1], {0: [4, 8]})
prompt = InputMeta(torch.ones(4, 2), True), [torch.ones(4, 2)]
set_dim_gears(prompt[0].data, {0: [4, 8]})



# an index that is not a literal may name another element
def pick(batch, i, j):
    set_dim_gears(batch[i], {0: [2, 3]})
    set_dim_gears(batch[j], {0: [4, 5]})


def step(inputs: List[torch.Tensor]):
    set_dim_gears(inputs[0], {0: [2, 3]})
    torch._dynamo.mark_static(inputs[1])
    set_dim_gears(inputs[0], {0: [2, 4]})  # expect: TNG127


def other(inputs: List[torch.Tensor]):
    set_dim_gears(inputs[0], {0: [8, 16]})
