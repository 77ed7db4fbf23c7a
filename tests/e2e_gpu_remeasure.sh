#!/bin/sh
# tests/e2e_gpu_remeasure.sh — scripts/gpu_remeasure.sh with cpu-guarded as the device: two
# experiments at once (one with its seeds replaced), the pack split into parts that unpack to the
# run files without weights or checkpoints, and `posbench report` on them; then a deadline that
# stops the runs still going: they are packed as partial, the exit is 1, and rerunning finishes them.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ||
    { echo "SKIP gpu_remeasure: Fashion-MNIST is not installed (make deps)"; exit 0; }
T=$(mktemp -d /tmp/posbench-remeasure.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS gpu_remeasure: $1: $3"; else echo "FAIL gpu_remeasure: $1: $3"; fi; }
cat >"$T/tiny.yaml" <<'YAML'
name: tiny
description: two-stage smoke experiment for tests/e2e_gpu_remeasure.sh
base:
  data: {limit: 128, test_limit: 100}
  model: {dim: 32, depth: 1, heads: 2, mlp_ratio: 2, patch: 7}
  train: {epochs: 1, batch: 32, warmup_epochs: 0}
  eval: {batch: 100}
stages:
  pretrain: {pe: {kind: none}}
  finetune: {init: pretrain, pe: {kind: abs}}
seeds: [0]
YAML
sed -e 's/^name: tiny/name: tiny2/' -e 's/epochs: 1,/epochs: 2,/' "$T/tiny.yaml" >"$T/tiny2.yaml"
GPU_REMEASURE_DEVICE=cpu-guarded GPU_REMEASURE_JOBS=1 sh scripts/gpu_remeasure.sh "$T/out" "$T/tiny.yaml:0,1" "$T/tiny2.yaml" \
    >"$T/r.out" 2>&1; rc=$?
grep -q '^tiny: 4 runs done, 0 partial' "$T/out/pack/MANIFEST" && grep -q '^tiny2: 2 runs done, 0 partial' "$T/out/pack/MANIFEST" &&
    grep -q '^seeds: \[0, 1\]' "$T/out/yaml/tiny.yaml"
check "two experiments at once, one with seeds 0,1: every run done" $(( rc != 0 || $? != 0 )) "exit $rc; $(tr '\n' ' ' < "$T/out/pack/MANIFEST")"
mkdir "$T/unpacked" && cat "$T/out/pack/results.tar.xz."* | tar -xJf - -C "$T/unpacked"; rc=$?
h5=$(find "$T/unpacked" -name '*.h5' | wc -l); heavy=$(find "$T/unpacked" -name '*.weights' -o -name '*.ckpt' | wc -l)
"$PB" report "$T/unpacked/results" >"$T/rep.out" 2>&1; rrc=$?
[ $rc -eq 0 ] && [ "$h5" -eq 6 ] && [ "$heavy" -eq 0 ] && [ $rrc -eq 0 ] && grep -q 'seeds 0, 1' "$T/unpacked/results/REPORT.md"
check "the pack unpacks to the 6 run files, no weights or checkpoints, and posbench report reads them" $? \
    "tar exit $rc, $h5 .h5, $heavy weights/ckpt, report exit $rrc"
# a deadline of 3 s on a long experiment: every run is stopped with its `posbench run` (none left
# running after the script), the pack is still made, the exit is 1
sed -e 's/^name: tiny/name: slow/' -e 's/limit: 128,/limit: 4096,/' -e 's/epochs: 1,/epochs: 200,/' "$T/tiny.yaml" >"$T/slow.yaml"
GPU_REMEASURE_DEVICE=cpu-guarded GPU_REMEASURE_DEADLINE_S=3 sh scripts/gpu_remeasure.sh "$T/out2" "$T/slow.yaml" >"$T/r2.out" 2>&1; rc=$?
left=$(pgrep -f "$T/slow.yaml" | wc -l)
[ $rc -eq 1 ] && grep -q 'deadline 3s reached' "$T/r2.out" && grep -q '^slow: 0 runs done' "$T/out2/pack/MANIFEST" &&
    [ -n "$(ls "$T/out2/pack/results.tar.xz."* 2>/dev/null)" ] && [ "$left" -eq 0 ]
check "past the deadline every run stops (none left running), the pack is made, exit 1" $? \
    "exit $rc; $left processes left; $(tr '\n' ' ' < "$T/out2/pack/MANIFEST")"
pkill -f "$T/slow.yaml" 2>/dev/null
GPU_REMEASURE_DEVICE=cpu-guarded sh scripts/gpu_remeasure.sh "$T/out3" "$T/tiny.yaml:0;rm" >"$T/r4.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "seeds '0;rm'" "$T/r4.out"
check "malformed seeds: exit 2 naming them" $? "exit $rc; $(head -c 160 "$T/r4.out")"
