#!/bin/sh
# tests/e2e_gmlp.sh — gMLP and aMLP end to end on real Fashion-MNIST and the KJV text: the gMLP
# reproduction at toy size (`make reproduce-gmlp SCALE=smoke` runs scripts/reproduce.sh the same
# way: ViT vs gMLP vs aMLP with all and 10% of the labels, the gMLP rows of CAPE's resolution
# experiment with dense and Toeplitz W tested at 16..56 px, masked language modelling with the
# Transformer's five 1D encodings, the gMLP ablations, aMLP and depth scaling, report with
# findings, figures), the run files,
# and the refusals (MP3 with a gMLP, encodings that act on attention), each exit 2 naming the
# keys, also from the experiment checker before anything runs.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-gmlp.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e gmlp: Fashion-MNIST is not installed"; exit 0
fi
start=$(date +%s)
sh scripts/reproduce.sh gmlp smoke cpu "$T/out" > "$T/log" 2>&1; rc=$?
secs=$(( $(date +%s) - start ))
done_runs=$(grep -c '^\[done\]' "$T/log")
[ $rc -eq 0 ] && [ "$done_runs" -eq 24 ]
check "reproduce-gmlp smoke: all 24 runs done (10 vision, 14 MLM), exit 0" $? "exit $rc in ${secs}s, $done_runs runs done"
# Each backbone ran as itself (the run line names it) with its own parameter count.
for arch in vit gmlp amlp; do
    n=$(cat "$T"/out/gmlp-vision/full/*.log | grep -c "^run [0-9a-f]*: $arch d=32 ")
    [ "$n" -eq 1 ]
    check "gmlp-vision smoke: model.arch=$arch trained" $? "$n run lines"
done
# The gMLPs trained at 28 px evaluate at 40 and 56 px (dense W resampled, Toeplitz clipped).
n=$(cat "$T"/out/gmlp-resolution/gmlp/*.log | grep -c '^test at 56x56 px: top1 [0-9]*\.[0-9]*%')
[ "$n" -eq 2 ]
check "gmlp trained at 28 px evaluates at 56 px (dense and Toeplitz W)" $? "$n runs tested at 56 px"
F="$T/out/figures"
for fig in gmlp-vision_full_top1-vs-arch gmlp-vision_labels10_top1-vs-arch \
    gmlp-resolution_gmlp_resolution-top1-vs-size gmlp-vision_full_eval-top1-vs-epoch gmlp-mlm_gmlp_spatial-W \
    gmlp-resolution_gmlp_spatial-W gmlp-mlm_scaling_perplexity-vs-params \
    gmlp-vision_full_top1-vs-params; do
    n_png=$(ls "$F"/"$fig"*.png 2>/dev/null | wc -l); n_svg=$(ls "$F"/"$fig"*.svg 2>/dev/null | wc -l)
    [ "$n_png" -ge 1 ] && [ "$n_png" -eq "$n_svg" ]
    check "reproduce-gmlp smoke: figure $fig" $? "$n_png PNG, $n_svg SVG"
done
# W figures (gMLP Fig. 3) for the gMLP and the aMLP of gmlp-vision's full stage, none for the ViT
n=$(ls "$F"/gmlp-vision_full_spatial-W_*.png 2>/dev/null | wc -l)
[ "$n" -eq 2 ]
check "reproduce-gmlp smoke: spatial_weights figures of gmlp-vision full (gmlp, amlp; not vit)" $? "$n PNG"
# MLM (gmlp-mlm): every Transformer encoding, the gMLP ablations and aMLP, the depth scaling.
n=$(cat "$T"/out/gmlp-mlm/*/*.log | grep -c '^final: perplexity=[0-9.]* accuracy=')
[ "$n" -eq 14 ]
check "gmlp-mlm smoke: 14 MLM runs end with a validation perplexity" $? "$n runs"
for pe in abs sin1d rope relbias none; do
    n=$(for f in "$T"/out/gmlp-mlm/transformer/*.h5; do h5dump -a /config/pe.kind "$f" 2>/dev/null; done | grep -c "\"$pe\"")
    [ "$n" -eq 1 ]
    check "gmlp-mlm smoke: Transformer with pe.kind=$pe" $? "$n run files"
done
R="$T/out/REPORT.md"
ok=0
for want in '## stage `transformer` (experiment `gmlp-mlm`)' '## stage `gmlp` (experiment `gmlp-mlm`)' \
    '## stage `scaling` (experiment `gmlp-mlm`)' '| relbias | 1 |' 'paper (other data) perplexity' '## Findings (experiment `gmlp-mlm`)' \
    '| multiplicative gating beats additive gating (lower perplexity) |'; do
    grep -qF "$want" "$R" 2>/dev/null || { ok=1; echo "  missing in REPORT.md: $want"; }
done
check "reproduce-gmlp smoke: gmlp-mlm tables, paper perplexities, findings" $ok "$(grep -c 'experiment `gmlp-mlm`' "$R" 2>/dev/null) sections"
ok=0
for want in '## stage `full` (experiment `gmlp-vision`)' '## stage `labels10` (experiment `gmlp-vision`)' \
    '## stage `gmlp` (experiment `gmlp-resolution`)' '| gmlp | 5 | 4 | none | 1 |' '| amlp | 4 | 4 | none | 1 |' \
    'paper (other data) top1' '## Findings (experiment `gmlp-vision`)' '## Findings (experiment `gmlp-resolution`)' \
    '| gMLP is comparable to the ViT at equal capacity: its top-1 matches the ViT'; do
    grep -qF "$want" "$R" 2>/dev/null || { ok=1; echo "  missing in REPORT.md: $want"; }
done
check "reproduce-gmlp smoke: REPORT.md tables, paper numbers, findings" $ok "$(grep -c '^## ' "$R" 2>/dev/null) sections"
nm=$(grep -c 'not measured' "$R")
[ "$nm" -eq 0 ]
check "reproduce-gmlp smoke: every finding measured" $? "$nm not measured"
# A gMLP run file: its parameters are the gMLP's, and it records no attention statistics.
H=""
for f in "$T"/out/gmlp-vision/full/*.h5; do
    h5dump -a /config/model.arch "$f" 2>/dev/null | grep -q '"gmlp"' && H=$f
done
[ -n "$H" ] && ! h5dump -g /attention "$H" > /dev/null 2>&1 && h5dump -a /final/top1 "$H" > /dev/null 2>&1
check "HDF5: a gMLP run records model.arch=gmlp and no /attention" $? "$(basename "$H")"

# Refusals: exit 2 and a message naming the keys and the reason.
CFG="data.limit=256 data.test_limit=100 train.epochs=1 train.batch=32 model.dim=32 model.depth=2 model.patch=4"
REFUSE_BASE=$CFG
. tests/refuse_lib.sh
refuse "MP3 with a gMLP" "model.arch=gmlp cannot be pretrained with objective.name=mp3: its spatial weights W are position-specific" \
    model.arch=gmlp objective.name=mp3 pe.kind=none
refuse "MP3 with an aMLP" "model.arch=amlp cannot be pretrained with objective.name=mp3" model.arch=amlp objective.name=mp3 pe.kind=none
refuse "rope with a gMLP" "pe.kind=rope acts on attention (rotates q and k), which model.arch=gmlp" model.arch=gmlp pe.kind=rope
refuse "relbias with a gMLP" "pe.kind=relbias acts on attention" model.arch=gmlp pe.kind=relbias
refuse "an odd d_ffn" "must be even" model.arch=gmlp model.dim=33 model.heads=3 model.mlp_ratio=1 pe.kind=none
ls "$T"/r/*.h5 > /dev/null 2>&1
[ $? -ne 0 ]
check "refusals write no results" $? "$(ls "$T"/r 2>/dev/null | wc -l) files"
# The experiment checker refuses the same before anything runs, pointing at the line.
cat > "$T/bad.yaml" <<'YAML'
name: bad-gmlp
base:
  model: {arch: gmlp}
  pe: {kind: none}
  objective: {name: mp3}
YAML
$PB list "$T/bad.yaml" > "$T/l.out" 2> "$T/l.err"; rc=$?
[ $rc -eq 2 ] && grep -qE 'bad.yaml:[0-9]+:[0-9]+: .*model.arch=gmlp cannot be pretrained with objective.name=mp3' "$T/l.err"
check "experiment checker refuses MP3 with a gMLP (file:line:col, exit 2)" $? "exit $rc: $(head -c 300 "$T/l.err")"
