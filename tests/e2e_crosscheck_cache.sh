#!/bin/sh
# tests/e2e_crosscheck_cache.sh — `posbench crosscheck` does not trust its cache (issue 29 item 4),
# without PyTorch: a stand-in trainer (a shell script run with --python /bin/sh) writes a result
# file for one tiny run (Fashion-MNIST, 256 images, 8 steps). Checked:
#   - its result is used, keyed (cache_script/cache_python/cache_plan appended by posbench) and
#     reused on a rerun without starting the trainer;
#   - `--python /bin/false` does not reuse it ("trained with another interpreter"), fails (exit 1,
#     no verdict) and leaves the finished result in place; an edited script is trained again;
#   - a cached result with top1 1.5, without step_losses, with a duplicate key, with 7 of the
#     plan's 8 losses, a negative loss, an unknown key or a cut last line: exit 2 naming FILE:LINE;
#   - a fresh result without step_losses, or one that writes cache_* lines itself: exit 2, the
#     finished result untouched;
#   - a cached result with a NaN or infinite loss (a diverged PyTorch run) is named "not
#     comparable" at its step, never "max 0";
#   - a result of an older posbench (no cache key) is trained again.
# About 5 s.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-cccache.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
cat > "$T/tiny.yaml" <<'EOF'
name: cc-cache
base:
  data: {limit: 256, test_limit: 200}
  model: {patch: 7, dim: 32, depth: 2, heads: 2, drop_path: 0}
  train: {batch: 32, epochs: 1}
stages:
  main: {pe: {kind: abs}}
seeds: [0]
EOF
mkdir -p "$T/fake"
# The stand-in trainer: counts its starts, copies $T/result to the file it is told (--out FILE: $3).
write_fake() { printf '# %s\necho run >> "%s/count"\ncat "%s/result" > "$3"\n' "$1" "$T" "$T" > "$T/fake/train.sh"; }
good='top1 0.5\nloss 1.2\ninit ours\ninit_max_abs_diff 0\ncontent_rms 0.5\nposenc_rms nan\nseconds 1.5\nstep_losses 2.3 2.2 2.1 2.0 1.9 1.8 1.7 1.6\n'
printf "$good" > "$T/result"
write_fake v1
: > "$T/count"
cc() { $PB crosscheck "$T/tiny.yaml" --stage main --out "$T/r" --threads 1 --python /bin/sh --script "$T/fake/train.sh" "$@" > "$T/out" 2>&1; }
starts() { wc -l < "$T/count" | tr -d ' '; }
CC="$T/r/cc-cache/main/crosscheck"

cc; rc=$?; R=$(ls "$CC"/*.torch 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ "$(starts)" -eq 1 ] && grep -q '^| PyTorch (bench/crosscheck/torch_train.py) | 1 | 50.00' "$T/out" &&
    [ "$(grep -c '^cache_\(script\|python\|plan\) [0-9a-f]\{16\}$' "$R")" -eq 3 ] && [ ! -e "$R.new" ]
check "crosscheck cache: a fresh result is used and keyed" $? "exit $rc, $(starts) start(s): $(grep -E 'error|PyTorch' "$T/out" | head -n 2 | tr '\n' ' ')"
cp "$R" "$T/good.torch"

cc; rc=$?
[ $rc -eq 0 ] && [ "$(starts)" -eq 1 ] && ! grep -q 'trained again' "$T/out"
check "crosscheck cache: a rerun reuses it without starting the trainer" $? "exit $rc, $(starts) start(s)"

$PB crosscheck "$T/tiny.yaml" --stage main --out "$T/r" --threads 1 --python /bin/false --script "$T/fake/train.sh" > "$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'was trained with another interpreter .*: trained again' "$T/out" && grep -q 'PyTorch run .* failed' "$T/out" &&
    ! grep -q 'agree\|inconclusive' "$T/out" && cmp -s "$R" "$T/good.torch"
check "crosscheck cache: --python /bin/false is not answered from the cache (exit 1, no verdict, result kept)" $? \
    "exit $rc: $(grep -E 'again|error|agree|inconclusive' "$T/out" | head -n 3 | tr '\n' ' ')"

write_fake v2; cc; rc=$?
[ $rc -eq 0 ] && [ "$(starts)" -eq 2 ] && grep -q 'was trained with another script .*: trained again' "$T/out"
check "crosscheck cache: an edited script is trained again" $? "exit $rc, $(starts) start(s)"
cp "$R" "$T/good.torch"

# A cached result with a bad line: exit 2 naming FILE:LINE, the trainer not started.
bad_cached() { # name, needle, sed script
    cp "$T/good.torch" "$R"; sed -i "$3" "$R"; n=$(starts)
    cc; rc=$?
    [ $rc -eq 2 ] && grep -q -- "the cached PyTorch result is not valid: $R$2" "$T/out" && [ "$(starts)" -eq "$n" ]
    check "crosscheck cache refuses a cached result with $1 (exit 2, FILE:LINE)" $? "exit $rc: $(grep error "$T/out" | head -c 400)"
}
bad_cached "top1 1.5" ":1: top1 1.5 is outside \[0, 1\]" 's/^top1 0.5$/top1 1.5/'
bad_cached "no step_losses" ": no step_losses line" '/^step_losses/d'
bad_cached "a duplicate key" ":3: top1 appears twice (first at line 1)" '2a top1 0.4'
bad_cached "7 of the plan's 8 losses" ":8: step_losses has 7 values; the plan has 8 steps" 's/ 1.6$//'
bad_cached "a negative loss" ":8: step_losses: value 2 '-2.2' is not a loss" 's/ 2.2 / -2.2 /'
# A diverged PyTorch run (NaN or infinite losses) is a valid result whose losses cannot be compared:
# never "max 0" (the loss parity summary names the first non-finite step).
for row in "nan|s/ 2.2 / nan /|step 2's loss is nan on PyTorch" "inf|s/ 2.3 / inf /|step 1's loss is infinite on PyTorch"; do
    cp "$T/good.torch" "$R"; sed -i "$(echo "$row" | cut -d'|' -f2)" "$R"
    cc; rc=$?
    grep -qF "not comparable: $(echo "$row" | cut -d'|' -f3)" "$T/out" && ! grep -q 'max 0[^.]' "$T/out"
    check "crosscheck: a cached PyTorch loss $(echo "$row" | cut -d'|' -f1) is named as not comparable, never max 0" $? \
        "exit $rc: $(grep -E 'comparable|max' "$T/out" | head -n 2 | tr '\n' ' ')"
done
bad_cached "an unknown key" ":2: unknown key 'top2'" 's/^loss /top2 /'
bad_cached "an init out of range" ":3: init 'theirs' (valid: ours, torch, timm)" 's/^init ours$/init theirs/'
cp "$T/good.torch" "$R"; truncate -s -1 "$R"; cc; rc=$?
[ $rc -eq 2 ] && grep -q "$R:11: the last line has no end" "$T/out"
check "crosscheck cache refuses a cached result cut mid-line (exit 2, FILE:LINE)" $? "exit $rc: $(grep error "$T/out" | head -c 300)"

# A fresh result that is bad: exit 2 naming the .new file and line; the finished result stays.
cp "$T/good.torch" "$R"
printf "$good" | grep -v '^step_losses' > "$T/result"; write_fake v3; cc; rc=$?
[ $rc -eq 2 ] && grep -q "wrote a bad result: $R.new: no step_losses line" "$T/out" && cmp -s "$R" "$T/good.torch"
check "crosscheck cache: a fresh result without step_losses exits 2, the finished one kept" $? "exit $rc: $(grep error "$T/out" | head -c 300)"
{ printf "$good"; echo "cache_script 0000000000000000"; echo "cache_python 0000000000000000"; echo "cache_plan 0000000000000000"; } > "$T/result"
write_fake v4; cc; rc=$?
[ $rc -eq 2 ] && grep -q "the trainer wrote cache_\* lines" "$T/out" && cmp -s "$R" "$T/good.torch"
check "crosscheck cache: a trainer that writes its own cache key is refused" $? "exit $rc: $(grep error "$T/out" | head -c 300)"

# A result of an older posbench (no key): trained again.
printf "$good" > "$T/result"; printf "$good" > "$R"; n=$(starts); cc; rc=$?
[ $rc -eq 0 ] && grep -q 'has no cache key .*: trained again' "$T/out" && [ "$(starts)" -eq $((n + 1)) ] && grep -q '^cache_plan ' "$R"
check "crosscheck cache: a result without a key is trained again" $? "exit $rc"
exit 0
