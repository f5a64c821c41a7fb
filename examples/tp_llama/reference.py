"""reference.py OUT: the unsharded model in one PyTorch process (no process
group: modeling.py builds every layer whole), its weights cut into the
shards rank r of N holds (OUT/np<N>/rank<r>.pt, N in 2 and 4, the slices
modeling.py's parallel layers take), and per gear S a prompt
(OUT/ids<S>.npy) with PyTorch's logits (OUT/ref<S>.npy)."""
import os
import sys

import numpy as np
import torch

from modeling import TPConfig, TPLlama

SEQ_GEARS = [4, 8]   # run.py's (it imports torchair, which PyTorch alone lacks)

COLUMN = ("embed_tokens.weight", "q_proj.weight", "k_proj.weight", "v_proj.weight", "gate_proj.weight",
          "up_proj.weight", "lm_head.weight")   # split along dim 0 (output features, vocab rows)
ROW = ("o_proj.weight", "down_proj.weight")       # split along dim 1 (input features)


def shard(name, w, n, r):
    if name.endswith(COLUMN):
        k = w.shape[0] // n
        return w[r * k:(r + 1) * k].clone()
    if name.endswith(ROW):
        k = w.shape[1] // n
        return w[:, r * k:(r + 1) * k].clone()
    return w.clone()   # norms: every rank holds them whole


if __name__ == "__main__":
    out = sys.argv[1]
    torch.manual_seed(0)
    model = TPLlama(TPConfig()).eval()
    state = model.state_dict()
    for n in (2, 4):
        os.makedirs(f"{out}/np{n}", exist_ok=True)
        for r in range(n):
            torch.save({k: shard(k, v, n, r) for k, v in state.items()}, f"{out}/np{n}/rank{r}.pt")
    with torch.no_grad():
        for s in SEQ_GEARS:
            ids = torch.randint(0, TPConfig().vocab_size, (1, s))
            np.save(f"{out}/ids{s}.npy", ids.numpy())
            np.save(f"{out}/ref{s}.npy", model(ids).numpy())
    print(f"reference: {out}: shards for 2 and 4 ranks, logits for prompts of {SEQ_GEARS} tokens")
