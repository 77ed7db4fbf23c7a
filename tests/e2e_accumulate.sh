#!/bin/sh
# tests/e2e_accumulate.sh — train.accumulate (bench/train/train_step.c) end to end on real
# Fashion-MNIST: the default keeps the run id, accumulate=2 is deterministic and equals
# accumulate=1 within float rounding (the same batches, masks, augmentations and drop path;
# only the summation differs) for the supervised, MP3 and MAE objectives and for GVP's random and
# mixed segmentations (micro-batches weighted by their predicted patches), a run stopped mid-epoch
# resumes exactly, dropout's masks are the whole batch's (model.dropout=0.1 within rounding too),
# and bad settings are refused with exit 2 naming the key.
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them).
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-accumulate.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e accumulate: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
# 256 training images, batch 32: 8 steps an epoch, 16 in all; drop path, crop and flip on (defaults).
BASE="data.limit=256 data.test_limit=100 train.epochs=2 train.batch=32 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.position_limit=50 eval.samples=0"
CMP=tests/h5_series_compare.py
file() { ls "$1"/*.h5 2>/dev/null | head -n 1; }

$PB train $BASE --threads 1 --out "$T/d" >/dev/null 2>&1
$PB train $BASE train.accumulate=1 --threads 1 --out "$T/d1" >/dev/null 2>&1
[ -n "$(file "$T/d")" ] && [ "$(basename "$(file "$T/d")")" = "$(basename "$(file "$T/d1")")" ]
check "train.accumulate=1 (the default) keeps the run id" $? "$(basename "$(file "$T/d")") vs $(basename "$(file "$T/d1")")"

for obj in supervised mp3 mae; do
    case $obj in
        supervised) CFG="$BASE" ;;
        mp3) CFG="$BASE objective.name=mp3 pe.kind=none objective.eta=0.5" ;;
        mae) CFG="$BASE objective.name=mae objective.eta=0.75 mae.decoder_dim=32 mae.decoder_depth=1" ;;
    esac
    $PB train $CFG --threads 1 --out "$T/$obj-1" >/dev/null 2>"$T/$obj-1.err"
    $PB train $CFG train.accumulate=2 --threads 1 --out "$T/$obj-2" >/dev/null 2>"$T/$obj-2.err"
    $PB train $CFG train.accumulate=2 --threads 1 --out "$T/$obj-2b" >/dev/null 2>&1
    A=$(file "$T/$obj-1") B=$(file "$T/$obj-2") C=$(file "$T/$obj-2b")
    out=$(python3 $CMP --bitwise "$B" "$C" 2>&1)
    check "$obj: train.accumulate=2 is deterministic (bitwise, two runs)" $? "$out"
    out=$(python3 $CMP --rtol 1e-4 "$A" "$B" 2>&1)
    check "$obj: train.accumulate=2 equals train.accumulate=1 within float rounding" $? "$out"
done

# GVP with random and mixed (its default) segmentations averages its loss over the predicted
# patches, a number that varies per image: the micro-batches are weighted by their share of the
# batch's predicted patches (objective_kind.train_loss_terms), so accumulate=2 equals
# accumulate=1 within float rounding (measured: 3.3e-9 relative on the losses; equal weights
# 1/2 gave 2e-4 on mixed's first loss and 9e-4 on random's). 1e-6 relative on every loss, gradient norm
# and evaluation.
for seg in mixed random; do
    CFG="$BASE objective.name=gvp objective.segmentation=$seg"
    $PB train $CFG --threads 1 --out "$T/gvp-$seg-1" >/dev/null 2>&1
    $PB train $CFG train.accumulate=2 --threads 1 --out "$T/gvp-$seg-2" >/dev/null 2>&1
    out=$(python3 $CMP --rtol 1e-6 "$(file "$T/gvp-$seg-1")" "$(file "$T/gvp-$seg-2")" 2>&1)
    check "gvp segmentation=$seg: train.accumulate=2 equals train.accumulate=1 within 1e-6 relative" $? "$out"
done

# Resume: stopped after step 5 (mid-epoch), rerun, equal to the uninterrupted run bitwise.
CFG="$BASE objective.name=mp3 pe.kind=none train.accumulate=2"
$PB train $CFG --threads 1 --out "$T/r" --stop-after 5 >/dev/null 2>&1
$PB train $CFG --threads 1 --out "$T/r" >"$T/r.out" 2>&1
out=$(python3 $CMP --bitwise --weights "$(file "$T/mp3-2")" "$(file "$T/r")" 2>&1)
[ $? -eq 0 ] && grep -q "resuming run .* from step 5" "$T/r.out"
check "train.accumulate=2 resumes exactly after a stop mid-epoch" $? "$out"

$PB train $BASE train.accumulate=3 --threads 1 --out "$T/bad" >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "train.accumulate=3 must divide train.batch=32" "$T/bad.err"
check "train.accumulate that does not divide train.batch: exit 2 naming the keys" $? "exit $rc: $(head -c 200 "$T/bad.err")"
# Dropout: each mask element is drawn by its place in the whole batch's tensor, so the
# micro-batches draw the whole batch's masks (a mask drawn per micro-batch differs by far more).
$PB train $BASE model.dropout=0.1 --threads 1 --out "$T/drop-1" >/dev/null 2>&1
$PB train $BASE model.dropout=0.1 train.accumulate=2 --threads 1 --out "$T/drop-2" >"$T/drop-2.out" 2>&1; rc=$?
out=$(python3 $CMP --rtol 1e-4 "$(file "$T/drop-1")" "$(file "$T/drop-2")" 2>&1); same=$?
[ $rc -eq 0 ] && [ $same -eq 0 ]
check "model.dropout=0.1: train.accumulate=2 equals train.accumulate=1 within float rounding" $? "exit $rc; $out"
$PB train $BASE train.accumulate=0 --threads 1 --out "$T/bad" >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "train.accumulate" "$T/bad.err"
check "train.accumulate=0: exit 2 naming the key" $? "exit $rc: $(head -c 200 "$T/bad.err")"
[ ! -e "$T/bad" ] || [ -z "$(ls "$T/bad")" ]
check "bad input writes nothing" $? "$(ls "$T/bad" 2>/dev/null | tr '\n' ' ')"
