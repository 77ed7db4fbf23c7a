#!/bin/sh
# tests/e2e_reproduce_ssl.sh — the lecture's comparison at toy size (`make reproduce-ssl
# SCALE=smoke` runs scripts/reproduce.sh the same way): bench/experiments/ssl-lecture.yaml's 14
# runs (supervised, MP3, MAE, GVP, SimCLR and DINO pretraining with kNN / linear probes,
# finetuning, DINO's collapse ablations, the matched-budget baseline) all done; the report with
# the lecture's findings, each with a verdict; the views figures (cls_attention, key_pca) drawn.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-reproduce-ssl.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] && [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte ]; then
    echo "SKIP e2e reproduce-ssl: Fashion-MNIST is not installed"; exit 0
fi
start=$(date +%s)
JOBS=2 sh scripts/reproduce.sh ssl smoke cpu "$T/out" > "$T/log" 2>&1; rc=$?
secs=$(( $(date +%s) - start ))
n_done=$(build/posbench list bench/experiments/ssl-lecture.yaml --scale smoke --out "$T/out" 2>/dev/null | sed -n 's/^total: \([0-9]*\) runs (\([0-9]*\) done.*/\2\/\1/p')
[ $rc -eq 0 ] && [ "$n_done" = "14/14" ]
check "reproduce-ssl smoke: every run done, exit 0" $? "exit $rc in ${secs}s, done $n_done; $(tail -n 3 "$T/log" | tr '\n' ' ')"
grep -q "^== bench/experiments/ssl-lecture.yaml (smoke, cpu, 2 jobs)" "$T/log"
check "reproduce-ssl: JOBS=2 from the environment sets the parallel runs" $? "$(grep '^== ' "$T/log" | tr '\n' ' ')"
JOBS=two sh scripts/reproduce.sh ssl smoke cpu "$T/bad" > "$T/bad.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "JOBS=two is not valid" "$T/bad.log" && [ ! -e "$T/bad" ]
check "reproduce-ssl: JOBS=two is refused (exit 2, naming it) before anything runs" $? "exit $rc: $(tr '\n' ' ' < "$T/bad.log")"
R="$T/out/REPORT.md"
ok=1
for claim in "DINO's features make a better kNN classifier" "DINO's \[CLS\] attends to the object" "DINO without centring collapses" \
             "DINO without sharpening collapses" "SimCLR's features make a better kNN classifier" "MAE then finetuning beats the supervised baseline"; do
    grep "$claim" "$R" 2>/dev/null | grep -qE "holds|does not hold|inconclusive" || { ok=0; echo "  missing or without a verdict: $claim"; }
done
[ $ok -eq 1 ]
check "reproduce-ssl smoke: REPORT.md states the lecture's findings, each with a verdict" $? "see above"
for kind in cls_attention key_pca; do
    n=$(find "$T/out/figures" -name "*${kind}*.png" -size +1k 2>/dev/null | wc -l)
    [ "$n" -ge 1 ]
    check "reproduce-ssl smoke: figure $kind drawn" $? "$n PNG files"
done
[ -s "$T/out/REPORT.html" ]
check "reproduce-ssl smoke: REPORT.html written" $? "no $T/out/REPORT.html"
# SCALE=paper (CIFAR-100, ViT-S/4; meant for a GPU): the file expands at that scale, to other runs than small's.
paper=$(build/posbench list bench/experiments/ssl-lecture.yaml --scale paper --out "$T/paper" 2>&1)
small=$(build/posbench list bench/experiments/ssl-lecture.yaml --out "$T/paper" 2>&1)
id_paper=$(echo "$paper" | awk '$2 == "dino_pt" {print $1; exit}') id_small=$(echo "$small" | awk '$2 == "dino_pt" {print $1; exit}')
echo "$paper" | grep -q "^total: 42 runs" && [ -n "$id_paper" ] && [ "$id_paper" != "$id_small" ]
check "reproduce-ssl: SCALE=paper expands to 42 runs, other runs than small's" $? "dino_pt $id_paper vs $id_small; $(echo "$paper" | tail -n 1)"
