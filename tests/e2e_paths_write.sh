#!/bin/sh
# tests/e2e_paths_write.sh — the output-path rule (core/safe_file.h) through every command that
# writes: a file posbench writes is a regular file in a directory that exists, replaced
# atomically, never through a symbolic link, FIFO, device (/dev/null, /dev/full as root) or
# directory found at its name, and never into a missing directory. Each hostile path is refused
# with exit 2 naming the path, the link's target is untouched (its bytes compared), a device
# stays a device, nothing hangs (every command under timeout(1)), and the finished run of the
# folder is byte-identical before and after. Also: `train --force` of a finished run that
# stops keeps the finished run's metrics (the attempt's lines under .metrics.jsonl.partial), and
# two reports at once on one folder both succeed (each writes under a temporary name of its own).
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them). About 20 s.
cd "$(dirname "$0")/.." || exit 1
PB=${PB:-$(pwd)/build/posbench}
T=$(mktemp -d /tmp/posbench-pathsw.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
one_line() { head -c 300 "$1" | tr '\n' ' '; }
TINY="data.limit=64 data.test_limit=64 train.epochs=1 train.batch=32 model.dim=16 model.depth=1 model.heads=2 model.patch=7 eval.knn=false"
R=$T/r
# shellcheck disable=SC2086
timeout 120 $PB train $TINY --out "$R" --threads 1 > "$T/train.log" 2>&1 || { echo "FAIL paths write: tiny training: $(tail -n 3 "$T/train.log")"; exit 0; }
ID=$(ls "$R" | sed -n 's/\.h5$//p')
sums() { (cd "$R" && find . -maxdepth 1 -type f -name "$ID*" | sort | xargs md5sum); } # the finished run's files
sums > "$T/before"
printf 'victim bytes\n' > "$T/victim"
VICTIM_SUM=$(md5sum < "$T/victim")
mkfifo "$T/fifo"
mkdir -p "$T/adir"

# expect NAME CODE PATH -- CMD...: CMD exits CODE within 20 s, its stderr names PATH, the victim is
# untouched, /dev/null and /dev/full are still character devices, the finished run is unchanged.
expect() {
    name=$1 code=$2 path=$3; shift 4
    timeout 20 "$@" > "$T/o" 2> "$T/e"; rc=$?
    ok=0
    [ $rc -eq "$code" ] || ok=1
    grep -qF -- "$path" "$T/e" || ok=1
    [ "$(md5sum < "$T/victim")" = "$VICTIM_SUM" ] || ok=1
    [ -c /dev/null ] && [ -c /dev/full ] || ok=1
    sums > "$T/after"; cmp -s "$T/before" "$T/after" || ok=1
    check "$name" $ok "exit $rc (want $code): $(one_line "$T/e")"
}

# ---- export --out
ln -s "$T/victim" "$T/link.csv"
expect "export --out a symbolic link: refused, its target untouched" 2 "$T/link.csv" -- $PB export "$R" --out "$T/link.csv"
expect "export --out a FIFO: refused without blocking" 2 "$T/fifo" -- $PB export "$R" --out "$T/fifo"
expect "export --out a directory: refused" 2 "$T/adir" -- $PB export "$R" --out "$T/adir"
expect "export --out into a missing directory: refused" 2 "$T/missing/x.csv" -- $PB export "$R" --out "$T/missing/x.csv"
if [ "$(id -u)" -eq 0 ]; then
    expect "export --out /dev/full as root: refused, the device node stays" 2 /dev/full -- $PB export "$R" --out /dev/full
    expect "export --out /dev/null as root: refused, the device node stays" 2 /dev/null -- $PB export "$R" --out /dev/null
else
    echo "SKIP export --out /dev/null and /dev/full: not root (only root could rename over a device node)"
fi
$PB export "$R" --out "$T/good.csv" > /dev/null 2>&1 && [ -f "$T/good.csv" ] && [ -z "$(ls -A "$T" | grep '^\.good')" ]
check "export --out a new file still works (no temporary file left)" $? "$(ls -A "$T" | tr '\n' ' ')"

# ---- train --plan (the crosscheck plan, a tensorfile)
# shellcheck disable=SC2086
expect "train --plan a symbolic link: refused, its target untouched" 2 "$T/link.csv" -- $PB train $TINY --out "$T/p" --plan "$T/link.csv"
if [ "$(id -u)" -eq 0 ]; then
    # shellcheck disable=SC2086
    expect "train --plan /dev/null as root: refused, the device node stays" 2 /dev/null -- $PB train $TINY --out "$T/p" --plan /dev/null
fi

# ---- a run's own files in its folder: a link, FIFO or directory among them is refused before
# anything is written (its target untouched), also a link to a device
NEW=$($PB train $TINY train.seed=1 --print-config 2>/dev/null | sed -n 's/^run_id: //p')
for kind in metrics.jsonl lock h5.partial ckpt log weights; do
    ln -s "$T/victim" "$R/$NEW.$kind"
    # shellcheck disable=SC2086
    expect "train: <id>.$kind a symbolic link in the results folder: refused, never written through" 2 "$R/$NEW.$kind" -- \
        $PB train $TINY train.seed=1 --out "$R" --threads 1
    rm -f "$R/$NEW.$kind"
done
mkfifo "$R/$NEW.lock"
# shellcheck disable=SC2086
expect "train: <id>.lock a FIFO: refused without blocking" 2 "$R/$NEW.lock" -- $PB train $TINY train.seed=1 --out "$R" --threads 1
rm -f "$R/$NEW.lock"
ln -s /dev/full "$R/$NEW.metrics.jsonl"
# shellcheck disable=SC2086
expect "train: <id>.metrics.jsonl a link to /dev/full: refused" 2 "$R/$NEW.metrics.jsonl" -- $PB train $TINY train.seed=1 --out "$R" --threads 1
rm -f "$R/$NEW.metrics.jsonl"
mkdir "$R/$NEW.h5.partial"
# shellcheck disable=SC2086
expect "train: <id>.h5.partial a directory: refused" 2 "$R/$NEW.h5.partial" -- $PB train $TINY train.seed=1 --out "$R" --threads 1
rmdir "$R/$NEW.h5.partial"
[ -z "$(ls "$R" | grep "^$NEW")" ]
check "train: none of the refused runs left a file" $? "$(ls "$R" | tr '\n' ' ')"

# ---- report: REPORT.md (and the html) at a link, FIFO or device; a symlinked run file is named
ln -s "$T/victim" "$R/REPORT.md"
expect "report: REPORT.md a symbolic link: refused, its target untouched" 2 "$R/REPORT.md" -- $PB report "$R"
rm -f "$R/REPORT.md"
mkfifo "$R/REPORT.html"
expect "report: REPORT.html a FIFO: refused without blocking" 2 "$R/REPORT.html" -- $PB report "$R"
rm -f "$R/REPORT.html"
ln -s "$R/$ID.h5" "$T/r/linked.h5"
timeout 20 $PB report "$R" > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 0 ] && grep -q "linked.h5: is a symbolic link" "$T/e"
check "report: a symbolic link named <id>.h5 in the folder is named as left out, not skipped silently" $? "exit $rc: $(one_line "$T/e")"
rm -f "$R/linked.h5" "$R"/REPORT.*

# ---- two reports at once on one folder: each writes under its own temporary name
( $PB report "$R" > "$T/r1.out" 2>&1; echo $? > "$T/r1.rc" ) &
( $PB report "$R" > "$T/r2.out" 2>&1; echo $? > "$T/r2.rc" ) &
wait
[ "$(cat "$T/r1.rc")" = 0 ] && [ "$(cat "$T/r2.rc")" = 0 ] && [ -s "$R/REPORT.md" ] && [ -z "$(ls -A "$R" | grep '^\.REPORT')" ]
check "report: two at once on one folder both succeed, no temporary file left" $? "exit $(cat "$T/r1.rc") and $(cat "$T/r2.rc"): $(one_line "$T/r1.out")"
rm -f "$R"/REPORT.*

# ---- sweep --save and bench --save
expect "sweep --save a symbolic link: refused, its target untouched" 2 "$T/link.csv" -- $PB sweep model.dim=16,32 --save "$T/link.csv"
expect "bench --save a symbolic link: refused before measuring" 2 "$T/link.csv" -- $PB bench --save "$T/link.csv"

# ---- plot: a figure's data file replaced by a link
if timeout 60 $PB plot "$R" > "$T/plot.out" 2>&1 && ls "$R"/figures/data/*.dat > /dev/null 2>&1; then
    DAT=$(ls "$R"/figures/data/*.dat | head -n 1)
    rm -f "$DAT" && ln -s "$T/victim" "$DAT"
    expect "plot: a figure's data file a symbolic link: refused, its target untouched" 2 "$DAT" -- $PB plot "$R"
    rm -rf "$R/figures"
else
    echo "SKIP plot: a figure's data file a symbolic link: plot made no figure here ($(one_line "$T/plot.out"))"
fi

# ---- --force retraining a finished run that stops: the finished run keeps its own metrics
cp "$R/$ID.metrics.jsonl" "$T/metrics.before"; cp "$R/$ID.h5" "$T/h5.before"
# shellcheck disable=SC2086
timeout 120 $PB train $TINY --out "$R" --threads 1 --force --stop-after 1 > "$T/o" 2>&1; rc=$?
cmp -s "$R/$ID.metrics.jsonl" "$T/metrics.before" && cmp -s "$R/$ID.h5" "$T/h5.before" && [ -s "$R/$ID.metrics.jsonl.partial" ]
check "train --force of a finished run that stops: its .h5 and metrics stay as they were, the attempt's lines are under .metrics.jsonl.partial" $? \
    "exit $rc: $(ls "$R" | tr '\n' ' ')"
# shellcheck disable=SC2086
timeout 120 $PB train $TINY --out "$R" --threads 1 --force > "$T/o" 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -e "$R/$ID.metrics.jsonl.partial" ] && [ -s "$R/$ID.metrics.jsonl" ] &&
    [ "$(grep -c '"step"' "$R/$ID.metrics.jsonl")" -eq "$(grep -c '"step"' "$T/metrics.before")" ]
check "train --force run to its end: the new metrics replace the old ones (one line per logged step)" $? "exit $rc: $(ls "$R" | tr '\n' ' ')"
