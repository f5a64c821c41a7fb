"""fairscale's parallel layers at world size 1: each is the torch.nn layer
it splits (the parallel options are accepted and have no effect)."""
import torch.nn as nn


class ColumnParallelLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, gather_output=True,
                 init_method=None, stride=1, keep_master_weight_for_test=False):
        super().__init__(in_features, out_features, bias=bias)


class RowParallelLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, input_is_parallel=False,
                 init_method=None, stride=1, keep_master_weight_for_test=False):
        super().__init__(in_features, out_features, bias=bias)


class ParallelEmbedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False,
                 init_method=None, keep_master_weight_for_test=False):
        super().__init__(num_embeddings, embedding_dim, padding_idx=padding_idx)


class VocabParallelEmbedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False,
                 init_method=None, keep_master_weight_for_test=False):
        super().__init__(num_embeddings, embedding_dim, padding_idx=padding_idx)
