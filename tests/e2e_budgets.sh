#!/bin/sh
# tests/e2e_budgets.sh — matched training budgets and caveats, end to end:
#   - a tiny experiment with `budget: finetune` is trained: every matched run's /final updates
#     and images_seen equal the cumulative updates_total / images_seen_total its finetune chain
#     counted while training (two independent counts: the training loop's steps vs the derived
#     length), for each pretraining length of an axis; a finetune run's totals are its pretrain
#     run's plus its own; the matched run's /config train.steps is the derived length;
#   - the report's stage tables show `updates` and `images seen` ("total (init + own)"), the
#     experiment's caveats under its tables and at the head of its findings, "one seed" written
#     automatically, and `paper` vs `paper (other data)` columns from reference same_data;
#   - every shipped experiment, at every scale that loads here: each budget stage's runs have
#     the updates and images of the chain they match (`posbench list --budgets`), and every
#     finding "... then finetuning beats the supervised ..." has a matched-budget twin; a finding
#     that compares a chain with a budget stage matched to another chain (mp3-split's split 2
#     against the control of split 1) has that chain's updates and images in every run, both sides
#     (a copy of mp3-split one update short at smoke fails that check);
#   - bad input: a caveat that is not a text, a budget with another batch, budget with init, an
#     unknown budget stage, a budget list whose chains differ: `file:line:col: message`, exit 2.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
T=$(mktemp -d /tmp/posbench-budgets.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
attr() { h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): //p' | tr -d '"'; } # file, /group/attr

# ---- bad input first (no data needed) ----
bad() { # name, expected text, yaml body
    printf '%s\n' "$3" > "$T/$1.yaml"
    "$PB" list "$T/$1.yaml" > "$T/$1.out" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q "$T/$1.yaml:[0-9]*:[0-9]*: .*$2" "$T/$1.out"
    check "bad input: $1" $? "exit $rc: $(head -c 220 "$T/$1.out")"
}
STAGES='base: {train: {epochs: 1, batch: 32}}
stages:
  pretrain: {objective: {name: mp3}, pe: {kind: none}}
  finetune: {init: pretrain}'
bad caveat_map "each caveat must be a text" "name: b
caveats:
  - \"fine\"
  - {not: text}"
bad caveat_scalar "expected a list of texts" "name: b
caveats: one text"
bad caveat_empty "empty caveat" "name: b
caveats: [\"\", x]"
bad budget_batch "train.batch is 64 here but 32 in stage" "name: b
$STAGES
  matched: {budget: finetune, train: {batch: 64}}"
bad budget_init "budget and init together" "name: b
$STAGES
  matched: {budget: finetune, init: pretrain}"
bad budget_unknown "budget 'finetnue' is not a stage (did you mean 'finetune'" "name: b
$STAGES
  matched: {budget: finetnue}"
bad budget_chains "give each its own matched-budget stage" "name: b
$STAGES
  pre2: {objective: {name: mp3}, pe: {kind: none}, train: {epochs: 2}}
  ft2: {init: pre2}
  matched: {budget: [finetune, ft2]}"
bad same_data "reference same_data" "name: b
reference:
  - {metric: top1, value: 1, same_data: yes}"

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e budgets (training, shipped experiments): Fashion-MNIST is not installed"; exit 0
fi

# ---- a tiny matched-budget experiment, trained ----
cat > "$T/tiny.yaml" <<'YAML'
name: tiny
description: pretrain on all rows, finetune on half, a supervised control as long as both
base:
  data: {limit: 256, test_limit: 100, labeled_fraction: 0.5}
  model: {dim: 16, depth: 1, heads: 2, mlp_ratio: 2, patch: 7}
  train: {epochs: 2, batch: 32, warmup_epochs: 0}
  eval: {batch: 100}
stages:
  matched: {budget: finetune}
  pretrain: {pe: {kind: none}, data: {labeled_fraction: 1.0}, objective: {name: mp3, eta: 0.5}}
  finetune: {init: pretrain}
  baseline: {}
matrix:
  pretrain.train.epochs: [1, 2]
  finetune.pe.kind: [abs, none]
seeds: [0]
reference:
  - {stage: baseline, metric: top1, value: 50, source: "same data", same_data: true}
  - {stage: finetune, metric: top1, value: 60, source: "other data"}
caveats:
  - "toy data: 256 images"
findings:
  - claim: "finetuning beats the supervised control trained as long"
    kind: greater
    a: {stage: finetune, metric: top1}
    b: {stage: matched, metric: top1}
    per: pretrain.train.epochs
YAML
"$PB" list "$T/tiny.yaml" --out "$T/r" > "$T/list" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -cE '^[0-9a-f]{12} +matched +- +pending +pretrain.train.epochs=[12] seed=0' "$T/list")" -eq 2 ]
check "a budget stage inherits its chain's budget axes only (2 runs: one per pretraining length, not per pe.kind)" $? \
    "exit $rc; $(grep matched "$T/list" | head -n 3 | tr '\n' ' ')"
"$PB" run "$T/tiny.yaml" --out "$T/r" --threads 1 > "$T/run" 2>&1; rc=$?
check "the experiment runs (matched stage after its chain)" $rc "exit $rc; $(tail -n 1 "$T/run")"

ok=0 detail=""
for m in "$T"/r/tiny/matched/*.h5; do
    e=$(attr "$m" /config/pretrain.train.epochs)
    mu=$(attr "$m" /final/updates); mi=$(attr "$m" /final/images_seen); steps=$(attr "$m" /config/train.steps)
    found=0
    for f in "$T"/r/tiny/finetune/*.h5; do
        [ "$(attr "$f" /config/pretrain.train.epochs)" = "$e" ] || continue
        found=1
        fu=$(attr "$f" /final/updates_total); fi=$(attr "$f" /final/images_seen_total)
        [ -n "$mu" ] && [ "$mu" = "$fu" ] && [ "$mi" = "$fi" ] && [ "$steps" = "$mu" ] || ok=1
        detail="$detail pretrain $e epochs: matched $mu/$mi vs finetune total $fu/$fi (train.steps $steps);"
    done
    [ $found -eq 1 ] || ok=1
done
[ "$(ls "$T"/r/tiny/matched/*.h5 2>/dev/null | wc -l)" -eq 2 ] || ok=1
check "matched runs train exactly as many updates and images as pretrain + finetune counted" $ok "$detail"

ok=0 detail=""
for f in "$T"/r/tiny/finetune/*.h5; do
    e=$(attr "$f" /config/pretrain.train.epochs)
    p=$(grep -l . "$T"/r/tiny/pretrain/*.h5 | while read -r q; do [ "$(attr "$q" /config/train.epochs)" = "$e" ] && echo "$q"; done | head -n 1)
    pu=$(attr "$p" /final/updates); own=$(attr "$f" /final/updates); tot=$(attr "$f" /final/updates_total)
    oi=$(attr "$f" /final/images_seen); [ "$oi" = "$((own * 32))" ] || ok=1
    [ -n "$tot" ] && [ "$tot" = "$((pu + own))" ] || ok=1
    detail="$detail $pu+$own=$tot;"
done
check "a finetune run's totals are its pretrain run's updates plus its own; images = updates x batch" $ok "$detail"
m=$(ls "$T"/r/tiny/matched/*.h5 | head -n 1)
attr "$m" /budget | grep -qE '^pretrain [0-9]+ \+ finetune [0-9]+ updates$'
check "a matched run names the chain it matched (root attr budget)" $? "$(attr "$m" /budget)"

"$PB" report "$T/r" > /dev/null 2> "$T/report.err"; rc=$?
R="$T/r/REPORT.md"
[ $rc -eq 0 ] && grep -q '| n | updates | images seen |' "$R" && grep -qE '^\| abs \| 2 \| 1 \| 24 \(16 \+ 8\) \| 768 \(512 \+ 256\) \|' "$R"
check "report: updates and images seen columns, a finetune row as total (init + own)" $? "exit $rc; $(grep -E '^\| abs \| 2 ' "$R" | cut -c1-80)"
grep -qE '^\| 2 \| 24 \| 1 \| 24 \| 768 \|' "$R"
check "report: the matched row shows its derived train.steps and the same budget" $? "$(grep -A3 'stage `matched`' "$R" | tail -n 1 | cut -c1-60)"
[ "$(grep -c '^- toy data: 256 images$' "$R")" -eq 2 ] && grep -q '^\*\*Caveats\*\* (experiment `tiny`):' "$R" &&
    grep -q '^\*\*Caveats\*\* (read the verdicts with these):' "$R" && grep -c '^- one seed: every configuration has a single run' "$R" | grep -q 2
check "report: caveats under the experiment's tables and at the head of its findings, one seed written automatically" $? \
    "$(grep -c '^- ' "$R") caveat lines"
awk '/^## Findings/{f=1} f && /^\*\*Caveats/{c=1} f && /^\| claim/{print c+0; exit}' "$R" | grep -q 1
check "report: the findings caveats come before the findings table" $? ""
grep -q '| paper top1 |' "$R" && grep -q '| paper (other data) top1 |' "$R"
check "report: paper column only for same_data, else paper (other data)" $? "$(grep -o 'paper[^|]*top1' "$R" | sort -u | tr '\n' ';')"
cmp -s "$T/tiny.yaml" "$T/r/tiny/experiment.yaml"
check "the run keeps the experiment file (with its caveats) byte for byte" $? ""

# ---- every shipped experiment at every scale that loads here ----
ok=0 detail="" checked=0
for f in bench/experiments/*.yaml bench/experiments/investigations/*.yaml; do
    grep -q 'budget:' "$f" || continue
    scales=$(python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print(" ".join(["-"] + list((d.get("scales") or {}).keys())))' "$f")
    for s in $scales; do
        if [ "$s" = "-" ]; then set --; else set -- --scale "$s"; fi
        if ! "$PB" list "$f" "$@" --budgets > "$T/b.out" 2> "$T/b.err"; then
            # Only data that cannot be had here excuses a scale (CIFAR-100 at the paper scales);
            # any other error is the experiment file's own (e.g. a patch that does not divide the image).
            if grep -q "dataset directory .* does not exist" "$T/b.err"; then
                echo "SKIP $(basename "$f") ${s}: $(head -c 160 "$T/b.err")"
            else
                ok=1 detail="$detail $(basename "$f" .yaml)/$s: does not load: $(head -c 200 "$T/b.err");"
            fi
            continue
        fi
        checked=$((checked + 1))
        # A matched line's updates and images equal those of a run of its budget stage with the same chain.
        res=$(awk '/^budgets:/{b=1; next} b && NF >= 5 && $1 != "run" {
                   from = ""; for (i = 5; i <= NF; i++) from = from " " $i
                   if (from ~ / \(matched\)$/) { sub(/ \(matched\)$/, "", from); want[NR] = from "|" $3 "|" $4; nm++ }
                   else have[from "|" $3 "|" $4] = 1 }
                 END { bad = 0; for (k in want) if (!(want[k] in have)) { bad++; print "unmatched:" want[k] }
                       print (nm > 0 && bad == 0) ? "ok " nm : "bad " nm }' "$T/b.out" | tail -n 1)
        case "$res" in ok*) ;; *) ok=1 ;; esac
        detail="$detail $(basename "$f" .yaml)/$s: $res;"
    done
done
[ $checked -gt 0 ]
check "shipped experiments: every matched run has its chain's updates and images, at every scale that loads" $((ok + $?)) "$detail"

out=$(python3 - <<'PY'
import glob, re, yaml
bad, n = [], 0
for f in sorted(glob.glob("bench/experiments/*.yaml") + glob.glob("bench/experiments/investigations/*.yaml")):
    d = yaml.safe_load(open(f))
    stages = d.get("stages") or {}
    matched = {s for s, b in stages.items() if isinstance(b, dict) and "budget" in b}
    for fd in d.get("findings") or []:
        claim = fd.get("claim", "")
        if not re.search(r"then finetun\w* beats the supervised", claim) or fd.get("b", {}).get("stage") in matched:
            continue
        n += 1
        a = fd["a"]["stage"]
        twins = [g for g in d["findings"] if g is not fd and g.get("a", {}).get("stage") == a
                 and g.get("b", {}).get("stage") in matched]
        if not twins:
            bad.append(f"{f}: {claim}")
print(("ok" if not bad else "bad") + f" {n} claims; " + "; ".join(bad))
PY
)
echo "$out" | grep -q '^ok'
check "every 'pretraining then finetuning beats the supervised baseline' finding has a matched-budget twin" $? "$out"

# A budget stage shared with a chain it was not derived from: every run of the finding's a stage and
# every run of its b stage (a budget stage) have one and the same (updates, images) total, at every
# scale that loads (else the "trained as long" comparison is not). Then a copy of mp3-split whose
# smoke split 2 is one update short must fail it.
cat > "$T/shared.py" <<'PY'
import subprocess, sys, yaml
pb, bad, n = sys.argv[1], [], 0
for f in sys.argv[2:]:
    d = yaml.safe_load(open(f))
    stages = d.get("stages") or {}
    def chain(s):
        while s:
            yield s
            s = (stages.get(s) or {}).get("init")
    pairs = set()
    for fd in d.get("findings") or []:
        a, b = fd.get("a", {}).get("stage"), (fd.get("b") or {}).get("stage")
        bud = (stages.get(b) or {}).get("budget") if b else None
        if bud is None:
            continue
        buds = bud if isinstance(bud, list) else [bud]
        if a not in buds:
            pairs.add((a, b))
    if not pairs:
        continue
    for scale in [None] + list((d.get("scales") or {}).keys()):
        args = [pb, "list", f, "--budgets"] + (["--scale", scale] if scale else [])
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            if "dataset directory" in r.stderr and "does not exist" in r.stderr:
                continue
            bad.append(f"{f} {scale}: does not load: {r.stderr[:160]}")
            continue
        totals, on = {}, False
        for line in r.stdout.splitlines():
            w = line.split()
            if line.startswith("budgets:"):
                on = True
            elif on and len(w) >= 4 and w[0] != "run":
                totals.setdefault(w[1], set()).add((w[2], w[3]))
        for a, b in sorted(pairs):
            n += 1
            got = totals.get(a, set()) | totals.get(b, set())
            if len(got) != 1 or a not in totals or b not in totals:
                bad.append(f"{f} {scale or 'default'}: {a} {sorted(totals.get(a, []))} vs {b} {sorted(totals.get(b, []))}")
print(("ok" if n and not bad else "bad") + f" {n} (stage pair, scale) checks; " + "; ".join(bad))
PY
# shellcheck disable=SC2046
out=$(python3 "$T/shared.py" "$PB" $(ls bench/experiments/*.yaml bench/experiments/investigations/*.yaml))
echo "$out" | grep -q '^ok'
check "a budget stage shared with another chain: both sides train the same updates and images at every scale" $? "$out"
sed 's/pretrain_short.train: {steps: 18,/pretrain_short.train: {steps: 17,/' bench/experiments/mp3-split.yaml > "$T/split-short.yaml"
out=$(python3 "$T/shared.py" "$PB" "$T/split-short.yaml")
! grep -q 'steps: 18,' "$T/split-short.yaml" && echo "$out" | grep -q '^bad .*smoke: finetune_long'
check "a shared budget stage whose other chain is one update short fails that check (naming the scale)" $? "$out"
