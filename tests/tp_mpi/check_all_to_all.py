"""check_all_to_all.py DIR PREFIX: each rank's outputs of all_to_all.py
(DIR/PREFIX<r>/out0.npy, out1.npy) against all_to_all_single's exchange
simulated with numpy on the same x (DIR/x43.npy)."""
import sys

import numpy as np

d, prefix = sys.argv[1], sys.argv[2]
x = np.load(f"{d}/x43.npy")
splits = [[1, 3], [2, 2]]
y = [x * (r + 1) + 100 * r for r in range(2)]
bad = 0
for r in range(2):
    even = np.concatenate([y[j][2 * r:2 * r + 2] for j in range(2)])
    uneven = np.concatenate([y[j][sum(splits[j][:r]):sum(splits[j][:r + 1])] for j in range(2)])
    for k, want in enumerate((even, uneven)):
        got = np.load(f"{d}/{prefix}{r}/out{k}.npy")
        if got.shape != want.shape or np.abs(got - want).max() > 1e-5:
            print(f"all_to_all: rank {r} out{k} {got.shape} differs from the simulated {want.shape}")
            bad = 1
sys.exit(bad)
