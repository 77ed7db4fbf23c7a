#!/bin/sh
# tests/e2e_anchors.sh — today's anchors (make deps-anchors: current PyTorch and timm in
# build/venv-anchors, scripts/anchors_venv.sh) beside Debian's PyTorch 1.13.
# Everywhere (no venv needed): `crosscheck --init timm` run where no build/venv-anchors exists
# (another working directory) is refused, exit 2, naming the path and `make deps-anchors`; an
# unknown --init names timm among the valid ones; a stage timm's VisionTransformer cannot build
# (model.arch=gmlp; objective.name=mp3; pe.kind=sin2d; model.embed_init=xavier) is refused before
# any training, exit 2, naming the key and what is valid; without the venv `posbench bench` says
# how to get the current-PyTorch line.
# With the venv (else SKIP naming the reason and `make deps-anchors`):
#   - the twin's initial weights are timm's own: tests/torch_vit.py's ViT initialised by
#     bench/crosscheck/torch_timm_init.py equals, tensor for tensor, a VisionTransformer that
#     timm builds with the same seed (patch kernel flattened), cls_token has timm's current std
#     (1e-6, not our rule's 0.02), the same seed gives the same weights and another seed others;
#   - `crosscheck --init timm` (abs, 2 seeds, smoke size) trains both sides: the unpaired verdict,
#     "Initial weights: ... (--init timm)", result files <run-id>.init-timm.torch with "init timm";
#   - `posbench bench --config vit-d64-L2-p4-28px-ci` prints the Debian row and under it
#     "current PyTorch: eager X ms (... ratio R); torch.compile Y ms (... ratio R)" with numbers,
#     and names the torch version it compared with.
# Measured 15.5 min at load average 12 on 2 shared cores (Inductor compiling the step's C++ for
# torch.compile takes most of it); the refusals alone, without the venv, about a minute.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
VENV=build/venv-anchors/bin/python
T=$(mktemp -d /tmp/posbench-anchors.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
cat > "$T/tiny.yaml" <<'EOF'
name: anchors-tiny
base:
  data: {limit: 256, test_limit: 200}
  model: {patch: 7, dim: 32, depth: 2, heads: 2, drop_path: 0}
  train: {batch: 32, epochs: 1}
stages:
  main: {}
  gmlp: {model: {arch: gmlp}, pe: {kind: none}}
  mp3: {objective: {name: mp3, eta: 0.5}, pe: {kind: none}}
  sin: {pe: {kind: sin2d}}
  xav: {model: {embed_init: xavier}}
seeds: [0, 1]
EOF

# ---- everywhere: the refusals ----
mkdir -p "$T/elsewhere"
(cd "$T/elsewhere" && "$PB" crosscheck "$T/tiny.yaml" --stage main --init timm --script "$OLDPWD/bench/crosscheck/torch_train.py") > "$T/novenv.out" 2> "$T/novenv.err"; rc=$?
[ $rc -eq 2 ] && grep -q 'build/venv-anchors/bin/python not found.*make deps-anchors' "$T/novenv.err"
check "e2e anchors: --init timm without the anchors' venv: exit 2 naming it and make deps-anchors" $? "exit $rc; $(head -c 300 "$T/novenv.err")"
"$PB" crosscheck "$T/tiny.yaml" --stage main --init timn > /dev/null 2> "$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q 'valid: ours.*torch.*timm' "$T/bad.err"
check "e2e anchors: an unknown --init lists timm among the valid ones" $? "exit $rc; $(head -c 300 "$T/bad.err")"
for case in "gmlp model.arch=gmlp" "mp3 objective.name=mp3" "sin pe.kind=sin2d" "xav model.embed_init=xavier"; do
    set -- $case
    "$PB" crosscheck "$T/tiny.yaml" --stage "$1" --init timm --python /bin/false --out "$T/r" > "$T/m.out" 2> "$T/m.err"; rc=$?
    [ $rc -eq 2 ] && grep -q "crosscheck --init timm: stage $1: $2.*valid" "$T/m.err" && [ ! -d "$T/r/anchors-tiny/$1" ]
    check "e2e anchors: --init timm refuses stage $1 ($2) before training" $? "exit $rc; $(head -c 300 "$T/m.err")"
done
if [ ! -x "$VENV" ]; then
    "$PB" bench --config vit-d64-L2-p4-28px-ci --iters 1 --threads 1 > "$T/bench0.out" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q 'Current PyTorch (eager and torch.compile): not compared: .*venv-anchors/bin/python not found (make deps-anchors' "$T/bench0.out"
    check "e2e anchors: without the venv bench says how to get the current-PyTorch line" $? "exit $rc; $(tail -c 400 "$T/bench0.out")"
    echo "SKIP e2e anchors: current PyTorch and timm: $VENV not found (make deps-anchors installs them from PyPI)"
    exit 0
fi
if ! "$VENV" -c 'import torch, timm' 2> "$T/imp.err"; then
    echo "SKIP e2e anchors: current PyTorch and timm: $VENV cannot import torch and timm ($(tail -n 1 "$T/imp.err"); make deps-anchors reinstalls them)"
    exit 0
fi

# ---- with the venv: the twin starts from timm's own weights ----
"$VENV" - > "$T/same.out" 2>&1 <<'EOP'
import sys
sys.path.insert(0, "tests"); sys.path.insert(0, "bench/crosscheck")
import torch, torch_vit, torch_timm_init
cfg = torch_vit.ViTConfig(channels=1, image_size=28, patch=7, dim=32, depth=2, heads=2, mlp_ratio=2, cls=1, pos_abs=1, num_classes=10)
def twin(seed):
    m = torch_vit.ViT(cfg).float()
    torch_timm_init.init_model(m, cfg, seed)
    return {n: p.detach() for n, p in m.named_parameters()}
mine = twin(3)
torch.manual_seed(3)
ref = {n: p.detach() for n, p in torch_timm_init.build_timm_vit(cfg).named_parameters()}
worst = max(float((mine[n] - ref[torch_timm_init.RENAMED.get(n, n)].reshape(mine[n].shape)).abs().max()) for n in mine)
again, other = twin(3), twin(4)
same = all(torch.equal(mine[n], again[n]) for n in mine)
differs = any(not torch.equal(mine[n], other[n]) for n in mine if mine[n].numel() > 1 and float(mine[n].std()) > 0)
print(f"params {len(mine)} max_diff {worst:.3g} cls_std {float(mine['cls_token'].std()):.3g} "
      f"pos_std {float(mine['pos_embed'].std()):.3g} qkv_std {float(mine['blocks.0.attn.qkv.weight'].std()):.3g} "
      f"same_seed {int(same)} other_seed_differs {int(differs)}")
ok = worst == 0 and float(mine['cls_token'].std()) < 1e-5 and 0.015 < float(mine['pos_embed'].std()) < 0.025 and same and differs
sys.exit(0 if ok else 1)
EOP
check "e2e anchors: the twin's --init timm weights are timm's VisionTransformer's (same seed: identical; cls std 1e-6)" $? "$(tail -n 2 "$T/same.out")"

# ---- crosscheck --init timm trains both sides ----
"$PB" crosscheck "$T/tiny.yaml" --stage main --init timm --out "$T/r" --threads 1 > "$T/cc.out" 2> "$T/cc.err"; rc=$?
res=$(ls "$T"/r/anchors-tiny/main/crosscheck/*.init-timm.torch 2>/dev/null | wc -l)
[ $rc -eq 0 ] && grep -q '^Initial weights: each side its own (--init timm)' "$T/cc.out" && grep -q 'unpaired' "$T/cc.out" &&
    [ "$res" -eq 2 ] && grep -q '^init timm$' $(ls "$T"/r/anchors-tiny/main/crosscheck/*.init-timm.torch | head -n 1)
check "e2e anchors: crosscheck --init timm trains both sides (2 seeds, unpaired verdict, .init-timm.torch files)" $? \
    "exit $rc, $res result files; $(grep -E 'PyTorch|posbench −' "$T/cc.out" | head -n 4 | tr '\n' ' ') $(tail -c 300 "$T/cc.err")"

# ---- bench: eager and torch.compile under current PyTorch ----
"$PB" bench --config vit-d64-L2-p4-28px-ci --iters 3 --threads 1 > "$T/bench.out" 2>&1; rc=$?
line=$(grep '^  current PyTorch:' "$T/bench.out")
echo "$line" | grep -Eq 'eager [0-9.]+ ms \([0-9]+ img/s, ratio [0-9.]+\); torch.compile [0-9.]+ ms \([0-9]+ img/s, ratio [0-9.]+\)$' &&
    [ $rc -eq 0 ] && grep -q 'the same step under PyTorch 2' "$T/bench.out" && grep -q '^Compared with: PyTorch 1.13' "$T/bench.out"
check "e2e anchors: bench prints the current-PyTorch line (eager and torch.compile) under Debian's row" $? \
    "exit $rc; $(grep -E '^vit-d64|current PyTorch|not timed' "$T/bench.out" | tr '\n' ' ')"
