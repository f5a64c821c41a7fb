# A LLaMA-style causal language model written the way Hugging Face's
# modeling_llama.py and vllm-ascend's model files write it, with the
# TorchAir annotations an Ascend deployment adds: a super kernel per
# decoder layer (named with an f-string) and the K/V projections on a
# second stream.  run.py builds it, compiles a prefill and a decode entry
# and runs them; this file only defines the model.
#
# Two phases over one static KV-cache pool (per layer a key and a value
# tensor [num_slots, max_position_embeddings, num_key_value_heads, head_dim]):
#   prefill(input_ids [1, S], slot_ids [1], kv_caches)
#       one prompt of S tokens at positions 0..S-1, its keys and values
#       written into the pool row slot_ids[0]; causal attention within the
#       prompt.  Returns the logits [1, S, vocab].
#   decode(input_ids [B, 1], positions [B], slot_ids [B], kv_caches)
#       one new token for each of B sequences, sequence b at its own
#       position positions[b] in pool row slot_ids[b]; attention over that
#       row's first positions[b] + 1 entries.  Returns the logits [B, 1, vocab].
import torch
import torch.nn.functional as F
import torchair
from torch import nn

# transformers.activations.ACT2FN, for the activations LLaMA configs name
ACT2FN = {"silu": nn.SiLU(), "gelu": nn.GELU()}


class LlamaConfig:
    """The fields of transformers' LlamaConfig that the model reads."""

    def __init__(self, vocab_size=128, hidden_size=64, intermediate_size=128,
                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                 hidden_act="silu", max_position_embeddings=16, rms_norm_eps=1e-6,
                 rope_theta=10000.0, tie_word_embeddings=True, num_slots=4):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = hidden_size // num_attention_heads
        self.hidden_act = hidden_act
        self.max_position_embeddings = max_position_embeddings
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        self.tie_word_embeddings = tie_word_embeddings
        # sequences the KV-cache pool holds at once (vllm's cache blocks, one per sequence here)
        self.num_slots = num_slots


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        dim = config.head_dim
        inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x, position_ids):
        # position_ids [batch, seq] -> cos, sin [batch, seq, head_dim]
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos()
        sin = emb.sin()
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    """[batch, num_key_value_heads, seq, head_dim] -> [batch, num_attention_heads, seq, head_dim]"""
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.act_fn = ACT2FN[config.hidden_act]

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaAttention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.head_dim = config.head_dim
        self.num_heads = config.num_attention_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        self.q_proj = nn.Linear(config.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, self.num_key_value_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, self.num_key_value_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim, config.hidden_size, bias=False)

    def project(self, hidden_states, position_embeddings):
        """q, k, v [batch, heads, seq, head_dim], RoPE applied to q and k."""
        bsz, q_len, _ = hidden_states.shape
        query_states = self.q_proj(hidden_states)
        # The K/V projections run on a second stream, alongside the Q projection.
        with torchair.scope.npu_stream_switch("kv_proj"):
            key_states = self.k_proj(hidden_states)
            value_states = self.v_proj(hidden_states)
        # RoPE on the default stream waits for the key projection.
        query_states = torchair.scope.npu_wait_tensor(query_states, key_states)
        query_states = query_states.view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = key_states.view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
        value_states = value_states.view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        return query_states, key_states, value_states

    def attend(self, query_states, key_states, value_states, attention_mask):
        """Grouped-query attention: [batch, heads, q_len, head_dim] out."""
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights + attention_mask
        attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        return torch.matmul(attn_weights, value_states)

    def forward(self, hidden_states, position_embeddings, attention_mask, kv_cache, slot_ids, positions):
        """Prefill (positions None: the prompt fills 0..q_len-1 of its slot)
        or decode (one token per sequence, at positions[b] in slot_ids[b])."""
        bsz, q_len, _ = hidden_states.shape
        key_cache, value_cache = kv_cache
        query_states, key_states, value_states = self.project(hidden_states, position_embeddings)
        if positions is None:
            # Prefill: the prompt's keys and values go to rows 0..q_len-1 of its slot.
            prompt_positions = torch.arange(q_len, device=hidden_states.device)
            key_cache[slot_ids[:, None], prompt_positions[None, :]] = key_states.transpose(1, 2)
            value_cache[slot_ids[:, None], prompt_positions[None, :]] = value_states.transpose(1, 2)
        else:
            # Decode: each sequence's new key and value at its own position, then
            # attention over its whole slot (the mask hides what is past its position).
            key_cache.index_put_((slot_ids, positions), key_states[:, :, 0])
            value_cache.index_put_((slot_ids, positions), value_states[:, :, 0])
            key_states = key_cache[slot_ids].transpose(1, 2)
            value_states = value_cache[slot_ids].transpose(1, 2)
        attn_output = self.attend(query_states, key_states, value_states, attention_mask)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1).contiguous()
        return self.o_proj(attn_output)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.self_attn = LlamaAttention(config, layer_idx)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, position_embeddings, attention_mask, kv_cache, slot_ids, positions=None):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states = self.self_attn(hidden_states, position_embeddings, attention_mask,
                                       kv_cache, slot_ids, positions)
        hidden_states = residual + hidden_states
        # The MLP half of each layer is one super kernel, one per
        # layer: its name carries the layer index.
        with torchair.scope.super_kernel(f"layer_{self.layer_idx}_mlp"):
            residual = hidden_states
            hidden_states = self.post_attention_layernorm(hidden_states)
            hidden_states = self.mlp(hidden_states)
            hidden_states = residual + hidden_states
        return hidden_states


class LlamaModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(
            [LlamaDecoderLayer(config, layer_idx) for layer_idx in range(config.num_hidden_layers)]
        )
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(config)

    def forward(self, input_ids, position_ids, attention_mask, kv_caches, slot_ids, positions=None):
        hidden_states = self.embed_tokens(input_ids)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        for layer_idx, decoder_layer in enumerate(self.layers):
            hidden_states = decoder_layer(hidden_states, position_embeddings, attention_mask,
                                          kv_caches[layer_idx], slot_ids, positions)
        return self.norm(hidden_states)


class LlamaForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def prefill(self, input_ids, slot_ids, kv_caches):
        """input_ids [1, S] int64, slot_ids [1] int64 -> logits [1, S, vocab]"""
        seq_len = input_ids.shape[1]
        dtype = self.lm_head.weight.dtype
        position_ids = torch.arange(seq_len, device=input_ids.device)[None, :]
        # Causal mask: a token attends to itself and the tokens before it.
        min_dtype = torch.finfo(dtype).min
        causal_mask = torch.full((seq_len, seq_len), fill_value=min_dtype, dtype=dtype, device=input_ids.device)
        causal_mask = torch.triu(causal_mask, diagonal=1)
        hidden_states = self.model(input_ids, position_ids, causal_mask[None, None, :, :], kv_caches, slot_ids)
        return self.lm_head(hidden_states).float()

    def decode(self, input_ids, positions, slot_ids, kv_caches):
        """input_ids [B, 1], positions [B], slot_ids [B] int64 -> logits [B, 1, vocab]"""
        max_len = self.config.max_position_embeddings
        dtype = self.lm_head.weight.dtype
        # Sequence b sees rows 0..positions[b] of its slot.
        past = torch.arange(max_len, device=input_ids.device)[None, :] > positions[:, None]
        attention_mask = torch.zeros(past.shape, dtype=dtype, device=input_ids.device)
        attention_mask = attention_mask.masked_fill(past, torch.finfo(dtype).min)
        hidden_states = self.model(input_ids, positions[:, None], attention_mask[:, None, None, :],
                                   kv_caches, slot_ids, positions)
        return self.lm_head(hidden_states).float()


def init_kv_caches(config, dtype=torch.float32):
    """The KV-cache pool on the NPU: per layer (key_cache, value_cache), each
    [num_slots, max_position_embeddings, num_key_value_heads, head_dim]."""
    shape = (config.num_slots, config.max_position_embeddings, config.num_key_value_heads, config.head_dim)
    return [(torch.zeros(shape, dtype=dtype).npu(), torch.zeros(shape, dtype=dtype).npu())
            for _ in range(config.num_hidden_layers)]
