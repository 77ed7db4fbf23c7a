#!/bin/sh
# tests/e2e_early_stop.sh — step-based training and early stopping end to end on a small
# synthesized Speech Commands set (posbench data speech-synth --scale smoke, or the checkout's
# data/speech-commands-synth/smoke when it exists): train.steps (a partial last epoch),
# train.schedule=step_halving (constant warmup rate, halving every train.halve_every steps: the
# /train/lr series against the formula), train.early_stop with train.eval_every (the /val series,
# /final best_step = the first best validation top-1, the final test metrics = the test
# evaluation of that same step), an exact resume after a stop before the first validation and
# after one past the best so far (bitwise the files of an uninterrupted run, tests/h5_same.py),
# and the refusals (early stopping without a validation split, a bad schedule name, a
# checkpoint that lost the best parameters its /val rows chose), exit 2.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-early-stop.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
D=data/speech-commands-synth/smoke
if [ ! -f "$D/speakers.tsv" ]; then
    D="$T/synth"
    $PB data speech-synth --out "$D" --scale smoke --quiet 2>"$T/err" || { echo "FAIL speech synth: $(cat "$T/err")"; exit 1; }
fi
# values of a dataset or attribute, one per line, 17 significant digits
vals() { h5dump -m %.17g -y "$2" "$3" "$1" | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr ',' '\n' | tr -d ' ' | grep -v '^$'; }
KEYS="data.name=speech-commands data.path=$D data.test_limit=96 model.patch=1 model.dim=16 model.depth=2 model.heads=2
      train.batch=32 pe.kind=sin1d train.steps=48 train.schedule=step_halving train.warmup_steps=3 train.warmup_lr=1e-4
      train.halve_every=20 train.lr=3e-3 train.early_stop=true train.eval_every=6"
$PB train $KEYS --out "$T/a" --threads 1 > "$T/a.log" 2>&1
rc=$?
A=$(ls "$T"/a/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$A" ]
check "step-based run with early stopping finishes" $? "exit $rc; $(tail -n 2 "$T/a.log" | tr '\n' ' ')"

# 48 steps of 32 clips: the partial last epoch is trained, and /train has 48 rows.
steps=$(vals "$A" -a /final/steps)
[ "$steps" = 48 ] && [ "$(vals "$A" -d /train/step | wc -l)" -eq 48 ]
check "train.steps=48: exactly 48 steps" $? "final steps $steps"

# lr: 1e-4 for steps 1..3, then 3e-3 * 0.5^floor((step-1-3)/20)
vals "$A" -d /train/lr > "$T/lr"
python3 - "$T/lr" > "$T/lr.check" <<'EOF'
import sys
lr = [float(x) for x in open(sys.argv[1])]
want = [1e-4 if s < 3 else 3e-3 * 0.5 ** ((s - 3) // 20) for s in range(48)]
bad = [i + 1 for i, (a, b) in enumerate(zip(lr, want)) if abs(a - b) > 1e-7 * b]
print(f"{len(lr)} rates, {len(bad)} differ from the formula (first at step {bad[0] if bad else '-'})")
sys.exit(0 if len(lr) == 48 and not bad else 1)
EOF
check "step_halving: 3 warmup steps at 1e-4, then 3e-3 halved every 20 steps" $? "$(cat "$T/lr.check")"

# /val every 6 steps; best_step is the first maximum; final test metrics = /eval at that step.
vals "$A" -d /val/step > "$T/vstep"; vals "$A" -d /val/top1 > "$T/vtop1"
vals "$A" -d /eval/step > "$T/estep"; vals "$A" -d /eval/top1 > "$T/etop1"
vals "$A" -a /final/best_step > "$T/best"; vals "$A" -a /final/best_val_top1 > "$T/bestv"; vals "$A" -a /final/top1 > "$T/top1"
python3 - "$T" > "$T/es.check" <<'EOF'
import sys, os
t = sys.argv[1]
r = lambda n: [float(x) for x in open(os.path.join(t, n))]
vstep, vtop1, estep, etop1 = r("vstep"), r("vtop1"), r("estep"), r("etop1")
best, bestv, top1 = int(r("best")[0]), r("bestv")[0], r("top1")[0]
first = vstep[vtop1.index(max(vtop1))]
at = etop1[estep.index(best)] if best in estep else None
ok = vstep == [6.0 * k for k in range(1, 9)] and estep == vstep and best == first and bestv == max(vtop1) and at == top1 \
     and len(set(vtop1)) > 1
print(f"val steps {vstep[0]:.0f}..{vstep[-1]:.0f} ({len(vstep)}); val top1 {vtop1}; best_step {best} (first max at {first:.0f}); "
      f"final top1 {top1} vs test top1 at that step {at}")
sys.exit(0 if ok else 1)
EOF
check "early stopping: best_step = first best validation top-1, final test top-1 = that step's" $? "$(cat "$T/es.check")"

# Stop before the first validation (step 5) and after the best of the first ones (step 15):
# resumed, the files equal the uninterrupted run's.
for stop in 5 15; do
    $PB train $KEYS --out "$T/s$stop" --threads 1 --stop-after $stop > "$T/s.log" 2>&1 &&
        grep -q "stopped after step $stop" "$T/s.log" &&
        $PB train $KEYS --out "$T/s$stop" --threads 1 > "$T/r.log" 2>&1 &&
        grep -q "resuming run .* from step $stop" "$T/r.log" &&
        python3 tests/h5_same.py "$T/a" "$T/s$stop" > "$T/same" 2>&1
    check "early stopping: stop after step $stop, resume = the uninterrupted run bitwise" $? "$(tr '\n' ' ' < "$T/same")"
done

# A checkpoint whose /val rows chose a best step but that lost its best parameters is refused
# (exit 2) naming the file, never resumed with the wrong parameters.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    $PB train $KEYS --out "$T/b" --threads 1 --stop-after 15 > /dev/null 2>&1
    K=$(ls "$T"/b/*.ckpt 2>/dev/null | head -n 1)
    /usr/bin/python3 - "$K" <<'PY'
import sys; sys.path.insert(0, "tests"); import tensorfile as tf
d = tf.read(sys.argv[1]); tf.write(sys.argv[1], {k: v for k, v in d.items() if not k.startswith("best_param.")})
PY
    $PB train $KEYS --out "$T/b" --threads 1 > "$T/b.log" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q "$K: checkpoint refused" "$T/b.log" && grep -q "best_param" "$T/b.log"
    check "early stopping: a checkpoint without the best parameters its /val rows chose is refused" $? \
        "exit $rc: $(grep error "$T/b.log" | cut -c1-200)"
else
    echo "SKIP early stopping: checkpoint without best parameters: /usr/bin/python3 with numpy is not installed"
fi

$PB train data.name=fashion-mnist train.early_stop=true --out "$T/x" > /dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "train.early_stop=true needs a validation split" "$T/err"
check "early stopping without a validation split refused" $? "exit $rc: $(cat "$T/err")"
$PB train $(echo "$KEYS" | sed "s/train.schedule=step_halving//") train.schedule=linear --out "$T/x" > /dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "train.schedule" "$T/err" && grep -q "step_halving" "$T/err"
check "a bad train.schedule refused naming the choices" $? "exit $rc: $(cat "$T/err")"
