# all_to_all_single with split sizes on 8 ranks, the most tngc takes them
# for (2 attributes and 2 per rank: ir/graph.h's GRAPH_MAX_ATTRS): rank r
# sends SPLITS[r][j] rows of its 8 to rank j (2 to itself, none to the next
# rank, 1 to each other) and receives SPLITS[j][r] from each rank j. Build
# with --world-size 8; check_all_to_all.py DIR PREFIX 8 simulates PyTorch's
# exchange with numpy.
import torch
import torch.distributed as dist
from torch import nn

WS = dist.get_world_size()
RANK = dist.get_rank()
SPLITS = [[2 if j == r else 0 if j == (r + 1) % WS else 1 for j in range(WS)] for r in range(WS)]


class AllToAllWide(nn.Module):
    def forward(self, x):
        y = x * (RANK + 1) + 100 * RANK
        recv = [SPLITS[j][RANK] for j in range(WS)]
        out = torch.empty(sum(recv), 3)
        dist.all_to_all_single(out, y, output_split_sizes=recv, input_split_sizes=SPLITS[RANK])
        return out


model = AllToAllWide()
compiled = torch.compile(model)
compiled(torch.randn(WS, 3))
