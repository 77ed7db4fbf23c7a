#!/bin/sh
# tests/e2e_runner.sh — `posbench run | list | report | plot | slurm` on a tiny two-stage
# experiment (finetune starts from pretrain's weights, run by run): parallel jobs, skip of
# done runs, the lock between processes, kill -9 then resume to the same final metrics,
# Markdown report and gnuplot figures, and the Slurm array script.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
T=$(mktemp -d /tmp/posbench-runner.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e runner: Fashion-MNIST is not installed"; exit 0
fi
cat > "$T/tiny.yaml" <<'YAML'
name: tiny
description: two-stage smoke experiment for the runner tests
base:
  data: {limit: 256, test_limit: 200}
  model: {dim: 32, depth: 1, heads: 2, mlp_ratio: 2, patch: 7}
  train: {epochs: 2, batch: 64, warmup_epochs: 0}
  eval: {batch: 100}
stages:
  pretrain: {pe: {kind: none}}
  finetune: {init: pretrain, train: {lr: 1e-3}}
matrix:
  finetune.pe.kind: [abs, none]
seeds: [0, 1]
YAML
$PB list "$T/tiny.yaml" --out "$T/r" > "$T/list1" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -cE '^[0-9a-f]{12} +[a-z]+ +[-0-9a-f]+ +pending ' "$T/list1")" -eq 6 ]
check "list: 2 pretrain + 4 finetune runs, all pending" $? "$(tail -n 2 "$T/list1" | tr '\n' ' ')"

$PB run "$T/tiny.yaml" --out "$T/r" --jobs 2 > "$T/run1" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(ls "$T"/r/tiny/pretrain/*.h5 | wc -l)" -eq 2 ] && [ "$(ls "$T"/r/tiny/finetune/*.h5 | wc -l)" -eq 4 ]
check "run --jobs 2: every run done in stage order" $? "exit $rc; $(tail -n 1 "$T/run1")"
grep -q "^init: " "$T"/r/tiny/finetune/*.log
check "finetune runs start from their pretrain run's weights" $? "$(grep -h '^init:' "$T"/r/tiny/finetune/*.log | head -n 1 | cut -c1-60)"
$PB list "$T/tiny.yaml" --out "$T/r" > "$T/list2" 2>&1
[ "$(grep -cE '^[0-9a-f]{12} +[a-z]+ +[-0-9a-f]+ +done ' "$T/list2")" -eq 6 ]
check "list shows every run done" $? "$(tail -n 1 "$T/list2")"
$PB run "$T/tiny.yaml" --out "$T/r" > "$T/run2" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "0 to run" "$T/run2" && ! grep -q '\[start\]' "$T/run2"
check "rerun skips done runs" $? "$(head -n 1 "$T/run2")"

# Lock: a run held by another process is not started twice: this process waits for the holder,
# then counts the run as it was left (finished there: done here, exit 0), or runs it itself when
# the holder left it unfinished.
P=$(ls "$T"/r/tiny/pretrain/*.h5 | head -n 1); P=${P%.h5}
mv "$P.h5" "$T/saved.h5"
# The holder keeps the lock until the runner says it waits for it (at most 30 s: a loaded machine
# may take seconds to get there), then finishes the run or leaves it unfinished.
hold_until_waited() { # LOG: returns once LOG has a [locked] line
    i=0; while ! grep -q '^\[locked\]' "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; sleep 1
}
wait_for() { i=0; while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; } # FILE: the holder has the lock
( exec 9>"$P.lock"; flock -n 9 && : > "$T/held3" && hold_until_waited "$T/run3" && mv "$T/saved.h5" "$P.h5" ) & # the holder finishes the run
wait_for "$T/held3"
$PB run "$T/tiny.yaml" --out "$T/r" --only pretrain > "$T/run3" 2>&1; rc=$?
wait
[ $rc -eq 0 ] && grep -q '^\[locked\] .*waiting for it' "$T/run3" && grep -q '^\[done\] .*the other process finished it' "$T/run3" &&
    ! grep -q '^\[start\]' "$T/run3" && [ ! -f "$T/saved.h5" ]
check "a run locked by another process is waited for and counted done when that process finishes it (exit 0)" $? \
    "exit $rc; $(grep -E 'locked|done|start' "$T/run3" | tr '\n' ' ')"
cp "$P.h5" "$T/saved.h5" && mv "$P.h5" "$T/gone.h5"
( exec 9>"$P.lock"; flock -n 9 && : > "$T/held3b" && hold_until_waited "$T/run3b" ) & # the holder stops without finishing
wait_for "$T/held3b"
$PB run "$T/tiny.yaml" --out "$T/r" --only pretrain > "$T/run3b" 2>&1; rc=$?
wait
[ $rc -eq 0 ] && grep -q '^\[resume\] .*left it unfinished: running it here' "$T/run3b" && [ -f "$P.h5" ]
check "a run another process left unfinished is then run here (exit 0, its file done)" $? \
    "exit $rc; $(grep -E 'locked|resume|done' "$T/run3b" | tr '\n' ' ')"
rm -f "$T/gone.h5" && mv "$T/saved.h5" "$P.h5"

# kill -9 in the middle of a run, rerun: it resumes and ends with the uninterrupted metrics.
sed -e 's/epochs: 2,/epochs: 6,/' -e 's/^seeds: \[0, 1\]/seeds: [0]/' -e 's/^stages:/  train_extra: {}\nstages:/' "$T/tiny.yaml" |
    grep -v train_extra > "$T/long.yaml"
sed -i 's/  train: {epochs: 6, batch: 64, warmup_epochs: 0}/  train: {epochs: 6, batch: 64, warmup_epochs: 0, checkpoint_every: 2}/' "$T/long.yaml"
$PB run "$T/long.yaml" --out "$T/u" --only pretrain > /dev/null 2>&1
# The trainer SIGKILLs its own process group (the sweep and the run) right after step 5, one
# step past the checkpoint at step 4: a real kill -9 at a point that does not depend on speed.
# (bash -c absorbs the shell's "Killed" notice.)
POSBENCH_FAULT_KILL_STEP=5 bash -c 'setsid "$0" run "$1" --out "$2" --only pretrain > "$3" 2>&1; true' \
    "$PB" "$T/long.yaml" "$T/k" "$T/run4" 2>/dev/null
partial=$(ls "$T"/k/tiny/pretrain/ | tr '\n' ' ')
$PB run "$T/long.yaml" --out "$T/k" --only pretrain > "$T/run5" 2>&1; rc=$?
U=$(ls "$T"/u/tiny/pretrain/*.h5); K=$(ls "$T"/k/tiny/pretrain/*.h5 2>/dev/null)
grep -q "resuming run" "$T"/k/tiny/pretrain/*.log
resumed=$?
case "$partial" in *.h5.partial*) killed_mid=0 ;; *) killed_mid=1 ;; esac
[ $killed_mid -eq 0 ] && [ $rc -eq 0 ] && [ $resumed -eq 0 ] && [ -n "$K" ] &&
    [ "$(h5dump -a /final/top1 "$U" | tail -n +2)" = "$(h5dump -a /final/top1 "$K" | tail -n +2)" ] &&
    [ "$(h5dump -d /train/loss "$U" | tail -n +2)" = "$(h5dump -d /train/loss "$K" | tail -n +2)" ]
check "kill -9 mid-run, rerun: resumes and matches the uninterrupted run" $? "after the kill: $partial"

$PB report "$T/r" > "$T/report" 2>&1; rc=$?
[ $rc -eq 0 ] && [ -f "$T/r/REPORT.md" ] && grep -q "pe.kind" "$T/report" && grep -q "| abs |" "$T/report"
check "report: a table per stage with the axis as a column" $? "exit $rc, $(grep -c '^|' "$T/report") table lines"
if command -v gnuplot >/dev/null 2>&1; then
    $PB plot "$T/r" > "$T/plot" 2>&1; rc=$?
    n_png=$(ls "$T"/r/figures/*.png 2>/dev/null | wc -l); n_svg=$(ls "$T"/r/figures/*.svg 2>/dev/null | wc -l)
    [ $rc -eq 0 ] && [ "$n_png" -ge 3 ] && [ "$n_png" -eq "$n_svg" ]
    check "plot: PNG and SVG figures" $? "exit $rc, $n_png PNG, $n_svg SVG"
else
    echo "SKIP plot: gnuplot is not installed (make deps installs gnuplot-nox)"
fi

$PB slurm "$T/tiny.yaml" --max-parallel 2 --out "$T/s" > "$T/slurm" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^#SBATCH --array=0-1%2$' "$T/slurm" && grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/2"' "$T/slurm"
check "slurm: one array task per root run, sharded run" $? "$(grep -- '--array' "$T/slurm")"
$PB run "$T/tiny.yaml" --out "$T/s" --shard 1/2 --dry-run > "$T/shard" 2>&1
[ "$(grep -c '^  ' "$T/shard")" -eq 3 ]
check "shard 1/2 holds one pretrain run and its two finetune runs" $? "$(head -n 1 "$T/shard")"
$PB run "$T/nope.yaml" > "$T/bad" 2>&1; rc=$?
[ $rc -eq 2 ]
check "run: missing experiment file is bad input" $? "exit $rc: $(head -c 200 "$T/bad")"
printf 'reference:\n  - {stage: finetune, match: {finetune.pe.kind: abs}, metric: final.top1, value: 50, source: "made-up"}\nfigures:\n  - {kind: metric_vs_axis, stage: finetune, metric: final.top1, x: pe.kind}\n' >> "$T/tiny.yaml"
printf 'findings:\n  - {claim: "a PE helps finetuning", paper: "made-up", kind: greater, per: train.seed,\n     a: {stage: finetune, match: {pe.kind: abs}, metric: top1}, b: {stage: finetune, match: {pe.kind: none}, metric: top1}}\n' >> "$T/tiny.yaml"
$PB run "$T/tiny.yaml" --out "$T/r" > "$T/run6" 2>&1; rc=$?
$PB report "$T/r/tiny" > "$T/report2" 2>&1
[ $rc -eq 0 ] && [ ! -e "$T/r/tiny/reference.tsv" ] && [ ! -e "$T/r/tiny/figures.tsv" ] &&
    grep -q "paper (other data) top1" "$T/report2" && grep -qE "^\| abs \| 2 \| [^|]+ \| [^|]+ \| [0-9.]+ ± [0-9.]+ \| 50 \|" "$T/report2"
check "reference: numbers from the YAML copy printed beside ours (no reference.tsv, figures.tsv)" $? "$(grep -c 'paper' "$T/report2") lines mention paper"
cmp -s "$T/tiny.yaml" "$T/r/tiny/experiment.yaml" && grep -q '^## Findings (experiment `tiny`)$' "$T/report2" &&
    grep -qE '^\| a PE helps finetuning \| 0: [0-9.]+ vs [0-9.]+ \(n = 1 vs 1\); 1: [0-9.]+ vs [0-9.]+ \(n = 1 vs 1\) \| made-up \| inconclusive \(0: 1 seed; 1: 1 seed\) \[caveats: 1 run on a side \(fewer than 3 seeds\)\] \|$' "$T/report2"
check "findings: experiment file kept by run, checked per seed by report (1 seed each: inconclusive)" $? "$(grep '^| a PE' "$T/report2")"
printf 'reference:\n  - {stage: nostage, metric: top1, value: 1}\n' > "$T/badref.yaml"
sed '/^reference:/,$d' "$T/tiny.yaml" > "$T/bad2.yaml"; cat "$T/badref.yaml" >> "$T/bad2.yaml"
$PB run "$T/bad2.yaml" --out "$T/r" > "$T/bad2" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "bad2.yaml:[0-9]*:[0-9]*: reference stage is not a stage" "$T/bad2"
check "reference with an unknown stage is rejected before running" $? "exit $rc: $(head -c 200 "$T/bad2")"
# Diverged runs are final, their children blocked, the sweep ends with exit 1 naming them.
POSBENCH_FAULT_NAN_STEP=2 $PB run "$T/tiny.yaml" --out "$T/nan" --retries 2 > "$T/run7" 2>&1; rc=$?
[ $rc -eq 1 ] && [ "$(grep -c '^\[diverged\]' "$T/run7")" -eq 2 ] && [ "$(grep -c '^\[blocked\]' "$T/run7")" -eq 4 ] &&
    ! grep -q '(retry)' "$T/run7" && grep -q "^not done:" "$T/run7"
check "diverged runs are not retried; their finetune runs are blocked; exit 1" $? "exit $rc; $(tail -n 1 "$T/run7")"
