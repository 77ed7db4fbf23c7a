#!/bin/sh
# tests/e2e_mae.sh — MAE end to end on Fashion-MNIST at toy size: a pretraining run and its
# HDF5 record (/samples original / masked / reconstruction, /mae, /final/pixel_mse), the same
# run on --device cpu-guarded bit for bit (the encoder's kept-token gather, the decoder and
# the loss reach memory only through the backend), an exact resume after a stop mid-epoch
# (the masks are addressed by (seed, epoch, step, image)), finetuning from the MAE weights
# (decoder_embed and decoder.* left behind), and the refusals (masking ratio 0, >= 1 or one
# that keeps no patch, decoder keys, encodings inside attention, a gMLP), each exit 2 naming
# the key. The linear probe (eval.linear_probe) on the MAE run (/probe, /final/probe_top1, the
# same on both devices and after the resume) and on a GVP run (the content stream with the
# causal mask, said in /probe's stream attribute; with objective.probe_mask=full the same
# training, the probe reading it with full attention; both protocols recorded in every GVP run as
# probe_causal_* and probe_full_*, two labelled report columns, and the GVP-vs-MAE findings reading
# the full-attention one), and its refusal on an MP3 pretraining run.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-mae.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e mae: Fashion-MNIST is not installed"; exit 0
fi
CFG="objective.name=mae objective.eta=0.75 pe.kind=sin2d mae.decoder_depth=1 mae.decoder_dim=32 train.beta2=0.95 data.limit=320 data.test_limit=100 train.epochs=2 train.batch=64 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.batch=100 eval.samples=2 eval.linear_probe=true eval.probe_train_limit=200 eval.probe_test_limit=100"
$PB train $CFG --out "$T/whole" --threads 2 > "$T/w.out" 2>&1; rc=$?
H=$(ls "$T"/whole/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && grep -q '^final: pixel_mse=' "$T/w.out" &&
    h5dump -H -d /samples/reconstruction "$H" 2>/dev/null | grep -q 'DATASPACE  SIMPLE { ( 2, 1, 28, 28 )' &&
    h5dump -H -d /samples/masked "$H" > /dev/null 2>&1 && h5dump -H -d /samples/original "$H" > /dev/null 2>&1 &&
    h5dump -a /mae/kept_patches "$H" 2>/dev/null | grep -q '(0): 12' && h5dump -a /final/pixel_mse "$H" > /dev/null 2>&1 &&
    h5dump -a /final/pixel_mse_visible "$H" > /dev/null 2>&1
check "mae pretraining run: done, /samples/{original,masked,reconstruction}, /mae/kept_patches 12 of 49, /final/pixel_mse" $? \
    "exit $rc: $(grep '^final' "$T/w.out")"
h5dump -d /probe/top1_cls "$H" 2>/dev/null | grep -q 'SIMPLE { ( 1 )' && h5dump -d /probe/top1_mean "$H" > /dev/null 2>&1 &&
    h5dump -d /probe/iters_mean "$H" 2>/dev/null | grep -Eq '\(0\): [1-9]' &&
    h5dump -a /final/probe_top1 "$H" > /dev/null 2>&1 && h5dump -a /probe/stream "$H" 2>/dev/null | grep -q 'full attention' &&
    grep -q '^linear probe after block 2: top1' "$T/w.out"
check "linear probe on the MAE run: /probe/{top1_cls,top1_mean,iters_mean} of the last block, /final/probe_top1, stream: full attention" $? \
    "$(grep '^linear probe' "$T/w.out")"
$PB train $CFG --out "$T/guarded" --device cpu-guarded --threads 2 > "$T/g.out" 2>&1
python3 tests/h5_same.py "$T/whole" "$T/guarded" > "$T/same0" 2>&1
check "mae: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same0")"
# Exact resume: stopped after step 3 of 10 (5 steps an epoch) and resumed = one uninterrupted run.
$PB train $CFG --out "$T/resumed" --stop-after 3 --threads 2 > "$T/r1.out" 2>&1; rc1=$?
$PB train $CFG --out "$T/resumed" --threads 2 > "$T/r2.out" 2>&1; rc2=$?
python3 tests/h5_same.py "$T/whole" "$T/resumed" > "$T/same" 2>&1
check "mae: stopped mid-epoch and resumed = uninterrupted, bit for bit" $? "stop exit $rc1, resume exit $rc2: $(tr '\n' ' ' < "$T/same")"
W=$(ls "$T"/whole/*.weights)
$PB train objective.name=supervised pe.kind=sin2d data.limit=320 data.test_limit=100 train.epochs=1 train.batch=64 model.dim=32 \
    model.depth=2 model.heads=2 model.patch=4 --init "$W" --out "$T/ft" > "$T/ft.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^init: .* tensors from .*; fresh: head.weight, head.bias$" "$T/ft.out"
check "finetune from an MAE run: every encoder tensor loaded, decoder_embed and decoder.* left behind" $? "exit $rc: $(grep '^init' "$T/ft.out")"

GCFG="objective.name=gvp pe.kind=sin2d objective.groups=5 data.limit=256 data.test_limit=100 train.epochs=1 train.batch=64 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.batch=100 eval.samples=0 eval.linear_probe=true eval.probe_layers=all eval.probe_train_limit=200 eval.probe_test_limit=100"
$PB train $GCFG --out "$T/gvp" --threads 2 > "$T/gvp.out" 2>&1; rc=$?
G=$(ls "$T"/gvp/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && h5dump -a /probe/stream "$G" 2>/dev/null | grep -q 'content stream with the causal' &&
    h5dump -d /probe/top1_cls "$G" 2>/dev/null | grep -q 'SIMPLE { ( 2 )' && h5dump -a /final/probe_best_layer "$G" > /dev/null 2>&1
check "linear probe on a GVP run: every block, the content stream with the causal mask kept (said in /probe stream)" $? \
    "exit $rc: $(grep '^linear probe' "$T/gvp.out" | tr '\n' ' ')"
# objective.probe_mask=full: the same training, the probe reads the content stream with full attention
$PB train $GCFG objective.probe_mask=full --out "$T/gvpf" --threads 2 > "$T/gvpf.out" 2>&1; rc=$?
GF=$(ls "$T"/gvpf/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && h5dump -a /probe/stream "$GF" 2>/dev/null | grep -q 'content stream with full attention' &&
    [ "$(h5dump -a /final/loss "$G" | grep -A1 DATA)" = "$(h5dump -a /final/loss "$GF" | grep -A1 DATA)" ] &&
    [ "$(h5dump -a /final/pixel_mse "$G" | grep -A1 DATA)" = "$(h5dump -a /final/pixel_mse "$GF" | grep -A1 DATA)" ] &&
    [ "$(h5dump -d /probe/top1_mean "$G" | grep -A3 DATA)" != "$(h5dump -d /probe/top1_mean "$GF" | grep -A3 DATA)" ]
check "objective.probe_mask=full: the same training (loss, pixel mse), the probe reads the content stream with full attention (said in /probe stream; other probe accuracies)" $? \
    "exit $rc: causal $(h5dump -d /probe/top1_mean "$G" 2>/dev/null | grep -A2 DATA | tr -s ' \n' ' ') full $(h5dump -d /probe/top1_mean "$GF" 2>/dev/null | grep -A2 DATA | tr -s ' \n' ' ')"
# Both protocols in every GVP run, labelled: probe_causal_* (the mask of pretraining) and
# probe_full_* (full attention, as MAE's probe reads). The causal run's full probe is the full
# run's probe, number for number; the two protocols differ on this tiny trained model.
a() { h5dump -a "/final/$2" "$1" 2>/dev/null | grep -A1 DATA | tail -n 1 | sed 's/.*: //'; }
[ -n "$(a "$G" probe_full_best_top1)" ] && [ "$(a "$G" probe_causal_best_top1)" = "$(a "$G" probe_best_top1)" ] &&
    [ "$(a "$G" probe_full_best_top1)" = "$(a "$GF" probe_best_top1)" ] && [ "$(a "$GF" probe_causal_best_top1)" = "$(a "$G" probe_best_top1)" ] &&
    [ "$(a "$G" probe_full_top1)" = "$(a "$GF" probe_top1)" ] && [ "$(a "$G" probe_causal_best_top1)" != "$(a "$G" probe_full_best_top1)" ] &&
    grep -q '^linear probe, both protocols .*causal mask as in pretraining .*full attention' "$T/gvp.out"
check "a GVP run's linear probe under both protocols (causal $(a "$G" probe_causal_best_top1), full $(a "$G" probe_full_best_top1)): probe_full_* = the probe_mask=full run's probe_*, probe_causal_* = probe_*, and they differ" $? \
    "causal run: $(a "$G" probe_best_top1) / $(a "$G" probe_causal_best_top1) / $(a "$G" probe_full_best_top1); full run: $(a "$GF" probe_best_top1) / $(a "$GF" probe_causal_best_top1)"
$PB report "$T/gvp" > "$T/gvp.rep" 2>&1
grep -q 'best-block linear probe top1, causal mask as in pretraining (%)' "$T/gvp.rep" && grep -q 'best-block linear probe top1, full attention (%)' "$T/gvp.rep"
check "report: the two probe protocols as two labelled columns" $? "$(grep -m1 '^| ' "$T/gvp.rep" | cut -c1-300)"
# The GVP-vs-MAE findings read GVP's full-attention probe (like for like with MAE's).
python3 - <<'PY' > "$T/like.out" 2>&1
import yaml
bad = []
for path, stage in (('bench/experiments/ssl-lecture.yaml', 'gvp_pt'), ('bench/experiments/gvp-ablation.yaml', 'tsm')):
    doc = yaml.safe_load(open(path))
    vs_mae = [f for f in doc['findings'] if f.get('b', {}).get('stage') in ('mae_pt', 'mm') and f['a']['stage'] == stage
              and 'probe' in f['a']['metric']]
    if not vs_mae:
        bad.append(f'{path}: no GVP-vs-MAE probe finding')
    bad += [f"{path}: {f['claim']}: a reads {f['a']['metric']}" for f in vs_mae if f['a']['metric'] != 'probe_full_best_top1']
print('; '.join(bad) or 'ok')
PY
grep -qx ok "$T/like.out"
check "the GVP-vs-MAE linear-probe findings (ssl-lecture, gvp-ablation) read GVP's full-attention probe" $? "$(cat "$T/like.out")"
$PB train objective.name=mp3 pe.kind=none eval.linear_probe=true data.limit=256 --out "$T/r" > "$T/r.out" 2> "$T/r.err"; rc=$?
[ $rc -eq 2 ] && grep -qF "eval.linear_probe=true: an MP3 pretraining run" "$T/r.err"
check "refused: a linear probe on an MP3 pretraining run" $? "exit $rc: $(head -c 300 "$T/r.err")"

# ssl-lecture.yaml (make reproduce-ssl) passes the experiment checker at both scales.
$PB list bench/experiments/ssl-lecture.yaml --scale smoke > "$T/ssl.out" 2>&1 && $PB list bench/experiments/ssl-lecture.yaml > "$T/ssl2.out" 2>&1 &&
    grep -q "^total: 14 runs" "$T/ssl.out" && grep -q "^total: 42 runs" "$T/ssl2.out"
check "ssl-lecture.yaml: checked, 14 runs at smoke, 42 at small (supervised_matched included)" $? "$(tail -n 1 "$T/ssl.out") / $(tail -n 1 "$T/ssl2.out")"

REFUSE_BASE=$CFG
. tests/refuse_lib.sh
refuse "masking ratio 0" "objective.eta=0: objective.name=mae predicts the masked patches" objective.eta=0
refuse "masking ratio 1" "objective.eta" objective.eta=1
refuse "a ratio that keeps no patch" "objective.eta=0.99: objective.name=mae keeps round((1-eta)*N) = 0 of the N = 49" objective.eta=0.99
refuse "odd decoder width" "mae.decoder_dim=31" mae.decoder_dim=31
refuse "decoder width not a multiple of the heads" "mae.decoder_dim=6" mae.decoder_dim=6 model.heads=4
refuse "decoder depth 0" "mae.decoder_depth" mae.decoder_depth=0
refuse "rope inside attention" "valid with mae: none, abs, sin1d, sin2d, cape" pe.kind=rope
refuse "a gMLP encoder" "model.arch=gmlp" model.arch=gmlp
