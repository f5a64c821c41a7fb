"""check_collectives.py N DIR [acl]: the outputs DIR/co<r>/out<k>.npy of
collectives.py's bundle run on N ranks (acl: collectives_acl.py's),
against numpy (inputs DIR/x.npy, DIR/w.npy)."""
import sys

import numpy as np

ws, d = int(sys.argv[1]), sys.argv[2]
acl = len(sys.argv) > 3 and sys.argv[3] == "acl"
x, w = np.load(f"{d}/x.npy"), np.load(f"{d}/w.npy")
ys = [(x @ w.T) * (r + 1) for r in range(ws)]
total = sum(ys)
gathered = np.concatenate(ys)
bad = 0
for r in range(ws):
    b = ys[r].copy()
    b[1:3] = np.minimum.reduce(ys)[1:3] if acl else total[1:3] / ws
    rows = 4 // ws
    want = [np.maximum.reduce(ys), b, total, gathered, (ws * gathered)[r * 4:(r + 1) * 4],
            np.concatenate(ys, axis=1), np.multiply.reduce(ys) if acl else ys[1],
            total[r * rows:(r + 1) * rows],
            ys[0] + ys[1] if r < 2 else ys[r], total] + ([ys[1]] if acl else
                                                         [np.concatenate(ys, axis=1), ws * ys[r]])
    for k, e in enumerate(want):
        got = np.load(f"{d}/co{r}/out{k}.npy")
        tol = 1e-4 if k != 9 else 0.02 * np.abs(e).max()   # out9: bfloat16
        err = np.abs(got - e).max() if got.shape == e.shape else float("inf")
        if not err <= tol:
            print(f"rank {r} out{k}: max error {err} (shape {got.shape}, expected {e.shape})")
            bad = 1
sys.exit(bad)
