"""check_groups.py DIR: the outputs DIR/go<r>/out<k>.npy of groups.py's
bundle run on 4 ranks, against numpy (inputs DIR/x.npy, DIR/w.npy)."""
import sys

import numpy as np

d = sys.argv[1]
x, w = np.load(f"{d}/x.npy"), np.load(f"{d}/w.npy")
ys = [(x @ w.T) * (r + 1) for r in range(4)]
bad = 0
for r in range(4):
    pair = [0, 1] if r < 2 else [2, 3]
    even = r % 2 == 0
    pair_avg = (ys[pair[0]] + ys[pair[1]]) / 2
    place = pair.index(r)
    half = (np.stack(ys).astype(np.float32).sum(0) / 4).astype(np.float16).astype(np.float32)
    want = [pair_avg,
            pair_avg[2 * place:2 * place + 2],
            np.maximum(ys[0], ys[2]) if even else ys[r],
            np.concatenate([ys[pair[0]], ys[pair[1]]]),
            ys[2] if even else ys[r],
            half,
            (sum(ys) / 4)[r:r + 1],
            np.concatenate([2 * ys[0][2 * (r // 2):2 * (r // 2) + 2], 2 * ys[2][2 * (r // 2):2 * (r // 2) + 2]])
            if even else ys[r]]
    for k, e in enumerate(want):
        got = np.load(f"{d}/go{r}/out{k}.npy")
        tol = 1e-4 if k != 5 else 1e-3 * max(1.0, np.abs(e).max())   # out5: float16
        err = np.abs(got - e).max() if got.shape == e.shape else float("inf")
        if not err <= tol:
            print(f"rank {r} out{k}: max error {err} (shape {got.shape}, expected {e.shape})")
            bad = 1
sys.exit(bad)
