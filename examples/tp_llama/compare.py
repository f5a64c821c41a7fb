"""compare.py DIR N S: every rank's logits (DIR/out/np<N>/s<S>/r<r>/out0.npy)
against PyTorch's unsharded model (DIR/ref<S>.npy), at float32 matmul
tolerances (the ranks sum their partial products in another order)."""
import sys

import numpy as np

d, n, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ref = np.load(f"{d}/ref{s}.npy")
worst = 0.0
for r in range(n):
    got = np.load(f"{d}/out/np{n}/s{s}/r{r}/out0.npy")
    if got.shape != ref.shape:
        sys.exit(f"np {n} S {s} rank {r}: shape {got.shape}, PyTorch's {ref.shape}")
    err = float(np.max(np.abs(got - ref) / (1e-4 + 1e-4 * np.abs(ref))))
    worst = max(worst, err)
    if not err <= 1.0:
        sys.exit(f"np {n} S {s} rank {r}: logits differ from PyTorch's beyond atol 1e-4 + rtol 1e-4 "
                 f"(max abs error {np.max(np.abs(got - ref)):.3g})")
print(f"np {n} S {s}: every rank's logits [1, {s}, {ref.shape[-1]}] match PyTorch "
      f"(worst {worst:.2f} of the tolerance)")
