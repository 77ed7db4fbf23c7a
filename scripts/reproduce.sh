#!/bin/sh
# scripts/reproduce.sh PAPER SCALE DEVICE OUT — runs a paper's experiments
# (bench/experiments/PAPER-*.yaml) at SCALE on DEVICE into OUT, then writes OUT/REPORT.md
# (tables, the paper's numbers, and its findings with holds / does not hold) and the figures
# in OUT/figures/. `make reproduce-mp3 [SCALE=smoke|small|paper] [DEVICE=auto|cpu|cuda]` calls
# it with OUT=results/mp3, `make reproduce-cape [SCALE=smoke|small]` with OUT=results/cape,
# `make reproduce-gmlp [SCALE=smoke|small]` with OUT=results/gmlp, `make reproduce-gvp
# [SCALE=smoke|small]` with OUT=results/gvp, `make reproduce-ssl [SCALE=smoke|small|paper]` with
# OUT=results/ssl (bench/experiments/ssl-lecture.yaml).
# Rerunning skips finished runs and resumes interrupted ones.
# Timing experiments (*-table2.yaml) run one job at a time so steps do not share the CPU (or GPU).
# First the estimate of the whole source (each experiment's `posbench run --dry-run`: the runs
# still to train and their estimated time, bench/run/estimate.h, summed): "N runs to train,
# about T min on this machine", one line per experiment under it; then each experiment prints
# its own estimate as it starts. REPRODUCE_ESTIMATE_ONLY=1 prints these lines, then
# "total RUNS SECONDS UNCOUNTED", and stops (scripts/reproduce_all.sh sums the sources).
set -u
PAPER=$1 SCALE=$2 DEVICE=$3 OUT=$4
PB=${POSBENCH:-build/posbench}
cd "$(dirname "$0")/.." || exit 1
SCALES="smoke small paper"; case "$PAPER" in cape|gmlp|gvp) SCALES="smoke small" ;; esac # no GPU scale for these
case " $SCALES " in *" $SCALE "*) ;; *) echo "reproduce: SCALE=$SCALE is not valid for $PAPER (valid: $SCALES)" >&2; exit 2 ;; esac
case "$DEVICE" in auto|cpu|cpu-guarded|cuda) ;; *) echo "reproduce: DEVICE=$DEVICE is not valid (valid: auto, cpu, cpu-guarded, cuda)" >&2; exit 2 ;; esac
# small is the experiments' base config: no --scale
SCALE_FLAG=""; [ "$SCALE" != small ] && SCALE_FLAG="--scale $SCALE"
# Parallel runs: JOBS from the environment (`make reproduce-ssl DEVICE=cuda JOBS=6`: small models
# leave one GPU mostly idle, so several runs share it), else 2 on the CPU and 1 on cuda.
DEFAULT_JOBS=$(( $(nproc) >= 2 ? 2 : 1 )); [ "$DEVICE" = cuda ] && DEFAULT_JOBS=1
JOBS=${JOBS:-$DEFAULT_JOBS}
case "$JOBS" in ''|*[!0-9]*|0) echo "reproduce: JOBS=$JOBS is not valid (valid: a whole number of parallel runs, 1 or more)" >&2; exit 2 ;; esac
# gMLP's masked language modelling reads the King James Bible (Debian's bible-kjv-text) as
# data/kjv.txt (git-ignored), written once by `make data/kjv.txt` (first: the estimate reads its size).
if [ "$PAPER" = gmlp ] && [ ! -f data/kjv.txt ]; then
    echo "== writing the text corpus data/kjv.txt"
    make --no-print-directory -s data/kjv.txt || exit 1
fi
. scripts/estimate_text.sh
jobs_of() { case "$1" in *-table2.yaml) echo 1 ;; *) echo "$JOBS" ;; esac; }
# The estimate: runs to train and seconds on this machine, summed over the experiments.
total_runs=0 total_s=0 total_uncounted=0 lines=""
for exp in bench/experiments/"$PAPER"-*.yaml; do
    # shellcheck disable=SC2086
    dry=$("$PB" run "$exp" $SCALE_FLAG --out "$OUT" --device "$DEVICE" --jobs "$(jobs_of "$exp")" --dry-run 2>&1) ||
        { printf '%s\n' "$dry" >&2; exit 2; }
    runs=$(printf '%s\n' "$dry" | sed -n 's/^experiment .*; \([0-9]*\) to run.*/\1/p')
    secs=$(printf '%s\n' "$dry" | sed -n 's/^estimated time: .*(\([0-9]*\) s on .*/\1/p')
    uncounted=$(printf '%s\n' "$dry" | sed -n 's/^  not counted: \([0-9]*\) run.*/\1/p')
    total_runs=$((total_runs + ${runs:-0})) total_s=$((total_s + ${secs:-0})) total_uncounted=$((total_uncounted + ${uncounted:-0}))
    line="   $(basename "$exp" .yaml): ${runs:-0} runs to train, $(about_minutes "${secs:-0}")"
    [ -n "$uncounted" ] && line="$line ($uncounted not counted: $(printf '%s\n' "$dry" | sed -n 's/^  not counted: .*; the first: //p'))"
    lines="$lines$line
"
done
echo "== $PAPER ($SCALE, $DEVICE): $total_runs runs to train, $(about_minutes "$total_s") on this machine$(estimate_device_note "$DEVICE") $ESTIMATE_HOW"
[ "$total_uncounted" -gt 0 ] && echo "   $total_uncounted runs not counted: their data's size is known only once it is read"
printf '%s' "$lines"
if [ "${REPRODUCE_ESTIMATE_ONLY:-0}" = 1 ]; then echo "total $total_runs $total_s $total_uncounted"; exit 0; fi
status=0
# MP3's and CAPE's speech experiments read a synthesized Speech Commands set per scale (git-ignored),
# written once and reused; at paper scale it reads the real dataset from data/speech-commands.
if { [ "$PAPER" = mp3 ] || [ "$PAPER" = cape ]; } && [ "$SCALE" != paper ] && [ ! -f "data/speech-commands-synth/$SCALE/testing_list.txt" ]; then
    echo "== synthesizing Speech Commands ($SCALE) into data/speech-commands-synth/$SCALE"
    mkdir -p data/speech-commands-synth || exit 1
    "$PB" data speech-synth --scale "$SCALE" --out "data/speech-commands-synth/$SCALE" --quiet || exit 1
fi
for exp in bench/experiments/"$PAPER"-*.yaml; do
    jobs=$(jobs_of "$exp")
    if [ "$jobs" -eq 1 ]; then jobs_text="1 job"; else jobs_text="$jobs jobs"; fi
    echo "== $exp ($SCALE, $DEVICE, $jobs_text)"
    # shellcheck disable=SC2086
    "$PB" run "$exp" $SCALE_FLAG --out "$OUT" --device "$DEVICE" --jobs "$jobs" --retries 1; rc=$?
    [ $rc -eq 2 ] && exit 2
    [ $rc -ne 0 ] && status=1
done
if command -v gnuplot > /dev/null 2>&1; then "$PB" plot "$OUT" > /dev/null || status=1
else echo "reproduce: gnuplot not found (make deps installs gnuplot-nox): no figures" >&2; status=1; fi
"$PB" report "$OUT" > /dev/null || status=1 # after plot: REPORT.html embeds the figures
echo "reproduce: report $OUT/REPORT.md and REPORT.html, figures $OUT/figures/ (exit $status)"
exit $status
