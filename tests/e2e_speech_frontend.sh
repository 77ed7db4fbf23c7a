#!/bin/sh
# tests/e2e_speech_frontend.sh — the MFCC front ends (data.mfcc) and the rate evaluation's modes
# (eval.speech_rate_mode) end to end on the synthesized smoke set: with tc_resnet a clip is 98
# frames and every variant follows (2 s: 198 frames; 0.8x / 1.25x resampled: 123 / 78; the STFT
# hop stretched to 128 / 200 samples: 122 / 78, CAPE's positions 8 / 12.5 ms apart: the original
# timestamps), records /speech_rate and /speech_rate_hop with
# /final top1_rate<P> and top1_rate<P>_hop; hop alone records no resampled variant (posbench:
# 125 / 80 frames); the new keys at their defaults keep the run id; bad values exit 2 naming the key.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-frontend.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
S=data/speech-commands-synth/smoke
if [ ! -f "$S/speakers.tsv" ]; then
    S="$T/synth"
    $PB data speech-synth --scale smoke --out "$S" --quiet || { echo "FAIL e2e speech front end: speech-synth failed"; exit 1; }
fi
CFG="data.name=speech-commands data.path=$S data.limit=128 data.test_limit=48 model.patch=1 model.dim=16 model.depth=1 model.heads=2 train.steps=4 train.batch=32 eval.batch=48 pe.kind=cape"
vals() { h5dump -w 0 -d "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): //p'; }
attr() { h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): //p'; }
one() { ls "$1"/*.h5 2>/dev/null | head -n 1; }
$PB train $CFG data.mfcc=tc_resnet eval.speech_durations=2 eval.speech_rates=80,125 eval.speech_rate_mode=both --threads 2 --out "$T/a" > "$T/a.log" 2>&1; rc=$?
A=$(one "$T/a")
got="dur $(vals "$A" /speech_duration/frames); rate $(vals "$A" /speech_rate/frames); hop $(vals "$A" /speech_rate_hop/frames); hop_samples $(vals "$A" /speech_rate_hop/hop_samples); seconds $(vals "$A" /speech_rate_hop/frame_seconds)"
[ $rc -eq 0 ] && [ "$got" = "dur 198; rate 123, 78; hop 122, 78; hop_samples 128, 200; seconds 0.008, 0.0125" ] && [ -n "$(attr "$A" /final/top1_rate80_hop)" ] &&
    [ -n "$(attr "$A" /final/top1_rate125)" ] && grep -q 'test rate80_hop (122 frames)' "$T/a.log"
check "tc_resnet: 98 frames per clip and every variant follows; both rate modes recorded" $? "exit $rc: $got"
$PB train $CFG eval.speech_rates=80,125 eval.speech_rate_mode=hop --threads 2 --out "$T/b" > "$T/b.log" 2>&1; rc=$?
B=$(one "$T/b")
[ $rc -eq 0 ] && [ "$(vals "$B" /speech_rate_hop/frames)" = "125, 80" ] && [ -n "$(attr "$B" /final/top1_rate125_hop)" ] &&
    [ -z "$(attr "$B" /final/top1_rate125)" ] && ! h5dump -d /speech_rate/frames "$B" > /dev/null 2>&1
check "posbench, eval.speech_rate_mode=hop: 125 / 80 frames at hops of 8 / 12.5 ms, no resampled variant" $? \
    "exit $rc: hop frames '$(vals "$B" /speech_rate_hop/frames)'"
$PB train $(echo "$CFG" | sed "s/train.steps=4//") train.steps=1 --threads 2 --out "$T/c" > /dev/null 2>&1
$PB train $(echo "$CFG" | sed "s/train.steps=4//") train.steps=1 data.mfcc=posbench eval.speech_rate_mode=resample eval.probe_val_images=1000 --threads 2 --out "$T/d" > /dev/null 2>&1
c=$(basename "$(one "$T/c")"); d=$(basename "$(one "$T/d")")
[ -n "$c" ] && [ "$c" = "$d" ]
check "data.mfcc, eval.speech_rate_mode and eval.probe_val_images at their defaults keep the run id" $? "$c / $d"
$PB train $CFG data.mfcc=htk --out "$T/e" > "$T/e.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "data.mfcc" "$T/e.log" && grep -q "posbench|tc_resnet" "$T/e.log"
check "data.mfcc=htk refused, exit 2 naming the key and the valid front ends" $? "exit $rc: $(tail -n 1 "$T/e.log")"
$PB train $CFG eval.speech_rate_mode=stretch --out "$T/f" > "$T/f.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "eval.speech_rate_mode" "$T/f.log" && grep -q "resample|hop|both" "$T/f.log"
check "eval.speech_rate_mode=stretch refused, exit 2 naming the key and the valid modes" $? "exit $rc: $(tail -n 1 "$T/f.log")"
exit 0
