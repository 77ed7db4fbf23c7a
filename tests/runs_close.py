#!/usr/bin/python3
"""tests/runs_close.py A.h5 B.h5 RTOL [DATASET ...] — whether two runs of the same configuration
on different backends (or precisions) agree to a tolerance: every value of each dataset
(default /train/loss and /eval/loss) read through h5py where it is installed, else h5dump at 9 significant
digits, the same
length on both sides, all finite, and |a - b| <= RTOL * max(|a|, |b|, 1e-12) everywhere.
Prints one line per dataset with its largest relative difference; exit 0 when all agree, 1
when any differs, 2 when a file or dataset cannot be read. (The bitwise check of one backend
against another is tests/h5_same.py; this one is for cpu vs cuda, fp32 vs bf16.)"""
import math
import re
import subprocess
import sys


def values(path, dataset):
    try:  # h5py where it is installed (the GPU machine has it but no h5dump), else h5dump
        import h5py
    except ImportError:
        h5py = None
    if h5py is not None:
        try:
            with h5py.File(path, 'r') as f:
                return [float(x) for x in f[dataset][()].ravel()]
        except (OSError, KeyError) as e:
            print(f"{path}: cannot read {dataset}: {e}")
            sys.exit(2)
    r = subprocess.run(['h5dump', '-m', '%.9g', '-d', dataset, path], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{path}: cannot read {dataset}: {r.stderr.strip() or r.stdout.strip()}")
        sys.exit(2)
    body = r.stdout.split('DATA {', 1)[1]
    body = re.sub(r'\(\d+(,\d+)*\):', ' ', body)  # drop h5dump's (i): index prefixes
    return [float(t) for t in re.findall(r'-?(?:nan|inf|[0-9.]+(?:e[-+]?\d+)?)', body, re.I)]


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    a_path, b_path, rtol = argv[1], argv[2], float(argv[3])
    datasets = argv[4:] or ['/train/loss', '/eval/loss']
    ok = True
    for ds in datasets:
        a, b = values(a_path, ds), values(b_path, ds)
        if len(a) != len(b) or not a:
            print(f"{ds}: {len(a)} values vs {len(b)}: differ")
            ok = False
            continue
        if not all(math.isfinite(x) for x in a + b):
            print(f"{ds}: non-finite values: differ")
            ok = False
            continue
        worst = max(abs(x - y) / max(abs(x), abs(y), 1e-12) for x, y in zip(a, b))
        agree = worst <= rtol
        ok = ok and agree
        print(f"{ds}: {len(a)} values, largest relative difference {worst:.3g} ({'within' if agree else 'above'} {rtol:g})")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
