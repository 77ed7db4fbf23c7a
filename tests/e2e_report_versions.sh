#!/bin/sh
# tests/e2e_report_versions.sh — what `posbench report` counts after careless use of a real
# results folder (issue 29 items 1 and 2): an experiment edited (base data.limit) and rerun into
# the same --out, then a finished run file copied to <stage>/backup/ and to "<stage>/X copy.h5".
# The report's table and finding use the current version's runs only, once each (n = 2, not 4 or
# 6), say that 2 runs of an earlier version are not used and name each copy; plot draws the same
# runs. Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them). PB=path overrides the binary
# (to show a check fails on an older build).
cd "$(dirname "$0")/.." || exit 1
PB=${PB:-$(pwd)/build/posbench}
T=$(mktemp -d /tmp/posbench-repver.XXXXXX) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
one_line() { head -c 400 "$1" | tr '\n' ' '; }

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e report versions: Fashion-MNIST is not installed"; exit 0
fi
write_yaml() { # data.limit
    cat > "$T/ev.yaml" <<YAML
name: ev
base:
  data: {limit: $1, test_limit: 100}
  train: {epochs: 1, batch: 32}
  eval: {batch: 100, knn: false}
  model: {dim: 16, depth: 1, heads: 2, patch: 7}
stages:
  s: {}
seeds: [0, 1]
findings:
  - {claim: "beats chance", kind: at_least, a: {stage: s, metric: top1}, value: 0.1}
YAML
}
write_yaml 256
$PB run "$T/ev.yaml" --out "$T/o" --threads 2 > "$T/run1" 2>&1; rc1=$?
write_yaml 192 # edited, rerun into the same --out: the copy ev/experiment.yaml is replaced
$PB run "$T/ev.yaml" --out "$T/o" --threads 2 > "$T/run2" 2>&1; rc2=$?
n=$(find "$T/o/ev/s" -name '*.h5' | wc -l)
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$n" -eq 4 ]
check "two versions of an experiment run into one --out (4 run files)" $? "exit $rc1/$rc2, $n files: $(one_line "$T/run2")"

$PB report "$T/o" > "$T/rep" 2> "$T/rep.err"; rc=$?
[ $rc -eq 0 ] && grep -q '^| beats chance | .*(n = 2, ' "$T/rep" && ! grep -q 'data.limit' "$T/rep" &&
    grep -q '^2 runs, 1 configuration' "$T/rep"
check "report: table and finding use the current version only (n = 2, no data.limit split)" $? "exit $rc: $(grep -m1 'beats chance' "$T/rep" | cut -c1-200)"
grep -q '\*\*Not used:\*\* 2 runs of an earlier version of this experiment are not used' "$T/o/REPORT.md" &&
    [ "$(grep -c 'an earlier version of the experiment' "$T/rep.err")" -eq 2 ]
check "report: says 2 runs of an earlier version are not used and names them" $? "$(one_line "$T/rep.err")"

F=$(ls "$T"/o/ev/s/*.h5 | while read -r f; do grep -q "$(basename "$f" .h5)" "$T/run2" && echo "$f"; done | head -n 1)
mkdir -p "$T/o/ev/s/backup"
cp "$F" "$T/o/ev/s/backup/"
cp "$F" "${F%.h5} copy.h5"
$PB report "$T/o" > "$T/rep" 2> "$T/rep.err"; rc=$?
[ $rc -eq 0 ] && grep -q '^| beats chance | .*(n = 2, ' "$T/rep" && grep -q '^2 runs, 1 configuration' "$T/rep" &&
    grep -q "backup/$(basename "$F"): duplicate of run $(basename "$F" .h5) (the same run id as $F, which is counted)" "$T/rep.err" &&
    grep -q "$(basename "$F" .h5) copy.h5: duplicate of run" "$T/rep.err" &&
    grep -q '2 duplicates (a second file of a run that is counted)' "$T/o/REPORT.md"
check "report: copies of a run file (backup/, 'X copy.h5') are counted once and named" $? "exit $rc: $(grep -m1 'beats chance' "$T/rep" | cut -c1-120) $(one_line "$T/rep.err")"

if gnuplot -e 'exit' > /dev/null 2>&1; then
    $PB plot "$T/o/ev" > "$T/plot" 2> "$T/plot.err"; rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c 'left out' "$T/plot.err")" -eq 4 ] && grep -q 'figures in' "$T/plot"
    check "plot: leaves out the same 4 files (2 earlier, 2 copies) and draws the rest" $? "exit $rc: $(one_line "$T/plot.err")"
else
    echo "SKIP plot leaves out the same files: gnuplot not installed"
fi
