#!/bin/sh
# tests/run_all.sh — runs every test program (build/tests/X for each source tests/X.c; a missing
# binary is a failure) and script (tests/e2e_*.sh); counts their PASS/FAIL/SKIP lines.
# Each program prints "PASS name", "FAIL name: why" or "SKIP name: why" per check; a program
# that exits non-zero without printing a FAIL counts as one failure (a crash).
# Tests run TEST_JOBS at a time (default: the number of cores), the costliest of the last run
# first (build/test-times.tsv keeps each test's CPU seconds, user + sys of the test and every
# process it waited for, then its wall seconds: CPU time is what a test costs on a shared
# machine, where wall time mostly measures the load); the tests in SERIAL_TESTS run alone,
# before the others, because they time themselves against the clock.
# Each test prints its FAIL/SKIP lines and its count line (with wall and CPU seconds) when it
# ends; the run ends with the ten costliest tests by CPU seconds and the total. TESTS="name ..."
# runs only the tests named (test_ops, e2e_cli, ...).
# An e2e_*.sh script that fails runs once more: when the rerun passes, its counts stand and the
# first run's FAIL lines are printed as FLAKY lines, in its block and again before the last line.
# Before the last line it repeats every FAIL line, so that a log cut to its tail still names them.
# Last line: "N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
SERIAL_TESTS="e2e_slurm_real e2e_bench_breakdown"
# OpenMP threads that wait sleep instead of spinning: tests run TEST_JOBS at a time, each with one
# thread a core, and a spinning waiter burns the core another test needs (measured beside a
# build: a 40-step training at --threads 2 took 23.7 CPU seconds spinning, 0.8 passive). The
# wait policy changes no result, only how idle threads wait.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
TIMES=build/test-times.tsv

name_of() { case "$1" in *.sh) basename "$1" .sh ;; *) basename "$1" ;; esac; }

# --one LOG PATH: runs one test, prints its block, leaves "passed failed skipped seconds
# cpu_seconds" in LOG/NAME.sum. The CPU seconds are the shell's `times` (its children's user +
# sys) before and after the test: this shell runs nothing else in between.
if [ "${1:-}" = --one ]; then
    log=$2 path=$3
    name=$(name_of "$path")
    start=$(date +%s)
    times >"$log/$name.cpu0"
    case "$path" in
    *.sh) sh "$path" >"$log/$name.out" 2>"$log/$name.err" ;;
    *) "$path" >"$log/$name.out" 2>"$log/$name.err" ;;
    esac
    rc=$?
    # An end-to-end script (processes, locks, clocks) that failed runs once more; when the rerun
    # passes, its counts stand and the first run's FAIL lines are printed as FLAKY (never dropped:
    # the last lines of the run list them again). A failing C test program is not rerun.
    case "$path" in
    *.sh)
        if [ "$rc" -ne 0 ] || grep -q '^FAIL ' "$log/$name.out"; then
            { grep '^FAIL ' "$log/$name.out" || echo "FAIL exited $rc"; } | sed 's/^FAIL /FLAKY (failed, then passed on a rerun): /' >"$log/$name.first"
            sh "$path" >"$log/$name.out" 2>"$log/$name.err"
            rc=$?
            if [ "$rc" -ne 0 ] || grep -q '^FAIL ' "$log/$name.out"; then rm -f "$log/$name.first"; fi
        fi ;;
    esac
    times >"$log/$name.cpu1"
    secs=$(( $(date +%s) - start ))
    # `times` line 2: the children's user and sys time, as 0m1.23s (dash) or 0m1.230s (bash).
    cpu=$(awk 'FNR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t = a[1] * 60 + a[2]; c += (FILENAME ~ /cpu1$/ ? t : -t) } }
               END { printf "%.1f", c }' "$log/$name.cpu0" "$log/$name.cpu1")
    p=$(grep -c '^PASS ' "$log/$name.out"); f=$(grep -c '^FAIL ' "$log/$name.out"); s=$(grep -c '^SKIP ' "$log/$name.out")
    {
        [ -f "$log/$name.first" ] && sed "s|^|  [$name] |" "$log/$name.first"
        grep -E '^(FAIL|SKIP) ' "$log/$name.out" | sed "s|^|  [$name] |"
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "  [$name] FAIL: exited $rc without a FAIL line; stderr:"; tail -n 5 "$log/$name.err" | sed 's/^/    /'
            f=1
        fi
        echo "$name: $p passed, $f failed, $s skipped (${secs}s, cpu ${cpu}s)"
    } >"$log/$name.block"
    cat "$log/$name.block"
    echo "$p $f $s $secs $cpu" >"$log/$name.sum"
    exit 0
fi

jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in ''|*[!0-9]*|0) echo "tests/run_all.sh: TEST_JOBS must be a whole number >= 1 (got '$jobs')" >&2; exit 2 ;; esac
log=$(mktemp -d /tmp/posbench-tests.XXXXXX) || exit 1
trap 'rm -rf "$log"' EXIT
start_all=$(date +%s)

# the test programs are the sources tests/test_*.c (a binary left in build/tests/ by a deleted
# source is not run); one that was not built is a FAIL, not a silent gap
for src in tests/test_*.c; do t=build/tests/$(basename "$src" .c); echo "$t"; done >"$log/list"
for t in tests/e2e_*.sh; do [ -f "$t" ] && echo "$t"; done >>"$log/list"
if [ -n "${TESTS:-}" ]; then # TESTS="name ..." runs only those tests
    while read -r t; do case " $TESTS " in *" $(name_of "$t") "*) echo "$t" ;; esac; done <"$log/list" >"$log/only"
    mv "$log/only" "$log/list"
fi
: >"$log/serial"; : >"$log/parallel"
while read -r t; do
    n=$(name_of "$t")
    case " $SERIAL_TESTS " in
    *" $n "*) echo "$t" >>"$log/serial" ;;
    *) printf '%s\t%s\n' "$(awk -v n="$n" '$1 == n { s = $2 } END { print (s == "" ? 100000 : s) }' "$TIMES" 2>/dev/null || echo 100000)" "$t" >>"$log/parallel" ;;
    esac
done <"$log/list"

# Data several tests read, made once here so that no two tests write it at the same time.
if [ ! -f data/speech-commands-synth/smoke/testing_list.txt ]; then
    mkdir -p data/speech-commands-synth &&
        build/posbench data speech-synth --scale smoke --out data/speech-commands-synth/smoke --quiet ||
        echo "tests/run_all.sh: could not write data/speech-commands-synth/smoke (the tests that need it say so)"
fi
if [ ! -f data/kjv.txt ] && command -v bible >/dev/null 2>&1; then
    make --no-print-directory -s data/kjv.txt >/dev/null || echo "tests/run_all.sh: make data/kjv.txt failed (the tests that need it say so)"
fi

while read -r t; do sh "$0" --one "$log" "$t"; done <"$log/serial"
sort -t "$(printf '\t')" -k1,1nr -k2,2 "$log/parallel" | cut -f2 | xargs -P "$jobs" -n 1 sh "$0" --one "$log"

pass=0 fail=0 skip=0 missing=0
: >"$log/times"
while read -r t; do
    n=$(name_of "$t")
    if [ -f "$log/$n.sum" ]; then
        read -r p f s secs cpu <"$log/$n.sum"
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
        printf '%s\t%s\t%s\n' "$n" "$cpu" "$secs" >>"$log/times"
    else
        echo "  [$n] FAIL: never reported (the runner lost it)"; missing=$((missing + 1))
    fi
done <"$log/list"
fail=$((fail + missing))
[ -z "${TESTS:-}" ] && [ -d build ] && cp "$log/times" "$TIMES.tmp" 2>/dev/null && mv "$TIMES.tmp" "$TIMES"
echo "costliest tests (CPU seconds, user + sys; wall seconds):"
sort -t "$(printf '\t')" -k2,2nr "$log/times" | head -n 10 | awk -F '\t' '{ printf "  %-28s %7.1f %5ds\n", $1, $2, $3 }'
echo "tests took $(( $(date +%s) - start_all ))s with $jobs at a time, $(awk -F '\t' '{ c += $2 } END { printf "%.0f", c }' "$log/times") CPU seconds"
if cat "$log"/*.first >/dev/null 2>&1; then
    echo "flaky (failed, then passed on a rerun; counted as the rerun):"
    for f in "$log"/*.first; do sed "s|^|  [$(basename "$f" .first)] |" "$f"; done
fi
if [ "$fail" -gt 0 ]; then
    echo "failures (each test's block above has its SKIP lines and stderr):"
    while read -r t; do
        n=$(name_of "$t")
        [ -f "$log/$n.block" ] && grep -F "FAIL" "$log/$n.block"
        [ -f "$log/$n.sum" ] || echo "  [$n] FAIL: never reported (the runner lost it)"
    done <"$log/list"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
