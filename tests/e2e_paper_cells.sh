#!/bin/sh
# tests/e2e_paper_cells.sh — every `paper:` cell of the shipped experiment files has its source
# (scripts/paper_cells.py; docs/paper-cells.md lists them):
#   - the checked-in files pass: each cell has `source:` naming its paper (mp3, cape, gmlp, gvp,
#     lecture; none) and place, each decimal number of a cell is in the paper its source names,
#     docs/paper-cells.md is what `python3 scripts/paper_cells.py --write` writes;
#   - a copy of the repository's experiment files with a new finding without `source:`, one with
#     a misquoted number (Table 3's 84.0 as 85.0; skipped without ../shared/papers), or
#     docs/paper-cells.md not regenerated fails;
#   - posbench accepts `source:` only beside a `paper:` text (exit 2 naming the line otherwise).
# About 2 s.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
if ! command -v python3 > /dev/null 2>&1 || ! python3 -c 'import yaml' 2> /dev/null; then
    echo "SKIP paper-cells: python3 with PyYAML (python3-yaml) not found"
    exit 0
fi
T=$(mktemp -d /tmp/posbench-paper-cells.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS paper-cells: $1"; else echo "FAIL paper-cells: $1: $3"; fi; }
PAPERS=$(cd .. && pwd)/shared/papers

python3 scripts/paper_cells.py --papers "$PAPERS"

# A copy to break: the experiment files and docs/paper-cells.md.
copy() { rm -rf "$T/r" && mkdir -p "$T/r/docs" && cp -r bench "$T/r/" && cp docs/paper-cells.md "$T/r/docs/"; }
copy
python3 scripts/paper_cells.py --root "$T/r" --papers "$PAPERS" > "$T/out" 2>&1
! grep -q '^FAIL' "$T/out"
check "the unchanged copy passes (control)" $? "$(grep '^FAIL' "$T/out" | head -c 300)"

cat >> "$T/r/bench/experiments/gvp-order.yaml" <<'YAML'
  - claim: "an uncited claim"
    paper: "Table 3 LP: 61.4"
    kind: at_least
    a: {stage: pretrain, metric: knn_top1}
    value: 0.5
YAML
python3 scripts/paper_cells.py --root "$T/r" --papers "$PAPERS" > "$T/out" 2>&1
grep -q '^FAIL paper-cells: every paper: cell has a source.*gvp-order: "an uncited claim"' "$T/out"
check "a new finding with a paper: cell and no source: fails, naming it" $? "$(grep gvp-order "$T/out" | head -c 300)"
grep -q '^FAIL paper-cells: docs/paper-cells.md lists every cell' "$T/out"
check "docs/paper-cells.md not regenerated for the new cell fails" $? "$(head -c 300 "$T/out")"

copy
if [ ! -f "$PAPERS/mp3-position-prediction.txt" ]; then # a clone without ../shared: nothing to quote against
    echo "SKIP paper-cells: a misquoted number fails: $PAPERS lacks mp3-position-prediction.txt"
else
sed -i 's/paper: "Table 3: abs 84.0 vs 73.4/paper: "Table 3: abs 85.0 vs 73.4/' "$T/r/bench/experiments/mp3-main.yaml"
grep -q 'abs 85.0 vs 73.4' "$T/r/bench/experiments/mp3-main.yaml" || echo "FAIL paper-cells: the misquote was not planted (mp3-main.yaml changed?)"
python3 scripts/paper_cells.py --root "$T/r" --papers "$PAPERS" > "$T/out" 2>&1
grep -q '^FAIL paper-cells: every decimal number.*mp3-main.*85.0 is not in mp3' "$T/out"
check "a misquoted number (84.0 as 85.0 in mp3-main's Table 3 cell) fails, naming it" $? "$(grep 'decimal' "$T/out" | head -c 300)"
fi

# posbench: source: beside a paper: text only.
cat > "$T/e.yaml" <<'YAML'
name: e
stages:
  s: {}
findings:
  - claim: "a claim"
    source: "mp3: Table 3"
    kind: at_least
    a: {stage: s, metric: top1}
    value: 0.5
YAML
"$PB" run "$T/e.yaml" --dry-run --out "$T/o" > "$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'e.yaml:6:[0-9]*: findings: source: says where in the paper' "$T/out"
check "posbench refuses source: without a paper: text (exit 2, naming the line)" $? "exit $rc: $(head -c 300 "$T/out")"
sed -i 's/    source: "mp3: Table 3"/    paper: "Table 3: 84.0 vs 73.4"\n    source: "mp3: Table 3"/' "$T/e.yaml"
"$PB" run "$T/e.yaml" --dry-run --out "$T/o" > "$T/out" 2>&1
check "posbench accepts source: beside paper:" $? "$(head -c 300 "$T/out")"
