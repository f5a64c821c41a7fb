import torch
import torch.distributed as dist
from torch.distributed import ReduceOp

# ReduceOp has SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR and PREMUL_SUM:
# any other attribute raises AttributeError, however ReduceOp is imported.


def step(x):
    dist.all_reduce(x, op=dist.ReduceOp.MEAN)  # expect: TNG181
    dist.all_reduce(x, op=ReduceOp.PROD)  # expect: TNG181
    dist.all_reduce(x, op=torch.distributed.ReduceOp.Sum)  # expect: TNG181
    dist.all_reduce(x, op=dist.ReduceOp.AVG)
    dist.all_reduce(x, op=ReduceOp.BXOR)
    names = dist.ReduceOp.__members__
    return x, names
