"""python/posbench_results.py — a posbench results folder as pandas DataFrames, read with h5py.

No build step and no posbench binary: copy this file or put python/ on sys.path.

    import sys; sys.path.insert(0, "python")
    from posbench_results import load_runs
    df = load_runs("results/mp3-main")        # one row per run: config keys, /final metrics

load_runs(DIR) gives the table `posbench export DIR` writes (bench/results/export.h), value for
value: one row per counted run file (*.h5, recursively below DIR, hidden names and symlinks
skipped, ordered by path), columns run_id, experiment, stage, status, seed, path, every /config
key (by name; a boolean key as True/False; "/config/<key>" for a key named like a fixed column),
and every numeric /final attribute under its column name, the report's column header
(objectives/metric.h: the metric_info entry's header, "step (ms)", else "<metric> (<unit>)",
"top1 (%)"), in the unit the report shows (top1 (%) = 100 x the stored fraction), from the file's
own /final metric_info table; the attribute's name with the stored value where that table gives
no unit ("/final/<column>" when a fixed or /config column has that name). load_runs(DIR,
varying=True) keeps only the /config keys whose value differs between the runs (`posbench export
DIR --varying`). load_series(DIR) gives `posbench export DIR --series`: run_id, series
("train/loss", "eval/top1", ...), step, epoch, value. Text is what posbench writes: a byte that is
not valid UTF-8 (a Latin-1 path) is the visible text "\\xNN".

Which runs count is posbench's one selection (bench/report/run_select.h: copies of a run file,
damaged done runs and runs of an earlier version of the experiment are left out): load_runs and
load_series ask the posbench binary (argument `posbench`, else $POSBENCH, else build/posbench
beside this folder) with `posbench export DIR --format json`, started with an argument vector
(no shell), and pass its warnings about the files left out on to stderr, word for word. Without a
binary every readable file is loaded and a warning says that none was left out. A file h5py
cannot read is named on stderr and left out, as posbench does.

Differences: posbench reads a /config key that a file predates as the key's default
(bench/results/run_read.c); here such a cell is missing (NaN). Booleans are known from the
file's root attribute bool_keys (posbench knows them from its key table): a file written before
that attribute gives them as 0/1 integers here.
Needs Debian's python3-h5py and python3-pandas (make deps installs them).
"""
import json
import math
import os
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd

FIXED = ["run_id", "experiment", "stage", "status", "seed", "path"]


def run_files(root):
    """The run files below root as posbench finds them: regular *.h5 files, recursively, names
    starting with '.' and symlinks skipped, sorted by path (bytewise)."""
    found = []

    def walk(d):
        try:
            names = os.listdir(d)
        except OSError:
            return
        for name in names:
            if name.startswith("."):
                continue
            p = d + "/" + name
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if os.path.stat.S_ISDIR(st.st_mode):
                walk(p)
            elif os.path.stat.S_ISREG(st.st_mode) and name.endswith(".h5"):
                found.append(p)

    if not os.path.isdir(root):
        raise FileNotFoundError(f"{root}: not a directory")
    walk(root)
    return sorted(found, key=os.fsencode)


def _text(b):
    """Bytes as posbench writes them: valid UTF-8 kept, any other byte as the visible text \\xNN."""
    return bytes(b).decode("utf-8", "backslashreplace")


def _shown_path(p):
    return _text(os.fsencode(p))


def find_posbench(posbench=None):
    """The posbench binary: the argument, else $POSBENCH, else build/posbench beside python/; None."""
    for c in (posbench, os.environ.get("POSBENCH"), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "posbench")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def selected_paths(root, posbench=None):
    """The paths (as posbench shows them) of the run files posbench counts below root, from
    `posbench export root --format json`; its warnings go to stderr. None without a binary."""
    exe = find_posbench(posbench)
    if exe is None:
        print(f"posbench_results: warning: no posbench binary (pass posbench=, set $POSBENCH or build it): every readable run "
              f"file below {root} is loaded; copies, damaged runs and earlier versions are not left out as posbench report "
              f"leaves them out", file=sys.stderr)
        return None
    r = subprocess.run([exe, "export", root, "--format", "json"], capture_output=True)  # an argument vector, no shell
    sys.stderr.write(_text(r.stderr))
    if r.returncode != 0:
        raise RuntimeError(f"{exe} export {root} failed (exit {r.returncode}): {_text(r.stderr).strip()}")
    return {row["path"] for row in json.loads(r.stdout.decode("utf-8"))}


def _value(v):
    """An attribute as posbench types it: ('i', int), ('d', float), ('s', str) or ('?', text)."""
    if isinstance(v, np.ndarray) and v.dtype.kind not in "SUO":
        if v.size != 1:
            return "?", f"({v.size} values)"
        v = v.reshape(-1)[0]
    if isinstance(v, (bytes, np.bytes_)):
        return "s", _text(v)
    if isinstance(v, str):
        return "s", v
    if isinstance(v, (bool, np.bool_)):
        return "i", int(v)
    if isinstance(v, (int, np.integer)):
        return "i", int(v)
    if isinstance(v, (float, np.floating)):
        return "d", float(v)
    if isinstance(v, np.ndarray) and v.size == 1:
        return _value(v.reshape(-1)[0])
    return "?", "(unsupported type)"


def _attrs(obj):
    return {k: _value(obj.attrs[k]) for k in obj.attrs.keys()}


def _int_prefix(text):
    """strtol's reading: the leading integer of text, 0 when there is none."""
    text = text.lstrip()
    n = 0
    while n < len(text) and (text[n].isdigit() or (n == 0 and text[n] in "+-")):
        n += 1
    try:
        return int(text[:n])
    except ValueError:
        return 0


def parse_metric_info(text):
    """The /final metric_info table (objectives/metric.h): [(name, unit, scale, header)], None when malformed."""
    table = []
    for line in text.split("\n"):
        if not line:
            break
        f = line.split("\t")
        if len(f) != 10 or not f[0]:
            return None
        try:
            scale = float(f[2])
        except ValueError:
            return None
        if _int_prefix(f[9]) > 2 or _int_prefix(f[6]) > 9:
            return None
        table.append((f[0], f[1], scale, f[5]))
    return table


def match_metric(table, metric):
    """metric_info_match: the exact entry (the name before any '@'), else a 'prefix*' entry."""
    base = metric.split("@", 1)[0]
    for entry in table:
        if entry[0] == base:
            return entry
    for entry in table:
        if entry[0].endswith("*") and base.startswith(entry[0][:-1]):
            return entry
    return None


def column_name(entry, metric):
    """metric_column_name (objectives/metric.h): the metric's one column name."""
    if entry is None:
        return metric
    base, at, size = metric.partition("@")
    if entry[3]:
        name = entry[3]
    elif entry[1]:
        name = f"{base} ({entry[1]})"
    else:
        name = base
    return f"{name} at {size} px" if at else name


def _metric_column(table, name, kind, v):
    m = match_metric(table, name) if table is not None else None
    if m is not None and m[1]:
        return column_name(m, name), float(v) * (m[2] if m[2] != 0 else 1.0)
    return column_name(m, name), v


def _is_bool(key, bools):
    """A boolean key, or a parent stage's copy of one ("pretrain.eval.knn")."""
    parts = key.split(".")
    return any(".".join(parts[i:]) in bools for i in range(len(parts)))


def _stem(path):
    base = path.rsplit("/", 1)[-1]
    return base[:-3] if len(base) > 3 and base.endswith(".h5") else base


def _read(path, series):
    """One run file: root, config, final attributes (and the /train, /eval columns)."""
    with h5py.File(path, "r") as f:
        root = _attrs(f)
        config = _attrs(f["config"]) if "config" in f else {}
        final = _attrs(f["final"]) if "final" in f else {}
        groups = {}
        for g in ("train", "eval") if series else ():
            if g in f:
                groups[g] = [(k, _column(f[g][k])) for k in _columns_order(f[g])]
    return root, config, final, groups


def _columns_order(group):
    """The group's `columns` attribute (comma-separated), else its links in name order, as
    posbench reads them."""
    if "columns" in group.attrs:
        kind, text = _value(group.attrs["columns"])
        if kind == "s":
            return [c for c in text.split(",") if c]
    return sorted(group.keys(), key=lambda s: s.encode())


def _column(ds):
    """A 1-D numeric series column as float64; integer INT64_MIN (the writer's NaN) becomes NaN."""
    if ds.ndim != 1 or ds.dtype.kind not in "iuf":
        raise ValueError(f"{ds.name}: not a 1-D numeric column")
    raw = ds[()]
    v = raw.astype(np.float64)
    if ds.dtype.kind in "iu":
        v[raw == np.iinfo(np.int64).min] = math.nan
    return v


def _scan(root, series, posbench=None):
    out = []
    keep = selected_paths(root, posbench)
    for p in run_files(root):
        if keep is not None and _shown_path(p) not in keep:
            continue
        try:
            out.append((p,) + _read(p, series))
        except Exception as e:  # noqa: BLE001 — any unreadable file is left out, named
            print(f"posbench_results: left out: {p}: {e}", file=sys.stderr)
    return out


def _fixed(path, root):
    def text(k, fallback):
        return str(root[k][1]) if k in root else fallback
    seed = root.get("seed")
    return text("run_id", _stem(_shown_path(path))), text("experiment", ""), text("stage", ""), text("status", "unknown"), seed


def _config_column(key):
    return "/config/" + key if key in FIXED else key


def load_runs(root, varying=False, posbench=None):
    """One row per counted run of the results folder root (columns: module docstring); varying=True:
    only the /config keys whose value differs between the runs."""
    rows, keys, metrics = [], set(), set()
    scanned = _scan(root, False, posbench)
    taken = set(FIXED) | {_config_column(k) for _, _, config, _, _ in scanned for k in config}
    for path, r, config, final, _ in scanned:
        mi = final.get("metric_info")
        table = parse_metric_info(mi[1]) if mi and mi[0] == "s" else None
        run_id, experiment, stage, status, seed = _fixed(path, r)
        if not (seed and seed[0] in "id"):
            seed = config.get("train.seed")
        seed = int(seed[1]) if seed and seed[0] in "id" else 0
        row = {"run_id": run_id, "experiment": experiment, "stage": stage, "status": status, "seed": seed, "path": _shown_path(path)}
        bk = r.get("bool_keys")
        bools = set(bk[1].split(",")) if bk and bk[0] == "s" and bk[1] else set()
        for k, (kind, v) in config.items():
            row[_config_column(k)] = None if kind == "d" and not math.isfinite(v) else bool(v) if kind == "i" and _is_bool(k, bools) else v
            keys.add(_config_column(k))
        for k, (kind, v) in final.items():
            if kind not in "id" or k == "metric_info":
                continue
            name, value = _metric_column(table, k, kind, v)
            name = "/final/" + name if name in taken else name
            row[name] = None if isinstance(value, float) and not math.isfinite(value) else value
            metrics.add(name)
        rows.append(row)
    if varying and len(rows) > 1:
        keys = {k for k in keys if len({repr(row.get(k, "<absent>")) for row in rows}) > 1}
    columns = FIXED + sorted(keys, key=lambda s: s.encode()) + sorted(metrics, key=lambda s: s.encode())
    return pd.DataFrame(rows, columns=columns)


def load_series(root, posbench=None):
    """The /train and /eval series of every counted run in long form (`posbench export DIR --series`)."""
    rows = []
    for path, r, config, final, groups in _scan(root, True, posbench):
        run_id = _fixed(path, r)[0]
        for g in ("train", "eval"):
            cols = dict(groups.get(g, []))
            step, epoch = cols.get("step"), cols.get("epoch")
            for name, v in groups.get(g, []):
                if name in ("step", "epoch"):
                    continue
                for i, x in enumerate(v):
                    rows.append((run_id, f"{g}/{name}",
                                 step[i] if step is not None and i < len(step) else math.nan,
                                 epoch[i] if epoch is not None and i < len(epoch) else math.nan,
                                 x if math.isfinite(x) else math.nan))
    return pd.DataFrame(rows, columns=["run_id", "series", "step", "epoch", "value"])
