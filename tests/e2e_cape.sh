#!/bin/sh
# tests/e2e_cape.sh — position encodings and resolutions end to end on real Fashion-MNIST:
# the CAPE reproduction at toy size (`make reproduce-cape SCALE=smoke` runs
# scripts/reproduce.sh the same way: every encoding trained at 28 px and tested at 16..56 px
# with TTA, single-size models vs UniViT, the augmentation sweeps, report and figures), the
# HDF5 record of a multi-size evaluation, and the refusals (sizes the patch does not divide,
# MP3 at several sizes), each exit 2 naming the key; and cape-speech (1D CAPE on synthesized
# keyword spotting, tested on longer and time-stretched clips).
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-cape.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e cape: Fashion-MNIST is not installed"; exit 0
fi
start=$(date +%s)
sh scripts/reproduce.sh cape smoke cpu-guarded "$T/out" > "$T/log" 2>&1; rc=$?
secs=$(( $(date +%s) - start ))
[ $rc -eq 0 ] && [ "$(grep -c '^estimated time' "$T/log")" -eq 4 ]
check "reproduce-cape smoke: every run done, exit 0" $? "exit $rc in ${secs}s; $(grep -E '^experiment .* done' "$T/log" | tr '\n' ' ')"
# The runs went through the guarded CPU backend; cape-resolution again on the plain CPU backend
# must give the same files bit for bit.
$PB run bench/experiments/cape-resolution.yaml --scale smoke --out "$T/cpu" --device cpu --jobs 2 > "$T/cpu.log" 2>&1
python3 tests/h5_same.py "$T/cpu" "$T/out" > "$T/same" 2>&1
check "cape-resolution smoke: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same")"
# A model trained at 28 px evaluates at 40 px for every encoding (none abs sin2d cape relbias rope).
n40=$(cat "$T"/out/cape-resolution/vit/*.log | grep -c '^test at 40x40 px: top1 [0-9]*\.[0-9]*%')
[ "$n40" -ge 6 ]
check "every encoding trained at 28 px evaluates at 40 px" $? "$n40 runs tested at 40 px"
F="$T/out/figures"
for fig in 'cape-resolution_vit_resolution-top1-vs-size' 'cape-resolution_vit_resolution-tta_top1-vs-size' \
    'cape-resolution_vit_resolution-images_per_s-vs-size' 'cape-resolution_vit_resolution-top1-vs-images_per_s' 'cape-univit_univit_resolution-top1-vs-size' 'cape-univit_single_resolution-top1-vs-size' \
    'cape-augment_scale_top1_56-vs-' 'cape-speech_kws_speech_duration-top1-vs-seconds' 'cape-speech_kws_speech_rate-top1-vs-rate'; do
    n_png=$(ls "$F"/"$fig"*.png 2>/dev/null | wc -l); n_svg=$(ls "$F"/"$fig"*.svg 2>/dev/null | wc -l)
    [ "$n_png" -ge 1 ] && [ "$n_png" -eq "$n_svg" ]
    check "reproduce-cape smoke: figure $fig" $? "$n_png PNG, $n_svg SVG"
done
R="$T/out/REPORT.md"
ok=0
for want in '## stage `vit` (experiment `cape-resolution`)' '## stage `univit` (experiment `cape-univit`)' \
    'test top-1 (%) by evaluation image size' 'test top-1 (%) with test-time augmentation' '| 56 px |' \
    'evaluation throughput (images/s' 'paper (other data) tta_top1' '## Findings (experiment `cape-resolution`)' \
    '## Findings (experiment `cape-univit`)' '| CAPE generalises better than abs to a larger size (56 px, 2x the training size) |'; do
    grep -qF "$want" "$R" 2>/dev/null || { ok=1; echo "  missing in REPORT.md: $want"; }
done
check "reproduce-cape smoke: REPORT.md per-size tables, paper numbers, findings" $ok "$(grep -c '^## ' "$R" 2>/dev/null) sections"
# Every finding got a verdict from measured numbers (none "not measured").
nm=$(grep -c 'not measured' "$R")
[ "$nm" -eq 0 ]
check "reproduce-cape smoke: every finding measured" $? "$nm not measured"

# The HDF5 record of one run: /resolution arrays and the per-size /final scalars.
H=$(ls "$T"/out/cape-resolution/vit/*.h5 | head -n 1)
h5dump -d /resolution/size "$H" 2>/dev/null | grep -q '16, 28, 40, 56' && h5dump -a /final/top1@40 "$H" > /dev/null 2>&1 &&
    h5dump -d /resolution/tta_top1 "$H" > /dev/null 2>&1 && h5dump -a /final/images_per_s@56 "$H" > /dev/null 2>&1
check "HDF5: /resolution/{size,top1,tta_top1,images_per_s} and /final top1@S" $? "$(basename "$H")"

# cape-speech (1D CAPE, positions in seconds): every 1D encoding tested at 1, 2, 4 s and at 0.8x,
# 1.0x, 1.25x; the /speech_duration and /speech_rate records and the /final scalars; its findings.
S=$(ls "$T"/out/cape-speech/kws/*.h5 2>/dev/null | head -n 1)
nsp=$(ls "$T"/out/cape-speech/kws/*.h5 2>/dev/null | wc -l)
[ "$nsp" -eq 5 ] && h5dump -d /speech_duration/frames "$S" 2>/dev/null | grep -q '100, 200, 400' &&
    h5dump -d /speech_rate/frames "$S" 2>/dev/null | grep -q '125, 100, 80' && h5dump -a /final/top1_dur4s "$S" > /dev/null 2>&1 &&
    h5dump -a /final/top1_rate125 "$S" > /dev/null 2>&1 && h5dump -a /final/best_step "$S" > /dev/null 2>&1 &&
    grep -qF '| CAPE generalises better than abs to longer clips (4 s, 4x the training duration) |' "$R"
check "cape-speech smoke: 5 encodings, /speech_duration and /speech_rate frames, /final top1_dur4s top1_rate125 best_step, findings" $? "$nsp runs; $(basename "$S")"

# Refusals: exit 2 and a message naming the key and what is valid.
CFG="data.limit=256 data.test_limit=100 train.epochs=1 train.batch=32 model.dim=32 model.depth=2 model.heads=2 model.patch=4"
REFUSE_BASE=$CFG
. tests/refuse_lib.sh
refuse "eval size the patch does not divide" "eval.resolutions: image size 30 is not a multiple of model.patch=4" eval.resolutions=28,30
refuse "UniViT size the patch does not divide" "data.resolutions: image size 18 is not a multiple of model.patch=4" data.resolutions=16,18
refuse "TTA neighbour the patch does not divide" "eval.tta_delta=2 around eval.resolutions 28" eval.resolutions=28 eval.tta_delta=2
refuse "MP3 at several sizes" "objective.name=mp3 trains and evaluates at one size (it predicts one of the positions of the training grid)" objective.name=mp3 pe.kind=none eval.resolutions=28,40
refuse "rope with an odd head size" "pe.kind=rope" pe.kind=rope model.dim=36 model.heads=6
refuse "a malformed size list" "eval.resolutions: '28,x' is not a list of" eval.resolutions=28,x
refuse "speech durations on images" "eval.speech_durations and eval.speech_rates evaluate speech clips" eval.speech_durations=2
ls "$T"/r/*.h5 > /dev/null 2>&1
[ $? -ne 0 ]
check "refusals write no results" $? "$(ls "$T"/r 2>/dev/null | wc -l) files"
