#!/usr/bin/python3
"""tests/h5_series_compare.py [--bitwise | --rtol R] [--weights] A.h5 B.h5 — compares two runs'
training and evaluation series (/train/loss, /train/grad_norm, /eval/<metrics>, /eval/loss),
read through h5dump at 17 significant digits (every double exactly): bitwise, or within the
relative tolerance R. --weights also compares the runs' final weights files (<run-id>.weights
beside each .h5) byte for byte. Prints one line (what was compared, or the first difference);
exit 0 when equal."""
import os
import re
import subprocess
import sys

SERIES = ['/train/loss', '/train/grad_norm', '/eval/loss']


def series(path, name):
    out = subprocess.run(['h5dump', '-d', name, '-y', '-w', '0', '-m', '%.17g', path],
                         capture_output=True, text=True).stdout
    if 'DATA {' not in out:
        return None
    body = out[out.index('DATA {') + 6:]
    body = body[:body.index('}')]
    return [float(x) for x in re.split(r'[,\s]+', body.strip()) if x]


def eval_metrics(path):
    out = subprocess.run(['h5dump', '-n', path], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r'dataset\s+(/eval/\S+)', out)) - {'/eval/epoch', '/eval/step'})


def main():
    args, bitwise, rtol, weights = sys.argv[1:], False, 0.0, False
    while args and args[0].startswith('--'):
        if args[0] == '--bitwise':
            bitwise, args = True, args[1:]
        elif args[0] == '--rtol':
            rtol, args = float(args[1]), args[2:]
        elif args[0] == '--weights':
            weights, args = True, args[1:]
        else:
            sys.exit('unknown flag ' + args[0])
    a, b = args
    names = SERIES + [n for n in eval_metrics(a) if n not in SERIES]
    worst, count = 0.0, 0
    for name in names:
        x, y = series(a, name), series(b, name)
        if x is None or y is None or len(x) != len(y) or not x:
            print(f'{name}: {len(x or [])} vs {len(y or [])} values')
            return 1
        for i, (p, q) in enumerate(zip(x, y)):
            count += 1
            if bitwise and p != q:
                print(f'{name}[{i}]: {p!r} vs {q!r}')
                return 1
            rel = abs(p - q) / max(abs(p), 1e-12)
            worst = max(worst, rel)
            if not bitwise and rel > rtol:
                print(f'{name}[{i}]: {p!r} vs {q!r} (relative {rel:.3g} > {rtol})')
                return 1
    msg = f'{count} values of {len(names)} series ' + ('bitwise equal' if bitwise else f'within {rtol} (worst {worst:.3g})')
    if weights:
        wa, wb = (os.path.splitext(p)[0] + '.weights' for p in (a, b))
        with open(wa, 'rb') as fa, open(wb, 'rb') as fb:
            if fa.read() != fb.read():
                print(msg + f'; but the weights {wa} and {wb} differ')
                return 1
        msg += '; weights byte-identical'
    print(msg)
    return 0


sys.exit(main())
