#!/bin/sh
# tests/e2e_views.sh — the lecture's views (/views, docs/views.md) end to end on Fashion-MNIST at
# toy size: a supervised run records /views with the documented shapes and finite values,
# consistent with /attention and with its own images (tests/views_check.py); the same run on
# --device cpu-guarded is the same bit for bit (the views' forward reaches backend memory only
# through the backend); MAE (kept tokens, a smaller full-attention batch), MP3 (masked
# attention) and GVP (two streams) pretraining runs record them too; a model without [CLS]
# says in the file what is absent and why, and so does a gMLP; eval.view_images=0 records
# nothing; `posbench plot` draws both figure kinds (cls_attention, key_pca) with methods side
# by side (with:) as non-empty PNG and SVG files.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-views.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e views: Fashion-MNIST is not installed"; exit 0
fi
TINY="data.limit=256 train.epochs=1 train.batch=64 model.dim=32 model.depth=2 model.heads=2 model.patch=4"
# shape FILE DATASET: "(a, b, ...)" as h5dump prints it, or "" when absent
shape() { h5dump -H -d "$2" "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { \(( [0-9, ]* )\).*/\1/p'; }

# 8 test images and 8 view images: /attention/cls_map (the first 64 test images) covers the same ones.
$PB train objective.name=supervised pe.kind=sin2d data.test_limit=8 eval.view_images=8 eval.batch=100 $TINY --out "$T/sup" --threads 2 > "$T/sup.out" 2>&1; rc=$?
H=$(ls "$T"/sup/*.h5 2>/dev/null | head -n 1)
got="$(shape "$H" /views/cls_attention) $(shape "$H" /views/foreground_attention) $(shape "$H" /views/key_pca) $(shape "$H" /views/images) $(shape "$H" /views/image_index) $(shape "$H" /views/foreground_mask) $(shape "$H" /views/key_pca_variance)"
[ $rc -eq 0 ] && [ "$got" = "( 8, 2, 7, 7 ) ( 2 ) ( 2, 8, 7, 7, 3 ) ( 8, 1, 28, 28 ) ( 8 ) ( 8, 7, 7 ) ( 2, 3 )" ] &&
    h5dump -a /final/foreground_attention "$H" > /dev/null 2>&1 && h5dump -a /views/foreground_attention "$H" > /dev/null 2>&1 &&
    grep -q '^views: \[CLS\] attention on non-blank patches' "$T/sup.out"
check "supervised run: /views cls_attention (N,H,gh,gw), foreground_attention (H) + attribute + /final, key_pca (L,N,gh,gw,3), images, index, mask" $? \
    "exit $rc: $got"
/usr/bin/python3 tests/views_check.py "$H" > "$T/check" 2>&1
check "supervised run: /views finite, mask from the images, maps consistent with /attention/cls_map, foreground share recomputed" $? \
    "$(tr '\n' ' ' < "$T/check")"
h5dump -d /views/image_index "$H" 2>/dev/null | grep -q '(0): 0, 1, 2, 3, 4, 5, 6, 7'
check "the view images are the first N test images (/views/image_index 0..7)" $? "$(h5dump -d /views/image_index "$H" 2>/dev/null | grep '(0)')"
$PB train objective.name=supervised pe.kind=sin2d data.test_limit=8 eval.view_images=8 eval.batch=100 $TINY --out "$T/guarded" --device cpu-guarded --threads 2 \
    > "$T/g.out" 2>&1
python3 tests/h5_same.py "$T/sup" "$T/guarded" > "$T/same" 2>&1
check "supervised run with views: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same")"

# Pretraining objectives: the views' forward runs full attention over every token. MAE's arena
# holds 64 images of 13 kept tokens: 4 at a time with all 50, so its 5 view images take two forwards.
ok=0; msg=""
MAE="objective.name=mae objective.eta=0.75 pe.kind=sin2d mae.decoder_depth=1 mae.decoder_dim=32 eval.batch=64"
for obj in "$MAE" "objective.name=mp3 objective.eta=0.5 pe.kind=none eval.batch=100" \
           "objective.name=gvp objective.groups=5 pe.kind=sin2d eval.samples=0 eval.batch=100"; do
    name=$(echo "$obj" | sed 's/objective.name=\([a-z0-9]*\).*/\1/')
    # shellcheck disable=SC2086
    $PB train $obj data.test_limit=5 eval.view_images=5 $TINY --out "$T/$name" --threads 2 > "$T/$name.out" 2>&1; rc=$?
    F=$(ls "$T/$name"/*.h5 2>/dev/null | head -n 1)
    got="$(shape "$F" /views/cls_attention) $(shape "$F" /views/key_pca)"
    msg="$msg $name: exit $rc $got;"
    [ $rc -eq 0 ] && [ "$got" = "( 5, 2, 7, 7 ) ( 2, 5, 7, 7, 3 )" ] && /usr/bin/python3 tests/views_check.py "$F" > "$T/$name.check" 2>&1 &&
        ! grep -q FAIL "$T/$name.check" || { ok=1; msg="$msg $(grep FAIL "$T/$name.check" | head -n 2 | tr '\n' ' ')"; }
done
check "mae, mp3 and gvp pretraining runs record /views (5 images) with consistent values" $ok "$msg"
$PB train $MAE data.test_limit=5 eval.view_images=5 $TINY \
    --out "$T/mae_guarded" --device cpu-guarded --threads 2 > "$T/mg.out" 2>&1
python3 tests/h5_same.py "$T/mae" "$T/mae_guarded" > "$T/same2" 2>&1
check "mae run with views: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same2")"

# What is absent, and why, is said in the file.
$PB train objective.name=supervised pe.kind=sin2d model.cls=false data.test_limit=100 eval.view_images=4 eval.batch=100 $TINY --out "$T/nocls" --threads 2 \
    > "$T/nocls.out" 2>&1; rc=$?
F=$(ls "$T"/nocls/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -z "$(shape "$F" /views/cls_attention)" ] && [ "$(shape "$F" /views/key_pca)" = "( 2, 4, 7, 7, 3 )" ] &&
    h5dump -a /views/absent "$F" 2>/dev/null | grep -q 'no \[CLS\] token' && ! h5dump -a /final/foreground_attention "$F" > /dev/null 2>&1
check "model.cls=false: no cls_attention, the key PCA kept, /views absent says why" $? "exit $rc: $(h5dump -a /views/absent "$F" 2>/dev/null | grep '(0)')"
$PB train objective.name=supervised model.arch=gmlp pe.kind=none data.test_limit=100 eval.batch=100 $TINY --out "$T/gmlp" --threads 2 > "$T/gmlp.out" 2>&1; rc=$?
F=$(ls "$T"/gmlp/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && h5dump -a /views/absent "$F" 2>/dev/null | grep -q 'no attention' && [ -z "$(shape "$F" /views/key_pca)" ]
check "gmlp: no views, /views absent says why" $? "exit $rc: $(h5dump -a /views/absent "$F" 2>/dev/null | grep '(0)')"
if [ -f data/kjv.txt ]; then # text (make data/kjv.txt): no image patches
    head -c 20000 data/kjv.txt > "$T/slice.txt"
    $PB train data.name=text data.path="$T/slice.txt" objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1 model.heads=2 \
        data.seq_len=32 data.limit=32 data.test_limit=20 train.batch=16 train.epochs=1 eval.batch=20 pe.kind=sin1d --out "$T/text" > "$T/text.out" 2>&1; rc=$?
    F=$(ls "$T"/text/*.h5 2>/dev/null | head -n 1)
    [ $rc -eq 0 ] && h5dump -a /views/absent "$F" 2>/dev/null | grep -q 'not an image' && [ -z "$(shape "$F" /views/key_pca)" ]
    check "text (mlm): no views, /views absent says why" $? "exit $rc: $(h5dump -a /views/absent "$F" 2>/dev/null | grep '(0)')"
fi
$PB train objective.name=supervised pe.kind=sin2d data.test_limit=100 eval.view_images=0 eval.batch=100 $TINY --out "$T/off" --threads 2 > "$T/off.out" 2>&1; rc=$?
F=$(ls "$T"/off/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && ! h5dump -H -g /views "$F" > /dev/null 2>&1
check "eval.view_images=0: no /views group" $? "exit $rc"

# posbench plot: both kinds, methods side by side.
if command -v gnuplot > /dev/null 2>&1; then
    cat > "$T/views.yaml" <<YAML
name: views-e2e
description: the lecture's views of three methods side by side
base:
  data: {name: fashion-mnist, limit: 256, test_limit: 100}
  model: {patch: 4, dim: 32, depth: 2, heads: 2, mlp_ratio: 2}
  train: {batch: 64, epochs: 1}
  eval: {batch: 100, view_images: 3}
stages:
  sup:
    objective: {name: supervised}
    pe: {kind: abs}
  mae_pt:
    objective: {name: mae, eta: 0.75}
    pe: {kind: sin2d}
    mae: {decoder_depth: 1, decoder_dim: 32}
seeds: [0]
figures:
  - {kind: cls_attention, stage: sup, with: [mae_pt]}
  - {kind: key_pca, stage: sup, with: [mae_pt]}
YAML
    $PB run "$T/views.yaml" --out "$T/r" --threads 2 > "$T/run.out" 2>&1; rc=$?
    $PB plot "$T/r" > "$T/plot.out" 2>&1; prc=$?
    F="$T/r/figures"
    ok=0
    for fig in sup_cls_attention_with_mae_pt sup_key_pca_with_mae_pt; do
        [ -s "$F/$fig.png" ] && [ -s "$F/$fig.svg" ] && [ "$(head -c 8 "$F/$fig.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
            grep -q '<svg' "$F/$fig.svg" || ok=1
    done
    [ $rc -eq 0 ] && [ $prc -eq 0 ] && [ $ok -eq 0 ] && grep -q '^# /views/cls_attention of 2 methods' "$F/data/sup_cls_attention_with_mae_pt.dat"
    check "plot: cls_attention and key_pca of two methods side by side (with:), PNG and SVG written" $? \
        "run exit $rc, plot exit $prc: $(tr '\n' ' ' < "$T/plot.out" | head -c 400)"
    $PB plot "$T/r" --only key_pca > "$T/only.out" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q '^1 figure in' "$T/only.out"
    check "plot --only key_pca: one figure" $? "exit $rc: $(tail -n 1 "$T/only.out")"
    printf 'figures:\n  - {kind: key_pca, stage: sup, with: mae_pt}\n' > "$T/bad.yaml"
    sed -n '1,/^seeds/p' "$T/views.yaml" | cat - "$T/bad.yaml" > "$T/bad2.yaml"
    $PB run "$T/bad2.yaml" --dry-run --out "$T/none" > "$T/bad.out" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q 'with: expected a list' "$T/bad.out"
    check "figures: key_pca with a scalar with: is refused (exit 2, file:line:col)" $? "exit $rc: $(head -c 200 "$T/bad.out")"
else
    echo "SKIP plot views: gnuplot is not installed (make deps installs gnuplot-nox)"
fi
