#!/bin/sh
# tests/e2e_nan_objectives.sh — a NaN model is never a finished run, for every objective and
# backbone: a NaN planted in the parameters before step 2 (POSBENCH_FAULT_NAN_STEP, which with
# token ids poisons every token's row, bench/train/train_faults.c) must end the run "diverged" at
# step 2, exit 1; a NaN planted just before the first evaluation (POSBENCH_FAULT_NAN_EVAL) must
# end it "diverged" with no "final:" line (no accuracy, kNN or probe number recorded as valid) and
# its /eval/top1 row NaN, not a 0 a reader could take for a score.
# Supervised pe.kind=abs and SimCLR have these cases in e2e_train.sh / e2e_reliability.sh /
# e2e_graph_views.sh; here: supervised with cape, relbias, rope; MP3 (kNN on); MAE, GVP, DINO (kNN
# and linear probe on); gMLP; MLM on text with a ViT (rope) and a gMLP. Tiny models: about two
# CPU seconds in all.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-nan-objectives.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
attr() { h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): "*\([^"]*\)"*$/\1/p'; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e nan objectives: Fashion-MNIST is not installed"; exit 0
fi
TEXT=
if [ -f data/kjv.txt ]; then head -c 30000 data/kjv.txt > "$T/slice.txt" && TEXT=1
else echo "SKIP NaN MLM cases: data/kjv.txt is missing (make data/kjv.txt)"; fi
IMG="data.limit=64 data.test_limit=40 train.batch=16 train.epochs=1 eval.batch=40 model.dim=16 model.depth=1 model.heads=2"
KNN="eval.knn=true eval.knn_train_limit=64 eval.knn_test_limit=40"
PROBE="$KNN eval.linear_probe=true eval.probe_train_limit=64 eval.probe_test_limit=40"
MLM="data.name=text data.path=$T/slice.txt objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1 data.seq_len=32 data.limit=64 data.test_limit=40 train.batch=16 train.epochs=1 eval.batch=20"
cases() {
    echo "supervised-cape|$IMG model.patch=7 pe.kind=cape"
    echo "supervised-relbias|$IMG model.patch=7 pe.kind=relbias"
    echo "supervised-rope|$IMG model.patch=7 pe.kind=rope"
    echo "mp3|$IMG model.patch=7 objective.name=mp3 pe.kind=none objective.eta=0.5 $KNN"
    echo "mae|$IMG model.patch=4 objective.name=mae pe.kind=sin2d objective.eta=0.75 mae.decoder_depth=1 mae.decoder_dim=16 eval.samples=1 $PROBE"
    echo "gvp|$IMG model.patch=4 objective.name=gvp pe.kind=abs objective.groups=5 eval.samples=1 $PROBE"
    echo "dino|$IMG model.patch=4 objective.name=dino pe.kind=sin2d dino.hidden_dim=32 dino.bottleneck_dim=16 dino.out_dim=32 dino.teacher_temp_warmup=1 dino.local_crops=2 dino.local_size=12 $PROBE"
    echo "gmlp|$IMG model.patch=4 model.arch=gmlp"
    if [ -n "$TEXT" ]; then
        echo "mlm-vit-rope|$MLM model.heads=2 pe.kind=rope pe.rope_dims=1"
        echo "mlm-gmlp|$MLM model.arch=gmlp model.sgu_toeplitz=true pe.kind=none"
    fi
}
cases > "$T/cases"
while IFS='|' read -r name cfg; do
    # shellcheck disable=SC2086
    POSBENCH_FAULT_NAN_STEP=2 $PB train $cfg --threads 1 --out "$T/$name-step" > "$T/$name-step.out" 2>&1; rc=$?
    F=$(ls "$T/$name-step"/*.h5 2>/dev/null | head -n 1)
    st=$([ -n "$F" ] && attr "$F" /status); at=$([ -n "$F" ] && attr "$F" /final/diverged_step)
    [ $rc -eq 1 ] && [ "$st" = diverged ] && [ "$at" = 2 ] && grep -q "diverged: loss .*nan at step 2" "$T/$name-step.out"
    check "$name: a NaN parameter before step 2 ends the run diverged at step 2" $? "exit $rc, status ${st:-none}, diverged_step ${at:-none}: $(grep -m1 -E 'diverged|error|^final' "$T/$name-step.out" | cut -c1-160)"
    # shellcheck disable=SC2086
    POSBENCH_FAULT_NAN_EVAL=1 $PB train $cfg --threads 1 --out "$T/$name-eval" > "$T/$name-eval.out" 2>&1; rc=$?
    F=$(ls "$T/$name-eval"/*.h5 2>/dev/null | head -n 1)
    st=$([ -n "$F" ] && attr "$F" /status)
    scores="" # the last value of each /eval score (not epoch, step, loss): NaN, never a 0 read as a score
    for d in $([ -n "$F" ] && h5ls "$F/eval" 2>/dev/null | awk '{print $1}'); do
        case $d in epoch|step|loss) continue ;; esac
        scores="$scores $d=$(h5dump -d "/eval/$d" "$F" 2>/dev/null | sed -n 's/^ *([0-9]*): //p' | tr ',' '\n' | tr -d ' ' | grep . | tail -n 1)"
    done
    [ $rc -eq 1 ] && [ "$st" = diverged ] && grep -q "diverged: test loss" "$T/$name-eval.out" && ! grep -q "^final:" "$T/$name-eval.out" &&
        [ -n "$scores" ] && ! echo "$scores" | tr ' ' '\n' | grep . | grep -qvE '=-?nan$'
    check "$name: a NaN model at the evaluation ends the run diverged, no final numbers, its /eval scores NaN (not 0)" $? "exit $rc, status ${st:-none}, last /eval scores:${scores:- none}: $(grep -m1 -E 'diverged|error|^final' "$T/$name-eval.out" | cut -c1-160)"
done < "$T/cases"
