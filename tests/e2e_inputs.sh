#!/bin/sh
# tests/e2e_inputs.sh — hostile inputs of issue 29 (Reliability 3), each refused with exit 2 and a
# one-line message naming the file (and line/key) and what is valid, nothing recorded:
# class probes on data without labels (text), ...
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-inputs.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
# refuse NAME WANT CMD...: the command exits 2 with one stderr line holding WANT.
refuse() {
    name=$1 want=$2; shift 2
    "$@" > "$T/r.out" 2> "$T/r.err"; rc=$?
    n=$(wc -l < "$T/r.err")
    [ $rc -eq 2 ] && [ "$n" -eq 1 ] && grep -qF -- "$want" "$T/r.err"
    check "$name" $? "exit $rc: $(head -c 400 "$T/r.err")"
}
# A small UTF-8 corpus (no package needed).
i=0; : > "$T/corpus.txt"
while [ $i -lt 400 ]; do echo "line $i: the quick brown fox jumps over the lazy dog" >> "$T/corpus.txt"; i=$((i + 1)); done
TEXT="data.name=text data.path=$T/corpus.txt objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1
model.heads=2 data.seq_len=32 data.limit=64 data.test_limit=40 train.batch=16 train.epochs=1 eval.batch=20"

# ---- item 3: class probes on data without labels
# shellcheck disable=SC2086
refuse "text with eval.knn: exit 2 (no labels to score)" "eval.knn=true: the kNN probe (knn_top1) scores class labels, and data.name=text has none" \
    $PB train $TEXT eval.knn=true --out "$T/p"
[ ! -e "$T/p" ] || [ -z "$(ls -A "$T/p")" ]; check "text with eval.knn: nothing recorded" $? "$(ls "$T/p" 2>/dev/null)"
# shellcheck disable=SC2086
refuse "text with eval.linear_probe: exit 2" "eval.linear_probe=true: the linear probe (probe_top1) scores class labels" \
    $PB train $TEXT eval.linear_probe=true --out "$T/p"
cat > "$T/knn.yaml" <<YAML
name: knn-text
base:
  data: {name: text, path: $T/corpus.txt, seq_len: 32}
  model: {patch: 1, cls: false, dim: 16, depth: 1, heads: 2}
  objective: {name: mlm}
  eval: {knn: true}
stages:
  pre: {}
YAML
refuse "experiment with a probe on text: file:line:col of eval.knn" "$T/knn.yaml:6:15: stage 'pre': eval.knn=true" \
    $PB list "$T/knn.yaml"
