#!/bin/sh
# tests/e2e_python_batch.sh — tests/python_batch.py, which runs a test program's Python checks in
# one interpreter (tests/testing.c's test_python_flush): each script's PASS/FAIL lines come out
# relabelled TAG[LABEL], and each check's exit status is written as the script's own (0, a
# sys.exit code, 1 for an exception or a sys.exit message), a script's argv and sys.path are its
# own, and a malformed list exits 2 naming the line.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-pybatch.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
mkdir -p "$T/s"
echo 'VALUE = 7' > "$T/s/helper.py"
cat > "$T/s/ok.py" <<'PY'
import sys, helper
print("PASS probe value: %d from %s" % (helper.VALUE, sys.argv[1]))
PY
cat > "$T/s/fails.py" <<'PY'
import sys
print("FAIL probe value: wrong")
sys.exit(3)
PY
printf 'raise RuntimeError("broken")\n' > "$T/s/raises.py"
printf 'import sys\nsys.exit("cannot read the dump")\n' > "$T/s/message.py"
for s in ok fails raises message; do printf '%s\tprobe\t%s\t%s/%s.tf\n' "$T/s/$s.py" "case-$s" "$T" "$s"; done > "$T/list"
/usr/bin/python3 tests/python_batch.py "$T/list" "$T/status" > "$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -qx "PASS probe\[case-ok\] value: 7 from $T/ok.tf" "$T/out" &&
    grep -qx 'FAIL probe\[case-fails\] value: wrong' "$T/out" && grep -q 'RuntimeError: broken' "$T/out" &&
    grep -q 'cannot read the dump' "$T/out" && [ "$(tr '\n' ' ' < "$T/status")" = "0 0 1 3 2 1 3 1 " ]
check "python_batch: lines relabelled, each check's own exit status" $? "exit $rc; status $(tr '\n' ' ' < "$T/status"); $(tr '\n' ' ' < "$T/out" | cut -c1-300)"
printf 'only\ttwo\n' > "$T/bad"
/usr/bin/python3 tests/python_batch.py "$T/bad" "$T/status2" > "$T/out2" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$T/bad:1: want SCRIPT TAG LABEL DUMP" "$T/out2"
check "python_batch: a malformed list exits 2 naming its line" $? "exit $rc: $(cat "$T/out2")"
