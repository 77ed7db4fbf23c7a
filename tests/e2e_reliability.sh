#!/bin/sh
# tests/e2e_reliability.sh — hostile and careless use that must never lose or falsify a result:
# two trainings of one run at once (the run lock), corrupted and out-of-range checkpoints,
# damaged results files (train, list, run), diverged runs staying diverged on reruns, integer
# keys and flags past their range, empty and over-long --out paths.
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them). PB=path overrides the binary
# (to show a check fails on an older build).
cd "$(dirname "$0")/.." || exit 1
PB=${PB:-$(pwd)/build/posbench}
T=$(mktemp -d /tmp/posbench-rel.XXXXXX) || exit 1
trap 'umount "$T/full" 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
status_of() { h5dump -a /status "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p'; }
one_line() { head -c 300 "$1" | tr '\n' ' '; }

# ---- integers, flags and paths (no dataset needed: all refused before any data is read; the
# missing data.path keeps an older build that accepted them from training or writing anything)
NODATA=data.path=/nonexistent/posbench
$PB train $NODATA data.limit=4294967552 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "data.limit: 4294967552 is out of range" "$T/o"
check "an integer key past 2^31 is refused, not wrapped (data.limit=4294967552)" $? "exit $rc: $(one_line "$T/o")"
$PB train $NODATA --threads 99999999999999999999 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "threads needs an integer in" "$T/o"
check "--threads past 64 bits is refused" $? "exit $rc: $(one_line "$T/o")"
$PB train $NODATA --threads 4294967297 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "threads needs an integer in" "$T/o"
check "--threads 2^32+1 is refused, not 1" $? "exit $rc: $(one_line "$T/o")"
printf 'name: x\nbase: {train: {epochs: 1}}\nstages:\n  s: {}\n' > "$T/x.yaml"
$PB run "$T/x.yaml" --shard 0/4294967297 --dry-run --out "$T/x" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "shard" "$T/o"
check "--shard 0/4294967297 is refused, not 0/1" $? "exit $rc: $(one_line "$T/o")"
$PB run "$T/x.yaml" --jobs 2000 --dry-run --out "$T/x" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "1024" "$T/o"
check "--jobs 2000 says the real limit" $? "exit $rc: $(one_line "$T/o")"
$PB train $NODATA --out "" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "empty" "$T/o"
check "train --out \"\" is refused (it wrote into /)" $? "exit $rc: $(one_line "$T/o")"
$PB run "$T/x.yaml" --dry-run --out "" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ]
check "run --out \"\" is refused" $? "exit $rc: $(one_line "$T/o")"
# A directory whose path fits (4085 characters) but whose run files would not: refused before
# anything is written (the names were truncated to one string, and the checkpoint's unlink
# deleted the results).
LONG=$T; while [ ${#LONG} -lt 3885 ]; do LONG=$LONG/$(printf '%0199d' 0); done
LONG=$LONG/$(printf '%0*d' $((4085 - ${#LONG} - 1)) 0)
$PB train data.limit=64 data.test_limit=64 train.batch=64 train.epochs=1 model.dim=16 model.depth=1 eval.knn=false --out "$LONG" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "at most" "$T/o" && [ -z "$(find "$T" -name '*.h5*')" ]
check "an --out path that cannot hold the run's file names is refused (no truncated names)" $? "exit $rc: $(one_line "$T/o" | cut -c1-120)"

# ---- positions are 1-based (as gcc, yamllint and editors count), messages say what is wrong
printf 'name: p\nbase:\n  model: {dim: 64}\n  model: {depth: 2}\nstages:\n  s: {}\n' > "$T/dup.yaml"
$PB list "$T/dup.yaml" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "dup.yaml:4:3: duplicate key 'model' (first at 3:3)" "$T/o"
check "error positions are 1-based line:column, also in 'first at' references" $? "exit $rc: $(one_line "$T/o")"
: > "$T/empty.yaml"
$PB list "$T/empty.yaml" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "empty.yaml:1:1:" "$T/o"
check "an empty experiment file is reported at 1:1" $? "exit $rc: $(one_line "$T/o")"
$PB run "$T" --dry-run > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "is a directory" "$T/o"
check "run DIR (a directory) says so" $? "exit $rc: $(one_line "$T/o")"
printf 'name: t\nbase:\n\tmodel: {dim: 64}\nstages:\n  s: {}\n' > "$T/tab.yaml"
$PB list "$T/tab.yaml" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "tab.yaml:3:1: .*a tab" "$T/o"
check "tab indentation is named as a tab" $? "exit $rc: $(one_line "$T/o")"
printf 'name: z\nbase: {train: {epochs: 1}}\nstages:\n  s: {}\nmatrix:\n  train.weight_decay: [0, -0]\n' > "$T/zero.yaml"
$PB list "$T/zero.yaml" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "zero.yaml:6:27: train.weight_decay: value 0.0 repeats the one at 6:24" "$T/o"
check "-0 and 0 are one value (one run id)" $? "exit $rc: $(one_line "$T/o")"
$PB train $NODATA train.weight_decay=1e-320 model.cls=True > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "/nonexistent/posbench" "$T/o"
check "1e-320 is a number and True a boolean on the command line as in YAML" $? "exit $rc: $(one_line "$T/o")"
$PB train $NODATA model.cls=yes > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "model.cls: 'yes' is not a boolean" "$T/o"
check "booleans: 'yes' refused on the command line as in YAML" $? "exit $rc: $(one_line "$T/o")"

awk 'BEGIN { printf "name: big\nbase: {train: {epochs: 1}}\nstages:\n  s: {}\nmatrix:\n  train.lr: ["; for (i = 1; i <= 100000; i++) printf "%s%d.0e-9", (i > 1 ? ", " : ""), i; print "]" }' > "$T/big.yaml"
t0=$(date +%s%N)
$PB list "$T/big.yaml" > "$T/o" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc -eq 2 ] && grep -q "100000 values (an experiment has at most" "$T/o" && [ $ms -lt 3000 ]
check "an axis of 100000 values is refused at once (before the quadratic repeat check)" $? "exit $rc in $ms ms: $(one_line "$T/o" | cut -c1-160)"
printf 'name: tabs\nbase: {train: {epochs: 1}}\nstages:\n  s: {}\nreference:\n  - {metric: top1, value: 1, source: "Table\\t3"}\n' > "$T/tabs.yaml"
$PB list "$T/tabs.yaml" > "$T/o" 2>&1; rc=$?
$PB run "$T/tabs.yaml" --dry-run > "$T/o2" 2>&1; rc2=$?
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && grep -q "tabs.yaml:6:38: text with a tab" "$T/o" && grep -q "tabs.yaml:6:38: text with a tab" "$T/o2"
check "a reference string with a tab is refused by list and run alike (one report table cell each)" $? "exit $rc/$rc2: $(one_line "$T/o" | cut -c1-160)"
: > "$T/afile"
$PB train $NODATA --out "$T/afile" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "afile is not a directory" "$T/o"
check "train --out FILE says it is not a directory (exit 2)" $? "exit $rc: $(one_line "$T/o" | cut -c1-160)"

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e reliability (training): Fashion-MNIST is not installed"; exit 0
fi
CFG="data.limit=512 data.test_limit=200 train.batch=64 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=4 eval.knn=false"
SMALL="data.limit=256 data.test_limit=100 train.batch=32 eval.batch=100 model.dim=16 model.depth=1 model.heads=2 model.patch=7 eval.knn=false"

# ---- two `posbench train` of one run at once: the second is refused and touches nothing
$PB train $CFG train.epochs=6 --threads 1 --out "$T/c" > "$T/c1.out" 2>&1 &
A=$!
i=0; while [ $i -lt 200 ] && ! ls "$T"/c/*.h5.partial > /dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
$PB train $CFG train.epochs=6 --threads 1 --out "$T/c" > "$T/c2.out" 2>&1; rc2=$?
wait $A; rc1=$?
F=$(ls "$T"/c/*.h5 2>/dev/null | head -n 1)
[ $rc2 -eq 1 ] && grep -q "being trained by process $A" "$T/c2.out"
check "a second train of the same run says who holds it and exits 1" $? "exit $rc2: $(one_line "$T/c2.out")"
[ $rc1 -eq 0 ] && [ -n "$F" ] && [ "$(status_of "$F")" = done ] &&
    [ "$(h5dump -H -d /train/loss "$F" 2>/dev/null | grep -c 'SIMPLE { ( 48 )')" -eq 1 ]
check "the first train finishes with its whole file (48 steps, status done)" $? "exit $rc1, file ${F:-none}"

# ---- checkpoints: a flipped bit, or a state out of range, is refused naming the file
$PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" --stop-after 5 > /dev/null 2>&1
K=$(ls "$T"/k/*.ckpt 2>/dev/null | head -n 1)
cp "$K" "$T/good.ckpt"
S0=$(h5dump -a /started "$T"/k/*.h5.partial 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p')
sleep 1 # the resume below starts at least a second later
size=$(stat -c %s "$K")
printf '\001' | dd of="$K" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
$PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" > "$T/k.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$K" "$T/k.out" && grep -q "checksum" "$T/k.out" && ! ls "$T"/k/*.h5 > /dev/null 2>&1 && [ -f "$K" ]
check "a checkpoint with a flipped byte is refused naming it, never resumed" $? "exit $rc: $(grep error "$T/k.out" | cut -c1-200)"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    for bad in "1e9" "-3" "nan" "2.5"; do
        /usr/bin/python3 - "$T/good.ckpt" "$K" "$bad" <<'PY'
import sys; sys.path.insert(0, "tests"); import tensorfile as tf, numpy as np
d = tf.read(sys.argv[1]); d["state.step"] = np.array([float(sys.argv[3])]); tf.write(sys.argv[2], d)
PY
        $PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" > "$T/k.out" 2>&1; rc=$?
        [ $rc -eq 2 ] && grep -q "state.step" "$T/k.out" && ! ls "$T"/k/*.h5 > /dev/null 2>&1
        check "a checkpoint whose step is $bad (checksums valid) is refused" $? "exit $rc: $(grep error "$T/k.out" | cut -c1-160)"
    done
    /usr/bin/python3 - "$T/good.ckpt" "$K" <<'PY'
import sys; sys.path.insert(0, "tests"); import tensorfile as tf, numpy as np
d = tf.read(sys.argv[1]); k = next(n for n in d if n.startswith("param.")); d[k] = d[k].copy(); d[k].flat[0] = np.inf; tf.write(sys.argv[2], d)
PY
    $PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" > "$T/k.out" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q "finite" "$T/k.out"
    check "a checkpoint holding a non-finite parameter is refused" $? "exit $rc: $(grep error "$T/k.out" | cut -c1-160)"
else
    echo "SKIP checkpoint state checks: /usr/bin/python3 with numpy is not installed"
fi
cp "$T/good.ckpt" "$K"
$PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" > "$T/k.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "resuming run .* from step 5" "$T/k.out"
check "the intact checkpoint still resumes" $? "exit $rc"
KH=$(ls "$T"/k/*.h5 | head -n 1)
S1=$(h5dump -a /started "$KH" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p')
R1=$(h5dump -a /resumed "$KH" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p')
[ -n "$S0" ] && [ "$S0" = "$S1" ] && [ -n "$R1" ] && [ "$R1" != "$S0" ]
check "after a resume, started keeps the first start; resumed says when" $? "started $S0 -> $S1, resumed $R1"

# ---- a damaged results file is never counted as done nor overwritten silently
H=$(ls "$T"/k/*.h5 | head -n 1)
head -c 3000 "$H" > "$T/trunc.h5" && cp "$T/trunc.h5" "$H"
$PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" > "$T/d.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$H" "$T/d.out" && cmp -s "$H" "$T/trunc.h5"
check "train: a truncated .h5 is named as damaged and left as it is" $? "exit $rc: $(grep error "$T/d.out" | cut -c1-200)"
$PB train $SMALL train.epochs=2 --threads 2 --out "$T/k" --force > "$T/d.out" 2>&1; rc=$?
[ $rc -eq 0 ] && cmp -s "$H.damaged" "$T/trunc.h5" && [ "$(status_of "$H")" = done ] && grep -q "set aside" "$T/d.out"
check "train --force sets a damaged .h5 aside (kept) and retrains" $? "exit $rc: $(grep 'set aside' "$T/d.out" | cut -c1-200)"

cat > "$T/tiny.yaml" <<'YAML'
name: tiny
base:
  data: {limit: 256, test_limit: 100}
  model: {dim: 32, depth: 1, heads: 2, mlp_ratio: 2, patch: 7}
  train: {epochs: 1, batch: 64, warmup_epochs: 0}
  eval: {batch: 100, knn: false}
stages:
  pretrain: {}
  finetune: {init: pretrain}
YAML
$PB run "$T/tiny.yaml" --out "$T/r" > "$T/r1.out" 2>&1
P=$(ls "$T"/r/tiny/pretrain/*.h5 | head -n 1)
head -c 3000 "$P" > "$T/ptrunc.h5" && cp "$T/ptrunc.h5" "$P"
$PB list "$T/tiny.yaml" --out "$T/r" > "$T/l.out" 2>&1
grep -qE '^[0-9a-f]{12} +pretrain +- +damaged' "$T/l.out"
check "list: a truncated .h5 shows as damaged, not done" $? "$(grep pretrain "$T/l.out" | head -n 1)"
$PB run "$T/tiny.yaml" --out "$T/r" > "$T/r2.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q '^\[damaged\]' "$T/r2.out" && ! grep -q '^\[start\]' "$T/r2.out" && cmp -s "$P" "$T/ptrunc.h5" &&
    grep -q "1 done, 1 not done" "$T/r2.out"
check "run: a damaged run is reported and left as it is, not rerun; exit 1" $? "exit $rc: $(tail -n 1 "$T/r2.out")"
$PB run "$T/tiny.yaml" --out "$T/r" --force --only pretrain > "$T/r3.out" 2>&1; rc=$?
[ $rc -eq 0 ] && cmp -s "$P.damaged" "$T/ptrunc.h5" && [ "$(status_of "$P")" = done ]
check "run --force sets the damaged file aside and reruns the run" $? "exit $rc: $(tail -n 1 "$T/r3.out")"

# ---- a diverged run stays diverged on every rerun; its children are blocked
POSBENCH_FAULT_NAN_STEP=2 $PB run "$T/tiny.yaml" --out "$T/n" > "$T/n1.out" 2>&1
$PB run "$T/tiny.yaml" --out "$T/n" > "$T/n2.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "0 done, 2 not done" "$T/n2.out" && grep -q '^\[blocked\]' "$T/n2.out" && ! grep -q '^\[start\]' "$T/n2.out"
check "run again after a divergence: still diverged, child blocked, exit 1" $? "exit $rc: $(tail -n 1 "$T/n2.out")"
$PB list "$T/tiny.yaml" --out "$T/n" > "$T/nl.out" 2>&1
grep -qE '^[0-9a-f]{12} +pretrain +- +diverged' "$T/nl.out"
check "list shows a diverged run as diverged" $? "$(grep pretrain "$T/nl.out" | head -n 1)"
S="data.limit=256 data.test_limit=100 train.batch=64 eval.batch=100 model.dim=16 model.depth=1 model.heads=2 model.patch=7 train.epochs=1 eval.knn=false"
POSBENCH_FAULT_NAN_STEP=2 $PB train $S --out "$T/t" > /dev/null 2>&1
D=$(ls "$T"/t/*.h5 | head -n 1); cp "$D" "$T/div.h5"
$PB train $S --out "$T/t" > "$T/nt.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "diverged" "$T/nt.out" && [ "$(status_of "$D")" = diverged ] && cmp -s "$D" "$T/div.h5"
check "train of a diverged run: exit 1, says diverged, file kept" $? "exit $rc: $(one_line "$T/nt.out")"

# ---- sizes past 2^31 elements: a clear error (how much it needs), exit 1, never a wrapped size
$PB train model.patch=1000 data.resolution=3000 --out "$T/big" > "$T/big.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "needs 4500000000 floats (16.8 GiB)" "$T/big.out"
check "an activation past 2^31 floats (eval.batch 500 x 3000^2 px) is refused saying what it needs" $? "exit $rc: $(grep error "$T/big.out" | cut -c1-160)"

# ---- test labels the model has no logit for are refused before training
mkdir -p "$T/lab"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte; do
    ln -s "/usr/share/datasets/fashion-mnist/$f.gz" "$T/lab/$f.gz"
done
zcat /usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz > "$T/lab/labels"
printf '\014' | dd of="$T/lab/labels" bs=1 seek=8 conv=notrunc 2>/dev/null # the first test label becomes 12
gzip -c "$T/lab/labels" > "$T/lab/t10k-labels-idx1-ubyte.gz" && rm "$T/lab/labels"
$PB train data.name=idx data.path="$T/lab" $SMALL train.epochs=1 --out "$T/lab/out" > "$T/lab.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "test labels go up to 12" "$T/lab.out" && [ -z "$(ls "$T/lab/out" 2>/dev/null)" ]
check "test labels above the training set's classes are refused (no file written)" $? "exit $rc: $(grep error "$T/lab.out" | cut -c1-200)"

# ---- disk full while HDF5 writes: a one-line error and exit 1 (HDF5's exit handler used to
# crash with SIGSEGV), the checkpoint intact, and the run resumes once there is room.
mkdir -p "$T/full"
if mount -t tmpfs -o size=90k tmpfs "$T/full" 2>/dev/null; then
    $PB train $SMALL train.epochs=2 --threads 2 --out "$T/full/a" > "$T/full.out" 2>&1; rc=$?
    [ $rc -eq 1 ] && grep -q "No space left on device" "$T/full.out" && ! ls "$T"/full/a/*.lock > /dev/null 2>&1
    check "disk full: exit 1 with the system's reason, no crash, no lock left" $? "exit $rc: $(grep error "$T/full.out" | cut -c1-200)"
    cp -r "$T/full/a" "$T/roomy"
    umount "$T/full"
    $PB train $SMALL train.epochs=2 --threads 2 --out "$T/roomy" > "$T/roomy.out" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q "resuming run" "$T/roomy.out" && [ "$(status_of "$(ls "$T"/roomy/*.h5 | head -n 1)")" = done ]
    check "disk full: the run resumes from its checkpoint once there is room" $? "exit $rc"
else
    echo "SKIP disk-full checks: cannot mount a small tmpfs here (needs root / CAP_SYS_ADMIN)"
fi

# ---- test images of another shape than the training images are refused before training
# (they were found only at the first evaluation, leaving a .h5.partial marked running)
mkdir -p "$T/sq"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte; do ln -s "/usr/share/datasets/fashion-mnist/$f.gz" "$T/sq/$f.gz"; done
python3 - "$T/sq" <<'PY'
import gzip, struct, sys
d, n = sys.argv[1], 10
with gzip.open(d + "/t10k-images-idx3-ubyte.gz", "wb") as f:
    f.write(struct.pack(">IIII", 0x803, n, 28, 27) + bytes(n * 28 * 27))
with gzip.open(d + "/t10k-labels-idx1-ubyte.gz", "wb") as f:
    f.write(struct.pack(">II", 0x801, n) + bytes(range(n)))
PY
$PB train data.name=idx data.path="$T/sq" $SMALL train.epochs=1 --out "$T/sq/out" > "$T/sq.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "test images (28x27) differ" "$T/sq.out" && [ -z "$(ls "$T/sq/out" 2>/dev/null)" ]
check "test images of another shape are refused before training (no file written)" $? "exit $rc: $(grep error "$T/sq.out" | cut -c1-200)"

# ---- a gzip file whose CRC does not match is named corrupt (it read as "read error in the
# 8-byte header", zlib checking a small file whole at its first read)
mkdir -p "$T/crc"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte; do ln -s "/usr/share/datasets/fashion-mnist/$f.gz" "$T/crc/$f.gz"; done
cp /usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz "$T/crc/"
size=$(stat -c %s "$T/crc/t10k-labels-idx1-ubyte.gz")
printf '\377' | dd of="$T/crc/t10k-labels-idx1-ubyte.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null # the CRC-32 trailer
$PB train data.name=idx data.path="$T/crc" $SMALL --out "$T/crc/out" > "$T/crc.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "t10k-labels-idx1-ubyte.gz: the gzip data is corrupt" "$T/crc.out"
check "a gzip CRC error is reported as corrupt data, naming the file" $? "exit $rc: $(grep error "$T/crc.out" | cut -c1-200)"
# chmod 000 on the dataset directory: as root, through setpriv as user nobody (root reads
# through any mode); a directory chain that nobody can traverse is made for it.
AS=; [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null && AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" -ne 0 ] || [ -n "$AS" ]; then
    P=$(mktemp -d /tmp/posbench-perm.XXXXXX) && chmod 711 "$P" && mkdir "$P/locked" "$P/out" && chmod 000 "$P/locked" && chmod 777 "$P/out"
    $AS $PB train data.name=idx data.path="$P/locked" $SMALL --out "$P/out/x" > "$T/locked.out" 2>&1; rc=$?
    chmod 755 "$P/locked"; rm -rf "$P"
    [ $rc -eq 2 ] && grep -q "locked/train-images-idx3-ubyte.gz cannot be read: Permission denied" "$T/locked.out"
    check "an unreadable (chmod 000) dataset directory is reported as unreadable, not missing" $? "exit $rc: $(grep error "$T/locked.out" | cut -c1-200)"
else
    echo "SKIP unreadable dataset directory: running as root without setpriv (root reads through chmod 000)"
fi

# ---- NaN test logits with a finite training loss: the run is diverged, no accuracy reported
POSBENCH_FAULT_NAN_EVAL=2 $PB train $SMALL train.epochs=2 train.seed=5 --out "$T/ev" > "$T/ev.out" 2>&1; rc=$?
E=$(ls "$T"/ev/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 1 ] && [ -n "$E" ] && [ "$(status_of "$E")" = diverged ] && grep -q "diverged: test loss" "$T/ev.out" &&
    ! h5dump -a /final/top1 "$E" > /dev/null 2>&1 && ! grep -q "^final:" "$T/ev.out"
check "NaN test logits end the run as diverged, with no final accuracy" $? "exit $rc, status $(status_of "$E"): $(grep diverged "$T/ev.out" | cut -c1-120)"

# issue 29: run --out naming a regular file: "not a directory" (every run was reported damaged).
: > "$T/afile"
$PB run bench/experiments/mp3-main.yaml --scale smoke --out "$T/afile" --dry-run > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "is not a directory" "$T/o" && ! grep -q "damaged" "$T/o"
check "run --out FILE: exit 2, not a directory (no run called damaged)" $? "exit $rc: $(one_line "$T/o")"
