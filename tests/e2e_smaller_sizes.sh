#!/bin/sh
# tests/e2e_smaller_sizes.sh — a model evaluated only at sizes below its training size (no larger
# size planned) resizes its position table (pe.kind=abs) or its spatial weights (gMLP dense and
# Toeplitz, aMLP) into buffers that exist: these runs used to write past them (exit 139, found
# while building DINO's local crops). Each run must finish done with finite accuracies at 12 and 20 px.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
tmp=$(mktemp -d /tmp/posbench-smaller.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
for arch in "pe.kind=abs" "pe.kind=abs model.cls=false" "model.arch=gmlp" "model.arch=gmlp model.sgu_toeplitz=true" "model.arch=amlp"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    $PB train $arch model.patch=4 model.depth=1 model.dim=32 model.heads=2 data.limit=256 data.test_limit=100 \
        train.batch=64 train.epochs=1 'eval.resolutions=[12,20]' --threads 1 --out "$tmp/r$i" > "$tmp/log$i" 2>&1
    rc=$?
    if [ "$rc" != 0 ]; then echo "FAIL smaller_sizes: $arch exited $rc at eval.resolutions=[12,20] (28 px training): $(tail -n 1 "$tmp/log$i")"; continue; fi
    $PB export "$tmp/r$i" --format csv --out "$tmp/r$i.csv" > /dev/null 2>&1 || { echo "FAIL smaller_sizes: $arch: export failed"; continue; }
    /usr/bin/python3 - "$tmp/r$i.csv" "$arch" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
arch = sys.argv[2]
if len(rows) != 1 or rows[0].get("status") != "done":
    print(f"FAIL smaller_sizes: {arch}: expected one done run, got {[r.get('status') for r in rows]}"); sys.exit()
cols = [c for c in rows[0] if c.startswith("top1 (%) at ")]  # export's one name per metric: "top1 (%) at 12 px"
vals = {c: rows[0][c] for c in cols}
ok = any("12" in c for c in cols) and any("20" in c for c in cols) and all(v != "" and math.isfinite(float(v)) for v in vals.values())
print(("PASS" if ok else "FAIL") + f" smaller_sizes: {arch}: done, accuracies at the smaller sizes {vals}")
PY
done
