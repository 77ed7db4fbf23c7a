#!/bin/sh
# tests/e2e_reproduce.sh — the MP3 reproduction at toy size (`make reproduce-mp3 SCALE=smoke`
# runs scripts/reproduce.sh the same way): every experiment of bench/experiments/mp3-*.yaml,
# then the report and the figures, in a temporary directory. Checks that every run finished,
# each paper figure exists as PNG and SVG, and REPORT.md opens with the scale the runs recorded
# (smoke: its first line says so) and has the tables, the paper's numbers and the findings, including the speech experiment on a synthesized Speech Commands set
# (data/speech-commands-synth/smoke, written once). The runs go through the guarded CPU backend (--device cpu-guarded: backend
# memory fenced off from host code, so any host access outside an op kills the run), and
# mp3-main is run again on --device cpu: its files must be bitwise the same (tests/h5_same.py).
# Last, `posbench report --index` over this source (make reproduce-all's index): its row, time,
# links and the same findings as the source's own report.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-reproduce.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e reproduce: Fashion-MNIST is not installed"; exit 0
fi
start=$(date +%s)
sh scripts/reproduce.sh mp3 smoke cpu-guarded "$T/out" > "$T/log" 2>&1; rc=$?
secs=$(( $(date +%s) - start ))
[ $rc -eq 0 ] && [ "$(grep -c '^estimated time' "$T/log")" -eq 5 ]
check "reproduce-mp3 smoke: every run done, exit 0, estimates printed" $? "exit $rc in ${secs}s; $(grep -E '^experiment .* done' "$T/log" | tr '\n' ' ')"
[ $secs -lt 300 ]
check "reproduce-mp3 smoke: under 5 minutes" $? "${secs}s"
grep -q "^== bench/experiments/mp3-table2.yaml (smoke, cpu-guarded, 1 job)" "$T/log" &&
    ! grep -q "^== bench.* 1 jobs)" "$T/log"
check "reproduce-mp3 smoke: each experiment's line says its job count (1 job, never 1 jobs)" $? "$(grep '^== bench' "$T/log" | tr '\n' ' ')"
F="$T/out/figures"
for fig in 'mp3-main_finetune_top1-vs-eta' 'mp3-main_baseline_top1-vs-kind' \
    'mp3-main_pretrain_position-top1-vs-' 'mp3-main_pretrain_position-top1_nonblank-vs-' 'mp3-main_pretrain_knn-top1-vs-layer' \
    'mp3-main_pretrain_relmap_' 'mp3-main_pretrain_samples_' 'mp3-patch_finetune_top1-vs-' \
    'mp3-table2_mp3_step_time_ms-vs-' 'mp3-table2_mp3_act_bytes-vs-' \
    'mp3-table2_mae_pretrain_act_bytes-vs-' 'mp3-main_mae_pretrain_samples_'; do
    n_png=$(ls "$F"/"$fig"*.png 2>/dev/null | wc -l); n_svg=$(ls "$F"/"$fig"*.svg 2>/dev/null | wc -l)
    [ "$n_png" -ge 1 ] && [ "$n_png" -eq "$n_svg" ]
    check "reproduce-mp3 smoke: figure $fig" $? "$n_png PNG, $n_svg SVG"
done
R="$T/out/REPORT.md"
ok=0
for want in '## stage `pretrain` (experiment `mp3-main`)' '## stage `finetune` (experiment `mp3-main`)' \
    '## stage `baseline` (experiment `mp3-main`)' '## stage `mp3` (experiment `mp3-table2`)' 'paper (other data) top1' \
    'pos_top1_nonblank_eta0' 'knn_top1' 'step (ms)' 'activations (MiB)' '## Findings (experiment `mp3-main`)' \
    '## Findings (experiment `mp3-table2`)' '| MP3 then finetuning beats the supervised baseline with the same encoding |' \
    '## stage `mae_finetune` (experiment `mp3-main`)' '| the MAE step needs less activation memory as eta rises |' \
    '## Findings (experiment `mp3-split`)' '## stage `finetune_long` (experiment `mp3-split`)'; do
    grep -qF "$want" "$R" 2>/dev/null || { ok=1; echo "  missing in REPORT.md: $want"; }
done
check "reproduce-mp3 smoke: REPORT.md tables with the paper's numbers and findings" $ok "$(grep -c '^## ' "$R" 2>/dev/null) sections"
# The scale: every run file records it (root attr scale), so the report opens saying a smoke
# report's numbers mean nothing about the papers, and its commands keep --scale smoke.
head -n 1 "$R" | grep -q '^# posbench report — smoke scale: its numbers say nothing about the papers' &&
    grep -q '^- scale: `smoke` ([0-9]* runs) (' "$R" && ! grep -q '^- scale: .*not recorded' "$R" &&
    grep -qF -- "- \`posbench run $T/out/mp3-main/experiment.yaml --scale smoke --out $T/out\`" "$R" &&
    grep -q '^Verdicts: [0-9]* hold' "$R"
check "reproduce-mp3 smoke: the runs record their scale; REPORT.md opens with it (smoke in its first line), the commands with --scale, the verdicts" $? \
    "$(head -n 1 "$R" | cut -c1-100); $(grep -m1 '^- scale' "$R")"
# Speech (MP3 §4.3): the synthesized set was written once under data/speech-commands-synth/smoke;
# MP3 on frames records the position curve and reassembled (1, 100, 40) MFCC samples.
sp=$(ls "$T"/out/mp3-speech/pretrain/*.h5 2>/dev/null | head -n 1)
[ -f data/speech-commands-synth/smoke/testing_list.txt ] && [ -n "$sp" ] &&
    h5ls "$sp/samples/original" 2>/dev/null | grep -q '{2, 1, 100, 40}' && h5ls "$sp/position/top1" > /dev/null 2>&1 &&
    grep -qF '## Findings (experiment `mp3-speech`)' "$R"
check "reproduce-mp3 smoke: the speech experiment (synthesized data, MP3 on frames, findings)" $? "$(h5ls "$sp/samples/original" 2>/dev/null)"
build/posbench run bench/experiments/mp3-main.yaml --scale smoke --out "$T/cpu" --device cpu --jobs 2 > "$T/cpu.log" 2>&1
python3 tests/h5_same.py "$T/cpu" "$T/out" > "$T/same" 2>&1
check "mp3-main smoke: --device cpu-guarded = --device cpu, bit for bit" $? "$(tr '\n' ' ' < "$T/same")"
# The index of every source (`posbench report --index`, the last step of make reproduce-all) over
# this real smoke source, moved into an index folder with the time measured above: its row
# names the five experiments and links the source's report, and its findings are the source
# report's (as many rows, the summary's verdict counts adding up to them).
mkdir -p "$T/idx" && mv "$T/out" "$T/idx/mp3" && printf 'mp3\tsmoke\tcpu-guarded\t%s\t%s\n' "$secs" "$rc" > "$T/idx/reproduce-times.tsv"
build/posbench report --index "$T/idx" > /dev/null 2> "$T/index.err"; rc_index=$?
findings_rows() { awk '/^\| claim \| ours \| paper \| verdict \|$/ {t=1; getline; next} t && /^\|/ {n++; next} {t=0} END {print n + 0}' "$1"; }
I="$T/idx/REPORT.md"
own=$(findings_rows "$T/idx/mp3/REPORT.md"); listed=$(findings_rows "$I")
row=$(grep '^| mp3 | ' "$I")
counted=$(echo "$row" | awk -F' [|] ' '{print $4 + $5 + $6 + $7}')
named=0
for x in mp3-main mp3-patch mp3-speech mp3-split mp3-table2; do echo "$row" | grep -qF "\`$x\`" && named=$((named + 1)); done
[ $rc_index -eq 0 ] && [ "$own" -gt 0 ] && [ "$listed" -eq "$own" ] && [ "$counted" -eq "$own" ] && [ $named -eq 5 ] &&
    echo "$row" | grep -qF "(smoke, cpu-guarded" && echo "$row" | grep -qF '[REPORT.md](mp3/REPORT.md), [REPORT.html](mp3/REPORT.html)' &&
    grep -q '<a href="mp3/REPORT.html">' "$T/idx/REPORT.html"
check "report --index over the mp3 smoke source: its row, time and links, and the same $own findings as its report" $? \
    "exit $rc_index; $listed rows listed, $counted counted; $row $(head -c 300 "$T/index.err")"
