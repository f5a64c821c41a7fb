import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


# mark_static and set_dim_gears on one element of a tuple or list, named by
# literal indices: TorchAir raises AssertionError for gears on a tensor
# marked static (inference/_gear_utils.py:38).
prompt = torch.ones(3, 2), [torch.ones(3, 2), torch.ones(3, 2)]
set_dim_gears(prompt[0], {0: [2, 3]})
torch._dynamo.mark_static(prompt[1][0])
set_dim_gears(prompt[1][0], {0: [2, 3]})  # expect: TNG134
set_dim_gears(prompt[1][1], {0: [2, 3]})

decode = [torch.ones(3, 2)]
torch._dynamo.mark_static(decode[0])
decode = [torch.ones(4, 2)]
set_dim_gears(decode[0], {0: [3, 4]})
