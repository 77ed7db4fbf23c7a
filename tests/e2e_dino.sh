#!/bin/sh
# tests/e2e_dino.sh — DINO end to end on Fashion-MNIST at toy size (objectives/dino): a
# pretraining run with 2 global + 2 local crops finishes done with a finite loss, the collapse
# diagnostics recorded each epoch (/dino/teacher_entropy, /dino/teacher_student_kl, /final
# teacher_entropy, teacher_student_kl, dino_collapsed) and the kNN and linear probe on the
# student's backbone; the same run on --device cpu-guarded bit for bit (the heads, the teacher
# and its EMA reach memory only through the backend); stopped mid-epoch and resumed bit for bit
# (the checkpoint carries the teacher, the centre and the diagnostics; the schedules follow the
# step); the ablations without centring (dino.center_momentum=1: the centre stays 0), with a
# centre of the last batch only (dino.center_momentum=0) and without sharpening (teacher
# temperature = student temperature) run to the end; finetuning from the DINO weights loads
# the backbone and leaves the head behind; the refusals (a local size that is not a multiple
# of the patch, local crops out of range, train.accumulate > 1, text data), each exit 2 naming
# the key.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-dino.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e dino: Fashion-MNIST is not installed"; exit 0
fi
BASE="objective.name=dino pe.kind=sin2d data.limit=160 data.test_limit=100 train.batch=32 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.batch=100 dino.hidden_dim=64 dino.bottleneck_dim=32 dino.out_dim=128 dino.teacher_temp_warmup=1 train.clip=3.0"
CROPS="dino.local_crops=2 dino.local_size=12"
CFG="$BASE $CROPS train.epochs=2 eval.knn=true eval.knn_train_limit=160 eval.knn_test_limit=100 eval.linear_probe=true eval.probe_train_limit=160 eval.probe_test_limit=100"
$PB train $CFG --out "$T/whole" --threads 1 > "$T/w.out" 2>&1; rc=$?
H=$(ls "$T"/whole/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && grep -q '^final: teacher_entropy=[0-9]' "$T/w.out" &&
    h5dump -a /status "$H" 2>/dev/null | grep -q '"done"' &&
    h5dump -H -d /dino/teacher_entropy "$H" 2>/dev/null | grep -q 'SIMPLE { ( 2 )' &&
    h5dump -H -d /dino/teacher_student_kl "$H" 2>/dev/null | grep -q 'SIMPLE { ( 2 )' &&
    h5dump -a /final/teacher_entropy "$H" > /dev/null 2>&1 && h5dump -a /final/teacher_student_kl "$H" > /dev/null 2>&1 &&
    h5dump -a /final/dino_collapsed "$H" > /dev/null 2>&1 && h5dump -a /dino/collapse "$H" > /dev/null 2>&1
check "dino pretraining run: done, /dino/teacher_entropy and /dino/teacher_student_kl per epoch, /final diagnostics and dino_collapsed" $? \
    "exit $rc: $(grep '^final' "$T/w.out")"
python3 - "$H" > "$T/finite" 2>&1 <<'PY'
import subprocess, sys, re, math
def attr(path, name):
    out = subprocess.run(["h5dump", "-a", f"{path}/{name}", sys.argv[1]], capture_output=True, text=True).stdout
    m = re.search(r"\(0\): ([^\s]+)", out)
    return float(m.group(1)) if m else float("nan")
vals = {k: attr("/final", k) for k in ("loss", "teacher_entropy", "teacher_student_kl", "knn_top1", "probe_top1")}
print(" ".join(f"{k}={v:.4g}" for k, v in vals.items()))
sys.exit(0 if all(math.isfinite(v) for v in vals.values()) else 1)
PY
check "dino: finite /final loss, teacher entropy, KL, kNN top-1 and linear-probe top-1 (the student's backbone)" $? "$(cat "$T/finite")"
$PB train $CFG --out "$T/guarded" --device cpu-guarded --threads 1 > "$T/g.out" 2>&1
python3 tests/h5_same.py "$T/whole" "$T/guarded" > "$T/same0" 2>&1
check "dino: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same0")"
# Exact resume: stopped after step 3 of 10 (5 steps an epoch) and resumed = one uninterrupted run.
$PB train $CFG --out "$T/resumed" --stop-after 3 --threads 1 > "$T/r1.out" 2>&1; rc1=$?
$PB train $CFG --out "$T/resumed" --threads 1 > "$T/r2.out" 2>&1; rc2=$?
grep -q "resuming run" "$T/r2.out" && python3 tests/h5_same.py "$T/whole" "$T/resumed" > "$T/same" 2>&1
check "dino: stopped mid-epoch (step 3 of 10) and resumed = uninterrupted, bit for bit" $? \
    "stop exit $rc1, resume exit $rc2: $(tr '\n' ' ' < "$T/same")"
for ab in "dino.center_momentum=1" "dino.center_momentum=0" "dino.teacher_temp=0.1 dino.warmup_teacher_temp=0.1"; do
    $PB train $BASE $CROPS train.epochs=1 $ab --out "$T/ablation" --threads 1 > "$T/ab.out" 2>&1; rc=$?
    A=$(ls -t "$T"/ablation/*.h5 2>/dev/null | head -n 1)
    [ $rc -eq 0 ] && h5dump -a /final/dino_collapsed "$A" > /dev/null 2>&1
    check "dino ablation $ab: runs to the end with its diagnostics" $? "exit $rc: $(grep '^final' "$T/ab.out")"
done
# A forced collapse: no centring and a teacher temperature of 0.001 make the teacher's output one-hot
# (entropy near 0): flagged in the run's file and, through `posbench report`, in the report's caveats.
cat > "$T/collapse.yaml" <<'YAML'
name: dino-collapse
description: a DINO run made to collapse (near-zero teacher temperature) and one that does not, both without centring
base:
  objective: {name: dino}
  pe: {kind: sin2d}
  data: {limit: 160, test_limit: 100}
  model: {dim: 32, depth: 2, heads: 2, patch: 4}
  train: {epochs: 1, batch: 32, clip: 3.0}
  eval: {batch: 100}
  dino: {hidden_dim: 64, bottleneck_dim: 32, out_dim: 128, local_crops: 2, local_size: 12, teacher_temp_warmup: 0, center_momentum: 1.0}
stages:
  ablation: {}
matrix:
  ablation.dino.teacher_temp: [0.001, 0.07]
seeds: [0]
YAML
$PB run "$T/collapse.yaml" --out "$T/c" > "$T/c.out" 2>&1; rc=$?
$PB report "$T/c" > "$T/c.report" 2>&1; rrc=$?
n1=$(for f in "$T"/c/*/*.h5 "$T"/c/*/*/*.h5; do [ -f "$f" ] && h5dump -a /final/dino_collapsed "$f" 2>/dev/null | grep -c '(0): 1'; done | grep -c 1)
[ $rc -eq 0 ] && [ $rrc -eq 0 ] && [ "$n1" -eq 1 ] && grep -q 'collapsed (DINO): 1 run .*dino.teacher_temp=0.001' "$T/c.report" &&
    ! grep -q 'collapsed (DINO).*dino.teacher_temp=0.07' "$T/c.report"
check "dino: a forced collapse (teacher temperature 0.001) sets /final dino_collapsed and the report's caveat names that run only" $? \
    "run exit $rc, report exit $rrc, $n1 collapsed run(s): $(grep -o 'collapsed (DINO)[^;]*' "$T/c.report" | head -n 1)"
# On a GPU (where this machine has one): the same run on --device cuda twice (bit for bit the
# same: no order-dependent reductions) and close to the CPU run (the teacher, its EMA and the
# heads run through the CUDA backend). Without a GPU: SKIP, never a PASS.
if nvidia-smi -L > /dev/null 2>&1; then
    $PB train $CFG --out "$T/cuda1" --device cuda > "$T/cu1.out" 2>&1; rc1=$?
    $PB train $CFG --out "$T/cuda2" --device cuda > "$T/cu2.out" 2>&1; rc2=$?
    python3 tests/h5_same.py "$T/cuda1" "$T/cuda2" > "$T/cusame" 2>&1
    check "dino on --device cuda: two runs bit for bit" $? "exit $rc1, $rc2: $(tr '\n' ' ' < "$T/cusame")"
    python3 tests/runs_close.py "$H" "$(ls "$T"/cuda1/*.h5 | head -n 1)" 0.02 /train/loss /eval/loss /dino/teacher_entropy > "$T/cuclose" 2>&1
    check "dino on --device cuda: losses and teacher entropy within 2% of the CPU run" $? "$(tr '\n' ' ' < "$T/cuclose")"
else
    echo "SKIP dino on --device cuda: no GPU here (nvidia-smi -L fails)"
fi
W=$(ls "$T"/whole/*.weights)
$PB train objective.name=supervised pe.kind=sin2d data.limit=160 data.test_limit=100 train.epochs=1 train.batch=32 model.dim=32 \
    model.depth=2 model.heads=2 model.patch=4 --init "$W" --out "$T/ft" --threads 1 > "$T/ft.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^init: .* tensors from .*; fresh: head.weight, head.bias$" "$T/ft.out"
check "finetune from a DINO run: every backbone tensor loaded, the DINO head left behind" $? "exit $rc: $(grep '^init' "$T/ft.out")"
refuse() { # name, expected text, args...
    name=$1 want=$2; shift 2
    $PB train "$@" --out "$T/bad" --threads 1 > "$T/bad.out" 2> "$T/bad.err"; rc=$?
    [ $rc -eq 2 ] && grep -qF -- "$want" "$T/bad.err"
    check "dino refused: $name" $? "exit $rc: $(head -c 300 "$T/bad.err")"
}
refuse "dino.local_size not a multiple of model.patch" "dino.local_size=10" $BASE train.epochs=1 dino.local_size=10
refuse "dino.local_crops beyond the 14 local views" "dino.local_crops" $BASE train.epochs=1 dino.local_crops=15
# Local crops run the model below its training size: abs tables and gMLP's spatial weights resize
# there (they were refused while their resize buffers existed only for larger grids).
runs() { # name, args...
    name=$1; shift
    $PB train "$@" train.epochs=1 --out "$T/small" --threads 1 > "$T/small.out" 2> "$T/small.err"; rc=$?
    [ $rc -eq 0 ] && grep -q "^final:" "$T/small.out"
    check "dino with local crops runs: $name" $? "exit $rc: $(tail -n 1 "$T/small.err" | cut -c1-200)"
}
runs "pe.kind=abs" objective.name=dino pe.kind=abs data.limit=160 train.batch=32 model.dim=32 model.depth=2 model.heads=2 model.patch=4 $CROPS
runs "model.arch=gmlp" objective.name=dino model.arch=gmlp pe.kind=none data.limit=160 train.batch=32 model.dim=32 model.depth=2 model.patch=4 $CROPS
refuse "train.accumulate > 1" "train.accumulate=2" $BASE $CROPS train.epochs=1 train.accumulate=2
printf 'In the beginning was the word, and the word was with God. %.0s' $(seq 1 200) > "$T/text.txt"
refuse "text data" "data.name=text" objective.name=dino data.name=text data.path="$T/text.txt" train.batch=8
exit 0
