import torch
import torch.distributed as dist
from torch.distributed import all_reduce

# A collective's group must be a process group (new_group's result,
# dist.group.WORLD or None): the list of ranks given to new_group, a name
# or a number fail when the collective calls the group. A parameter, a
# name bound twice and the functional collectives (which take ranks) are
# not judged.
TP_RANKS = [0, 1]
TP = dist.new_group(TP_RANKS)


def step(x, group, ranks=[0, 1]):
    dist.all_reduce(x, group=TP_RANKS)  # expect: TNG180
    all_reduce(x, dist.ReduceOp.SUM, "tp")  # expect: TNG180
    dist.broadcast(x, 0, 3)  # expect: TNG180
    local = (0, 1)
    dist.all_gather_into_tensor(x, x, group=local)  # expect: TNG180
    dist.barrier([0, 1])  # expect: TNG180
    dist.all_reduce(x, group=TP)
    dist.all_reduce(x, group=group)
    dist.all_reduce(x, group=ranks)
    dist.all_reduce(x, group=None)
    dist.all_reduce(x, group=dist.group.WORLD)
    twice = [0, 1]
    twice = dist.new_group(twice)
    dist.all_reduce(x, group=twice)
    return x
