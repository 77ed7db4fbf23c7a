#!/bin/sh
# tests/e2e_export.sh — `posbench export` and python/posbench_results.py (issue 32 §1) on a small
# results folder: two tiny `posbench train` runs on Fashion-MNIST (128 images, 2 epochs, d 16)
# and one foreign run file written with h5py holding hostile strings (commas, quotes, CR/LF,
# non-ASCII) and non-finite /final values. Checked (tests/export_check.py):
#   - CSV (runs and --series) is RFC 4180: one width, byte-equal to Python's csv writer with
#     CRLF and minimal quoting; JSON is valid for a strict parser, one object per CSV row;
#     no non-finite number is written as text (empty field / null); the hostile strings come
#     back exactly; --out writes the same bytes as standard output;
#   - load_runs(DIR) and load_series(DIR) equal the CSV and JSON exports value for value, and
#     the values equal h5py's (top1 x 100 as "top1 (%)", loss, train.lr); SKIP without
#     h5py/pandas (Debian's python3-h5py, python3-pandas: make deps);
#   - pandas' read_csv / read_json give the documented dtypes (int64 seed, steps, model.dim; bool
#     data.hflip, model.cls; float64 train.lr, top1 (%); series step, epoch int64);
#   - --varying keeps the /config keys that differ (pe.kind) and load_runs(varying=True) the same;
#   - one name per metric: REPORT.md's table headers = report --format csv/json = export columns;
#   - one run selection: a copy, a damaged done run, a foreign /config with run_id and status keys
#     and a Latin-1 folder name: export keeps the runs report counts, export, report and
#     load_runs name the same files left out, no fixed column is shadowed, the CSV is UTF-8;
#   - bad input exits 2: a missing directory, a file, a folder without run files, --format
#     parquet (not packaged in Debian), --out followed by a flag, an unknown flag, --varying
#     with --series.
# About 5 s.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
PY=/usr/bin/python3
T=$(mktemp -d /tmp/posbench-export.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
for pe in abs sin2d; do
    $PB train data.limit=128 data.test_limit=64 train.epochs=2 train.batch=32 model.dim=16 model.depth=1 model.heads=2 \
        model.patch=7 pe.kind=$pe --out "$T/r/train" --threads 1 >> "$T/train.log" 2>&1 || { echo "FAIL export: tiny training: $(tail -n 3 "$T/train.log")"; exit 0; }
done
if "$PY" -c 'import h5py' 2>/dev/null; then
    mkdir -p "$T/r/foreign" && "$PY" tests/export_check.py hostile "$T/r/foreign/hostile.h5"
else
    echo "SKIP export: hostile run file: $PY has no h5py (make deps installs python3-h5py)"
fi
mkdir -p "$T/out"
rc=0
for f in csv json; do
    $PB export "$T/r" --format $f --out "$T/out/runs.$f" 2> "$T/err" || rc=1
    $PB export "$T/r" --format $f --series --out "$T/out/series.$f" 2>> "$T/err" || rc=1
done
$PB export "$T/r" > "$T/stdout.csv" 2>> "$T/err" || rc=1
[ $rc -eq 0 ] && cmp -s "$T/stdout.csv" "$T/out/runs.csv" && grep -q 'export: 3 runs to' "$T/err" &&
    "$PY" -m json.tool "$T/out/runs.json" > /dev/null && "$PY" -m json.tool "$T/out/series.json" > /dev/null
check "export: csv and json, runs and --series, written (--out = stdout; json.tool reads the JSON)" $? "exit $rc: $(head -c 300 "$T/err" | tr '\n' ' ')"
"$PY" tests/export_check.py formats "$T/r" "$T/out"
"$PY" tests/export_check.py loader "$T/r" "$T/out"
$PB export "$T/r/train" --varying --out "$T/out/varying.csv" 2>> "$T/err" && $PB export "$T/r/train" --varying --format json --out "$T/out/varying.json" 2>> "$T/err" &&
    $PB export "$T/r/train" --out "$T/out/train.csv" 2>> "$T/err"
check "export --varying (csv and json) written" $? "$(tail -n 2 "$T/err" | tr '\n' ' ')"
mkdir -p "$T/v" && cp "$T/out/train.csv" "$T/v/runs.csv" && cp "$T/out/varying.csv" "$T/out/varying.json" "$T/v/" &&
    "$PY" tests/export_check.py varying "$T/r/train" "$T/v"
$PB report "$T/r/train" --format md,csv,json > "$T/report.log" 2>&1
check "report --format md,csv,json of the two runs" $? "$(tail -n 2 "$T/report.log" | tr '\n' ' ')"
"$PY" tests/export_check.py names "$T/r/train" "$T/v"
for f in csv json; do # the two trained runs: every series row has its step and epoch
    $PB export "$T/r/train" --format $f --out "$T/v/runs.$f" 2>> "$T/err" && $PB export "$T/r/train" --series --format $f --out "$T/v/series.$f" 2>> "$T/err"
done
"$PY" tests/export_check.py dtypes "$T/r/train" "$T/v"

# One run selection (bench/report/run_select.h): a copy of a run file, a damaged done run, a foreign
# run whose /config has run_id and status keys, and a run in a Latin-1-named folder; export counts
# what report counts, both (and load_runs) name the same files left out, and the CSV is UTF-8.
if "$PY" -c 'import h5py, pandas' 2>/dev/null; then
    S="$T/sel"
    mkdir -p "$S/train/backup"
    real=$(ls "$T"/r/train/*.h5 | head -n 1)
    cp "$real" "$S/train/" && cp "$real" "$S/train/backup/copy.h5"
    basename "$real" .h5 > "$T/out/real_id"
    "$PY" tests/export_check.py selection "$S"
    $PB export "$S" --out "$T/out/sel.csv" 2> "$T/out/export.err"
    $PB report "$S" > /dev/null 2> "$T/out/report.err"
    POSBENCH="$PB" "$PY" tests/export_check.py load_warnings "$S" 2> "$T/out/load.err"
    POSBENCH="$PB" "$PY" tests/export_check.py selection_check "$S" "$T/out"
else
    echo "SKIP export selection: $PY has no h5py or pandas (make deps installs python3-h5py, python3-pandas)"
fi

bad() { # name needle args...
    name=$1; needle=$2; shift 2
    $PB export "$@" > "$T/bad.out" 2> "$T/bad.err"; rc=$?
    [ $rc -eq 2 ] && grep -q -- "$needle" "$T/bad.err"
    check "export refuses $name (exit 2)" $? "exit $rc: $(head -c 300 "$T/bad.err")"
}
mkdir -p "$T/empty/sub"
bad "a missing directory" "none: No such file or directory" "$T/none"
bad "a file for the directory" "is not a directory" "$T/stdout.csv"
bad "a folder without run files" "no readable run file (\*.h5) below" "$T/empty"
bad "--format parquet" "valid: csv, json; parquet: no Parquet library for C is packaged in Debian" "$T/r" --format parquet
bad "--out followed by a flag" "--out needs a file" "$T/r" --out --series
bad "an unknown flag" "unknown flag '--sheet'" "$T/r" --sheet
bad "--varying with --series" "--series has none" "$T/r" --series --varying
exit 0
