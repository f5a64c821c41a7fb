# A DeepSeek-style MoE block (DeepSeek-V2 / V3), written the way the Ascend
# serving code writes it for graph mode (torch.compile with the TorchAir
# backend): a gating linear, softmax or sigmoid scores, top-k routing
# (greedy, or V3's group-limited "noaux_tc" with a score-correction bias),
# renormalised and scaled routing weights, routed SiLU-gated experts in an
# nn.ModuleList and a shared expert on a second stream.
#
# Every shape is static given the token count: the routing weights are
# turned into a dense [tokens, n_routed_experts] combine matrix (one_hot of
# the top-k indices, weighted), every expert runs on every token, and its
# output is weighted by its column. No nonzero / boolean-mask selection of
# the tokens routed to an expert (their count depends on the data).
# The scripts that build and run it: run.py (V2) and run_v3.py (V3).
import math
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchair


class DeepseekMoEConfig:
    """The MoE fields of a DeepSeek-V2/V3 config.json (tiny sizes)."""

    def __init__(self, hidden_size=32, moe_intermediate_size=48, n_routed_experts=8,
                 num_experts_per_tok=2, n_shared_experts=1, scoring_func="softmax",
                 topk_method="greedy", n_group=1, topk_group=1, norm_topk_prob=False,
                 routed_scaling_factor=1.0, hidden_act="silu", multistream_overlap_shared_expert=True):
        self.hidden_size = hidden_size
        self.moe_intermediate_size = moe_intermediate_size
        self.n_routed_experts = n_routed_experts
        self.num_experts_per_tok = num_experts_per_tok
        self.n_shared_experts = n_shared_experts
        self.scoring_func = scoring_func
        self.topk_method = topk_method
        self.n_group = n_group
        self.topk_group = topk_group
        self.norm_topk_prob = norm_topk_prob
        self.routed_scaling_factor = routed_scaling_factor
        self.hidden_act = hidden_act
        self.multistream_overlap_shared_expert = multistream_overlap_shared_expert


def npu_stream_switch(tag, priority=0, enabled=True):
    """The stream scope of the serving code: ops inside run on stream `tag`
    when multi-stream is enabled, on the current stream otherwise."""
    return torchair.scope.npu_stream_switch(tag, priority) if enabled else nullcontext()


def npu_wait_tensor(tensor, dependency, enabled=True):
    """Later users of `tensor` wait until `dependency` has been computed."""
    return torchair.scope.npu_wait_tensor(tensor, dependency) if enabled else tensor


class DeepseekMLP(nn.Module):
    """SiLU-gated MLP: down(silu(gate(x)) * up(x)); an expert or the shared experts."""

    def __init__(self, config, intermediate_size):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.intermediate_size = intermediate_size
        self.gate_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.up_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        if config.hidden_act != "silu":
            raise ValueError("unsupported hidden_act: %s" % config.hidden_act)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class MoEGate(nn.Module):
    """Router: scores of every routed expert for every token, the top-k
    experts and their (renormalised, scaled) weights."""

    def __init__(self, config):
        super().__init__()
        self.top_k = config.num_experts_per_tok
        self.n_routed_experts = config.n_routed_experts
        self.routed_scaling_factor = config.routed_scaling_factor
        self.scoring_func = config.scoring_func
        self.topk_method = config.topk_method
        self.n_group = config.n_group
        self.topk_group = config.topk_group
        self.norm_topk_prob = config.norm_topk_prob
        self.gating_dim = config.hidden_size
        self.weight = nn.Parameter(torch.empty((self.n_routed_experts, self.gating_dim)))
        if self.topk_method == "noaux_tc":
            self.e_score_correction_bias = nn.Parameter(torch.empty((self.n_routed_experts,)))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.topk_method == "noaux_tc":
            nn.init.uniform_(self.e_score_correction_bias, -0.1, 0.1)

    def forward(self, hidden_states):
        # hidden_states [num_tokens, hidden_size]; the router runs in float32
        num_tokens, _ = hidden_states.shape
        logits = F.linear(hidden_states.type(torch.float32), self.weight.type(torch.float32), None)
        if self.scoring_func == "softmax":
            scores = logits.softmax(dim=-1, dtype=torch.float32)
        elif self.scoring_func == "sigmoid":
            scores = logits.sigmoid()
        else:
            raise NotImplementedError("unsupported scoring function: %s" % self.scoring_func)

        if self.topk_method == "greedy":
            topk_weight, topk_idx = torch.topk(scores, k=self.top_k, dim=-1, sorted=False)
        elif self.topk_method == "noaux_tc":
            # group-limited routing: the experts of the best topk_group groups
            # (a group's score: the sum of its two best biased scores) compete
            scores_for_choice = scores + self.e_score_correction_bias.unsqueeze(0)
            group_scores = (
                scores_for_choice.view(num_tokens, self.n_group, -1).topk(2, dim=-1)[0].sum(dim=-1)
            )  # [num_tokens, n_group]
            group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
            group_mask = torch.zeros_like(group_scores)
            group_mask.scatter_(1, group_idx, 1)
            score_mask = (
                group_mask.unsqueeze(-1)
                .expand(num_tokens, self.n_group, self.n_routed_experts // self.n_group)
                .reshape(num_tokens, -1)
            )  # [num_tokens, n_routed_experts]
            tmp_scores = scores_for_choice.masked_fill(~score_mask.bool(), 0.0)
            _, topk_idx = torch.topk(tmp_scores, k=self.top_k, dim=-1, sorted=False)
            topk_weight = scores.gather(1, topk_idx)
        else:
            raise NotImplementedError("unsupported top-k method: %s" % self.topk_method)

        if self.top_k > 1 and self.norm_topk_prob:
            denominator = topk_weight.sum(dim=-1, keepdim=True) + 1e-20
            topk_weight = topk_weight / denominator
        topk_weight = topk_weight * self.routed_scaling_factor
        return topk_idx, topk_weight


class DeepseekMoE(nn.Module):
    """Routed experts plus shared experts; the shared experts run on a
    second stream, overlapping the router and the routed experts."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_experts_per_tok = config.num_experts_per_tok
        self.n_routed_experts = config.n_routed_experts
        self.multistream = config.multistream_overlap_shared_expert
        self.experts = nn.ModuleList(
            [DeepseekMLP(config, config.moe_intermediate_size) for _ in range(config.n_routed_experts)]
        )
        self.gate = MoEGate(config)
        if config.n_shared_experts is not None and config.n_shared_experts > 0:
            self.shared_experts = DeepseekMLP(config, config.moe_intermediate_size * config.n_shared_experts)
        else:
            self.shared_experts = None

    def forward(self, hidden_states):
        # hidden_states [num_tokens, hidden_size] (the serving code flattens
        # batch and sequence) or [batch, seq_len, hidden_size]
        orig_shape = hidden_states.shape
        hidden_states = hidden_states.view(-1, orig_shape[-1])
        shared_output = None
        if self.shared_experts is not None:
            with npu_stream_switch("moe_shared", 0, enabled=self.multistream):
                shared_output = self.shared_experts(hidden_states)
        topk_idx, topk_weight = self.gate(hidden_states)
        routed_output = self.moe_infer(hidden_states, topk_idx, topk_weight)
        if shared_output is not None:
            # the add runs on the main stream after the shared experts are done
            routed_output = npu_wait_tensor(routed_output, shared_output, enabled=self.multistream)
            routed_output = routed_output + shared_output
        return routed_output.view(*orig_shape)

    def moe_infer(self, x, topk_idx, topk_weight):
        """Static-shape combine: a dense [num_tokens, n_routed_experts] weight
        matrix (zero for the experts a token is not routed to); every expert
        runs on every token and its output is scaled by its column."""
        combine = F.one_hot(topk_idx, num_classes=self.n_routed_experts).to(topk_weight.dtype)
        combine = (combine * topk_weight.unsqueeze(-1)).sum(dim=1).to(x.dtype)
        final_out = torch.zeros_like(x)
        for expert_id, expert in enumerate(self.experts):
            final_out = final_out + expert(x) * combine[:, expert_id:expert_id + 1]
        return final_out
