#!/bin/sh
# tests/e2e_simclr.sh — SimCLR end to end on Fashion-MNIST at toy size (patch 7: 16 tokens):
# a pretraining run and its HDF5 record (status done, /simclr, /final contrastive_top1,
# contrastive_loss and knn_top1: the kNN probe of the backbone feature; the lecture's /views),
# its loss finite and lower after a few epochs (the NT-Xent on the fixed test views every
# epoch, and the training loss of the last epoch's steps against the first epoch's), the same
# run on --device cpu-guarded bit for bit (the augmented views, the projection head and NT-Xent
# reach memory only through the backend), an exact resume after a stop mid-epoch (the views
# are addressed by (seed, epoch, step, image)), simclr.pool=mean on a model without cls,
# finetuning from the SimCLR weights (proj.* left behind), and the refusals, each exit 2
# naming the key: train.accumulate > 1 (and a run across 2 ranks under mpirun), a pool that does not match model.cls, keys out of
# range, train.batch=1, data.resolutions.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-simclr.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e simclr: Fashion-MNIST is not installed"; exit 0
fi
CFG="objective.name=simclr simclr.temperature=0.5 data.limit=256 data.test_limit=64 train.epochs=5 train.batch=32 model.dim=32 model.depth=2 model.heads=2 model.patch=7 eval.batch=64 eval.knn=true eval.knn_train_limit=200 eval.knn_test_limit=64"
$PB train $CFG --out "$T/whole" --threads 2 > "$T/w.out" 2>&1; rc=$?
H=$(ls "$T"/whole/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && grep -q '^final: contrastive_top1=' "$T/w.out" &&
    h5dump -a /status "$H" 2>/dev/null | grep -q '"done"' &&
    h5dump -a /simclr/temperature "$H" 2>/dev/null | grep -q '(0): 0.5' &&
    h5dump -a /simclr/views_per_image "$H" 2>/dev/null | grep -q '(0): 2' &&
    h5dump -a /final/contrastive_top1 "$H" > /dev/null 2>&1 && h5dump -a /final/contrastive_loss "$H" > /dev/null 2>&1 &&
    h5dump -a /final/knn_top1 "$H" > /dev/null 2>&1 && grep -q '^kNN probe chosen' "$T/w.out"
check "simclr pretraining run: status done, /simclr, /final contrastive_top1, contrastive_loss, knn_top1" $? \
    "exit $rc: $(grep -E '^final|^kNN probe chosen' "$T/w.out" | tr '\n' ' ')"
h5dump -H -d /views/cls_attention "$H" > /dev/null 2>&1 && h5dump -a /final/foreground_attention "$H" > /dev/null 2>&1
check "simclr run: the lecture's views recorded (/views/cls_attention, /final/foreground_attention)" $? "$(h5dump -H -d /views/cls_attention "$H" 2>&1 | grep DATASPACE)"
# The test NT-Xent (fixed views) after epoch 1 and after the last; the training loss averaged
# over the first epoch's 8 steps and over the last epoch's.
first=$(sed -n 's/^epoch 1\/5 .*(NT-Xent \([0-9.]*\)).*/\1/p' "$T/w.out")
last=$(sed -n 's/^epoch 5\/5 .*(NT-Xent \([0-9.]*\)).*/\1/p' "$T/w.out")
awk -v a="$first" -v b="$last" 'BEGIN { exit !(a != "" && b != "" && b + 0 < a + 0 && b + 0 > 0) }'
check "simclr: test NT-Xent on fixed views lower after 5 epochs than after 1" $? "epoch 1: $first, epoch 5: $last"
h5dump -y -w 0 -d /train/loss "$H" 2>/dev/null | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr -s ' ,' '\n\n' | sed '/^$/d' > "$T/losses"
awk 'NR <= 8 { a += $1 } NR > 32 { b += $1 } $1 != $1 + 0 || $1 + 0 > 1e30 { bad = 1 }
     END { printf "first epoch mean %.4f, last epoch mean %.4f over %d steps\n", a / 8, b / 8, NR;
           exit !(NR == 40 && !bad && b < a) }' "$T/losses" > "$T/lossmsg"
check "simclr: training loss finite, its last epoch's mean below its first epoch's" $? "$(cat "$T/lossmsg")"
$PB train $CFG --out "$T/guarded" --device cpu-guarded --threads 2 > "$T/g.out" 2>&1
python3 tests/h5_same.py "$T/whole" "$T/guarded" > "$T/same0" 2>&1
check "simclr: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same0")"
# Exact resume: stopped after step 12 of 40 (8 steps an epoch) and resumed = one uninterrupted run.
$PB train $CFG --out "$T/resumed" --stop-after 12 --threads 2 > "$T/r1.out" 2>&1; rc1=$?
$PB train $CFG --out "$T/resumed" --threads 2 > "$T/r2.out" 2>&1; rc2=$?
python3 tests/h5_same.py "$T/whole" "$T/resumed" > "$T/same" 2>&1
check "simclr: stopped mid-epoch and resumed = uninterrupted, bit for bit" $? "stop exit $rc1, resume exit $rc2: $(tr '\n' ' ' < "$T/same")"
$PB train objective.name=simclr simclr.pool=mean model.cls=false data.limit=128 data.test_limit=32 train.epochs=1 train.batch=32 \
    model.dim=32 model.depth=2 model.heads=2 model.patch=7 eval.batch=64 --out "$T/mean" --threads 2 > "$T/m.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^final: contrastive_top1=' "$T/m.out"
check "simclr.pool=mean on a model without cls: a run finishes" $? "exit $rc: $(grep '^final' "$T/m.out")"
W=$(ls "$T"/whole/*.weights)
$PB train objective.name=supervised data.limit=128 data.test_limit=32 train.epochs=1 train.batch=32 model.dim=32 \
    model.depth=2 model.heads=2 model.patch=7 --init "$W" --out "$T/ft" > "$T/ft.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^init: .* tensors from .*; fresh: head.weight, head.bias$" "$T/ft.out"
check "finetune from a SimCLR run: every backbone tensor loaded, proj.* left behind" $? "exit $rc: $(grep '^init' "$T/ft.out")"

REFUSE_BASE=$CFG
. tests/refuse_lib.sh
refuse "train.accumulate=2 (NT-Xent couples the batch)" "train.accumulate=2" train.accumulate=2
refuse "simclr.pool=cls without a cls token" "simclr.pool=cls" model.cls=false
refuse "simclr.pool=mean with a cls token" "simclr.pool=mean" simclr.pool=mean
refuse "simclr.pool not a choice" "simclr.pool" simclr.pool=max
refuse "temperature 0" "simclr.temperature" simclr.temperature=0
refuse "projection width 0" "simclr.proj_dim" simclr.proj_dim=0
refuse "colour strength above 2.5" "simclr.color_strength" simclr.color_strength=3
refuse "train.batch=1" "train.batch=1" train.batch=1
refuse "data.resolutions" "data.resolutions" "data.resolutions=[14,28]"
if command -v mpirun > /dev/null 2>&1 && ldd "$PB" 2>/dev/null | grep -q libmpi; then
    # shellcheck disable=SC2086
    timeout 300 mpirun -np 2 --oversubscribe --allow-run-as-root --bind-to none $PB train $(without_keys train.accumulate=2) \
        train.accumulate=2 --threads 1 --out "$T/r" > "$T/mpi.out" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -qF "a run across 2 ranks (train.accumulate=2): objective.name=simclr" "$T/mpi.out"
    check "refused: a run across 2 ranks (mpirun)" $? "exit $rc: $(grep -m 1 'posbench: error' "$T/mpi.out")"
else
    echo "SKIP refused: a run across 2 ranks: no mpirun, or $PB built without MPI"
fi
