#!/bin/sh
# tests/e2e_inputs.sh — hostile inputs of issue 29 (Reliability 3), each refused with exit 2 and a
# one-line message naming the file (and line/key) and what is valid, nothing recorded:
# class probes on data without labels (text: item 3); data that changed since a checkpoint or a
# finished run (a text file changed in place, same size; a WAV clip changed: item 5), refused
# unless --force, and resumes otherwise exact; an empty speech split (item 6); a FIFO, a device
# or a 40 GB sparse file as data.path or experiment file (items 10, 11; data.max_bytes); WAVs
# that are not 16-bit PCM or whose data chunk declares more than the file holds; a clip listed
# twice or in both split lists.
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
SIZE=$(wc -c < "$T/corpus.txt")
# NOPATH: every key but data.path and train.epochs (a key is given once on the command line).
NOPATH="data.name=text objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1
model.heads=2 data.seq_len=32 data.limit=64 data.test_limit=40 train.batch=16 eval.batch=20"
TEXT="$NOPATH data.path=$T/corpus.txt"

# ---- item 3: class probes on data without labels
# shellcheck disable=SC2086
refuse "text with eval.knn: exit 2 (no labels to score)" "eval.knn=true: the kNN probe (knn_top1) scores class labels, and data.name=text has none" \
    $PB train $TEXT train.epochs=1 eval.knn=true --out "$T/p"
[ ! -e "$T/p" ] || [ -z "$(ls -A "$T/p")" ]; check "text with eval.knn: nothing recorded" $? "$(ls "$T/p" 2>/dev/null)"
# shellcheck disable=SC2086
refuse "text with eval.linear_probe: exit 2" "eval.linear_probe=true: the linear probe (probe_top1) scores class labels" \
    $PB train $TEXT train.epochs=1 eval.linear_probe=true --out "$T/p"
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

# ---- item 5: data changed since the checkpoint / since the run finished
# shellcheck disable=SC2086
$PB train $TEXT train.epochs=2 --out "$T/c" --stop-after 3 > "$T/c1.log" 2>&1
ck=$(ls "$T"/c/*.ckpt 2>/dev/null)
h5dump -a /data_files "$T"/c/*.h5.partial 2>/dev/null | grep -q "file [0-9a-f]\{8\} $(wc -c < "$T/corpus.txt") $T/corpus.txt"
check "the run file records the text file's size and CRC-32" $? "no line 'file CRC $SIZE $T/corpus.txt' in /data_files"
cp "$T/corpus.txt" "$T/corpus.orig"
sed -i 's/quick brown/quick green/' "$T/corpus.txt" # same size, other bytes
[ "$(wc -c < "$T/corpus.txt")" -eq "$(wc -c < "$T/corpus.orig")" ] || echo "FAIL test setup: sizes differ"
# shellcheck disable=SC2086
refuse "resume on a text file changed in place (same size): exit 2 naming the file" \
    "checkpoint refused, not resumed: the data changed since it was written: $T/corpus.txt: $SIZE bytes, CRC-32" \
    $PB train $TEXT train.epochs=2 --out "$T/c"
[ -f "$ck" ]; check "the refused resume kept the checkpoint" $? "$ck"
cp "$T/corpus.orig" "$T/corpus.txt"
# shellcheck disable=SC2086
$PB train $TEXT train.epochs=2 --out "$T/c" > "$T/c2.log" 2>&1; rc=$?
grep -q "resuming run .* from step 3" "$T/c2.log"; check "the same data resumes" $(( rc + $? )) "exit $rc"
# shellcheck disable=SC2086
$PB train $TEXT train.epochs=2 --out "$T/d" > "$T/d.log" 2>&1
h5dump -d /train/loss "$T"/c/*.h5 > "$T/l1" 2>&1; h5dump -d /train/loss "$T"/d/*.h5 > "$T/l2" 2>&1
sed -i 1d "$T/l1" "$T/l2"; cmp -s "$T/l1" "$T/l2"; check "the resumed run's losses equal an uninterrupted run's, bit for bit" $? ""
sed -i 's/quick brown/quick green/' "$T/corpus.txt"
# shellcheck disable=SC2086
refuse "a finished run on a changed text file: exit 2, not 'already finished'" "finished on other data: $T/corpus.txt" \
    $PB train $TEXT train.epochs=2 --out "$T/c"
cat > "$T/exp.yaml" <<YAML
name: changed
base:
  data: {name: text, path: $T/corpus.txt, seq_len: 32, limit: 64, test_limit: 40}
  model: {patch: 1, cls: false, dim: 16, depth: 1, heads: 2}
  objective: {name: mlm}
  train: {batch: 16, epochs: 1}
  eval: {batch: 20}
stages:
  pre: {}
YAML
$PB run "$T/exp.yaml" --out "$T/e" > "$T/e1.log" 2>&1
cp "$T/corpus.orig" "$T/corpus.txt"
refuse "posbench run: a done run whose text file changed: exit 2 naming the run and the file, nothing run" \
    "finished on other data: $T/corpus.txt" $PB run "$T/exp.yaml" --out "$T/e"
$PB run "$T/exp.yaml" --out "$T/e" --force > "$T/e2.log" 2>&1; rc=$?
$PB run "$T/exp.yaml" --out "$T/e" > "$T/e3.log" 2>&1; rc2=$?
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "0 to run" "$T/e3.log"
check "--force retrains it; then the run is done again" $? "exit $rc, $rc2"

# ---- items 10, 11: FIFOs, devices, huge files
mkfifo "$T/fifo" && {
    # shellcheck disable=SC2086
    refuse "data.path a FIFO: exit 2 at once" "$T/fifo: is a FIFO (named pipe), not a regular file" \
        timeout 20 $PB train $NOPATH train.epochs=1 data.path="$T/fifo" --out "$T/f"
    refuse "list of a FIFO experiment file: exit 2 at once" "$T/fifo: is a FIFO (named pipe), not a regular file" timeout 20 $PB list "$T/fifo"
    refuse "run of a FIFO experiment file: exit 2 at once" "$T/fifo: is a FIFO (named pipe), not a regular file" timeout 20 $PB run "$T/fifo" --out "$T/f"
    mkdir "$T/idx" && mkfifo "$T/idx/train-images-idx3-ubyte" "$T/idx/train-labels-idx1-ubyte"
    refuse "an IDX file that is a FIFO: exit 2" "train-images-idx3-ubyte: is a FIFO" timeout 20 $PB train data.name=idx data.path="$T/idx" --out "$T/f"
}
# shellcheck disable=SC2086
refuse "data.path=/dev/zero (text): exit 2, nothing read" "/dev/zero: is a character device, not a regular file" \
    timeout 20 $PB train $NOPATH train.epochs=1 data.path=/dev/zero --out "$T/f"
if truncate -s 40G "$T/sparse" 2>/dev/null; then
    # shellcheck disable=SC2086
    refuse "a 40 GB sparse text file: exit 2 before reading (data.max_bytes)" "42949672960 bytes is more than data.max_bytes=4294967296" \
        timeout 20 $PB train $NOPATH train.epochs=1 data.path="$T/sparse" --out "$T/f"
    rm -f "$T/sparse"
else echo "SKIP sparse file: truncate -s 40G failed here"; fi
# shellcheck disable=SC2086
refuse "data.max_bytes below the file: exit 2 naming the key" "$T/corpus.txt: $SIZE bytes is more than data.max_bytes=1000" \
    $PB train $TEXT train.epochs=1 data.max_bytes=1000 --out "$T/f"
refuse "an experiment file that is a device: exit 2" "/dev/zero: is a character device" timeout 20 $PB list /dev/zero

# ---- the command line and experiment files
refuse "the same key twice on the command line: exit 2 naming both" \
    "train.lr is given twice on the command line ('train.lr=1e-3', then 'train.lr=2e-3')" \
    $PB train train.lr=1e-3 train.lr=2e-3 --out "$T/k"
[ ! -e "$T/k" ]; check "the same key twice: nothing recorded" $? ""
: > "$T/afile"
printf 'name: big-seed\nseeds: [9223372036854775807]\nstages: {a: {}}\n' > "$T/seed.yaml"
refuse "seeds: [INT64_MAX] rejected, not wrapped" "$T/seed.yaml:2:9: train.seed: 9223372036854775807 is out of range" $PB list "$T/seed.yaml"
refuse "train.seed=INT64_MAX rejected, not wrapped" "train.seed: 9223372036854775807 is out of range (valid: an integer in [0, 4294967295])" \
    $PB train train.seed=9223372036854775807 --out "$T/k"
refuse "list --out naming a regular file: 'not a directory'" "--out $T/afile is not a directory" $PB list "$T/exp.yaml" --out "$T/afile"

# ---- init weights that do not fit the model (1 of 20 tensors): refused unless train.init_partial
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    IMG="data.limit=256 data.test_limit=100 train.epochs=1 train.batch=64 eval.batch=100 model.depth=1 model.heads=2 model.patch=7"
    # shellcheck disable=SC2086
    $PB train $IMG model.dim=32 --out "$T/i1" > "$T/i1.log" 2>&1
    W=$(ls "$T"/i1/*.weights 2>/dev/null | head -n 1)
    # shellcheck disable=SC2086
    refuse "init weights of another width: exit 2 naming the tensors" \
        "do not fit this model: 1 of 20 tensors load, 18 have another shape (patch_embed.weight (32, 49) in the file, (16, 49) here" \
        $PB train $IMG model.dim=16 --init "$W" --out "$T/i2"
    [ -z "$(ls "$T/i2" 2>/dev/null)" ]; check "refused init: nothing recorded" $? "$(ls "$T/i2" 2>/dev/null)"
    # shellcheck disable=SC2086
    $PB train $IMG model.dim=16 train.init_partial=true --init "$W" --out "$T/i2" > "$T/i2.log" 2>&1; rc=$?
    loaded=$(h5dump -a /init/tensors_loaded "$T"/i2/*.h5 2>/dev/null | sed -n 's/^ *(0): //p')
    total=$(h5dump -a /init/tensors "$T"/i2/*.h5 2>/dev/null | sed -n 's/^ *(0): //p')
    [ $rc -eq 0 ] && [ "$loaded" = 1 ] && [ "$total" = 20 ] && grep -q "^init: 1 of 20 tensors" "$T/i2.log"
    check "train.init_partial=true: trains and records /init tensors_loaded 1 of tensors 20" $? "exit $rc, $loaded of $total"
    # shellcheck disable=SC2086
    $PB train $IMG model.dim=32 objective.label_smoothing=0.1 --init "$W" --out "$T/i3" > "$T/i3.log" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q "^init: 20 of 20 tensors" "$T/i3.log"
    check "init weights that fit: every tensor loads, no init_partial needed" $? "exit $rc: $(grep init: "$T/i3.log")"
else echo "SKIP init weights that do not fit: Fashion-MNIST is not installed"; fi

# ---- speech: item 5 (a clip changed), item 6 (empty splits), clips listed twice, WAV encodings
S="$T/sp"
if $PB data speech-synth --out "$S" --scale smoke --seed 4 --quiet 2> "$T/synth.err"; then
SPEECH="data.name=speech-commands data.limit=128 data.test_limit=48 model.patch=1 model.dim=16 model.depth=1 model.heads=2
train.steps=4 train.batch=32 eval.batch=48 train.checkpoint_every=1"
# shellcheck disable=SC2086
$PB train $SPEECH data.path="$S" --out "$T/s" --stop-after 2 > "$T/s1.log" 2>&1
clip=$(find "$S/yes" -name '*.wav' | sort | head -n 1)
python3 - "$clip" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[-2] ^= 0x55; open(p, 'wb').write(b)
PY
# shellcheck disable=SC2086
refuse "resume after a WAV clip changed in place: exit 2 naming the folder" "the data changed since it was written: $S: its .wav clips:" \
    $PB train $SPEECH data.path="$S" --out "$T/s"
cp -r "$S" "$T/e6" && : > "$T/e6/testing_list.txt"
# shellcheck disable=SC2086
refuse "empty testing_list.txt: exit 2 'test split is empty (FILE)'" "test split is empty ($T/e6/testing_list.txt" \
    $PB train $SPEECH data.path="$T/e6" --out "$T/s6"
[ ! -e "$T/s6" ] || [ -z "$(ls "$T/s6")" ]; check "empty test split: nothing recorded" $? "$(ls "$T/s6" 2>/dev/null)"
cp "$S/testing_list.txt" "$T/e6/testing_list.txt" && : > "$T/e6/validation_list.txt"
# shellcheck disable=SC2086
refuse "empty validation_list.txt with early stopping: exit 2" "validation split is empty ($T/e6/validation_list.txt" \
    $PB train $SPEECH data.path="$T/e6" train.early_stop=true --out "$T/s6"
cp -r "$S" "$T/dup" && first=$(head -n 1 "$T/dup/testing_list.txt") && echo "$first" >> "$T/dup/validation_list.txt"
vl=$(wc -l < "$T/dup/validation_list.txt")
# shellcheck disable=SC2086
refuse "a clip in both split lists: exit 2 naming both lines" \
    "$T/dup/testing_list.txt:1:1: '$first' is listed again: $T/dup/validation_list.txt:$vl:1 lists it already" \
    $PB train $SPEECH data.path="$T/dup" --out "$T/sd"
cp "$S/validation_list.txt" "$T/dup/validation_list.txt" && echo "$first" >> "$T/dup/testing_list.txt"
tl=$(wc -l < "$T/dup/testing_list.txt")
# shellcheck disable=SC2086
refuse "a clip twice in one list: exit 2 naming both lines" \
    "$T/dup/testing_list.txt:$tl:1: '$first' is listed again: $T/dup/testing_list.txt:1:1 lists it already" \
    $PB train $SPEECH data.path="$T/dup" --out "$T/sd"
for kind in u8 float cut long; do
    rm -rf "$T/w" && cp -r "$S" "$T/w"
    python3 - "$T/w" "$kind" <<'PY'
import struct, sys, glob
d, kind = sys.argv[1], sys.argv[2]
clip = sorted(glob.glob(d + '/no/*.wav'))[0]
n = 8000
def wav(fmt_tag, bits, data):
    fmt = struct.pack('<HHIIHH', fmt_tag, 1, 16000, 16000 * bits // 8, bits // 8, bits)
    return b'RIFF' + struct.pack('<I', 4 + 8 + len(fmt) + 8 + len(data)) + b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt + b'data' + struct.pack('<I', len(data)) + data
if kind == 'u8': body = wav(1, 8, bytes([128]) * n)
elif kind == 'float': body = wav(3, 32, struct.pack('<f', 0.0) * n)
elif kind == 'cut': body = wav(1, 16, b'\0\0' * n)[:-4000]             # data chunk shorter than declared
else:
    body = bytearray(wav(1, 16, b'\0\0' * n)); body[40:44] = struct.pack('<I', 10 ** 9)  # declared beyond the file
open(clip, 'wb').write(bytes(body))
PY
    case $kind in
    u8) want="encoding 8-bit PCM (must be 16-bit PCM WAV)";; float) want="encoding 32-bit float (must be 16-bit PCM WAV)";;
    cut) want="the data chunk at byte offset 36 declares 16000 bytes, but the file ends after 12000";;
    long) want="the data chunk at byte offset 36 declares 1000000000 bytes";;
    esac
    # shellcheck disable=SC2086
    refuse "a $kind WAV clip: exit 2 naming the file" "$T/w/no/" $PB train $SPEECH data.path="$T/w" --out "$T/sw"
    grep -qF -- "$want" "$T/r.err"; check "a $kind WAV clip: says why ($want)" $? "$(cat "$T/r.err")"
done
# Clips longer than 1 s: cut to the first second with a warning (data.long_clips=cut, the
# default), or refused naming the clip (refuse). Every yes/no clip gets half a second of silence.
rm -rf "$T/lc" && cp -r "$S" "$T/lc"
python3 - "$T/lc" <<'PY'
import glob, struct, sys
for p in sorted(glob.glob(sys.argv[1] + '/yes/*.wav') + glob.glob(sys.argv[1] + '/no/*.wav')):
    b = open(p, 'rb').read()
    i = b.index(b'data'); n = struct.unpack('<I', b[i + 4:i + 8])[0]
    pcm = b[i + 8:i + 8 + n] + b'\0\0' * 8000
    out = b[:i] + b'data' + struct.pack('<I', len(pcm)) + pcm
    out = out[:4] + struct.pack('<I', len(out) - 8) + out[8:]
    open(p, 'wb').write(out)
PY
# shellcheck disable=SC2086
$PB train $SPEECH data.path="$T/lc" --out "$T/lcut" > "$T/lc.out" 2> "$T/lc.err"; rc=$?
[ $rc -eq 0 ] && grep -q "^posbench: warning: $T/lc: [0-9]* clips\{0,1\} \(is\|are\) longer than 1 s, cut to the first second (first: " "$T/lc.err"
check "clips longer than 1 s are cut with a warning naming how many (data.long_clips=cut)" $? "exit $rc: $(grep -m1 warning "$T/lc.err")"
# shellcheck disable=SC2086
refuse "clips longer than 1 s refused with data.long_clips=refuse: exit 2 naming the clip" \
    "s long, more than the 1-s clip (data.long_clips=refuse" $PB train $SPEECH data.long_clips=refuse data.path="$T/lc" --out "$T/lref"
grep -q "^posbench: error: $T/lc/\(yes\|no\)/.*\.wav: 1\.500 s long" "$T/r.err"
check "the refusal names the clip and its length" $? "$(cat "$T/r.err")"
else echo "FAIL speech-synth for the speech cases: $(cat "$T/synth.err")"; fi
exit 0
