#!/bin/sh
# scripts/reproduce_all.sh SCALE DEVICE OUT — every source's experiments, then one index:
# `make reproduce-all [SCALE=smoke|small|paper] [DEVICE=auto|cpu|cuda] [JOBS=N] [RESULTS=dir]`.
# Sources: mp3, cape, gmlp, gvp, ssl (each bench/experiments/<source>-*.yaml, through
# scripts/reproduce.sh into OUT/<source>; speech is part of mp3 and cape). SCALE=paper runs the
# sources that have a paper scale (mp3, ssl) and says which it leaves out.
# 1. Up front: the runner's estimate per experiment (posbench run --dry-run: the runs still to
#    train and their estimated training time on this machine, evaluation not included).
# 2. Each source in turn, its wall time measured and appended to OUT/reproduce-times.tsv
#    (source, scale, device, seconds, exit: bench/report/report_index.h).
# 3. posbench report --index OUT: OUT/REPORT.md and OUT/REPORT.html, every source's verdicts side
#    by side with links to each source's report.
# Exit: 0 every source ran and the index was written; 1 a source or the index failed; 2 bad input.
set -u
SCALE=${1:?usage: scripts/reproduce_all.sh SCALE DEVICE OUT} DEVICE=${2:?DEVICE} OUT=${3:?OUT}
PB=${POSBENCH:-build/posbench}
cd "$(dirname "$0")/.." || exit 1
case "$SCALE" in smoke|small|paper) ;; *) echo "reproduce-all: SCALE=$SCALE is not valid (valid: smoke, small, paper)" >&2; exit 2 ;; esac
case "$DEVICE" in auto|cpu|cpu-guarded|cuda) ;; *) echo "reproduce-all: DEVICE=$DEVICE is not valid (valid: auto, cpu, cpu-guarded, cuda)" >&2; exit 2 ;; esac
SOURCES="mp3 cape gmlp gvp ssl"
[ "$SCALE" = paper ] && { SOURCES="mp3 ssl"; echo "reproduce-all: SCALE=paper: cape, gmlp and gvp have no paper scale (smoke, small); left out"; }
SCALE_FLAG=""; [ "$SCALE" != small ] && SCALE_FLAG="--scale $SCALE"
mkdir -p "$OUT" || exit 1
echo "== reproduce-all: $SOURCES at $SCALE on $DEVICE into $OUT; the runner's estimate first"
for src in $SOURCES; do
    for exp in bench/experiments/"$src"-*.yaml; do
        # shellcheck disable=SC2086
        "$PB" run "$exp" $SCALE_FLAG --out "$OUT/$src" --device "$DEVICE" --dry-run > "$OUT/.estimate.txt" 2>&1
        rc=$?
        [ $rc -ne 0 ] && { cat "$OUT/.estimate.txt" >&2; rm -f "$OUT/.estimate.txt"; exit 2; }
        sed -n '/^experiment \|^estimated training time/p' "$OUT/.estimate.txt"
    done
done
rm -f "$OUT/.estimate.txt"
status=0
for src in $SOURCES; do
    start=$(date +%s)
    sh scripts/reproduce.sh "$src" "$SCALE" "$DEVICE" "$OUT/$src"
    rc=$?
    seconds=$(( $(date +%s) - start ))
    printf '%s\t%s\t%s\t%s\t%s\n' "$src" "$SCALE" "$DEVICE" "$seconds" "$rc" >> "$OUT/reproduce-times.tsv" || status=1
    echo "== reproduce-all: $src took ${seconds} s (exit $rc)"
    [ $rc -ne 0 ] && status=1
done
"$PB" report --index "$OUT" > /dev/null || status=1
echo "reproduce-all: index $OUT/REPORT.md and REPORT.html; times $OUT/reproduce-times.tsv (exit $status)"
exit $status
