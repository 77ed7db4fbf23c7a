#!/bin/sh
# tests/e2e_knn_controls.sh — the kNN probe's two controls (MP3 Fig. 9 is read against them), on
# an MP3 pretraining run at toy size: the probe on the raw pixels equals an independent
# implementation of the documented rule (tests/knn_reference.py) to 6 digits, top-1 and top-5;
# the probe at random initialisation depends on the seed only (the same for two learning
# rates), not on training; the trained weights are restored afterwards (the attention maps
# recorded after the probe are bitwise those of the same run without the probe); cpu-guarded
# gives the same file bit for bit (the re-initialisation and restore go through the backend).
# The layer and feature are chosen on the 20 validation images beyond the 300-image bank
# (objectives/probe_select.h): /final/knn_top1 is the test top-1 at the validation argmax.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-knn.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e knn controls: Fashion-MNIST is not installed"; exit 0
fi
CFG="data.limit=320 data.test_limit=100 train.epochs=1 train.batch=64 eval.batch=100 model.dim=16 model.depth=2 model.heads=2 model.patch=7 objective.name=mp3 pe.kind=none eval.knn_train_limit=300 eval.knn_test_limit=100 eval.probe_val_images=20"
attr() { h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): //p'; }
one() { ls "$1"/*.h5 2>/dev/null | head -n 1; }
$PB train $CFG eval.knn=true --threads 2 --out "$T/a" > "$T/a.log" 2>&1; rc=$?
A=$(one "$T/a")
ref=$(/usr/bin/python3 tests/knn_reference.py 300 100 20 0.07 2>&1)
got="$(printf '%.6f' "$(attr "$A" /final/knn_pixels_top1)") $(printf '%.6f' "$(attr "$A" /knn/pixels_top5)")"
[ $rc -eq 0 ] && [ "$got" = "$ref" ]
check "kNN on raw pixels = the independent reference (top-1, top-5 of 100 test images)" $? "exit $rc: posbench $got, reference $ref"
vals() { h5dump -w 0 -d "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): //p' | tr -d ' '; }
chosen=$(/usr/bin/python3 - "$(vals "$A" /knn/val_top1)" "$(vals "$A" /knn/val_top1_cls)" "$(vals "$A" /knn/top1)" "$(vals "$A" /knn/top1_cls)" <<'PY'
import sys
val = [[float(v) for v in a.split(",")] for a in sys.argv[1:3]]
test = [[float(v) for v in a.split(",")] for a in sys.argv[3:5]]
best = None
for l in range(len(val[0])):
    for f in range(2):
        if best is None or val[f][l] >= val[best[1]][best[0]]:
            best = (l, f)
print(best[0] + 1, ["mean", "cls"][best[1]], "%.6f" % test[best[1]][best[0]])
PY
)
got="$(attr "$A" /knn/layer) $(attr "$A" /knn/feature | tr -d '"') $(printf '%.6f' "$(attr "$A" /final/knn_top1)")"
[ -n "$chosen" ] && [ "$got" = "$chosen" ] && [ "$(attr "$A" /knn/val_images)" = 20 ] && [ "$(attr "$A" /final/knn_best_layer)" = "$(attr "$A" /knn/layer)" ]
check "kNN layer and feature chosen on validation: /final/knn_top1 is the test top-1 at the validation argmax (20 validation images)" $? \
    "recorded '$got', validation argmax '$chosen'"
$PB train data.limit=30 data.test_limit=20 train.epochs=1 train.batch=16 model.dim=16 model.depth=1 model.heads=2 model.patch=7 eval.knn=true eval.knn_k=28 --threads 2 --out "$T/r" > "$T/r.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "eval.probe_val_images" "$T/r.log" && ! grep -q "^epoch" "$T/r.log"
check "a bank too small for eval.knn_k after the validation split is refused before training (exit 2, naming the key)" $? \
    "exit $rc: $(tail -n 1 "$T/r.log")"
$PB train $CFG eval.knn=true train.lr=3e-3 --threads 2 --out "$T/b" > "$T/b.log" 2>&1; rc=$?
B=$(one "$T/b")
ia=$(h5dump -d /knn/init_top1 "$A" 2>/dev/null | grep '(0)'); ib=$(h5dump -d /knn/init_top1 "$B" 2>/dev/null | grep '(0)')
ta=$(h5dump -d /knn/top1 "$A" 2>/dev/null | grep '(0)'); tb=$(h5dump -d /knn/top1 "$B" 2>/dev/null | grep '(0)')
[ $rc -eq 0 ] && [ -n "$ia" ] && [ "$ia" = "$ib" ] && [ "$ta" != "$tb" ] && [ -n "$(attr "$A" /final/knn_init_top1)" ]
check "kNN at initialisation depends on the seed only: the same for lr 1e-3 and 3e-3, whose trained probes differ" $? \
    "init ${ia# *} / ${ib# *}; trained ${ta# *} / ${tb# *}"
$PB train $CFG eval.knn=false --threads 2 --out "$T/c" > "$T/c.log" 2>&1; rc=$?
C=$(one "$T/c")
h5dump -d /attention/relmap "$A" 2>/dev/null | sed 1d > "$T/ra"; h5dump -d /attention/relmap "$C" 2>/dev/null | sed 1d > "$T/rc"
[ $rc -eq 0 ] && [ -s "$T/ra" ] && cmp -s "$T/ra" "$T/rc" && [ "$(attr "$A" /final/pos_top1)" = "$(attr "$C" /final/pos_top1)" ]
check "the trained weights are restored after the controls: attention maps and position accuracy as without the probe" $? \
    "exit $rc, pos_top1 $(attr "$A" /final/pos_top1) / $(attr "$C" /final/pos_top1)"
$PB train $CFG eval.knn=true --device cpu-guarded --threads 2 --out "$T/g" > "$T/g.log" 2>&1; rc=$?
same=$(/usr/bin/python3 tests/h5_same.py "$T/a" "$T/g" 2>&1 | tail -n 1)
[ $rc -eq 0 ] && [ "$same" = "1/1 identical" ]
check "kNN controls on cpu-guarded: the same file bit for bit" $? "exit $rc: $same"
