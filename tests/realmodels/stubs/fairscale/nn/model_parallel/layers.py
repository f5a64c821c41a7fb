"""fairscale's parallel layers at world size 1, written as fairscale writes
them: nn.Module subclasses holding the whole weight as a parameter (drawn
from a normal distribution, then given to init_method as fairscale does)
and a forward calling F.linear / F.embedding. The parallel options are
accepted and have no effect."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def _weight(rows, cols, init_method):
    w = nn.Parameter(torch.empty(rows, cols))
    nn.init.normal_(w, std=0.02)
    if init_method is not None:
        init_method(w)
    return w


class ColumnParallelLinear(nn.Module):
    def __init__(self, in_features, out_features, bias=True, gather_output=True,
                 init_method=None, stride=1, keep_master_weight_for_test=False):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _weight(out_features, in_features, init_method)
        if bias:
            self.bias = nn.Parameter(torch.zeros(out_features))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class RowParallelLinear(nn.Module):
    def __init__(self, in_features, out_features, bias=True, input_is_parallel=False,
                 init_method=None, stride=1, keep_master_weight_for_test=False):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _weight(out_features, in_features, init_method)
        if bias:
            self.bias = nn.Parameter(torch.zeros(out_features))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class ParallelEmbedding(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False,
                 init_method=None, keep_master_weight_for_test=False):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.weight = _weight(num_embeddings, embedding_dim, init_method)

    def forward(self, ids):
        return F.embedding(ids, self.weight)


class VocabParallelEmbedding(ParallelEmbedding):
    pass
