#!/usr/bin/python3
"""tests/h5_same.py A B — compares every .h5 file under directory A with the file of the same
relative path under B, through h5dump (hdf5-tools): the files must hold the same groups,
datasets and attributes with the same values, except what differs between two runs of the
same computation by design (wall-clock times, speeds, peak memory, the commit, the device,
when a run was resumed), and /final metric_info: the run's metric table (units, direction;
bench/results/run_metrics.h), which files written before issue 28 lack.
--ignore NAME (repeatable): an attribute or dataset left out of both files besides those above
(e.g. backend_peak_bytes, when one side is known to allocate more and the caller checks by how much).
--new-key KEY=VALUE (repeatable): a config key added since A was written, at VALUE, its default:
its /config attributes (also a parent or budget stage's, <stage>.KEY) and its line in
config_yaml are left out of both files (so a run of an
older build compares with the same run of a newer one, as its run id does).
Prints "N/M identical" and one line per file that differs or is missing; exit 0 only when
every file is identical and there is at least one."""
import os
import re
import subprocess
import sys

VOLATILE = re.compile(r'(started|finished|git_commit|cpu_run_s|cpu_wait_s|train_time_s|step_time_ms|images_per_s|peak_mem_bytes|seconds|device|resumed|metric_info)')


NEW_KEYS = []  # (dotted key, value) of --new-key
IGNORED = []   # names of --ignore


def dump(path):
    out = subprocess.run(['h5dump', path], capture_output=True, text=True, check=True).stdout
    lines, skipping, depth = [], False, 0
    for line in out.splitlines()[1:]:  # the first line names the file
        if any(re.fullmatch(r'\s*' + re.escape(k.split('.')[-1]) + ': ' + re.escape(v), line) for k, v in NEW_KEYS):
            continue  # the new key's config_yaml line
        if skipping:
            if re.match(r'\s*}', line) and len(line) - len(line.lstrip()) <= depth:
                skipping = False
            continue
        m = re.match(r'(\s*)(ATTRIBUTE|DATASET) "([^"]+)"', line)
        if m and (VOLATILE.search(m.group(3)) or m.group(3) in IGNORED or any(m.group(3) == k or m.group(3).endswith('.' + k) for k, _ in NEW_KEYS)):
            skipping, depth = True, len(m.group(1))
            continue
        lines.append(line)
    return lines


def main():
    args = sys.argv[1:]
    while args and args[0] in ('--new-key', '--ignore'):
        if args[0] == '--ignore':
            IGNORED.append(args[1])
        else:
            key, _, value = args[1].partition('=')
            NEW_KEYS.append((key, value))
        args = args[2:]
    a, b = args[0], args[1]
    total = same = 0
    for root, _, files in os.walk(a):
        for f in sorted(files):
            if not f.endswith('.h5'):
                continue
            pa = os.path.join(root, f)
            rel = os.path.relpath(pa, a)
            pb = os.path.join(b, rel)
            total += 1
            if not os.path.exists(pb):
                print('missing:', rel)
            elif dump(pa) != dump(pb):
                print('differs:', rel)
            else:
                same += 1
    print(f'{same}/{total} identical')
    sys.exit(0 if total > 0 and same == total else 1)


main()
