#!/usr/bin/python3
"""tests/knn_reference.py NTRAIN NTEST K TEMPERATURE — the kNN probe on raw Fashion-MNIST pixels,
written independently of objectives/knn_probe.c from its documented rule (DINO's weighted kNN):
the first NTRAIN training and NTEST test images of Debian's Fashion-MNIST, normalised as
(p/255 - 0.2860)/0.3530, L2-normalised; each test image takes its K most cosine-similar training
images (ties to the lower index), neighbour j votes exp((s_j - s_1)/TEMPERATURE) for its label,
the highest score wins (ties to the lower class). Prints top-1 and top-5 accuracy."""
import gzip
import math
import sys

import torch


def idx(name, n):
    with gzip.open('/usr/share/datasets/fashion-mnist/' + name) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], 'big') for i in range(dims)]
    item = shape[1] * shape[2] if dims > 1 else 1
    raw = data[4 + 4 * dims:4 + 4 * dims + n * item]
    return torch.tensor(list(raw), dtype=torch.float64).reshape(n, item)


ntrain, ntest, k, temperature = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
xtr = (idx('train-images-idx3-ubyte.gz', ntrain) / 255.0 - 0.2860) / 0.3530
ytr = idx('train-labels-idx1-ubyte.gz', ntrain)[:, 0].long().tolist()
xte = (idx('t10k-images-idx3-ubyte.gz', ntest) / 255.0 - 0.2860) / 0.3530
yte = idx('t10k-labels-idx1-ubyte.gz', ntest)[:, 0].long().tolist()
xtr = xtr / xtr.norm(dim=1, keepdim=True).clamp_min(1e-300)
xte = xte / xte.norm(dim=1, keepdim=True).clamp_min(1e-300)
sim = (xte @ xtr.T).tolist()
top1 = top5 = 0
for i in range(ntest):
    order = sorted(range(ntrain), key=lambda j: (-sim[i][j], j))[:k]
    scores = [0.0] * 10
    for j in order:
        scores[ytr[j]] += math.exp((sim[i][j] - sim[i][order[0]]) / temperature)
    ranked = sorted(range(10), key=lambda c: (-scores[c], c))
    top1 += ranked[0] == yte[i]
    top5 += yte[i] in ranked[:5]
print(f"{top1 / ntest:.6f} {top5 / ntest:.6f}")
