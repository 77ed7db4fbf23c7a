"""tests/export_check.py — checks for tests/e2e_export.sh (one PASS/FAIL/SKIP line each).

    export_check.py hostile FILE.h5         write a foreign run file with hostile strings and
                                            non-finite /final values (h5py)
    export_check.py formats DIR OUT         OUT/{runs,series}.{csv,json} written by posbench export:
                                            RFC 4180 CSV, valid JSON, no non-finite number as text,
                                            the hostile file's strings back exactly
    export_check.py selection DIR           write the hostile files of the run selection below DIR
    export_check.py selection_check DIR OUT  OUT/sel.csv, export.err, report.err, load.err: export
                                            counts report's runs, names the same files left out,
                                            shadows no fixed column, writes valid UTF-8
    export_check.py load_warnings DIR       load_runs(DIR), for its stderr
    export_check.py loader DIR OUT          python/posbench_results.py's load_runs / load_series equal
                                            posbench export's CSV and JSON, value for value, and
                                            the values equal h5py's (× the metric_info scale)
Numbers are compared exactly (posbench writes the shortest decimal that reads back as the same
double); missing cells (empty CSV field, JSON null, NaN, None, "") are equal to each other.
"""
import csv
import io
import json
import math
import os
import sys

HOSTILE = {
    "run_id": "hostile0001",
    "experiment": 'a,b "quoted"\nnext line',
    "stage": "stage\r\nwith CRLF",
    "status": "failed",  # a done run with a non-finite /final is damaged and left out (run_select.h)
    "seed": 7,
}
HOSTILE_CONFIG = {"data.name": "fashion-mnist", "note.text": 'x,"y",\u00e9\u4e2d', "train.lr": 0.001, "train.seed": 7}
HOSTILE_FINAL = {"top1": float("nan"), "loss": float("inf"), "steps": 12, "neg": float("-inf"), "tiny": 5e-324}


def report(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    return ok


def hostile(path):
    import h5py
    import numpy as np
    with h5py.File(path, "w") as f:
        for k, v in HOSTILE.items():
            f.attrs[k] = v
        c = f.create_group("config")
        for k, v in HOSTILE_CONFIG.items():
            c.attrs[k] = v
        g = f.create_group("final")
        for k, v in HOSTILE_FINAL.items():
            g.attrs[k] = np.int64(v) if isinstance(v, int) else np.float64(v)
        # top1 in %, loss without a unit (as posbench's own table says)
        g.attrs["metric_info"] = "top1\t%\t100\t1\t1\t\t2\t1\t0\t0\nloss\t\t1\t-1\t0\t\t4\t10\t0\t0"
        t = f.create_group("train")
        t.attrs["columns"] = "step,epoch,loss"
        t["step"] = np.array([1, 2, 3], dtype=np.int64)
        t["epoch"] = np.array([0, 0, np.iinfo(np.int64).min], dtype=np.int64)
        t["loss"] = np.array([2.5, float("nan"), 1.25])


def selection(root):
    """Hostile files for the one run selection, below root (a folder holding one real run file,
    train/<id>.h5, copied there by the caller): a done run whose /final top1 is a string (damaged),
    a foreign done run whose /config has run_id and status keys and whose /final has a `status`
    and a `train.lr` attribute (they must not shadow the fixed columns or the /config column), and
    a run in a folder whose name is Latin-1 (b'caf\\xe9')."""
    import h5py
    import numpy as np

    def run(path, run_id, config, final):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with h5py.File(path, "w") as f:
            for k, v in {"run_id": run_id, "experiment": "", "stage": "foreign", "status": "done", "seed": 3}.items():
                f.attrs[k] = v
            c = f.create_group("config")
            for k, v in config.items():
                c.attrs[k] = v
            g = f.create_group("final")
            for k, v in final.items():
                g.attrs[k] = v
    run(os.path.join(root, "foreign", "damaged.h5"), "damaged0001", {"train.seed": np.int64(1)}, {"top1": "0.9"})
    run(os.path.join(root, "foreign", "shadow.h5"), "shadow0001", {"train.seed": np.int64(2), "run_id": "not-an-id", "status": "fake"},
        {"top1": np.float64(0.5), "status": np.float64(1.0), "train.lr": np.float64(2.0)})
    run(os.fsdecode(os.fsencode(root) + b"/caf\xe9/latin1.h5"), "latin0001", {"train.seed": np.int64(3)}, {"top1": np.float64(0.25)})


def selection_check(root, out):
    """export's rows are the runs report counts, and both name the same files left out; the CSV is
    valid UTF-8 with the Latin-1 path as a visible \\xNN; fixed columns keep every run's value;
    load_runs gives the same rows."""
    ok = True
    raw = open(os.path.join(out, "sel.csv"), "rb").read()
    try:
        text = raw.decode("utf-8")
        ok &= report("export selection: the CSV is valid UTF-8 with a Latin-1 path in it", True, f"{len(raw)} bytes")
    except UnicodeDecodeError as e:
        ok &= report("export selection: the CSV is valid UTF-8 with a Latin-1 path in it", False, str(e))
        return ok
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    ids = sorted(r["run_id"] for r in rows)
    want = sorted(["latin0001", "shadow0001", open(os.path.join(out, "real_id")).read().strip()])
    ok &= report("export selection: the copy and the damaged run are left out, the others kept", ids == want, f"{ids} want {want}")
    latin = [r["path"] for r in rows if r["run_id"] == "latin0001"]
    ok &= report("export selection: the Latin-1 folder name is the visible text caf\\xe9", bool(latin) and "/caf\\xe9/" in latin[0],
                 f"{latin}")
    shadow = [r for r in rows if r["run_id"] == "shadow0001"]
    fixed_ok = all(r["run_id"] and r["status"] == "done" for r in rows) and bool(shadow) and \
        shadow[0]["/config/run_id"] == "not-an-id" and shadow[0]["/config/status"] == "fake" and \
        shadow[0]["/final/status"] == "1" and shadow[0]["/final/train.lr"] == "2"
    ok &= report("export selection: a foreign /config run_id or status and a /final status or train.lr shadow nothing "
                 "(/config/<key>, /final/<name>)", fixed_ok,
                 f"{ {k: shadow[0].get(k) for k in ('run_id', 'status', '/config/run_id', '/config/status', '/final/status', '/final/train.lr')} if shadow else None}")
    warn = [sorted(l for l in open(os.path.join(out, f), encoding="utf-8", errors="backslashreplace").read().splitlines()
                   if l.startswith("posbench: warning: left out")) for f in ("export.err", "report.err", "load.err")]
    ok &= report("export selection: export, report and load_runs name the same files left out, in the same words",
                 len(warn[0]) == 2 and warn[0] == warn[1] == warn[2], f"export {warn[0]}; report {warn[1]}; load_runs {warn[2]}")
    sys.path.insert(0, "python")
    import pandas as pd  # noqa: F401
    import posbench_results as pr
    df = pr.load_runs(root)
    c = pd.read_csv(io.StringIO(text), keep_default_na=False, dtype=str)
    same_rows = list(df.columns) == list(c.columns) and sorted(df["run_id"]) == ids and \
        sorted(df["path"]) == sorted(c["path"])
    ok &= report("export selection: load_runs has export's columns, runs and paths", same_rows,
                 f"{sorted(df['run_id'])}; columns equal {list(df.columns) == list(c.columns)}")
    return ok


def missing(v):
    return v is None or v == "" or (isinstance(v, float) and math.isnan(v))


def _bool_text(v):
    """A boolean as posbench writes it (true / false); anything else as is."""
    return ("true" if v else "false") if type(v).__name__ in ("bool", "bool_") else v


def same(a, b):
    a, b = _bool_text(a), _bool_text(b)
    if missing(a) or missing(b):
        return missing(a) and missing(b)
    if isinstance(a, str) or isinstance(b, str):
        try:
            return float(a) == float(b)
        except (TypeError, ValueError):
            return str(a) == str(b)
    return float(a) == float(b)


def is_number_text(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def formats(root, out):
    ok = True
    for table in ("runs", "series"):
        raw = open(os.path.join(out, f"{table}.csv"), "rb").read()
        text = raw.decode("utf-8")
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
        widths = {len(r) for r in rows}
        again = io.StringIO(newline="")
        csv.writer(again, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL).writerows(rows)
        rfc = again.getvalue().encode("utf-8") == raw  # quoted exactly where needed, CRLF line ends
        bad = [f for r in rows[1:] for f in r if f.lower().lstrip("+-") in ("nan", "inf", "infinity")]
        ok &= report(f"export {table} csv: RFC 4180 (one width, CRLF, minimal quoting: byte-equal to Python's writer), "
                     "no non-finite number as text", len(widths) == 1 and rfc and not bad and len(rows) > 1,
                     f"{len(rows)} rows, widths {sorted(widths)}, rewritten equal {rfc}, non-finite texts {bad[:3]}")
        try:
            data = json.loads(open(os.path.join(out, f"{table}.json"), encoding="utf-8").read(),
                              parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"non-JSON constant {c}")))
            good = isinstance(data, list) and len(data) == len(rows) - 1 and all(list(d.keys()) == rows[0] for d in data)
            ok &= report(f"export {table} json: valid (strict), one object per CSV row with the CSV's keys", good,
                         f"{len(data)} objects")
        except ValueError as e:
            ok &= report(f"export {table} json: valid", False, str(e))
    # the hostile file's strings and non-finite values
    rows = list(csv.DictReader(io.StringIO(open(os.path.join(out, "runs.csv"), encoding="utf-8", newline="").read(), newline="")))
    data = json.load(open(os.path.join(out, "runs.json"), encoding="utf-8"))
    h = [r for r in rows if r["run_id"] == HOSTILE["run_id"]]
    j = [r for r in data if r["run_id"] == HOSTILE["run_id"]]
    if not h:
        print("SKIP export: hostile strings and non-finite values: no hostile file (h5py missing)")
        return ok
    want = {"experiment": HOSTILE["experiment"], "stage": HOSTILE["stage"], "note.text": HOSTILE_CONFIG["note.text"]}
    got_csv = {k: h[0][k] for k in want} if h else None
    got_json = {k: j[0][k] for k in want} if j else None
    ok &= report("export: commas, quotes, CR/LF and non-ASCII in strings come back exactly (CSV and JSON)",
                 got_csv == want and got_json == want, f"csv {got_csv!r}, json {got_json!r}")
    nonfinite = h and j and h[0]["top1 (%)"] == "" and h[0]["loss"] == "" and h[0]["neg"] == "" and \
        j[0]["top1 (%)"] is None and j[0]["loss"] is None and j[0]["neg"] is None and j[0]["steps"] == 12 and \
        float(h[0]["tiny"]) == 5e-324 and j[0]["seed"] == 7
    ok &= report("export: /final nan, inf, -inf are an empty field / null; integers and 5e-324 kept exactly", bool(nonfinite),
                 f"csv {h[0] if h else None}" if not nonfinite else "top1 (%), loss, neg empty/null")
    return ok


def loader(root, out):
    try:
        import h5py  # noqa: F401
        import pandas as pd
    except ImportError as e:
        print(f"SKIP export: python/posbench_results.py against posbench export: {e} (make deps installs python3-h5py, python3-pandas)")
        return True
    sys.path.insert(0, "python")
    import posbench_results as pr
    import h5py
    ok = True
    for table, load in (("runs", pr.load_runs), ("series", pr.load_series)):
        df = load(root)
        j = json.load(open(os.path.join(out, f"{table}.json"), encoding="utf-8"))
        c = pd.read_csv(os.path.join(out, f"{table}.csv"), keep_default_na=False, dtype=str)
        cols_ok = list(df.columns) == list(c.columns) and (not j or list(j[0].keys()) == list(df.columns))
        diffs, defaulted = [], 0
        if cols_ok and len(df) == len(j) == len(c):
            for i in range(len(df)):
                own = set()  # posbench reads a /config key the file lacks as its default; load_runs leaves it missing
                if table == "runs":
                    with h5py.File(df.at[i, "path"], "r") as f:
                        own = set(f["config"].attrs.keys()) if "config" in f else set()
                for k in df.columns:
                    a, b, t = df.iat[i, df.columns.get_loc(k)], j[i][k], c.iat[i, c.columns.get_loc(k)]
                    if table == "runs" and "." in k and k not in own and missing(a) and not missing(b) and same(b, t):
                        defaulted += 1
                        continue
                    if not (same(a, b) and same(a, t)):
                        diffs.append(f"row {i} {k}: load {a!r}, json {b!r}, csv {t!r}")
        good = cols_ok and len(df) == len(j) == len(c) and not diffs
        ok &= report(f"export: {load.__name__}(DIR) equals posbench export{' --series' if table == 'series' else ''} (CSV and JSON)",
                     good, f"{len(df)} rows x {len(df.columns)} columns; columns equal {cols_ok}; {len(diffs)} differences {diffs[:3]}; "
                     f"{defaulted} keys a file lacks (export: their default, load_runs: missing)")
    # against h5py directly: top1 (%) = 100 x /final top1, train.lr = /config train.lr
    df = pr.load_runs(root)
    checked, wrong = 0, []
    for _, row in df.iterrows():
        if row["run_id"] == HOSTILE["run_id"]:
            continue
        with h5py.File(row["path"], "r") as f:
            for k, col, scale in (("top1", "top1 (%)", 100.0), ("loss", "loss", 1.0)):
                checked += 1
                if float(f["final"].attrs[k]) * scale != row[col]:
                    wrong.append(f"{row['run_id']} {col}")
            checked += 1
            if float(f["config"].attrs["train.lr"]) != row["train.lr"]:
                wrong.append(f"{row['run_id']} train.lr")
    ok &= report("export: values equal h5py's (top1 x 100, loss, train.lr)", checked >= 6 and not wrong,
                 f"{checked} values, wrong {wrong}")
    return ok


def dtypes(root, out):
    """pandas' own readers (read_csv, read_json, no dtype hints) on export's files give integers
    as int64, booleans as bool, fractions as float64 (docs/usage.md lists the dtypes)."""
    try:
        import pandas as pd
    except ImportError as e:
        print(f"SKIP export: pandas dtypes: {e} (make deps-test installs python3-pandas)")
        return True
    ok = True
    want_runs = {"seed": "int64", "train.epochs": "int64", "model.dim": "int64", "steps": "int64", "data.hflip": "bool",
                 "model.cls": "bool", "eval.knn": "bool", "train.lr": "float64", "top1 (%)": "float64", "pe.kind": "object"}
    want_series = {"step": "int64", "epoch": "int64", "value": "float64", "series": "object"}
    for table, want in (("runs", want_runs), ("series", want_series)):
        for fmt in ("csv", "json"):
            path = os.path.join(out, f"{table}.{fmt}")
            df = pd.read_csv(path) if fmt == "csv" else pd.read_json(path)
            got = {k: str(df[k].dtype) if k in df.columns else "absent" for k in want}
            ok &= report(f"export: pandas reads {table}.{fmt} with the documented dtypes", got == want,
                         f"{len(df)} rows; got {got}" if got != want else f"{len(df)} rows; {got}")
    return ok


def varying(root, out):
    """export --varying (CSV and JSON) and load_runs(varying=True): the fixed columns, the /config
    keys that differ between the runs (here pe.kind only: the runs differ in nothing else), the
    metrics; the full export has them all."""
    full = list(csv.reader(open(os.path.join(out, "runs.csv"), encoding="utf-8", newline="")))[0]
    var = list(csv.reader(open(os.path.join(out, "varying.csv"), encoding="utf-8", newline="")))[0]
    js = json.load(open(os.path.join(out, "varying.json"), encoding="utf-8"))
    keys = [c for c in var[6:] if "." in c]  # /config keys are dotted, metric columns are not
    metrics_full = [c for c in full[6:] if "." not in c]
    ok = report("export --varying: only the /config keys that differ (pe.kind) beside the fixed columns and metrics",
                var[:6] == ["run_id", "experiment", "stage", "status", "seed", "path"] and keys == ["pe.kind"] and
                all(m in var for m in metrics_full) and len(full) > len(var) + 50 and all(list(j.keys()) == var for j in js),
                f"{len(full)} columns in full, {len(var)} with --varying; keys {keys}")
    try:
        import h5py  # noqa: F401
        import pandas  # noqa: F401
    except ImportError as e:
        print(f"SKIP export: load_runs(varying=True): {e} (make deps installs python3-h5py, python3-pandas)")
        return ok
    sys.path.insert(0, "python")
    import posbench_results as pr
    df = pr.load_runs(root, varying=True)
    ok &= report("export: load_runs(DIR, varying=True) has the columns of export --varying", list(df.columns) == var,
                 f"{list(df.columns)[:10]} vs {var[:10]}")
    return ok


def names(root, out):
    """One name per metric: every metric column of REPORT.md's tables is the mean column of
    `report --format csv` (with "<name> std" after it), a key of `report --format json`'s rows,
    and a column of `posbench export` (whose metric columns are all ones the report uses or
    /final attributes the report does not tabulate)."""
    export_cols = list(csv.reader(open(os.path.join(out, "runs.csv"), encoding="utf-8", newline="")))[0]
    tables = json.load(open(os.path.join(root, "tables.json"), encoding="utf-8"))
    md = open(os.path.join(root, "REPORT.md"), encoding="utf-8").read()
    checked, bad = 0, []
    for t in tables:
        if not t["rows"]:
            continue
        stats = [c for c in t["columns"] if isinstance(t["rows"][0][c], dict)]
        head = list(csv.reader(open(os.path.join(root, "tables", t["name"] + ".csv"), encoding="utf-8", newline="")))[0]
        md_head = "| " + " | ".join(c.replace("|", "\\|") for c in t["columns"]) + " |"
        if md_head not in md:
            bad.append(f"{t['name']}: REPORT.md has no header line {md_head[:80]}")
        for c in stats:
            checked += 1
            if c not in export_cols:
                bad.append(f"{c}: not an export column")
            if c not in head or head.index(c) + 1 >= len(head) or head[head.index(c) + 1] != c + " std":
                bad.append(f"{c}: not a CSV table column followed by '{c} std'")
    return report("export: a metric has one name in REPORT.md's tables, report --format csv|json and export",
                  checked >= 5 and not bad, f"{checked} metric columns; {bad[:4]}")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "hostile":
        hostile(sys.argv[2])
        sys.exit(0)
    if what == "selection":
        selection(sys.argv[2])
        sys.exit(0)
    if what == "load_warnings":  # load_runs' stderr, for selection_check
        sys.path.insert(0, "python")
        import posbench_results as pr
        pr.load_runs(sys.argv[2])
        sys.exit(0)
    sys.exit(0 if {"formats": formats, "loader": loader, "dtypes": dtypes, "varying": varying, "names": names,
                   "selection_check": selection_check}[what](sys.argv[2], sys.argv[3]) else 1)
