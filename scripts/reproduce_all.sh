#!/bin/sh
# scripts/reproduce_all.sh SCALE DEVICE OUT — every source's experiments, then one index:
# `make reproduce-all [SCALE=smoke|small|paper] [DEVICE=auto|cpu|cuda] [JOBS=N] [RESULTS=dir]`.
# Sources: mp3, cape, gmlp, gvp, ssl (each bench/experiments/<source>-*.yaml, through
# scripts/reproduce.sh into OUT/<source>; speech is part of mp3 and cape). SCALE=paper runs the
# sources that have a paper scale (mp3, ssl) and says which it leaves out.
# 1. Up front: the estimate of everything ("N runs to train, about T min on this machine"), then
#    of each source and its experiments (scripts/reproduce.sh with REPRODUCE_ESTIMATE_ONLY=1:
#    each experiment's posbench run --dry-run, bench/run/estimate.h).
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
mkdir -p "$OUT" || exit 1
. scripts/estimate_text.sh
total_runs=0 total_s=0 total_uncounted=0 lines=""
for src in $SOURCES; do
    est=$(REPRODUCE_ESTIMATE_ONLY=1 sh scripts/reproduce.sh "$src" "$SCALE" "$DEVICE" "$OUT/$src" 2>&1) ||
        { printf '%s\n' "$est" >&2; exit 2; }
    # shellcheck disable=SC2086
    set -- $(printf '%s\n' "$est" | sed -n 's/^total //p')
    [ $# -eq 3 ] || { printf '%s\nreproduce-all: no estimate from scripts/reproduce.sh %s\n' "$est" "$src" >&2; exit 1; }
    total_runs=$((total_runs + $1)) total_s=$((total_s + $2)) total_uncounted=$((total_uncounted + $3))
    lines="$lines$(printf '%s\n' "$est" | grep -v '^total ')
"
done
echo "== reproduce-all: $SOURCES at $SCALE on $DEVICE into $OUT: $total_runs runs to train, $(about_minutes "$total_s")" \
     "on this machine$(estimate_device_note "$DEVICE") $ESTIMATE_HOW"
[ "$total_uncounted" -gt 0 ] && echo "   $total_uncounted runs not counted: their data's size is known only once it is read"
printf '%s' "$lines"
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
