#!/bin/sh
# tests/e2e_gvp.sh — the GVP reproduction at toy size (`make reproduce-gvp SCALE=smoke` runs
# scripts/reproduce.sh the same way: gvp-order and gvp-segmentation, pretraining then
# finetuning, report and figures) on --device cpu-guarded, gvp-order again on --device cpu
# (bitwise the same files: tests/h5_same.py), the HDF5 record of a GVP run (/samples, /gvp
# masks), an exact resume after a stop mid-epoch (the order and segmentation draws are
# addressed by (seed, epoch, step, image)), finetuning from a GVP run (pixel head and query
# token dropped), and the refusals (objective.groups too large or < 1, segmentation and order
# names, a position encoding without a table, no cls), each exit 2 naming the key.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-gvp.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e gvp: Fashion-MNIST is not installed"; exit 0
fi
start=$(date +%s)
sh scripts/reproduce.sh gvp smoke cpu-guarded "$T/out" > "$T/log" 2>&1; rc=$?
secs=$(( $(date +%s) - start ))
[ $rc -eq 0 ] && [ "$(grep -c '^estimated time' "$T/log")" -eq 3 ] && grep -q 'experiment gvp-segmentation: 22 done, 0 not done' "$T/log" &&
    grep -q 'experiment gvp-ablation: 8 done, 0 not done' "$T/log"
check "reproduce-gvp smoke: every run done, exit 0" $? "exit $rc in ${secs}s; $(grep -E '^experiment .* done' "$T/log" | tr '\n' ' ')"
$PB run bench/experiments/gvp-order.yaml --scale smoke --out "$T/cpu" --device cpu --jobs 2 > "$T/cpu.log" 2>&1
python3 tests/h5_same.py "$T/cpu" "$T/out/gvp-order" > "$T/same" 2>&1 ||
    python3 tests/h5_same.py "$T/cpu/gvp-order" "$T/out/gvp-order" > "$T/same" 2>&1
check "gvp-order smoke: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same")"
F="$T/out/figures"
for fig in 'gvp-segmentation_pretrain_knn_top1-vs-' \
    'gvp-segmentation_finetune_top1-vs-' 'gvp-segmentation_pretrain_samples_'; do
    n_png=$(ls "$F"/"$fig"*.png 2>/dev/null | wc -l); n_svg=$(ls "$F"/"$fig"*.svg 2>/dev/null | wc -l)
    [ "$n_png" -ge 1 ] && [ "$n_png" -eq "$n_svg" ]
    check "reproduce-gvp smoke: figure $fig" $? "$n_png PNG, $n_svg SVG"
done
# GVP Fig. 2: MAE (mm) and both GVP runs on the same test images, the original drawn once:
# original, masked, reconstruction (mm); condition, reconstruction (cm, ts, tsm) = 9 rows
grid=$(ls "$F"/data/gvp-ablation_mm_samples_*_with_cm_ts_tsm.dat 2>/dev/null | head -n 1)
[ -n "$grid" ] && [ -f "$F/$(basename "${grid%.dat}").png" ] && [ -f "$F/$(basename "${grid%.dat}").svg" ] &&
    head -n 1 "$grid" | grep -q ': x y r g b, 9 rows'
check "reproduce-gvp smoke: one reconstruction figure of MAE and GVP (gvp-ablation mm with cm, ts, tsm)" $? "${grid:-no data file}: $(head -n 1 "$grid" 2>/dev/null | cut -c1-300)"
R="$T/out/REPORT.md"
ok=0
for want in '## stage `pretrain` (experiment `gvp-segmentation`)' '## stage `finetune` (experiment `gvp-order`)' \
    'pixel_mse' 'knn_top1' 'paper (other data) knn_top1' '## Findings (experiment `gvp-segmentation`)' \
    '| mixed-length segmentation gives better frozen features than fixed-length (stated per K: 2, 5, 10) |' \
    '## Findings (experiment `gvp-ablation`)' '| mixed length grouping gives better linear-probe features than fixed-length groups (both two-stream) |'; do
    grep -qF "$want" "$R" 2>/dev/null || { ok=1; echo "  missing in REPORT.md: $want"; }
done
check "reproduce-gvp smoke: REPORT.md tables, paper numbers, findings" $ok "$(grep -c '^## ' "$R" 2>/dev/null) sections"

# One run's record: reconstructions and the masks of one drawn segmentation.
H=$(ls "$T"/out/gvp-segmentation/pretrain/*.h5 | head -n 1)
h5dump -H -d /samples/reconstruction "$H" 2>/dev/null | grep -q 'DATASPACE  SIMPLE { ( 2, 1, 28, 28 )' &&
    h5dump -H -d /gvp/query_mask "$H" 2>/dev/null | grep -q '( 49, 50 )' && h5dump -a /final/pixel_mse "$H" > /dev/null 2>&1
check "HDF5: /samples/{original,condition,reconstruction}, /gvp masks, /final/pixel_mse" $? "$(basename "$H")"

# Exact resume: stopped after step 3 of 10 (mid-epoch: 5 steps an epoch) and resumed = one uninterrupted run.
CFG="objective.name=gvp pe.kind=abs objective.groups=5 data.limit=320 data.test_limit=100 train.epochs=2 train.batch=64 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.batch=100 eval.samples=1"
$PB train $CFG --out "$T/whole" > "$T/w.out" 2>&1
$PB train $CFG --out "$T/resumed" --stop-after 3 > "$T/r1.out" 2>&1; rc1=$?
$PB train $CFG --out "$T/resumed" > "$T/r2.out" 2>&1; rc2=$?
python3 tests/h5_same.py "$T/whole" "$T/resumed" > "$T/same2" 2>&1
check "gvp: stopped mid-epoch and resumed = uninterrupted, bit for bit" $? "stop exit $rc1, resume exit $rc2: $(tr '\n' ' ' < "$T/same2")"
W=$(ls "$T"/whole/*.weights)
$PB train objective.name=supervised pe.kind=abs data.limit=320 data.test_limit=100 train.epochs=1 train.batch=64 model.dim=32 \
    model.depth=2 model.heads=2 model.patch=4 --init "$W" --out "$T/ft" > "$T/ft.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^init: .* tensors from .*; fresh: head.weight, head.bias$" "$T/ft.out"
check "finetune from a GVP run: every tensor but the classifier loaded (pixel head, query token dropped)" $? "exit $rc: $(grep '^init' "$T/ft.out")"

# Refusals: exit 2 and a message naming the key and what is valid.
BASE="objective.name=gvp pe.kind=sin2d data.limit=256 data.test_limit=100 train.epochs=1 train.batch=32 model.dim=32 model.depth=2 model.heads=2 model.patch=4"
REFUSE_BASE=$BASE
. tests/refuse_lib.sh
refuse "objective.groups > N (fixed)" "objective.groups=50 cannot be cut from 49 patches" objective.segmentation=fixed objective.groups=50
refuse "objective.groups that mixed cannot fit" "objective.groups=40 cannot be cut from 49 patches: mixed segmentation" objective.segmentation=mixed objective.groups=40
refuse "objective.groups = N with random cuts" "(valid: 1 to 48)" objective.segmentation=random objective.groups=49
refuse "objective.groups < 1" "objective.groups" objective.groups=0
refuse "segmentation name" "objective.segmentation" objective.segmentation=equal
refuse "order name" "objective.order" objective.order=spiral
refuse "pe.kind without a table" "valid with gvp: abs, sin1d, sin2d" pe.kind=rope
refuse "gvp without cls" "model.cls=false (valid with gvp: true)" model.cls=false
