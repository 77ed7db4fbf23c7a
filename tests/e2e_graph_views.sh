#!/bin/sh
# tests/e2e_graph_views.sh — train.graph=on end to end on the CPU (real Fashion-MNIST) for the
# objectives that draw their own views. SimCLR takes the step without host reads (its 2B views
# staged from the raw images before each step: objective_kind.train_stage_views; the CPU refuses
# the CUDA graph and runs it eagerly): its run file is bitwise the default's (tests/h5_same.py,
# without the key's own /config attribute and config_yaml line, and /final backend_peak_bytes,
# which must be larger by exactly the step's backend arrays), with dropout, drop path and
# clipping that bites, over two epochs with evaluations, on cpu and cpu-guarded; the metrics lines
# are the same but for times and speeds. DINO takes the step without host reads too (views,
# tau_t, EMA momentum and freeze gate staged before the step; its head, loss, centre and EMA on
# the backend), with drop path, on cpu and cpu-guarded, bitwise the default's: with its 2 global
# views only (dino.local_crops=0) across the prototypes' freeze (dino.freeze_last_layer=1 of 2
# epochs), and with 2 and 3 local crops at 12 px (staged before the step in backend memory, each
# group's drop path in its own epoch slot under the step's RNG clock). A NaN parameter ends a
# SimCLR run as diverged, graph off and on.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-graph-views.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e graph views: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
# 128 training images, batch 16: 8 steps an epoch; evaluations each epoch.
SIMCLR="objective.name=simclr data.limit=128 data.test_limit=64 train.epochs=2 train.batch=16 model.dim=32 model.depth=2 model.heads=2 model.patch=7 eval.batch=64 model.dropout=0.1 model.drop_path=0.1 train.clip=0.5"
DINO_MODEL="objective.name=dino pe.kind=sin2d data.limit=64 data.test_limit=32 train.batch=16 model.dim=16 model.depth=1 model.heads=2 model.patch=4 eval.batch=32 dino.hidden_dim=32 dino.bottleneck_dim=16 dino.out_dim=32 train.clip=3.0"
DINO="$DINO_MODEL train.epochs=1 dino.local_crops=2 dino.local_size=12 model.drop_path=0.1 dino.teacher_temp_warmup=1"
DINO3="$DINO_MODEL train.epochs=1 dino.local_crops=3 dino.local_size=8 model.drop_path=0.1 dino.teacher_temp_warmup=1"
DINO0="$DINO_MODEL train.epochs=2 dino.local_crops=0 model.drop_path=0.1 dino.teacher_temp_warmup=2"
metrics_same() { python3 tests/metrics_same.py "$1" "$2"; } # the metrics.jsonl lines of two folders, without times and speeds
peak_growth() { # /final backend_peak_bytes of the on run minus the off run's
    python3 - "$1" "$2" <<'PY'
import glob, subprocess, sys
def peak(d):
    f = glob.glob(d + '/*.h5')[0]
    out = subprocess.run(['h5dump', '-a', '/final/backend_peak_bytes', f], capture_output=True, text=True).stdout
    return int(out.split('(0):')[1].split()[0])
print(peak(sys.argv[2]) - peak(sys.argv[1]))
PY
}
# shellcheck disable=SC2086
$PB train $SIMCLR --threads 1 --out "$T/simclr-off" >/dev/null 2>"$T/simclr-off.err"
# shellcheck disable=SC2086
$PB train $DINO --threads 1 --out "$T/dino-off" >/dev/null 2>"$T/dino-off.err"
# shellcheck disable=SC2086
$PB train $DINO0 --threads 1 --out "$T/dino0-off" >/dev/null 2>"$T/dino0-off.err"
# shellcheck disable=SC2086
$PB train $DINO3 --threads 1 --out "$T/dino3-off" >/dev/null 2>"$T/dino3-off.err"
for case in simclr simclr-guarded dino dino-guarded dino3 dino3-guarded dino0 dino0-guarded; do
    dev=cpu
    case $case in
        simclr) CFG=$SIMCLR off=simclr-off want=1072 ;; # (1 + 64) (loss, norm) doubles + 6 step floats + the 2-word clock
        simclr-guarded) CFG=$SIMCLR off=simclr-off want=1072 dev=cpu-guarded ;;
        dino) CFG=$DINO off=dino-off want=1072 ;;
        dino-guarded) CFG=$DINO off=dino-off want=1072 dev=cpu-guarded ;;
        dino3) CFG=$DINO3 off=dino3-off want=1072 ;; # an odd count: the last group holds one view
        dino3-guarded) CFG=$DINO3 off=dino3-off want=1072 dev=cpu-guarded ;;
        dino0) CFG=$DINO0 off=dino0-off want=1072 ;;
        dino0-guarded) CFG=$DINO0 off=dino0-off want=1072 dev=cpu-guarded ;;
    esac
    # shellcheck disable=SC2086
    $PB train $CFG train.graph=on --device $dev --threads 1 --out "$T/$case-on" >/dev/null 2>"$T/$case-on.err"
    out=$(python3 tests/h5_same.py --new-key train.graph=off --new-key train.graph=on --ignore backend_peak_bytes "$T/$off" "$T/$case-on" 2>&1)
    same=$?
    grow=$(peak_growth "$T/$off" "$T/$case-on")
    [ "$grow" = "$want" ] || same=1
    metrics_same "$T/$off" "$T/$case-on"
    lines=$?
    note=$(grep 'train.graph=on' "$T/$case-on.err" | head -n 1)
    [ $same -eq 0 ] && [ $lines -eq 0 ]
    check "train.graph=on run file: $case (on: --device $dev)" $? "$(echo "$out" | tail -n 1); backend peak +$grow bytes (want $want); metrics lines $([ $lines -eq 0 ] && echo same || echo differ)${note:+; stderr: $note}"
done
grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/simclr-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/simclr-guarded-on.err"
check "train.graph=on note: SimCLR runs without host reads (only the CPU backends stop its replay)" $? "$(grep 'train.graph' "$T/simclr-on.err" | head -n 1)"
grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/dino-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/dino3-on.err" &&
    grep -q 'no host reads inside a step; not replayed as a graph: the CPU backends' "$T/dino0-on.err"
check "train.graph=on note: DINO runs without host reads with and without local crops (only the CPU backends stop its replay)" $? "$(grep 'train.graph' "$T/dino-on.err" | head -n 1)"
# A NaN planted in the first parameter before step 3 must end the run as diverged at step 3, with
# the graph off and on: the projection head's ReLU keeps the NaN (as torch.relu), where a ReLU
# that made it 0 gave every view the same z, a finite loss of exactly log(2B - 1) and a run that
# went on as if nothing had happened.
for g in off on; do
    # shellcheck disable=SC2086
    POSBENCH_FAULT_NAN_STEP=3 $PB train $SIMCLR train.graph=$g --threads 1 --out "$T/simclr-nan-$g" >/dev/null 2>"$T/simclr-nan-$g.err"
    rc=$?
    F=$(ls "$T"/simclr-nan-$g/*.h5 2>/dev/null | head -n 1)
    status=$([ -n "$F" ] && h5dump -a /status "$F" 2>/dev/null | sed -n 's/^ *(0): //p' | tr -d '"')
    at=$([ -n "$F" ] && h5dump -a /final/diverged_step "$F" 2>/dev/null | sed -n 's/^ *(0): //p')
    [ $rc -ne 0 ] && [ "$status" = diverged ] && [ "$at" = 3 ]
    check "SimCLR with a NaN parameter (train.graph=$g) ends diverged at that step" $? "exit $rc; status ${status:-none}; diverged_step ${at:-none}; $(grep -m1 diverged "$T/simclr-nan-$g.err")"
done
