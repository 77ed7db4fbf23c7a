#!/bin/sh
# tests/e2e_paths_read.sh — the input-path rule (core/safe_file.h) through the commands that read:
# a file posbench reads is opened without blocking and must be a regular file within a stated
# size cap. A FIFO named <id>.metrics.jsonl, <id>.lock or a cached <id>.torch never hangs watch
# or crosscheck (every command under timeout(1)); a FIFO or a link named *.h5 in a results folder
# is named as left out; a metrics line past SAFE_LINE_CAP (1 MiB) is skipped with a message; an
# SVG past 16 MiB is left out of REPORT.html, named; an experiment file that is a FIFO or past
# 16 MiB is refused (exit 2); --init from a FIFO is refused (exit 2); a 12 KB foreign run file of
# 13 chunked columns of 2^24 doubles is read within RR_MAX_FILE_ELEMENTS (peak memory measured
# with /usr/bin/time, under 700 MB: 438 MB and 4 s measured, where a reader without the per-file
# cap peaked at 1.9 GB and was still reading after 120 s), naming the column it stops at. Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them). About 20 s.
cd "$(dirname "$0")/.." || exit 1
PB=${PB:-$(pwd)/build/posbench}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/posbench-pathsr.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
one_line() { head -c 300 "$1" | tr '\n' ' '; }
TINY="data.limit=64 data.test_limit=64 train.epochs=1 train.batch=32 model.dim=16 model.depth=1 model.heads=2 model.patch=7 eval.knn=false"
R=$T/r
# shellcheck disable=SC2086
timeout 120 $PB train $TINY --out "$R" --threads 1 > "$T/train.log" 2>&1 || { echo "FAIL paths read: tiny training: $(tail -n 3 "$T/train.log")"; exit 0; }
ID=$(ls "$R" | sed -n 's/\.h5$//p')
mkfifo "$T/fifo"

# ---- watch: a FIFO as the metrics file or the lock, a metrics line past the cap
for kind in metrics.jsonl lock; do
    W=$T/w-$kind; mkdir -p "$W"; cp "$R/$ID.h5" "$W/"
    [ $kind = lock ] && cp "$R/$ID.metrics.jsonl" "$W/"
    mkfifo "$W/$ID.$kind"
    timeout 20 $PB watch "$W" --once > "$T/o" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q "$ID" "$T/o" && grep -q done "$T/o"
    check "watch: <id>.$kind a FIFO does not block the view (the run shows as done)" $? "exit $rc: $(one_line "$T/o")"
done
timeout 20 $PB watch "$T/w-metrics.jsonl" --once > "$T/o" 2>&1
grep -q "metrics not read" "$T/o" && grep -q "FIFO" "$T/o"
check "watch: a FIFO metrics file is named as not read" $? "$(one_line "$T/o")"
W=$T/w-long; mkdir -p "$W"; cp "$R/$ID.h5" "$W/"
head -n 1 "$R/$ID.metrics.jsonl" > "$W/$ID.metrics.jsonl"
head -c 2097152 /dev/zero | tr '\0' 'x' >> "$W/$ID.metrics.jsonl"; echo >> "$W/$ID.metrics.jsonl"
tail -n 1 "$R/$ID.metrics.jsonl" >> "$W/$ID.metrics.jsonl"
timeout 20 $PB watch "$W" --once > "$T/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "1 metrics line longer than 1048576 bytes skipped" "$T/o"
check "watch: a 2 MB metrics line is skipped with a message (cap 1 MiB), not read whole" $? "exit $rc: $(one_line "$T/o")"

# ---- report and export: a FIFO and a link named *.h5 are named, never hang
C=$T/c; mkdir -p "$C"; cp "$R/$ID.h5" "$C/"
mkfifo "$C/pipe.h5"; ln -s /dev/zero "$C/zero.h5"
timeout 20 $PB report "$C" > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 0 ] && grep -q "pipe.h5: is a FIFO" "$T/e" && grep -q "zero.h5: is a symbolic link" "$T/e"
check "report: a FIFO and a link to /dev/zero named *.h5 are named as left out, nothing blocks" $? "exit $rc: $(one_line "$T/e")"
timeout 20 $PB export "$C" > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 0 ] && grep -q "pipe.h5: is a FIFO" "$T/e"
check "export: a FIFO named *.h5 is named as left out, nothing blocks" $? "exit $rc: $(one_line "$T/e")"
rm -f "$C/pipe.h5" "$C/zero.h5"

# ---- REPORT.html: an SVG past its cap is left out, named (its data file beside it, as plot
# leaves one, so that REPORT.html takes it for a figure plot drew and tries to read it)
mkdir -p "$C/figures/data" && truncate -s 17M "$C/figures/huge.svg" && : > "$C/figures/data/huge.dat"
timeout 30 $PB report "$C" --format md,html > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 0 ] && grep -q "figure left out: .*huge.svg: 17825792 bytes is more than" "$T/e" && [ -s "$C/REPORT.html" ]
check "report --format html: a 17 MB SVG is left out, named (cap 16 MiB), not read whole" $? "exit $rc: $(one_line "$T/e")"

# ---- experiment files and --init
timeout 20 $PB list "$T/fifo" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "FIFO" "$T/o"
check "list: an experiment file that is a FIFO is refused without blocking" $? "exit $rc: $(one_line "$T/o")"
truncate -s 17M "$T/huge.yaml"
timeout 20 $PB list "$T/huge.yaml" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "huge.yaml" "$T/o"
check "list: an experiment file past 16 MiB is refused" $? "exit $rc: $(one_line "$T/o")"
# shellcheck disable=SC2086
timeout 60 $PB train $TINY train.seed=2 --out "$T/i" --init "$T/fifo" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$T/fifo" "$T/o"
check "train --init a FIFO: refused without blocking" $? "exit $rc: $(one_line "$T/o")"

# ---- crosscheck: a FIFO as the cached PyTorch result (a stand-in trainer: no PyTorch needed)
cat > "$T/tiny.yaml" <<'EOF'
name: cc-fifo
base:
  data: {limit: 256, test_limit: 200}
  model: {patch: 7, dim: 32, depth: 2, heads: 2, drop_path: 0}
  train: {batch: 32, epochs: 1}
stages:
  main: {pe: {kind: abs}}
seeds: [0]
EOF
mkdir -p "$T/fake"
printf 'top1 0.5\nloss 1.2\ninit ours\ninit_max_abs_diff 0\ncontent_rms 0.5\nposenc_rms nan\nseconds 1.5\nstep_losses 2.3 2.2 2.1 2.0 1.9 1.8 1.7 1.6\n' > "$T/result"
printf 'echo run >> "%s/count"\ncat "%s/result" > "$3"\n' "$T" "$T" > "$T/fake/train.sh"
: > "$T/count"
cc() { timeout 60 $PB crosscheck "$T/tiny.yaml" --stage main --out "$T/cc" --threads 1 --python /bin/sh --script "$T/fake/train.sh" > "$T/o" 2>&1; }
cc; rc=$?; TORCH=$(ls "$T"/cc/cc-fifo/main/crosscheck/*.torch 2>/dev/null | head -n 1)
if [ $rc -eq 0 ] && [ -n "$TORCH" ]; then
    rm -f "$TORCH" && mkfifo "$TORCH"
    cc; rc=$?
    [ $rc -eq 2 ] && grep -q "$TORCH: is a FIFO" "$T/o" && [ "$(wc -l < "$T/count")" -eq 1 ] && [ -p "$TORCH" ]
    check "crosscheck: a FIFO as the cached <id>.torch is refused without blocking, nothing trained" $? "exit $rc: $(one_line "$T/o")"
else
    echo "FAIL crosscheck: the stand-in crosscheck did not run: exit $rc: $(one_line "$T/o")"
fi

# ---- a foreign run file whose datasets add up to gigabytes
if "$PY" -c 'import h5py, numpy' 2>/dev/null; then
    mkdir -p "$T/h"
    "$PY" - "$T/h/foreign.h5" <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["status"] = "done"
    f.attrs["stage"] = "train"
    f.create_group("config"); f.create_group("final").attrs["top1"] = 0.5
    g = f.create_group("train")
    for i in range(13):  # declared, never written: the file stays small, the fill value is the data
        g.create_dataset("c%02d" % i, shape=(1 << 24,), maxshape=(None,), chunks=(4096,), dtype="f8")
EOF
    SIZE=$(stat -c %s "$T/h/foreign.h5")
    /usr/bin/time -f '%M' -o "$T/rss" timeout 60 $PB export "$T/h" --series > "$T/o" 2> "$T/e"; rc=$?
    KB=$(tail -n 1 "$T/rss")
    grep -q "all datasets of one run file may hold together" "$T/e" && [ "$KB" -lt 716800 ]
    check "export --series: a $SIZE-byte file declaring 13 x 2^24 doubles is cut at RR_MAX_FILE_ELEMENTS (peak $KB KB)" $? "exit $rc: $(one_line "$T/e")"
else
    echo "SKIP a foreign run file of 13 large columns: $PY has no h5py/numpy (make deps installs python3-h5py)"
fi
