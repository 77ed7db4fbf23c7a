#!/bin/sh
# tests/e2e_cpu_contention.sh — a run file records the scheduler's account of its training (root
# cpu_run_s, cpu_wait_s: bench/results/machine.h), and a report says when timings were measured
# under CPU contention (bench/report/caveats.h):
#   - a one-thread run pinned to one core beside a busy loop pinned to the same core waits for a
#     CPU about half its runnable time: its file records a wait fraction of at least 25%, and
#     `posbench report` of its folder prints the contention line in the provenance block and the
#     "timings under CPU contention" caveat;
#   - a run stopped and resumed records both attributes: its checkpoint carried the first
#     segment's account (a checkpoint without it leaves the run's account unknown, unwritten).
# About 3 CPU seconds. SKIP without taskset or when the kernel keeps no schedstat.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e cpu contention: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"; exit 0
fi
if ! command -v taskset > /dev/null 2>&1 || ! taskset -c 0 true 2> /dev/null; then
    echo "SKIP e2e cpu contention: taskset (util-linux) cannot pin a process to core 0 here"; exit 0
fi
if [ ! -r /proc/self/schedstat ]; then
    echo "SKIP e2e cpu contention: the kernel keeps no /proc/self/schedstat"; exit 0
fi
T=$(mktemp -d /tmp/posbench-contention.XXXXXX) || exit 1
trap 'kill "$BUSY" 2>/dev/null; rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS cpu contention: $1: $3"; else echo "FAIL cpu contention: $1: $3"; fi; }
attr() { h5dump -a "$2" "$1" 2> /dev/null | sed -n 's/^ *(0): //p'; }
CFG="data.limit=512 data.test_limit=100 train.epochs=2 train.batch=64 eval.batch=100 model.dim=32 model.depth=1 model.heads=2 model.patch=7"

# 1. Beside a busy loop on the same core.
taskset -c 0 sh -c 'while :; do :; done' & BUSY=$!
taskset -c 0 "$PB" train $CFG --threads 1 --out "$T/busy" > "$T/busy.out" 2>&1; rc=$?
kill "$BUSY" 2> /dev/null; wait "$BUSY" 2> /dev/null
F=$(ls "$T"/busy/*.h5 2> /dev/null | head -n 1)
run=$([ -n "$F" ] && attr "$F" /cpu_run_s) wait=$([ -n "$F" ] && attr "$F" /cpu_wait_s)
frac=$(awk -v r="${run:-0}" -v w="${wait:--1}" 'BEGIN { if (r > 0 && w >= 0) printf "%.3f", w / (r + w); else print "none" }')
[ $rc -eq 0 ] && awk -v f="$frac" 'BEGIN { exit !(f != "none" && f >= 0.25) }'
check "a run sharing its core with a busy loop records that it waited for a CPU" $? "exit $rc; cpu_run_s ${run:-absent}, cpu_wait_s ${wait:-absent}: wait fraction $frac (at least 0.25 expected, about 0.5)"
"$PB" report "$T/busy" > /dev/null 2>&1
grep -q '^- CPU contention: the run waited for a CPU [0-9]*% of its runnable time while it trained: its timings up to ' "$T/busy/REPORT.md" &&
    grep -q '^- timings under CPU contention: the run waited for a CPU' "$T/busy/REPORT.md"
check "the report says so in its provenance block and its caveats" $? "$(grep -i 'contention' "$T/busy/REPORT.md" | head -c 400)"

# 2. Stopped after 5 steps, resumed: both segments counted.
"$PB" train $CFG --threads 1 --out "$T/res" --stop-after 5 > /dev/null 2>&1
grep -q '"state.cpu_sched"\|state.cpu_sched' "$T"/res/*.ckpt 2> /dev/null
check "the checkpoint carries the account so far" $? "$(ls "$T"/res/ | tr '\n' ' ')"
"$PB" train $CFG --threads 1 --out "$T/res" > /dev/null 2>&1; rc=$?
F=$(ls "$T"/res/*.h5 2> /dev/null | head -n 1)
run=$([ -n "$F" ] && attr "$F" /cpu_run_s) wait=$([ -n "$F" ] && attr "$F" /cpu_wait_s)
[ $rc -eq 0 ] && [ -n "$run" ] && [ -n "$wait" ] && awk -v a="$run" 'BEGIN { exit !(a > 0) }'
check "a resumed run records the account of both segments" $? "exit $rc; cpu_run_s ${run:-absent}, cpu_wait_s ${wait:-absent}"
