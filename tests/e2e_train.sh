#!/bin/sh
# tests/e2e_train.sh — end-to-end checks of `posbench train` on real Fashion-MNIST (small):
# bitwise determinism, exact resume after a stop mid-epoch, the HDF5 layout, a finished run
# never overwritten, and every kind of bad input giving a one-line error and exit 2.
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them).
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-e2e.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e train: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
# 512 training images, batch 64: 8 steps an epoch, 16 in all.
CFG="data.limit=512 data.test_limit=200 train.epochs=2 train.batch=64 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=4"
series() { h5dump -d "$2" "$1" 2>&1 | tail -n +2; } # dataset text without the file-name line

$PB train $CFG --threads 2 --out "$T/a" >"$T/a.out" 2>"$T/a.err"; rc=$?
A=$(ls "$T"/a/*.h5 2>/dev/null | head -n 1)
check "train runs and writes its HDF5 file" $([ $rc -eq 0 ] && [ -n "$A" ]; echo $?) "exit $rc, file ${A:-none}"
grep -q '^final: top1=[0-9]\{1,3\}\.[0-9]\{2\}% top5=[0-9]\{1,3\}\.[0-9]\{2\}% time=[0-9]*s$' "$T/a.out"
check "final line format" $? "$(grep '^final:' "$T/a.out")"
grep -q '^train step .* loss .* img/s .*ETA' "$T/a.err"
check "plain progress lines when not a terminal" $? "$(grep -c '^train step' "$T/a.err") lines"

$PB train $CFG --threads 2 --out "$T/b" >/dev/null 2>&1
B=$(ls "$T"/b/*.h5 2>/dev/null | head -n 1)
[ "$(basename "$A")" = "$(basename "$B")" ]
check "run id is stable" $? "$(basename "$A") vs $(basename "$B")"
[ -n "$B" ] && [ "$(series "$A" /train/loss)" = "$(series "$B" /train/loss)" ] && [ "$(series "$A" /eval/top1)" = "$(series "$B" /eval/top1)" ]
check "determinism: same seed, same threads, bitwise-identical losses" $? "16 training losses and eval top-1 compared"

$PB train $CFG --threads 1 --out "$T/c" >/dev/null 2>&1
C=$(ls "$T"/c/*.h5 2>/dev/null | head -n 1)
[ -n "$C" ] && [ "$(series "$A" /train/loss)" = "$(series "$C" /train/loss)" ]
check "determinism across thread counts (1 vs 2) to h5dump's printed digits (OpenBLAS rounds per thread split)" $? "training losses compared"

$PB train $CFG train.seed=1 --threads 2 --out "$T/s" >/dev/null 2>&1
S=$(ls "$T"/s/*.h5 2>/dev/null | head -n 1)
[ -n "$S" ] && [ "$(series "$A" /train/loss)" != "$(series "$S" /train/loss)" ] && [ "$(basename "$S")" != "$(basename "$A")" ]
check "another seed gives another run id and other losses" $? "$(basename "${S:-none}")"

# train.precision=bf16: its own run id, losses that differ from fp32's by rounding only (the last
# training loss within 5%), the guarded CPU backend bit for bit equal to the plain one, and a
# resume after step 5 equal to the uninterrupted run.
last_loss() { series "$1" /train/loss | tr -s ' ,()' '\n' | grep -E '^-?[0-9]+\.[0-9]+' | tail -n 1; }
$PB train $CFG train.precision=bf16 --threads 2 --out "$T/h" >/dev/null 2>&1
H=$(ls "$T"/h/*.h5 2>/dev/null | head -n 1)
[ -n "$H" ] && [ "$(basename "$H")" != "$(basename "$A")" ] && [ "$(series "$A" /train/loss)" != "$(series "$H" /train/loss)" ] &&
    awk -v a="$(last_loss "$A")" -v h="$(last_loss "$H")" 'BEGIN { d = h - a; if (d < 0) d = -d; exit !(a > 0 && d <= 0.05 * a) }'
check "train.precision=bf16: own run id, last loss within 5% of fp32" $? "fp32 $(last_loss "$A"), bf16 $(last_loss "${H:-/dev/null}")"
# tests/runs_close.py (the cpu vs cuda and fp32 vs bf16 comparison of scripts/gpu_session.sh):
# the bf16 run agrees with fp32 within 5%, a run of another seed does not within 1e-3.
[ -n "$H" ] && /usr/bin/python3 tests/runs_close.py "$A" "$H" 0.05 >"$T/close" 2>&1 &&
    ! /usr/bin/python3 tests/runs_close.py "$A" "$S" 1e-3 >>"$T/close" 2>&1
check "runs_close.py: bf16 within 5% of fp32, another seed not within 1e-3" $? "$(tr '\n' ' ' < "$T/close")"
$PB train $CFG train.precision=bf16 --threads 2 --device cpu-guarded --out "$T/hg" >/dev/null 2>&1
HG=$(ls "$T"/hg/*.h5 2>/dev/null | head -n 1)
[ -n "$HG" ] && [ -n "$H" ] && /usr/bin/python3 tests/h5_same.py "$T/h" "$T/hg" >"$T/hg.same" 2>&1
check "train.precision=bf16: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/hg.same" 2>/dev/null)"
$PB train $CFG train.precision=bf16 --threads 2 --out "$T/hr" --stop-after 5 >/dev/null 2>&1
$PB train $CFG train.precision=bf16 --threads 2 --out "$T/hr" >/dev/null 2>&1
HR=$(ls "$T"/hr/*.h5 2>/dev/null | head -n 1)
[ -n "$HR" ] && [ -n "$H" ] && [ "$(series "$H" /train/loss)" = "$(series "$HR" /train/loss)" ] && [ "$(series "$H" /eval/top1)" = "$(series "$HR" /eval/top1)" ]
check "train.precision=bf16: resume after 5 steps = uninterrupted, bitwise" $? "losses and eval top-1 compared"

# Resume: stop after step 5 (mid-epoch), then the same command continues in a fresh process.
$PB train $CFG --threads 2 --out "$T/r" --stop-after 5 >"$T/r1.out" 2>&1; rc1=$?
ls "$T"/r/*.ckpt >/dev/null 2>&1 && ls "$T"/r/*.h5.partial >/dev/null 2>&1 && ! ls "$T"/r/*.h5 >/dev/null 2>&1
check "stop after 5 steps leaves a checkpoint and a partial file" $(( $? + rc1 )) "exit $rc1; $(ls "$T/r" | tr '\n' ' ')"
$PB train $CFG --threads 2 --out "$T/r" >"$T/r2.out" 2>&1; rc2=$?
R=$(ls "$T"/r/*.h5 2>/dev/null | head -n 1)
grep -q "resuming run .* from step 5" "$T/r2.out"
check "rerun resumes from the checkpoint" $(( $? + rc2 )) "$(grep resuming "$T/r2.out")"
[ -n "$R" ] && [ "$(series "$A" /train/loss)" = "$(series "$R" /train/loss)" ] && [ "$(series "$A" /eval/top1)" = "$(series "$R" /eval/top1)" ] &&
    [ "$(series "$A" /train/grad_norm)" = "$(series "$R" /train/grad_norm)" ]
check "resume: 5 + 11 steps equal 16 uninterrupted steps bitwise" $? "losses, gradient norms and eval top-1 compared"
! ls "$T"/r/*.ckpt "$T"/r/*.partial >/dev/null 2>&1
check "a finished run removes its checkpoint and partial file" $? "$(ls "$T/r" | tr '\n' ' ')"

# HDF5 layout (docs/usage.md "Runs, resume and the HDF5 file")
H=$(h5dump -A "$A" 2>&1)
ok=0
for want in 'ATTRIBUTE "status"' '"done"' 'ATTRIBUTE "run_id"' 'ATTRIBUTE "config_yaml"' 'ATTRIBUTE "git_commit"' 'ATTRIBUTE "cpu_model"' \
    'ATTRIBUTE "model.dim"' 'ATTRIBUTE "train.lr"' 'GROUP "final"' 'ATTRIBUTE "top1"' 'ATTRIBUTE "peak_mem_bytes"' \
    'ATTRIBUTE "flops_per_step"' 'DATASET "step"' 'DATASET "loss"' 'DATASET "grad_norm"' 'DATASET "step_time_ms"' \
    'DATASET "top5"' 'GROUP "attention"' 'DATASET "entropy"' 'DATASET "mean_distance"' 'DATASET "relmap"' \
    'DATASET "cls_map"'; do
    echo "$H" | grep -q "$want" || { ok=1; echo "  missing: $want"; }
done
check "HDF5 layout: root, config, final attributes and time series" $ok "$(basename "$A")"
# The run records the commit the binary was built from, not the one of the last time train.c
# happened to be recompiled (a generated build/git_commit.c follows HEAD).
head=$(git rev-parse --short=12 HEAD 2>/dev/null)
rec=$(h5dump -a /git_commit "$A" 2>/dev/null | sed -n 's/.*(0): "\(.*\)"/\1/p')
[ -z "$head" ] || case "$rec" in "$head" | "$head-dirty") true ;; *) false ;; esac
check "the run records the commit HEAD is at" $? "recorded '$rec', HEAD '${head:-no git}'"
[ "$(h5dump -d /train/loss "$A" | grep -c 'DATASPACE  SIMPLE { ( 16 ) / ( H5S_UNLIMITED ) }')" -eq 1 ]
check "train series is extendible and holds every step" $? "16 rows"

[ "$(h5dump -H -d /attention/relmap "$A" | grep -c 'DATASPACE  SIMPLE { ( 2, 2, 13, 13 )')" -eq 1 ]
check "attention statistics: relmap (L, H, 2h-1, 2w-1)" $? "$(h5dump -H -d /attention/relmap "$A" | grep DATASPACE)"

# A later stage starts from a finished run's final weights.
W="${A%.h5}.weights"
$PB train $(echo "$CFG" | sed "s/train.epochs=2//") train.epochs=1 objective.label_smoothing=0 --init "$W" --out "$T/i" >"$T/i.out" 2>&1; rc=$?
grep -q "^init: 32 of 32 tensors from $W" "$T/i.out"
check "--init copies every tensor of the same name and shape" $(( $? + rc )) "$(grep '^init:' "$T/i.out")"
$PB train $CFG pe.kind=none model.cls=false --init "$W" --out "$T/j" >"$T/j.out" 2>&1
grep -q "^init: 30 of 30 tensors" "$T/j.out"
check "--init into a model without cls and position table" $? "$(grep '^init:' "$T/j.out")"

# A finished run is never overwritten by a rerun.
sum1=$(md5sum < "$A")
$PB train $CFG --threads 2 --out "$T/a" >"$T/again.out" 2>&1; rc=$?
first_final=$(grep '^final:' "$T/a.out" 2>/dev/null)
[ $rc -eq 0 ] && grep -q "already finished" "$T/again.out" && [ "$(md5sum < "$A")" = "$sum1" ] &&
    grep -q '^final: top1=[0-9.]*% top5=[0-9.]*% time=' "$T/again.out" &&
    { [ -z "$first_final" ] || [ "$(grep '^final:' "$T/again.out")" = "$first_final" ]; }
check "rerunning a finished run leaves it untouched and says what it scored" $? "$(head -n 2 "$T/again.out" | tr '\n' ' ') (trained: $first_final)"

# Bad input: one line on stderr naming the key or file and what is valid, exit 2, no files.
mkdir -p "$T/trunc" "$T/magic"
zcat /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz | head -c 100000 | gzip > "$T/trunc/train-images-idx3-ubyte.gz"
for f in train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    cp /usr/share/datasets/fashion-mnist/$f.gz "$T/trunc/"; cp /usr/share/datasets/fashion-mnist/$f.gz "$T/magic/"
done
printf '\000\000\010\004\000\000\000\001\000\000\000\034\000\000\000\034' > "$T/magic/train-images-idx3-ubyte"
bad() { # name, expected text, args...
    name=$1; want=$2; shift 2
    $PB train "$@" --out "$T/bad" >"$T/bad.out" 2>"$T/bad.err"; rc=$?
    lines=$(wc -l < "$T/bad.err")
    [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$want" "$T/bad.err" && ! ls "$T"/bad/*.h5* >/dev/null 2>&1
    check "bad input: $name" $? "exit $rc, $lines line(s): $(head -c 300 "$T/bad.err")"
}
bad "unknown key" "unknown key 'model.dimm' (did you mean 'model.dim'?)" model.dimm=64
bad "malformed integer" "model.dim: 'abc' is not an integer" model.dim=abc
bad "not key=value" "'model.dim' is not key=value" model.dim
bad "out of range" "train.lr: -1 is out of range" train.lr=-1
bad "invalid choice" "pe.kind: 'sin9' is not valid (valid: one of none|abs|sin1d|sin2d|cape|relbias|rope)" pe.kind=sin9
bad "unknown flag" "unknown flag '--bogus' for posbench train" --bogus
bad "misspelt flag: did you mean" "unknown flag '--devce' (did you mean '--device'?)" --devce cpu
bad "missing dataset directory" "dataset directory /nonexistent/fmnist does not exist" data.path=/nonexistent/fmnist
bad "truncated IDX file" "trunc/train-images-idx3-ubyte.gz: truncated" data.path="$T/trunc"
bad "wrong magic number" "bad magic number 0x00000804" data.path="$T/magic"
bad "patch does not divide the image" "model.patch=5 does not divide the image size 28" model.patch=5
bad "heads do not divide the width" "model.heads=5 does not divide model.dim=32" model.dim=32 model.heads=5
bad "batch larger than the data" "train.batch=1024 is larger than the training set" data.limit=100 train.batch=1024
bad "unknown device" "--device 'tpu' is not valid (valid: auto, cpu, cpu-guarded, cuda)" --device tpu
if nvidia-smi -L > /dev/null 2>&1; then echo "SKIP bad input: --device cuda without a GPU: this machine has one"
else bad "--device cuda without a GPU, saying why" "--device cuda: " --device cuda; fi

$PB train --help > "$T/help.out" 2>&1; rc=$?
missing=$(for k in $(sed -n 's/^ *{"\([a-z0-9_]*\.[a-z0-9_]*\)".*/\1/p' bench/config/config.c); do grep -q "^  $k " "$T/help.out" || echo "$k"; done)
[ $rc -eq 0 ] && [ -z "$missing" ]
check "train --help lists every key with its default" $? "${missing:-all $(grep -c '^  [a-z0-9_]*\.[a-z0-9_]* ' "$T/help.out") keys listed}"

# A NaN loss ends the run as diverged, with the step, and exit 1; the file is kept.
POSBENCH_FAULT_NAN_STEP=3 $PB train $CFG --out "$T/nan" >"$T/nan.out" 2>"$T/nan.err"; rc=$?
D=$(ls "$T"/nan/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 1 ] && [ -n "$D" ] && h5dump -a /status "$D" | grep -q '"diverged"' && h5dump -a /final/diverged_step "$D" | grep -q '(0): 3$' &&
    grep -q "diverged: loss nan at step 3" "$T/nan.err"
check "NaN loss: run ends as diverged at its step, exit 1" $? "exit $rc; $(head -n 1 "$T/nan.err")"

# MP3: pretraining without labels records the position curve and samples; a finetune run
# with --init starts from exactly its weights (learning rate 0 keeps them: every shared
# tensor of the finetune's final weights equals the pretrained one bit for bit), without the
# position head, with a fresh classifier and zero relative-bias tables.
MP3CFG="data.limit=256 data.test_limit=100 train.epochs=1 train.batch=64 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=7"
$PB train $MP3CFG objective.name=mp3 objective.eta=0.75 pe.kind=none eval.position_limit=100 --out "$T/mp3" >"$T/mp3.out" 2>&1; rc=$?
P=$(ls "$T"/mp3/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$P" ] && grep -q "^final: pos_top1=" "$T/mp3.out" &&
    [ "$(h5dump -H -d /position/top1 "$P" | grep -c 'DATASPACE  SIMPLE { ( 10 )')" -eq 1 ] &&
    h5dump -H "$P" | grep -q 'DATASET "eta_0.75_reassembled"' && h5dump -a /final/pos_top1_nonblank_eta0 "$P" >/dev/null 2>&1
check "mp3 pretraining: position curve (10 test etas), samples, final line" $? "exit $rc; $(tail -n 2 "$T/mp3.out" | head -n 1)"
# The error distances at test eta 0 (4 x 4 grid: distances 0..3) add up to the non-blank
# patches counted, and the near share is recorded.
ED=$(h5dump -d /position/error_distance "$P" 2>/dev/null | sed -n 's/^ *(0): \(.*\)$/\1/p' | tr -d ' ')
NB=$(echo "$ED" | awk -F, '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
[ "$(echo "$ED" | tr ',' '\n' | grep -c .)" -eq 4 ] && [ "${NB:-0}" -gt 0 ] && h5dump -a /final/pos_err_near_eta0 "$P" >/dev/null 2>&1 &&
    grep -q "^position errors at test eta 0 (non-blank patches): [0-9]* of $NB wrong" "$T/mp3.out"
check "mp3 pretraining: error distances at test eta 0 (4 bins, sum = non-blank patches)" $? "error_distance [$ED], $(grep '^position errors' "$T/mp3.out")"
# data.test_split=train: every evaluation reads the 256 training images (the overfit check).
$PB train $(echo "$MP3CFG" | sed "s/data.test_limit=100//") objective.name=mp3 objective.eta=0 pe.kind=none data.test_split=train data.test_limit=0 eval.position_limit=0 \
    eval.samples=0 --out "$T/mp3tr" >"$T/mp3tr.out" 2>&1; rc=$?
Q=$(ls "$T"/mp3tr/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$Q" ] && h5dump -a /position/images "$Q" | grep -q '(0): 256$'
check "data.test_split=train evaluates on the training images (256, not the 10000 test images)" $? "exit $rc; $(h5dump -a /position/images "$Q" 2>&1 | grep '(0)')"
$PB train objective.name=mp3 pe.kind=abs $MP3CFG --out "$T/mp3bad" >"$T/mp3bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "valid with mp3: none" "$T/mp3bad.out"
check "mp3 with a position encoding is refused" $? "exit $rc: $(head -c 160 "$T/mp3bad.out")"
# The speech variant: a fraction of the patches keep their encoding as reference points.
$PB train $MP3CFG objective.name=mp3 objective.eta=0 objective.ref_fraction=0.25 pe.kind=sin2d eval.position_limit=100 \
    eval.samples=0 --out "$T/mp3ref" >"$T/mp3ref.out" 2>&1; rc=$?
R=$(ls "$T"/mp3ref/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$R" ] && grep -q "^final: pos_top1=" "$T/mp3ref.out" && h5dump -a /config/objective.ref_fraction "$R" | grep -q "(0): 0.25"
check "mp3 with reference tokens (ref_fraction 0.25, sin2d) trains and records the key" $? "exit $rc; $(tail -n 2 "$T/mp3ref.out" | head -n 1)"
$PB train $MP3CFG objective.name=mp3 objective.ref_fraction=0.1 pe.kind=rope --out "$T/mp3bad" >"$T/mp3bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "valid with objective.ref_fraction > 0: abs, sin1d, sin2d" "$T/mp3bad.out"
check "reference tokens with rope are refused" $? "exit $rc: $(head -c 160 "$T/mp3bad.out")"
$PB train $MP3CFG objective.ref_fraction=0.1 --out "$T/mp3bad" >"$T/mp3bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "objective.name=supervised has none" "$T/mp3bad.out"
check "reference tokens without mp3 are refused" $? "exit $rc: $(head -c 160 "$T/mp3bad.out")"
$PB train $MP3CFG pe.kind=relbias train.lr=0 train.min_lr=0 --init "${P%.h5}.weights" --out "$T/ft" >"$T/ft.out" 2>&1; rc=$?
F=$(ls "$T"/ft/*.weights 2>/dev/null | head -n 1)
cmp=$(/usr/bin/python3 - "${P%.h5}.weights" "$F" <<'PY' 2>&1
import sys
sys.path.insert(0, "tests")
import numpy as np, tensorfile
pre, ft = tensorfile.read(sys.argv[1]), tensorfile.read(sys.argv[2])
shared = [k for k in pre if k in ft]
same = all(np.array_equal(pre[k], ft[k]) for k in shared)
head = [k for k in pre if "pos_head" in k and k not in ft]
fresh = [k for k in ft if k not in pre]
zero_rel = all(not ft[k].any() for k in fresh if "rel_bias" in k)
ok = same and len(head) == 2 and "param.head.weight" in fresh and zero_rel and len(shared) >= 20
print(f"{'ok' if ok else 'bad'}: {len(shared)} shared tensors identical={same}, dropped {head}, fresh {len(fresh)}, rel_bias zero={zero_rel}")
PY
)
[ $rc -eq 0 ] && grep -q "fresh: .*rel_bias.*head.weight" "$T/ft.out" && echo "$cmp" | grep -q '^ok'
check "finetune from MP3 loads exactly the pretrained weights (lr 0)" $? "exit $rc; $cmp"
