# all_to_all_single on 2 ranks, in one entry: equal blocks, and split sizes
# known at compile time (rank r sends SPLITS[r][j] rows to rank j and
# receives SPLITS[j][r] rows from each rank j). Build with --world-size 2;
# check_all_to_all.py simulates PyTorch's exchange with numpy.
import torch
import torch.distributed as dist
from torch import nn

RANK = dist.get_rank()
SPLITS = [[1, 3], [2, 2]]


class AllToAll(nn.Module):
    def forward(self, x):
        y = x * (RANK + 1) + 100 * RANK
        even = torch.empty(4, 3)
        dist.all_to_all_single(even, y)
        recv = [SPLITS[j][RANK] for j in range(2)]
        uneven = torch.empty(sum(recv), 3)
        dist.all_to_all_single(uneven, y, output_split_sizes=recv, input_split_sizes=SPLITS[RANK])
        return even, uneven


model = AllToAll()
compiled = torch.compile(model)
compiled(torch.randn(4, 3))
