# set_dim_gears arguments that tngc cannot evaluate, or that are invalid
# once computed, are errors at the call: dropped, they would leave the
# tensor's dims static in the plan without a word.
import os

import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x1, x2, x3):
        return x1 + x2 + x3


sizes = [int(s) for s in os.environ["BATCH_SIZES"].split(",")]
rank = len([0, 0])
x1 = torch.ones(2, 2).npu()
x2 = torch.ones(2, 2).npu()
x3 = torch.ones(2, 2).npu()
model = torch.compile(Model().npu(), fullgraph=True, backend=torchair.get_npu_backend())
torchair.inference.set_dim_gears(x1, dim_gears={0: sizes})  # expect: TNG205
torchair.inference.set_dim_gears(x2, dim_gears={rank: [2, 4]})  # expect: TNG122
torchair.inference.set_dim_gears(x3, dim_gears={0: [rank - 2, 4]})  # expect: TNG125
model(x1, x2, x3)
