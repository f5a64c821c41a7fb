"""Model-parallel groups of a single process: world size 1, rank 0."""


def get_model_parallel_world_size():
    return 1


def get_model_parallel_rank():
    return 0
