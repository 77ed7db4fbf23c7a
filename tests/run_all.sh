#!/bin/sh
# tests/run_all.sh — runs every test program and script; counts their PASS/FAIL/SKIP lines.
# Each program prints "PASS name", "FAIL name: why" or "SKIP name: why" per check; a program
# that exits non-zero without printing a FAIL counts as one failure (a crash).
# Last line: "N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp -d /tmp/posbench-tests.XXXXXX) || exit 1
trap 'rm -rf "$log"' EXIT
pass=0 fail=0 skip=0
run_one() { # name, command...
    name=$1; shift
    start=$(date +%s)
    "$@" >"$log/out" 2>"$log/err"
    rc=$?
    p=$(grep -c '^PASS ' "$log/out"); f=$(grep -c '^FAIL ' "$log/out"); s=$(grep -c '^SKIP ' "$log/out")
    grep -E '^(FAIL|SKIP) ' "$log/out" | sed "s|^|  [$name] |"
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "  [$name] FAIL: exited $rc without a FAIL line; stderr:"; tail -n 5 "$log/err" | sed 's/^/    /'
        f=1
    fi
    echo "$name: $p passed, $f failed, $s skipped ($(( $(date +%s) - start ))s)"
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}
for t in build/tests/test_*; do
    [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
for t in tests/e2e_*.sh; do
    [ -f "$t" ] && run_one "$(basename "$t" .sh)" sh "$t"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
