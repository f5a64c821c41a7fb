"""check_all_to_all.py DIR PREFIX [8]: each rank's outputs against
all_to_all_single's exchange simulated with numpy on the same x: those of
all_to_all.py on 2 ranks (DIR/PREFIX<r>/out0.npy, out1.npy; x DIR/x43.npy),
or with 8, all_to_all_wide.py's on 8 ranks (out0.npy; x DIR/x83.npy)."""
import sys

import numpy as np

d, prefix = sys.argv[1], sys.argv[2]
wide = len(sys.argv) > 3 and sys.argv[3] == "8"
ws = 8 if wide else 2
x = np.load(f"{d}/x83.npy" if wide else f"{d}/x43.npy")
if wide:
    splits = [[2 if j == r else 0 if j == (r + 1) % ws else 1 for j in range(ws)] for r in range(ws)]
else:
    splits = [[1, 3], [2, 2]]
y = [x * (r + 1) + 100 * r for r in range(ws)]
bad = 0
for r in range(ws):
    uneven = np.concatenate([y[j][sum(splits[j][:r]):sum(splits[j][:r + 1])] for j in range(ws)])
    wants = (uneven,) if wide else (np.concatenate([y[j][2 * r:2 * r + 2] for j in range(2)]), uneven)
    for k, want in enumerate(wants):
        got = np.load(f"{d}/{prefix}{r}/out{k}.npy")
        if got.shape != want.shape or np.abs(got - want).max() > 1e-5:
            print(f"all_to_all: rank {r} out{k} {got.shape} differs from the simulated {want.shape}")
            bad = 1
sys.exit(bad)
