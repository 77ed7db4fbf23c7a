#!/bin/sh
# tests/e2e_mlm.sh — byte-level masked language modelling end to end on a slice of the real
# corpus (the King James Bible from Debian's bible-kjv-text, `make data/kjv.txt`): gMLP
# (Toeplitz W) and a Transformer (rope 1D) train with objective.name=mlm on data.name=text,
# record validation perplexity per epoch (/eval/perplexity) and at the end (/final), the gMLP
# its spatial weights (/spatial/W, Toeplitz: constant along diagonals), a run
# stopped mid-epoch resumes to the same losses bit for bit, and bad input exits 2 with one line
# naming the file (missing, empty, non-UTF-8 with the byte offset) or the keys (mlm without
# text, text without mlm, a patch, a 2D encoding).
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-mlm.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if [ ! -f data/kjv.txt ]; then
    if ! command -v bible > /dev/null 2>&1; then echo "SKIP e2e mlm: bible-kjv is not installed (make deps)"; exit 0; fi
    make --no-print-directory -s data/kjv.txt > /dev/null || { echo "FAIL e2e mlm: make data/kjv.txt failed"; exit 1; }
fi
head -c 60000 data/kjv.txt > "$T/slice.txt"
SMALL="data.name=text data.path=$T/slice.txt objective.name=mlm model.patch=1 model.cls=false model.dim=16 model.depth=1
model.heads=2 data.seq_len=32 data.limit=64 data.test_limit=40 train.batch=16 train.epochs=2 eval.batch=20"
# shellcheck disable=SC2086
$PB train $SMALL model.arch=gmlp model.sgu_toeplitz=true pe.kind=none --out "$T/a" > "$T/gmlp.log" 2>&1; rc=$?
H=$(ls "$T"/a/*.h5 2>/dev/null | head -n 1)
grep -q '^final: perplexity=[0-9.]* accuracy=[0-9]*\.[0-9]*% ' "$T/gmlp.log"
check "mlm gmlp (Toeplitz) trains on the corpus slice" $(( rc + $? )) "exit $rc; $(grep '^final' "$T/gmlp.log")"
rows=$(h5dump -d /eval/perplexity "$H" 2>/dev/null | grep -c 'DATASPACE  SIMPLE { ( 2 )')
ppl=$(h5dump -a /final/perplexity "$H" 2>/dev/null | sed -n 's/^ *(0): //p')
python3 -c "import sys,math; p=float('$ppl'); sys.exit(0 if math.isfinite(p) and 1 < p < 256 else 1)" 2>/dev/null
check "mlm run file: /eval/perplexity per epoch and a finite /final/perplexity in (1, 256)" $(( $? + (rows == 1 ? 0 : 1) )) \
    "$rows dataspace of 2 epochs, final perplexity $ppl"
h5dump -a /config/data.name "$H" 2>/dev/null | grep -q '"text"' && h5dump -a /config/objective.name "$H" | grep -q '"mlm"'
check "mlm run file records data.name=text objective.name=mlm" $? "$(basename "$H")"
# /spatial/W: the (L, T, T) spatial weights of the gMLP (one block, 32 tokens), Toeplitz: constant
# along every diagonal, exactly (they are gathered from one table).
h5dump -d /spatial/W -y -w 0 -o "$T/W.txt" "$H" > /dev/null 2>&1
dims=$(h5dump -H -d /spatial/W "$H" 2>/dev/null | grep -c 'SIMPLE { ( 1, 32, 32 )')
/usr/bin/python3 -c "
import sys
v = [float(x) for x in open('$T/W.txt').read().replace(',', ' ').split()]
ok = len(v) == 1024 and all(v[i * 32 + j] == v[(i + 1) * 32 + j + 1] for i in range(31) for j in range(31))
sys.exit(0 if ok and len(set(v)) > 1 else 1)" 2>/dev/null
check "mlm gmlp run file: /spatial/W (1, 32, 32), constant along each diagonal (Toeplitz)" $(( $? + (dims == 1 ? 0 : 1) )) \
    "$dims dataspace (1, 32, 32)"
# shellcheck disable=SC2086
$PB train $SMALL model.arch=vit pe.kind=rope pe.rope_dims=1 --out "$T/b" > "$T/vit.log" 2>&1; rc=$?
grep -q '^final: perplexity=' "$T/vit.log"
check "mlm Transformer (rope 1D) trains on the corpus slice" $(( rc + $? )) "exit $rc; $(grep '^final' "$T/vit.log")"
ls "$T"/b/*.h5 > /dev/null 2>&1 && ! h5dump -g /spatial "$T"/b/*.h5 > /dev/null 2>&1
check "a Transformer run records no /spatial" $? "vit"
# A run stopped after step 3 (mid-epoch 1) resumes to the very same losses.
# shellcheck disable=SC2086
$PB train $SMALL model.arch=gmlp model.sgu_toeplitz=true pe.kind=none --out "$T/c" --stop-after 3 > "$T/stop.log" 2>&1 &&
# shellcheck disable=SC2086
$PB train $SMALL model.arch=gmlp model.sgu_toeplitz=true pe.kind=none --out "$T/c" > "$T/resume.log" 2>&1; rc=$?
H2=$(ls "$T"/c/*.h5 2>/dev/null | head -n 1)
h5dump -d /train/loss "$H" > "$T/l1" 2>&1; h5dump -d /train/loss "$H2" > "$T/l2" 2>&1
h5dump -d /eval/perplexity "$H" > "$T/p1" 2>&1; h5dump -d /eval/perplexity "$H2" > "$T/p2" 2>&1
sed -i 1d "$T/l1" "$T/l2" "$T/p1" "$T/p2"
[ $rc -eq 0 ] && grep -q 'resuming run' "$T/resume.log" && cmp -s "$T/l1" "$T/l2" && cmp -s "$T/p1" "$T/p2"
check "mlm resume after a stop mid-epoch: the same losses and perplexities" $? "exit $rc"

# Bad input: exit 2, one line naming the file or the keys.
refuse() { # name, expected substring, args...
    name=$1 want=$2; shift 2
    # shellcheck disable=SC2086
    $PB train "$@" --out "$T/r" > "$T/r.out" 2> "$T/r.err"; rc=$?
    n=$(wc -l < "$T/r.err")
    [ $rc -eq 2 ] && [ "$n" -eq 1 ] && grep -qF -- "$want" "$T/r.err"
    check "$name" $? "exit $rc: $(cat "$T/r.err")"
}
BASE="objective.name=mlm model.patch=1 data.name=text"
: > "$T/empty.txt"
printf 'In the beginning \351t\303\251' > "$T/latin1.txt"
# shellcheck disable=SC2086
refuse "text: missing file exits 2 naming it" "$T/none.txt: cannot open" $BASE data.path="$T/none.txt"
# shellcheck disable=SC2086
refuse "text: empty file exits 2 naming it" "$T/empty.txt: the text file is empty" $BASE data.path="$T/empty.txt"
# shellcheck disable=SC2086
refuse "text: non-UTF-8 file exits 2 naming the byte offset" "$T/latin1.txt: not UTF-8: invalid byte 0xE9 at byte offset 17" \
    $BASE data.path="$T/latin1.txt"
# shellcheck disable=SC2086
refuse "text without mlm exits 2" "objective.name=supervised cannot use it" data.name=text data.path="$T/slice.txt" model.patch=1
refuse "mlm without text exits 2" "it needs data.name=text" objective.name=mlm
# shellcheck disable=SC2086
refuse "text with a patch exits 2" "model.patch must be 1" objective.name=mlm data.name=text data.path="$T/slice.txt"
# shellcheck disable=SC2086
refuse "text with a 2D encoding exits 2" "pe.kind=sin2d encodes 2D image positions" $BASE data.path="$T/slice.txt" pe.kind=sin2d
