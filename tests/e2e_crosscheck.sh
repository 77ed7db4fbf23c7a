#!/bin/sh
# tests/e2e_crosscheck.sh — `posbench crosscheck` at smoke scale (256 Fashion-MNIST images, 1
# epoch of 8 steps, d 32, 2 blocks, 2 seeds): both trainers run, the table has both rows and a
# verdict; with drop path 0 the two trainers get identical inputs (same data order, crop/flip
# draws, initial weights), so their first 8 training losses agree to float32 rounding (max
# relative difference <= 1e-4; measured about 1e-7) for abs and sin2d; cape (drawn
# independently by each side) still trains on both; a rerun reuses both sides' results (no new
# PyTorch log); `posbench train --plan` writes the plan without training; bad input exits 2
# (no --stage, an unknown --match key, a selection with no runs, a selection of two
# configurations, MP3 reference points, a position metric of a supervised stage, a bad
# --margin, UniViT with abs). Image sizes: UniViT (sin2d) and a 20 px abs model train on resized
# batches on both sides with losses equal to rounding. MP3 (eta 0.5, drop path 0): both trainers draw nothing of their own (posbench's
# contexts are in the plan), so their first 8 losses agree to float32 rounding and the
# position accuracy at test eta 0 is compared (the default metric for MP3). Uses Debian's
# /usr/bin/python3; SKIP when it has no PyTorch. About two minutes.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
PY=/usr/bin/python3
T=$(mktemp -d /tmp/posbench-crosscheck.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if ! "$PY" -c 'import torch' 2>/dev/null; then
    echo "SKIP e2e crosscheck: $PY has no PyTorch"; exit 0
fi
cat > "$T/tiny.yaml" <<'EOF'
name: cc-tiny
base:
  data: {limit: 256, test_limit: 200}
  model: {patch: 7, dim: 32, depth: 2, heads: 2, drop_path: 0}
  train: {batch: 32, epochs: 1}
stages:
  main: {}
  mp3: {objective: {name: mp3, eta: 0.5}, pe: {kind: none}}
  mp3ref: {objective: {name: mp3, ref_fraction: 0.25}, pe: {kind: sin2d}}
matrix:
  main.pe.kind: [abs, sin2d, cape]
seeds: [0, 1]
EOF

# max_rel FILE: the largest "(max X)" of the parity lines
max_rel() { sed -n 's/.*(max \([^)]*\))$/\1/p' "$1" | sort -g | tail -n 1; }
# abs with both seeds (table, Welch/TOST verdict); sin2d and cape with seed 0 only (each
# PyTorch start costs seconds to minutes on a loaded machine): "inconclusive (1 seed)".
for case in "abs 2" "sin2d 1"; do
    set -- $case; pe=$1; n=$2
    sel=""; [ "$n" -eq 1 ] && sel="--match train.seed=0"
    $PB crosscheck "$T/tiny.yaml" --stage main --match pe.kind=$pe $sel --out "$T/r" --threads 1 --parity-steps 8 > "$T/$pe.out" 2> "$T/$pe.err"; rc=$?
    worst=$(max_rel "$T/$pe.out"); seeds=$(grep -c '^- seed' "$T/$pe.out")
    want='TOST p = .*\*\*\(agree\|disagree\|inconclusive\)\*\*'; [ "$n" -eq 1 ] && want='inconclusive (1 seed)'
    [ $rc -eq 0 ] && grep -q "^| posbench | $n | " "$T/$pe.out" && grep -q "^| PyTorch (bench/crosscheck/torch_train.py) | $n | " "$T/$pe.out" &&
        grep -q "^posbench − PyTorch: .*$want" "$T/$pe.out" && [ "$seeds" -eq "$n" ] &&
        awk -v w="$worst" 'BEGIN { exit !(w != "" && w + 0 <= 1e-4) }'
    check "crosscheck $pe: both trainers, table, verdict, first 8 losses agree" $? "exit $rc, $seeds seed(s), max relative difference $worst"
done
$PB crosscheck "$T/tiny.yaml" --stage main --match pe.kind=cape --match train.seed=0 --out "$T/r" --threads 1 > "$T/cape.out" 2> "$T/cape.err"; rc=$?
[ $rc -eq 0 ] && grep -q 'drop path or CAPE draws differ' "$T/cape.out" && grep -q '^| PyTorch' "$T/cape.out"
check "crosscheck cape: both trainers (independent CAPE draws), parity not claimed" $? "exit $rc"

# MP3 at eta 0.5, seed 0: the contexts come from the plan, so the losses agree to rounding; the
# compared metric is position top-1 of non-blank patches at test eta 0.
$PB crosscheck "$T/tiny.yaml" --stage mp3 --match train.seed=0 --out "$T/r" --threads 1 --parity-steps 8 > "$T/mp3.out" 2> "$T/mp3.err"; rc=$?
worst=$(max_rel "$T/mp3.out")
[ $rc -eq 0 ] && grep -q '^| trainer | n | pos_top1_nonblank_eta0 (%)' "$T/mp3.out" && grep -q '^| PyTorch (bench/crosscheck/torch_train.py) | 1 | ' "$T/mp3.out" &&
    grep -q '^posbench − PyTorch: inconclusive (1 seed)' "$T/mp3.out" && awk -v w="$worst" 'BEGIN { exit !(w != "" && w + 0 <= 1e-4) }'
check "crosscheck mp3: same contexts, first 8 losses agree, position accuracy compared" $? "exit $rc, max relative difference $worst; $(grep '^| posbench' "$T/mp3.out")"

# Image sizes (patch 4): UniViT with sin2d (each batch resized to a size drawn from 16..28 px,
# the grid following it) and a model trained at 20 px with abs: both sides resize the same way,
# so the first 8 losses agree; top1@36 is compared for UniViT; UniViT with abs is refused.
cat > "$T/uni.yaml" <<'EOF'
name: cc-uni
base:
  data: {limit: 256, test_limit: 200}
  model: {patch: 4, dim: 32, depth: 2, heads: 2, drop_path: 0}
  train: {batch: 32, epochs: 1}
  eval: {resolutions: [16, 28, 36]}
stages:
  uni: {data: {resolutions: [16, 20, 24, 28]}}
  single: {data: {resolution: 20}, pe: {kind: abs}, eval: {resolutions: []}}
matrix:
  uni.pe.kind: [sin2d, abs]
seeds: [0]
EOF
for case in "uni sin2d top1@36" "single abs top1"; do
    set -- $case
    $PB crosscheck "$T/uni.yaml" --stage $1 --match pe.kind=$2 --metric $3 --out "$T/r" --threads 1 --parity-steps 8 > "$T/$1.out" 2> "$T/$1.err"; rc=$?
    worst=$(max_rel "$T/$1.out")
    [ $rc -eq 0 ] && grep -q "^| trainer | n | $3 (%)" "$T/$1.out" && grep -q '^| PyTorch (bench/crosscheck/torch_train.py) | 1 | ' "$T/$1.out" &&
        awk -v w="$worst" 'BEGIN { exit !(w != "" && w + 0 <= 1e-4) }'
    check "crosscheck $1 ($2): resized batches, first 8 losses agree, $3 compared" $? "exit $rc, max relative difference $worst"
done

# A rerun reuses both sides: the PyTorch logs are not rewritten, the table is the same.
before=$(ls -l --time-style=+%s.%N "$T"/r/cc-tiny/main/crosscheck/*.torch.log | md5sum)
$PB crosscheck "$T/tiny.yaml" --stage main --match pe.kind=abs --out "$T/r" --threads 1 > "$T/again.out" 2>&1; rc=$?
after=$(ls -l --time-style=+%s.%N "$T"/r/cc-tiny/main/crosscheck/*.torch.log | md5sum)
[ $rc -eq 0 ] && [ "$before" = "$after" ] && [ "$(grep '^|' "$T/again.out")" = "$(grep '^|' "$T/abs.out")" ]
check "crosscheck rerun reuses both sides' results" $? "exit $rc"

# posbench train --plan: the plan alone, no run file.
$PB train data.limit=256 data.test_limit=200 train.epochs=1 train.batch=32 model.dim=32 model.depth=2 model.heads=2 \
    --plan "$T/plan.tf" --out "$T/train" --threads 1 > "$T/plan.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ -s "$T/plan.tf" ] && [ ! -d "$T/train" ] && grep -q '^crosscheck plan: .* (8 steps of 32, 256 train / 200 test images' "$T/plan.out"
check "train --plan writes the plan and trains nothing" $? "exit $rc: $(head -c 200 "$T/plan.out")"

# Bad input: exit 2 with the reason.
bad() { # name needle args...
    name=$1; needle=$2; shift 2
    $PB crosscheck "$@" > "$T/bad.out" 2> "$T/bad.err"; rc=$?
    [ $rc -eq 2 ] && grep -q -- "$needle" "$T/bad.err"
    check "crosscheck refuses $name (exit 2)" $? "exit $rc: $(head -c 300 "$T/bad.err")"
}
bad "a missing --stage" "--stage is required" "$T/tiny.yaml" --out "$T/r"
bad "an unknown --match key" "'pe.knd' is not a config key" "$T/tiny.yaml" --stage main --match pe.knd=abs --out "$T/r"
bad "a selection without runs" "no run of stage main matches" "$T/tiny.yaml" --stage main --match pe.kind=rope --out "$T/r"
bad "two configurations" "select more than one configuration" "$T/tiny.yaml" --stage main --out "$T/r"
bad "MP3 reference points" "no MP3 reference points" "$T/tiny.yaml" --stage mp3ref --out "$T/r"
bad "a position metric of a supervised stage" "valid: top1" "$T/tiny.yaml" --stage main --match pe.kind=abs --metric pos_top1_eta0 --out "$T/r"
bad "an unknown --metric" "valid: top1, top1@S for an eval.resolutions size S, pos_top1_eta0" "$T/tiny.yaml" --stage mp3 --metric top5 --out "$T/r"
bad "UniViT with abs" "valid: none, sin2d, cape" "$T/uni.yaml" --stage uni --match pe.kind=abs --out "$T/r"
bad "a bad --margin" "--margin must be a number > 0" "$T/tiny.yaml" --stage main --match pe.kind=abs --margin 0 --out "$T/r"
exit 0
