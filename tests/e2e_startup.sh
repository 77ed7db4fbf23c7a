#!/bin/sh
# tests/e2e_startup.sh — what posbench keeps between processes to start faster, through the CLI
# (every cache file in a temporary POSBENCH_CACHE_DIR):
#   - the sgemm rate of `posbench run`'s estimate (bench/run/sgemm_cache.h): the first dry run
#     measures and writes it, the next uses it (the file left as it is) and prints the same
#     estimate line; a rate written by hand is the one the estimate uses; a damaged file (a changed
#     byte) is named in a warning, measured again and rewritten valid; a file a day old, or of
#     another CPU model, is measured again without a warning; a cache directory that cannot be
#     written costs a warning, not the estimate;
#   - the data a run sees (datasets/verified_files.h): a tiny training run with data.limit writes
#     the same run file (tests/h5_same.py) and run id with the data cache empty and filled; with a
#     training image file whose gzip CRC-32 trailer is damaged, data.limit=512 is refused naming
#     the file (exit 2), before and after an intact copy was verified.
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them).
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
T=$(mktemp -d /tmp/posbench-startup.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain POSBENCH_CACHE_DIR="$T/cache"
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
EXP=bench/experiments/mp3-main.yaml
RATE="$T/cache/sgemm-rate"
dry() { "$PB" run $EXP --scale smoke --dry-run --out "$T/r" >"$T/$1.out" 2>"$T/$1.err"; }
estimate() { grep '^estimated time:' "$T/$1.out"; }
# Rewrites the rate file with `sed` expression $1 applied to its body, and a correct crc32 line.
edit_rate() {
    sed '$d' "$RATE" | sed "$1" >"$T/body" &&
        /usr/bin/python3 -c 'import sys, zlib; b = open(sys.argv[1], "rb").read(); sys.stdout.write(b.decode() + "crc32 %08x\n" % zlib.crc32(b))' \
            "$T/body" >"$RATE"
}

# ---- the sgemm rate ----
dry first; rc=$?
[ $rc -eq 0 ] && [ -f "$RATE" ] && grep -q '^gflops [0-9.e+]*$' "$RATE" && tail -n 1 "$RATE" | grep -q '^crc32 [0-9a-f]\{8\}$'
check "the first dry run measures the sgemm rate and caches it" $? "exit $rc; $(grep gflops "$RATE" 2>/dev/null)"
before=$(ls -li --time-style=full-iso "$RATE")
dry second
[ "$(estimate first)" = "$(estimate second)" ] && [ -n "$(estimate first)" ] && [ "$(ls -li --time-style=full-iso "$RATE")" = "$before" ] &&
    [ ! -s "$T/second.err" ]
check "the next dry run uses the cached rate: the same estimate line, the file untouched" $? "$(estimate second | cut -c1-90)"

edit_rate 's/^gflops .*/gflops 50/'
dry hand
estimate hand | grep -q ' 50 GFLOP per CPU second[),]' && grep -q '^gflops 50$' "$RATE"
check "the estimate uses the cached rate (50 written by hand)" $? "$(estimate hand | sed 's/.*sgemm, //')"

sed -i 's/^gflops 50$/gflops 51/' "$RATE" # without updating the crc32 line
dry damaged; rc=$?
[ $rc -eq 0 ] && grep -q "warning: .*sgemm-rate: damaged cache file" "$T/damaged.err" && ! estimate damaged | grep -q ' 5[01] GFLOP' &&
    ! grep -q '^gflops 5[01]$' "$RATE" && dry after && [ ! -s "$T/after.err" ] && [ "$(estimate damaged)" = "$(estimate after)" ]
check "a damaged rate file is named in a warning, measured again and rewritten valid" $? "$(head -c 160 "$T/damaged.err")"

edit_rate "s/^measured .*/measured $(( $(date +%s) - 90000 ))/"
edit_rate 's/^gflops .*/gflops 50/'
dry stale
[ ! -s "$T/stale.err" ] && ! estimate stale | grep -q ' 50 GFLOP' && ! grep -q '^gflops 50$' "$RATE" &&
    [ "$(sed -n 's/^measured //p' "$RATE")" -ge $(( $(date +%s) - 600 )) ]
check "a rate measured a day ago is measured again, without a warning" $? "$(grep measured "$RATE")"

edit_rate 's/^cpu .*/cpu Another CPU/'
edit_rate 's/^gflops .*/gflops 50/'
dry other
[ ! -s "$T/other.err" ] && ! estimate other | grep -q ' 50 GFLOP' && ! grep -q '^cpu Another CPU$' "$RATE"
check "a rate of another CPU model is measured again, without a warning" $? "$(grep '^cpu' "$RATE")"

: >"$T/notadir"
POSBENCH_CACHE_DIR="$T/notadir" "$PB" run $EXP --scale smoke --dry-run --out "$T/r" >"$T/nodir.out" 2>"$T/nodir.err"; rc=$?
[ $rc -eq 0 ] && grep -q '^estimated time: .* GFLOP per CPU second[),;]' "$T/nodir.out" && grep -q "warning: .*notadir" "$T/nodir.err"
check "a cache directory that cannot be written: a warning, the estimate still printed" $? "exit $rc; $(head -c 160 "$T/nodir.err")"

# ---- the data a run sees ----
FM=/usr/share/datasets/fashion-mnist
if [ ! -f "$FM/train-images-idx3-ubyte.gz" ]; then
    echo "SKIP startup data checks: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
CFG="data.limit=512 data.test_limit=200 train.epochs=1 train.batch=64 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=4"
rm -f "$T/cache/verified-data"
"$PB" train $CFG --threads 1 --out "$T/empty" >/dev/null 2>"$T/empty.err"; rc1=$?
"$PB" train $CFG --threads 1 --out "$T/filled" >/dev/null 2>"$T/filled.err"; rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "train-images-idx3-ubyte.gz" "$T/cache/verified-data" &&
    [ "$(ls "$T/empty")" = "$(ls "$T/filled")" ] && /usr/bin/python3 tests/h5_same.py "$T/empty" "$T/filled" >"$T/same" 2>&1
check "data.limit: the same run file and run id with the data cache empty and filled" $? "exit $rc1/$rc2; $(head -n 1 "$T/same")"

mkdir "$T/fm"
for f in train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do ln -s "$FM/$f.gz" "$T/fm/$f.gz"; done
cp "$FM/train-images-idx3-ubyte.gz" "$T/fm/"
DCFG="data.name=idx data.path=$T/fm data.limit=512 data.test_limit=100 train.steps=1 train.batch=64 eval.batch=100 model.dim=16 model.depth=1 model.heads=2 model.patch=7"
"$PB" train $DCFG --threads 1 --out "$T/ok" >/dev/null 2>"$T/ok.err"; rc=$?
[ $rc -eq 0 ] && grep -q "$T/fm/train-images-idx3-ubyte.gz" "$T/cache/verified-data"
check "an intact copy read with data.limit is listed as verified" $? "exit $rc; $(tail -n 1 "$T/ok.err" | cut -c1-160)"
size=$(stat -c %s "$T/fm/train-images-idx3-ubyte.gz")
cp "$T/fm/train-images-idx3-ubyte.gz" "$T/damaged.gz"
printf '\377' | dd of="$T/damaged.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null # the CRC-32 trailer
mv "$T/damaged.gz" "$T/fm/train-images-idx3-ubyte.gz"
"$PB" train $DCFG --threads 1 --out "$T/bad" >"$T/bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$T/fm/train-images-idx3-ubyte.gz: the gzip data is corrupt" "$T/bad.out"
check "data.limit=512: a file damaged after it was verified is refused, named (exit 2)" $? "exit $rc: $(grep error "$T/bad.out" | cut -c1-160)"
rm -f "$T/cache/verified-data"
"$PB" train $DCFG --threads 1 --out "$T/bad2" >"$T/bad2.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "$T/fm/train-images-idx3-ubyte.gz: the gzip data is corrupt" "$T/bad2.out"
check "data.limit=512: a damaged file is refused with the data cache empty, named (exit 2)" $? "exit $rc: $(grep error "$T/bad2.out" | cut -c1-160)"
