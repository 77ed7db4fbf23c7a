#!/usr/bin/env python3
"""tests/metrics_same.py DIR_A DIR_B — exit 0 when the <run-id>.metrics.jsonl lines of two
folders are the same but for times and speeds (keys time, train_time_s, images_per_s), and
both have lines; exit 1 otherwise. Used where two ways of running one configuration must
record the same metrics (train.graph=on against off: e2e_graph_runs, e2e_graph_views)."""
import glob
import json
import sys


def lines(folder):
    out = []
    for path in sorted(glob.glob(folder + '/*.metrics.jsonl')):
        with open(path) as f:
            for line in f:
                o = json.loads(line)
                for k in ('time', 'train_time_s', 'images_per_s'):
                    o.pop(k, None)
                out.append(o)
    return out


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: metrics_same.py DIR_A DIR_B')
    a, b = lines(sys.argv[1]), lines(sys.argv[2])
    sys.exit(0 if a and a == b else 1)
