#!/bin/sh
# tests/e2e_estimate.sh — the time estimate of `posbench run` (bench/run/estimate.h) against a
# measured run, and the reproduce targets' totals:
#   - a tiny experiment (MP3 pretraining, a finetune from it and a `budget:` control as long as
#     both; Fashion-MNIST, the 4-layer d=64 ViT of mp3-main) counts all 3 runs ("setup 6 of 3 runs",
#     no "not counted") and its CPU seconds are within a factor of 2 of the CPU time (user + system,
#     one thread) the run measures: the factor covers the noise of a shared machine, a model that
#     is off by more fails;
#   - scripts/reproduce.sh's estimate of mp3 at smoke: one line per experiment, a total whose runs
#     and seconds are the sum of its experiments' dry runs, nothing left uncounted.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
T=$(mktemp -d /tmp/posbench-estimate.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }

# ---- the reproduce estimate: totals are the sum of the experiments' dry runs (no data read) ----
REPRODUCE_ESTIMATE_ONLY=1 JOBS=2 sh scripts/reproduce.sh mp3 smoke cpu "$T/mp3" > "$T/est" 2>&1; rc=$?
runs=0 secs=0
for exp in bench/experiments/mp3-*.yaml; do
    jobs=2; case "$exp" in *-table2.yaml) jobs=1 ;; esac
    "$PB" run "$exp" --scale smoke --out "$T/mp3" --jobs $jobs --dry-run > "$T/dry" 2>&1 || rc=1
    runs=$((runs + $(sed -n 's/^experiment .*; \([0-9]*\) to run.*/\1/p' "$T/dry")))
    secs=$((secs + $(sed -n 's/^estimated time: .*(\([0-9]*\) s on .*/\1/p' "$T/dry")))
done
set -- $(sed -n 's/^total //p' "$T/est")
# the sgemm rate may be measured anew by a dry run (no cache file, docs/usage.md#what-posbench-keeps-between-runs): seconds agree within 30%, runs exactly
[ $rc -eq 0 ] && [ $# -eq 3 ] && [ "$1" -eq "$runs" ] && [ "$3" -eq 0 ] && [ "$runs" -gt 0 ] &&
    [ $(( $2 * 10 )) -le $(( secs * 13 )) ] && [ $(( secs * 10 )) -le $(( $2 * 13 )) ] &&
    [ "$(grep -cE '^   mp3-[a-z0-9]*: [0-9]* runs to train, (about [0-9]* min|under a minute)$' "$T/est")" -eq "$(ls bench/experiments/mp3-*.yaml | wc -l)" ] &&
    grep -q "^== mp3 (smoke, cpu): $runs runs to train, " "$T/est"
check "reproduce.sh estimate: a line per experiment, the total their sum, none uncounted" $? \
    "exit $rc; total '$*' vs dry runs $runs runs, $secs s; $(head -n 2 "$T/est" | tr '\n' ' ')"

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e estimate (a measured run): Fashion-MNIST is not installed"; exit 0
fi

# ---- a tiny experiment: estimated vs measured CPU seconds ----
cat > "$T/tiny.yaml" <<'YAML'
name: tiny
description: MP3 pretraining, a finetune from it, and a supervised control as long as both
base:
  data: {limit: 1280, test_limit: 500}
  model: {patch: 4, dim: 64, depth: 4, heads: 4, mlp_ratio: 2}
  train: {epochs: 2, batch: 128, warmup_epochs: 0}
  eval: {position_limit: 200, samples: 0, view_images: 0}
stages:
  pretrain: {pe: {kind: none}, objective: {name: mp3, eta: 0.5}}
  finetune: {init: pretrain}
  matched: {budget: finetune}
seeds: [0]
YAML
"$PB" run "$T/tiny.yaml" --out "$T/r" --threads 1 --dry-run > "$T/dry" 2>&1; rc=$?
est=$(sed -n 's/^estimated time: .*; \([0-9]*\) CPU s = .*/\1/p' "$T/dry")
[ $rc -eq 0 ] && [ -n "$est" ] && grep -q 'setup 6 of 3 runs' "$T/dry" && ! grep -q 'not counted' "$T/dry"
check "estimate: the 3 runs counted (the budget: control included)" $? "exit $rc; $(sed -n 2,4p "$T/dry" | tr '\n' ' ')"
/usr/bin/time -f '%U %S' -o "$T/time" "$PB" run "$T/tiny.yaml" --out "$T/r" --threads 1 > "$T/run" 2>&1; rc=$?
cpu=$(awk '{printf "%.0f", $1 + $2}' "$T/time")
[ $rc -eq 0 ] && [ -n "$est" ] && [ -n "$cpu" ] && [ "$cpu" -le $((2 * est)) ] && [ "$est" -le $((2 * cpu)) ]
check "estimate: within a factor of 2 of the measured CPU time" $? "exit $rc; estimated $est CPU s, measured $cpu CPU s (user + system, 1 thread)"
