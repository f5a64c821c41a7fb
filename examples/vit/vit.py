# A tiny Vision Transformer (ViT) classifier in the style of timm's
# VisionTransformer: patch embedding, a learned class token prepended with
# expand + cat, learned position embeddings, a stack of pre-norm Blocks
# (layers.py), a final LayerNorm, class-token pooling and a linear head.
import functools

import torch
from torch import nn

from layers import Block, PatchEmbed


class VisionTransformer(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=3, num_classes=10,
                 embed_dim=32, depth=2, num_heads=2, mlp_ratio=2.0, qkv_bias=True,
                 drop_rate=0.0, attn_drop_rate=0.0, init_values=None, global_pool="token",
                 norm_layer=None, act_layer=None, fused_attn=False):
        super().__init__()
        norm_layer = norm_layer or functools.partial(nn.LayerNorm, eps=1e-6)
        act_layer = act_layer or nn.GELU
        self.global_pool = global_pool
        self.num_prefix_tokens = 1
        self.patch_embed = PatchEmbed(img_size, patch_size, in_chans, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, embed_dim))
        self.pos_drop = nn.Dropout(p=drop_rate)
        self.blocks = nn.Sequential(*[
            Block(embed_dim, num_heads, mlp_ratio, qkv_bias=qkv_bias, drop=drop_rate,
                  attn_drop=attn_drop_rate, init_values=init_values,
                  act_layer=act_layer, norm_layer=norm_layer, fused_attn=fused_attn)
            for _ in range(depth)])
        # Class-token pooling normalises every token; mean pooling
        # normalises the pooled features instead (timm's fc_norm).
        use_fc_norm = global_pool == "avg"
        self.norm = norm_layer(embed_dim) if not use_fc_norm else nn.Identity()
        self.fc_norm = norm_layer(embed_dim) if use_fc_norm else nn.Identity()
        self.head_drop = nn.Dropout(drop_rate)
        self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.normal_(self.cls_token, std=1e-6)

    def forward_features(self, x):
        x = self.patch_embed(x)
        # [1, 1, D] -> [B, 1, D]: every image starts with the same class token
        cls_token = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls_token, x), dim=1)
        x = self.pos_drop(x + self.pos_embed)
        x = self.blocks(x)
        return self.norm(x)

    def forward_head(self, x):
        if self.global_pool == "avg":
            x = x[:, self.num_prefix_tokens:].mean(dim=1)
        else:
            x = x[:, 0]
        x = self.fc_norm(x)
        x = self.head_drop(x)
        return self.head(x)

    def forward(self, x):
        return self.forward_head(self.forward_features(x))


def vit_micro_patch4_16(**kwargs):
    """A 2-block ViT on 16x16 images: 4x4 patches, width 32, 2 heads,
    10 classes (a model factory, as timm names its configurations)."""
    model_args = dict(img_size=16, patch_size=4, num_classes=10, embed_dim=32,
                      depth=2, num_heads=2)
    model_args.update(kwargs)
    return VisionTransformer(**model_args)
