import torch
import torch.distributed as dist

# all_gather_into_tensor's output (reduce_scatter_tensor's input) holds
# the group's size times the other tensor's elements: 4 for the world
# (init_process_group), 2 for PAIR. Sizes from names made in the function
# with literal sizes only.
dist.init_process_group("hccl", world_size=4)
PAIR = dist.new_group([0, 1])


def step(x, n):
    out = torch.empty(6, 4)
    inp = torch.empty(2, 4)
    dist.all_gather_into_tensor(out, inp)  # expect: TNG183
    big = torch.zeros((8, 4))
    small = torch.empty(2, 4)
    dist.reduce_scatter_tensor(small, big, group=PAIR)  # expect: TNG183
    dist.reduce_scatter_tensor(output=small, input=big)
    full = torch.empty(8, 4)
    dist.all_gather_into_tensor(full, inp)
    stacked = torch.empty(4, 2, 4)
    dist.all_gather_into_tensor(stacked, inp, group=dist.group.WORLD)
    pair = torch.empty(4, 4)
    dist.all_gather_into_tensor(pair, inp, group=PAIR)
    dyn = torch.empty(n, 4)
    dist.all_gather_into_tensor(dyn, inp)
    dist.all_gather_into_tensor(out, x)
    return out


def unknown_world(x):
    out = torch.empty(5, 4)
    inp = torch.empty(2, 4)
    dist.all_gather_into_tensor(out, inp, group=x)  # expect: TNG183
    return out
