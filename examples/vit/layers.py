# The building blocks of a small Vision Transformer, written the way timm's
# vision_transformer.py writes them: a convolutional patch embedding, a
# multi-head self-attention with one fused qkv projection, a GELU MLP, and
# the pre-norm Block that joins them with residual adds.  The norm and the
# activation are passed in as classes (norm_layer, act_layer) and built
# here, so a model picks them once.
import collections.abc

import torch
import torch.nn.functional as F
import torchair
from torch import nn


def to_2tuple(x):
    """An int, or a pair of ints, as a pair."""
    if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        return tuple(x)
    return (x, x)


class PatchEmbed(nn.Module):
    """Image [B, C, H, W] -> patch tokens [B, N, D], N = (H / p) * (W / p)."""

    def __init__(self, img_size=16, patch_size=4, in_chans=3, embed_dim=32, norm_layer=None):
        super().__init__()
        self.img_size = to_2tuple(img_size)
        self.patch_size = to_2tuple(patch_size)
        self.grid_size = tuple(s // p for s, p in zip(self.img_size, self.patch_size))
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        # One output pixel per patch: a convolution whose kernel and stride
        # are the patch size is a linear map of each flattened patch.
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=self.patch_size,
                              stride=self.patch_size)
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        assert H == self.img_size[0] and W == self.img_size[1], \
            f"Input image size ({H}*{W}) doesn't match model ({self.img_size[0]}*{self.img_size[1]})."
        x = self.proj(x)                     # [B, D, H/p, W/p]
        x = x.flatten(2).transpose(1, 2)     # [B, N, D]
        return self.norm(x)


class Attention(nn.Module):
    """Multi-head self-attention; qkv is one linear layer split by reshape.
    fused_attn: F.scaled_dot_product_attention (timm's default on PyTorch 2;
    tngc's CPU target runs it, its ACL target has no operator for it), else
    the steps written out, in a super kernel."""

    def __init__(self, dim, num_heads=2, qkv_bias=True, attn_drop=0.0, proj_drop=0.0,
                 fused_attn=False):
        super().__init__()
        assert dim % num_heads == 0, "dim should be divisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.fused_attn = fused_attn
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)           # each [B, heads, N, head_dim]
        if self.fused_attn:
            x = F.scaled_dot_product_attention(
                q, k, v, dropout_p=self.attn_drop.p if self.training else 0.0)
        else:
            # Scores, softmax and the weighted sum: static for each gear, so
            # one super kernel on the NPU.
            with torchair.scope.super_kernel("vit_attn"):
                attn = (q * self.scale) @ k.transpose(-2, -1)
                attn = attn.softmax(dim=-1)
                attn = self.attn_drop(attn)
                x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return self.proj_drop(x)


class Mlp(nn.Module):
    """fc1 -> activation -> fc2."""

    def __init__(self, in_features, hidden_features, act_layer=nn.GELU, drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop)
        self.fc2 = nn.Linear(hidden_features, in_features)
        self.drop2 = nn.Dropout(drop)

    def forward(self, x):
        x = self.drop1(self.act(self.fc1(x)))
        return self.drop2(self.fc2(x))


class LayerScale(nn.Module):
    """Scales each channel by a learned gamma (CaiT's LayerScale)."""

    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    """Pre-norm transformer block: x + attn(norm1(x)), then x + mlp(norm2(x))."""

    def __init__(self, dim, num_heads, mlp_ratio=2.0, qkv_bias=True, drop=0.0,
                 attn_drop=0.0, init_values=None, act_layer=nn.GELU, norm_layer=nn.LayerNorm,
                 fused_attn=False):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias,
                              attn_drop=attn_drop, proj_drop=drop, fused_attn=fused_attn)
        self.ls1 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        # Stochastic depth only trains: an identity at inference.
        self.drop_path = nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio), act_layer=act_layer, drop=drop)
        self.ls2 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()

    def forward(self, x):
        x = x + self.drop_path(self.ls1(self.attn(self.norm1(x))))
        x = x + self.drop_path(self.ls2(self.mlp(self.norm2(x))))
        return x
