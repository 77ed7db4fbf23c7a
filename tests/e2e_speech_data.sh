#!/bin/sh
# tests/e2e_speech_data.sh — `posbench data speech-synth` end to end at the smoke scale: the
# layout it writes, byte-identical output for the same seed (two processes), a different set
# for another seed, the leftover folder of an interrupted run removed (never through a link in
# it), and exit 2 with a named reason for bad flags and an existing --out.
cd "$(dirname "$0")/.." || exit 1
pb=build/posbench
tmp=$(mktemp -d /tmp/posbench-e2e-speech.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
check() { # name, condition (exit status of the previous command: 0 = pass), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi
}
$pb data speech-synth --out "$tmp/a" --scale smoke --seed 4 --quiet 2>"$tmp/err"
check speech_synth_runs $? "$(cat "$tmp/err")"
words=$(ls -d "$tmp"/a/*/ 2>/dev/null | grep -vc _background_noise_)
clips=$(find "$tmp/a" -name '*_nohash_0.wav' | wc -l)
noise=$(ls "$tmp/a/_background_noise_"/*.wav 2>/dev/null | wc -l)
[ "$words" -eq 30 ] && [ "$clips" -eq 600 ] && [ "$noise" -eq 3 ] && [ -s "$tmp/a/validation_list.txt" ] &&
    [ -s "$tmp/a/testing_list.txt" ] && [ -s "$tmp/a/speakers.tsv" ] && [ ! -e "$tmp/a.partial" ]
check speech_synth_layout $? "words $words, clips $clips, noise files $noise"
# the second process finds the leftover of an interrupted one (a nested folder, a link to a file
# outside): removed without following the link, then the same bytes as the first
mkdir -p "$tmp/b.partial/stale" && echo keep > "$tmp/victim" && ln -s "$tmp/victim" "$tmp/b.partial/stale/link" && echo x > "$tmp/b.partial/stale/x.wav"
$pb data speech-synth --out "$tmp/b" --scale smoke --seed 4 --quiet 2>"$tmp/err" && diff -r "$tmp/a" "$tmp/b" >/dev/null
check speech_synth_same_seed_same_bytes $? "a second process with seed 4 wrote different files"
[ "$(cat "$tmp/victim")" = keep ] && [ ! -e "$tmp/b.partial" ] && [ ! -e "$tmp/b/stale" ]
check speech_synth_leftover_removed_not_followed $? "victim '$(cat "$tmp/victim")', leftover $(ls -A "$tmp/b.partial" 2>&1 | tr '\n' ' ')"
$pb data speech-synth --out "$tmp/c" --scale smoke --seed 5 --quiet 2>"$tmp/err" && ! diff -r "$tmp/a" "$tmp/c" >/dev/null
check speech_synth_other_seed_differs $? "seed 5 wrote the same files as seed 4"
$pb data speech-synth --out "$tmp/a" --scale smoke --quiet 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q "already exists" "$tmp/err"
check speech_synth_refuses_existing $? "exit $rc: $(cat "$tmp/err")"
$pb data speech-synth --out "$tmp/d" --scale huge 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q "valid: smoke, small, paper" "$tmp/err" && [ ! -e "$tmp/d" ]
check speech_synth_bad_scale $? "exit $rc: $(cat "$tmp/err")"
$pb data speech-synth --out "$tmp/d" --seed -1 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q "seed" "$tmp/err"
check speech_synth_bad_seed $? "exit $rc: $(cat "$tmp/err")"
$pb data speech-synth 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q -- "--out" "$tmp/err"
check speech_synth_needs_out $? "exit $rc: $(cat "$tmp/err")"
$pb data nonsense 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q "valid: speech-synth" "$tmp/err"
check data_unknown_subcommand $? "exit $rc: $(cat "$tmp/err")"
exit 0
