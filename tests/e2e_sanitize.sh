#!/bin/sh
# tests/e2e_sanitize.sh — the bad-input paths and one tiny training (stop, resume, diverge,
# report) through the AddressSanitizer + UndefinedBehaviorSanitizer build (make SANITIZE=1,
# built by `make test` into build-san/). Each case must end with its documented exit status
# and without a sanitizer report (any "runtime error" or "AddressSanitizer" line fails it).
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them).
cd "$(dirname "$0")/.." || exit 1
PB=${PB:-$(pwd)/build-san/posbench}
if [ ! -x "$PB" ]; then
    # make test builds it first (its `sanitize` prerequisite): a missing binary is a broken build,
    # never a reason to skip (a link error once went unnoticed as a SKIP)
    echo "FAIL sanitizer checks: $PB is not built (make sanitize builds it; see build-san.log)"; exit 1
fi
T=$(mktemp -d /tmp/posbench-san.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
# Leaks at exit after an error are by design (the process ends); everything else is reported.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
n=0
case_rc() { # name, expected exit status, command...
    name=$1 want=$2; shift 2
    n=$((n + 1))
    "$@" > "$T/out.$n" 2> "$T/err.$n"; rc=$?
    if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$T/err.$n"; then
        echo "FAIL sanitizer: $name: $(grep -m1 "runtime error\|Sanitizer" "$T/err.$n" | cut -c1-200)"
    elif [ "$rc" -ne "$want" ]; then
        echo "FAIL sanitizer: $name: exit $rc, want $want: $(tail -n 1 "$T/err.$n" | cut -c1-200)"
    else
        echo "PASS sanitizer: $name (exit $rc)"
    fi
}
NODATA=data.path=/nonexistent/posbench
case_rc "unknown key" 2 "$PB" train model.dimm=3
case_rc "key out of range" 2 "$PB" train data.limit=4294967552
case_rc "--threads past 64 bits" 2 "$PB" train --threads 99999999999999999999
case_rc "--out empty" 2 "$PB" train $NODATA --out ""
case_rc "missing dataset" 2 "$PB" train $NODATA --out "$T/x"
case_rc "--shard past 32 bits" 2 "$PB" run tests/experiments/good_sweep.yaml --shard 0/4294967297 --dry-run
for f in tests/experiments/bad_*.yaml; do
    scale=; [ "$(basename "$f")" = bad_scale_unknown.yaml ] && scale="--scale nosuch"
    case_rc "run $(basename "$f")" 2 "$PB" run "$f" $scale --dry-run --out "$T/r"
done
case_rc "run on a directory" 2 "$PB" run "$T" --dry-run
case_rc "report on an empty directory" 2 "$PB" report "$T"

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP sanitizer training: Fashion-MNIST is not installed"; exit 0
fi
S="data.limit=128 data.test_limit=64 train.batch=32 eval.batch=64 train.epochs=2 model.dim=16 model.depth=1 model.heads=2 model.patch=7 --threads 2"
case_rc "tiny training, stopped after step 3" 0 "$PB" train $S --out "$T/t" --stop-after 3
case_rc "tiny training, resumed to the end" 0 "$PB" train $S --out "$T/t"
case_rc "report on the finished run" 0 "$PB" report "$T/t"
K=$(ls "$T"/t/*.weights | head -n 1)
head -c 500 "$K" > "$T/t/trunc.weights"
case_rc "--init from truncated weights" 2 "$PB" train $S train.seed=3 --init "$T/t/trunc.weights" --out "$T/u"
case_rc "diverging training (NaN through every kernel)" 1 env POSBENCH_FAULT_NAN_STEP=2 "$PB" train $S train.seed=1 --out "$T/n"
case_rc "tensor past 2^31 elements (model.patch=1000 data.resolution=3000)" 1 "$PB" train model.patch=1000 data.resolution=3000 --out "$T/b"
