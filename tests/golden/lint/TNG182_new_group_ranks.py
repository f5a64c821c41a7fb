import torch.distributed as dist

# new_group raises for a negative rank, a rank not below the world size
# and more ranks than the world size (known here from init_process_group);
# a repeated rank makes len(ranks) the group's size: a warning.
dist.init_process_group("hccl", world_size=4)
LAST = 4
A = dist.new_group([0, 4])  # expect: TNG182
B = dist.new_group(ranks=[-1, 0])  # expect: TNG182
C = dist.new_group([0, 1, 2, 3, 0])  # expect: TNG182
D = dist.new_group([1, 1])  # expect: TNG182
E = dist.new_group([2, LAST])  # expect: TNG182
F = dist.new_group([0, 1, 2, 3])
G = dist.new_group(list(range(4)))
H = dist.new_group()
