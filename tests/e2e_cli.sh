#!/bin/sh
# tests/e2e_cli.sh — the command-line habits and live metrics of issue 32 (docs/cli.md):
#   posbench --version fields (and the cuDNN route's lines); bench --attention's and train.attention's
#   did-you-mean, train.attention's bf16 rule; train --print-config (resolved config, run id = the trained run's,
#   nothing trained); did-you-mean for values (command line, experiment file, sweep: exit 2);
#   <run-id>.metrics.jsonl written line by line during a run (present after a kill -9, the
#   .h5 still partial), complete and equal to the HDF5 series after it, cut back to the
#   checkpoint and rewritten on resume (no line lost or doubled), strict JSON on divergence;
#   accuracy in % on the console; posbench sweep = posbench run on its saved YAML (same run ids,
#   same as a hand-written experiment); names/ links resolve to the runs they name, rewritten
#   idempotently; posbench watch --once in plain mode with every state.
# Prints PASS/FAIL/SKIP lines (tests/run_all.sh counts them).
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
PY=/usr/bin/python3
T=$(mktemp -d /tmp/posbench-e2e-cli.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}

# ---- --version: one "key: value" line per fact
$PB --version > "$T/v" 2>&1; rc=$?
head=$(git rev-parse --short=12 HEAD 2>/dev/null)
ok=0
for want in '^posbench [0-9]\+\.[0-9]\+\.[0-9]\+$' "^commit: $head" '^compiler: [a-z]* [0-9]' '^blas: OpenBLAS [0-9.]* .*(core [A-Za-z0-9_]*)$' \
    '^hdf5: [0-9]*\.[0-9]*\.[0-9]*$' '^cudnn: ' '^cpu: ' '^cpu_features: ' '^compiled_for: '; do
    grep -q "$want" "$T/v" || { ok=1; echo "  --version lacks a line matching $want"; }
done
# CUDA: the toolkit, runtime, driver and cuBLAS in a CUDA build, one "not built" line otherwise.
if grep -q '^cuda: not built' "$T/v"; then :; else
    for want in '^cuda_toolkit: [0-9]*\.[0-9]* (nvcc ' '^cuda_runtime: ' '^cuda_driver: ' '^cublas: [0-9]*\.[0-9]*\.[0-9]*'; do
        grep -q "$want" "$T/v" || { ok=1; echo "  --version lacks a line matching $want"; }
    done
fi
check "posbench --version: version, commit, compiler, BLAS, HDF5, CUDA, cuDNN, CPU features" $(( ok + rc )) "exit $rc; $(tr '\n' ';' < "$T/v")"
# cuDNN: with the attention route compiled in, a library hidden by POSBENCH_CUDNN_LIB is named as
# not loaded, with the loader's reason; otherwise the cudnn line says why the route is not there.
if grep -q '^cudnn: attention route compiled in' "$T/v"; then
    POSBENCH_CUDNN_LIB=/nonexistent/posbench-e2e/libcudnn.so.9 $PB --version > "$T/vh" 2>&1
    grep -q '^cudnn_library: not loaded (cannot load /nonexistent/posbench-e2e/libcudnn.so.9' "$T/vh"
    check "--version: cudnn_library says why a hidden libcudnn (POSBENCH_CUDNN_LIB) does not load" $? "$(grep '^cudnn' "$T/vh" | tr '\n' ';')"
else
    grep -q '^cudnn: \(not built\|attention route not compiled in\) (.\+)$' "$T/v"
    check "--version: the cudnn line says why the cuDNN attention route is not there" $? "$(grep '^cudnn' "$T/v" | tr '\n' ';')"
fi
# bench --attention: a misspelt route gets exit 2, the valid ones and the closest (cudnn among them).
$PB bench --attention cudnnn > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "must be auto, materialised, fused, cudnn or materialised-inplace, got 'cudnnn' (did you mean 'cudnn'?)" "$T/o"
check "bench --attention cudnnn: exit 2 naming the routes and 'did you mean cudnn'" $? "exit $rc: $(cat "$T/o")"
# OpenBLAS's kernel choice: a note when it runs pre-AVX2 kernels on a CPU with AVX2, none otherwise.
if grep -q '^cpu_features: .*avx2' "$T/v"; then
    OPENBLAS_CORETYPE=Prescott $PB --version > "$T/v1" 2>&1; OPENBLAS_CORETYPE=Haswell $PB --version > "$T/v2" 2>&1
    grep -q '(core Prescott)$' "$T/v1" && grep -q '^blas_note: OpenBLAS runs its Prescott (pre-AVX2) kernels .*OPENBLAS_CORETYPE=' "$T/v1" &&
        grep -q '(core Haswell)$' "$T/v2" && ! grep -q '^blas_note' "$T/v2"
    check "--version: blas_note names OPENBLAS_CORETYPE when OpenBLAS runs Prescott kernels on an AVX2 CPU, not for Haswell" $? \
        "$(grep '^blas' "$T/v1" | tr '\n' ';') | $(grep '^blas' "$T/v2" | tr '\n' ';')"
else
    echo "SKIP --version blas_note: this CPU has no AVX2"
fi

# ---- did-you-mean for values, exit 2: command line, experiment file, sweep
$PB train pe.kind=sin2D > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "pe.kind: 'sin2D' is not valid (valid: one of .*); did you mean 'sin2d'?" "$T/o"
check "train pe.kind=sin2D: exit 2, did you mean 'sin2d'?" $? "exit $rc: $(cat "$T/o")"
$PB train model.cls=ture > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'true'?" "$T/o"
check "train model.cls=ture: exit 2, did you mean 'true'?" $? "exit $rc: $(cat "$T/o")"
$PB train train.attention=cudnnn > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "train.attention: 'cudnnn' is not valid .*did you mean 'cudnn'?" "$T/o"
check "train train.attention=cudnnn: exit 2, did you mean 'cudnn'?" $? "exit $rc: $(cat "$T/o")"
$PB train pe.kind=zzzzzz > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && ! grep -q "did you mean" "$T/o"
check "a value close to no choice gets no suggestion" $? "exit $rc: $(cat "$T/o")"
printf 'name: dym\nbase:\n  pe: {kind: Sin2d}\n' > "$T/dym.yaml"
$PB list "$T/dym.yaml" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "dym.yaml:3:14: .*pe.kind: 'Sin2d' is not valid .*did you mean 'sin2d'?" "$T/o"
check "experiment file: the value's file:line:col and did you mean, exit 2" $? "exit $rc: $(cat "$T/o")"
$PB sweep pe.kind=abs,sin2D --dry-run > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'sin2d'?" "$T/o"
check "sweep pe.kind=abs,sin2D: exit 2, did you mean 'sin2d'?" $? "exit $rc: $(cat "$T/o")"

# ---- the CUDA backend's switches (docs/usage.md): a bad environment value on any device, a
# bad flag value, and the flags on a CPU backend are refused with exit 2 before anything runs
POSBENCH_KERNELS=v3 $PB bench --device cpu --no-torch --iters 1 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "environment variable POSBENCH_KERNELS='v3' is not valid (valid: v1, v2)" "$T/o"
check "POSBENCH_KERNELS=v3: exit 2 naming the variable and the valid values" $? "exit $rc: $(cat "$T/o")"
POSBENCH_LINEAR=cublas $PB train --device cpu > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "environment variable POSBENCH_LINEAR='cublas' is not valid (valid: gemmex, lt)" "$T/o"
check "POSBENCH_LINEAR=cublas: exit 2 naming the variable and the valid values" $? "exit $rc: $(cat "$T/o")"
POSBENCH_ATTENTION=flash $PB train --device cpu > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "environment variable POSBENCH_ATTENTION='flash' is not valid (valid: auto|materialised|fused|cudnn|materialised-inplace)" "$T/o"
check "POSBENCH_ATTENTION=flash: exit 2 naming the variable and the valid values" $? "exit $rc: $(cat "$T/o")"
POSBENCH_ATTENTION=fused $PB train --device cpu data.limit=64 data.test_limit=10 train.batch=16 train.steps=1 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "POSBENCH_ATTENTION=fused disagrees with train.attention=auto" "$T/o"
check "POSBENCH_ATTENTION=fused with train.attention=auto: exit 2 (a run's route is its key)" $? "exit $rc: $(cat "$T/o")"
POSBENCH_ATTENTION=fused $PB bench --device cpu --no-torch --iters 1 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "POSBENCH_ATTENTION=fused chooses between the CUDA backend's attention routes; the cpu backend has one" "$T/o"
check "POSBENCH_ATTENTION=fused as bench's default on the cpu backend: exit 2" $? "exit $rc: $(cat "$T/o")"
POSBENCH_STREAM=default $PB train --device cpu > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "environment variable POSBENCH_STREAM='default' is not valid (valid: legacy, own)" "$T/o"
check "POSBENCH_STREAM=default: exit 2 naming the variable and the valid values" $? "exit $rc: $(cat "$T/o")"
$PB bench --linear lt --device cpu --no-torch --iters 1 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "\-\-linear chooses between the CUDA backend's linear routes; the cpu backend has one" "$T/o"
check "bench --linear lt on the cpu backend: exit 2" $? "exit $rc: $(cat "$T/o")"
$PB bench --kernels v9 > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "\-\-kernels must be v1 or v2, got 'v9'" "$T/o"
check "bench --kernels v9: exit 2" $? "exit $rc: $(cat "$T/o")"

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e cli training checks: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
# 512 training images, batch 64: 8 steps an epoch, 16 in all; a checkpoint every 2 steps.
CFG="data.limit=512 data.test_limit=200 train.epochs=2 train.batch=64 eval.batch=100 model.dim=32 model.depth=2 model.heads=2 model.patch=4"

# ---- train.attention: a CUDA route that needs bf16 refused under fp32 naming both keys (exit 2);
# the CPU backends have one attention and run with any value of it (bf16: a tiny run finishes).
$PB train $CFG train.steps=1 train.attention=cudnn --device cpu --out "$T/att" > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "train.attention=cudnn is a bf16 route: it needs train.precision=bf16" "$T/o"
check "train train.attention=cudnn under fp32: exit 2 naming train.precision" $? "exit $rc: $(cat "$T/o")"
$PB train $CFG train.steps=1 train.attention=cudnn train.precision=bf16 --device cpu --out "$T/att" > "$T/o" 2>&1; rc=$?
[ $rc -eq 0 ] && ls "$T/att"/*.h5 > /dev/null 2>&1
check "train train.attention=cudnn train.precision=bf16 on the CPU: the run finishes" $? "exit $rc: $(tail -n 3 "$T/o" | tr '\n' ' ')"

# ---- --print-config: every key, defaults included, the run id, nothing trained
$PB train $CFG --print-config --out "$T/pc" > "$T/pc.yaml" 2>&1; rc=$?
nkeys=$($PB train --help | grep -c '^  [a-z_]*\.[a-z0-9_.]* *\[')
id=$(sed -n 's/^run_id: \([0-9a-f]\{12\}\)$/\1/p' "$T/pc.yaml")
$PY - "$T/pc.yaml" "$nkeys" > "$T/pc.check" 2>&1 <<'PYEOF'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
keys = {f"{g}.{k}": v for g, sub in doc.items() if isinstance(sub, dict) for k, v in sub.items()}
assert len(keys) == int(sys.argv[2]), f"{len(keys)} keys printed, train --help lists {sys.argv[2]}"
assert keys["model.dim"] == 32 and keys["train.epochs"] == 2, "overrides not applied"
assert keys["train.lr"] == 0.002 and keys["pe.kind"] == "abs", "defaults missing"
print("ok", len(keys), "keys")
PYEOF
pc=$?
[ $rc -eq 0 ] && [ $pc -eq 0 ] && [ -n "$id" ] && [ ! -e "$T/pc" ]
check "train --print-config: every key (defaults included) and the run id, exit 0, nothing trained" $? "exit $rc, id ${id:-none}, $(cat "$T/pc.check")"

# ---- metrics.jsonl: an uninterrupted run, then a run killed by SIGKILL after step 5 (one step past
# its checkpoint at step 4), a torn line appended as a kill mid-write leaves it, and the resume.
$PB train $CFG --threads 2 --out "$T/a" > "$T/a.out" 2>&1; rc=$?
A=$(ls "$T"/a/*.h5 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ "$(basename "$A" .h5)" = "$id" ]
check "--print-config's run id is the trained run's" $? "printed $id, trained $(basename "${A:-none}")"
grep -q '^epoch 2/2  loss [0-9.]*  test top1 [0-9]\{1,3\}\.[0-9][0-9]% top5 [0-9]\{1,3\}\.[0-9][0-9]%' "$T/a.out" &&
    grep -q '^final: top1=[0-9]\{1,3\}\.[0-9][0-9]% top5=[0-9]\{1,3\}\.[0-9][0-9]% time=' "$T/a.out"
check "accuracy in % on the console (epoch and final lines), as in the reports" $? "$(grep -E '^(epoch|final)' "$T/a.out" | tr '\n' ';')"
[ -n "$A" ] && $PY tests/metrics_jsonl_check.py "uninterrupted run's metrics.jsonl" "$T/a/$id.metrics.jsonl" "$A"

POSBENCH_FAULT_KILL_STEP=5 bash -c 'setsid "$0" train $1 train.checkpoint_every=4 --threads 2 --out "$2" > /dev/null 2>&1; true' \
    "$PB" "$CFG" "$T/k" 2>/dev/null
M="$T/k/$id.metrics.jsonl"
during=$($PY -c 'import json,sys; print(" ".join(str(json.loads(l)["step"]) for l in open(sys.argv[1])))' "$M" 2>&1)
[ "$during" = "1 2 3 4 5" ] && [ -f "$T/k/$id.h5.partial" ] && [ ! -f "$T/k/$id.h5" ]
check "metrics.jsonl during a run: a line per step flushed as it happens (all 5 there after kill -9, .h5 still partial)" $? "steps: $during; $(ls "$T/k" | tr '\n' ' ')"
printf '{"run_id":"%s","step":6,"loss":2.3' "$id" >> "$M" # a line torn by a kill mid-write
$PB train $CFG train.checkpoint_every=4 --threads 2 --out "$T/k" > "$T/k.out" 2>&1; rc=$?
grep -q "resuming run $id from step 4" "$T/k.out"
check "the killed run resumes from its checkpoint at step 4" $(( $? + rc )) "exit $rc; $(grep resuming "$T/k.out")"
[ -f "$T/k/$id.h5" ] && $PY tests/metrics_jsonl_check.py "resumed run's metrics.jsonl (lines past the checkpoint cut, torn line dropped)" \
    "$M" "$T/k/$id.h5" "$T/a/$id.metrics.jsonl"

# A diverged run: its last line says so, with null for the loss, and stays strict JSON.
POSBENCH_FAULT_NAN_STEP=3 $PB train $CFG --threads 2 --out "$T/d" > /dev/null 2>&1
D=$(ls "$T"/d/*.metrics.jsonl 2>/dev/null | head -n 1)
$PY - "$D" > "$T/d.check" 2>&1 <<'PYEOF'
import json, sys
def bad(name): raise ValueError(name)
rows = [json.loads(l, parse_constant=bad) for l in open(sys.argv[1])]
last = rows[-1]
assert last.get("diverged") is True and last["step"] == 3 and last["loss"] is None, last
assert [r["step"] for r in rows] == [1, 2, 3], [r["step"] for r in rows]
print("ok: steps 1 2 3, the last diverged with loss null")
PYEOF
check "diverged run: last line diverged, loss null, strict JSON" $? "$(cat "$T/d.check")"

# ---- sweep: its run ids = posbench run on the saved YAML = a hand-written experiment
SW="model.patch=4,7 pe.kind=abs,none seeds=0..1 data.limit=256 data.test_limit=100 model.dim=16 model.depth=1 model.heads=2 train.epochs=1 train.batch=64 eval.batch=100"
$PB sweep $SW --out "$T/s" --jobs 2 --threads 2 > "$T/s.out" 2>&1; rc=$?
X="$T/s/sweep-model_patch-pe_kind"
nsweep=$(ls "$X"/main/*.h5 2>/dev/null | wc -l)
[ $rc -eq 0 ] && [ "$nsweep" -eq 8 ] && [ -f "$X/experiment.yaml" ]
check "sweep runs the product (2 x 2 axes x 2 seeds) through posbench run" $? "exit $rc, $nsweep runs; $(tail -n 1 "$T/s.out")"
$PB sweep $SW --save "$T/saved.yaml" --dry-run --out "$T/none" > "$T/save.out" 2>&1; rc=$?
$PB run "$T/saved.yaml" --out "$T/y" --jobs 2 --threads 2 > "$T/y.out" 2>&1; rc2=$?
ids_sweep=$(cd "$X/main" && ls *.h5 | sort | tr '\n' ' ')
ids_yaml=$(cd "$T/y/sweep-model_patch-pe_kind/main" 2>/dev/null && ls *.h5 | sort | tr '\n' ' ')
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ -n "$ids_sweep" ] && [ "$ids_sweep" = "$ids_yaml" ] && [ ! -e "$T/none/sweep-model_patch-pe_kind/main" ]
check "sweep's run ids = posbench run on the sweep --save YAML's (--dry-run trains nothing)" $? "sweep: $ids_sweep; yaml: $ids_yaml"
cat > "$T/hand.yaml" <<'YEOF'
name: hand
base:
  data: {limit: 256, test_limit: 100}
  model: {dim: 16, depth: 1, heads: 2}
  train: {epochs: 1, batch: 64}
  eval: {batch: 100}
matrix:
  model.patch: [4, 7]
  pe.kind: [abs, none]
seeds: [0, 1]
YEOF
ids_hand=$($PB list "$T/hand.yaml" | awk '$2 == "main" { print $1 ".h5" }' | sort | tr '\n' ' ')
[ "$ids_sweep" = "$ids_hand" ]
check "sweep's run ids = a hand-written experiment's (posbench list)" $? "hand: $ids_hand"
# A combination the experiment checks refuse: exit 2 with the generated file's position, file kept.
$PB sweep model.patch=4,5 --out "$T/bad" > "$T/o" 2>&1; rc=$?
kept=$(sed -n 's/.*is kept: \(.*\))$/\1/p' "$T/o")
[ $rc -eq 2 ] && grep -q 'model.patch' "$T/o" && [ -n "$kept" ] && [ -f "$kept" ] && grep -q "error: $kept:[0-9]*:[0-9]*: " "$T/o" && [ ! -e "$T/bad" ]
check "sweep with an impossible combination: exit 2 at the kept file's line:col, nothing run" $? "exit $rc: $(tr '\n' ' ' < "$T/o")"
[ -n "$kept" ] && rm -f "$kept"
$PB sweep $SW --out "$T/s" > "$T/s2.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '8 runs in 1 stage; 0 to run' "$T/s2.out"
check "sweep again: every run already done, nothing retrained (the runner's resume)" $? "$(grep 'to run' "$T/s2.out")"
# Another sweep of the same name (other values): refused before anything runs, the earlier sweep's
# experiment file and runs untouched, and the message names the flag that keeps both.
SW2=$(echo "$SW" | sed 's/model.patch=4,7/model.patch=7,14/')
before=$(md5sum < "$X/experiment.yaml")
$PB sweep $SW2 --out "$T/s" > "$T/s3.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "already holds a sweep named 'sweep-model_patch-pe_kind' with 4 of its 8 runs not in this one" "$T/s3.out" &&
    grep -q -- "--name sweep-model_patch-pe_kind-2" "$T/s3.out" && [ "$(md5sum < "$X/experiment.yaml")" = "$before" ] &&
    [ "$(ls "$X"/main/*.h5 | wc -l)" -eq 8 ]
check "sweep reusing a name with other values: exit 2 naming --name ...-2, the earlier sweep untouched" $? "exit $rc: $(tr '\n' ' ' < "$T/s3.out" | cut -c1-300)"

# ---- names/: one link per run, resolving to the run whose /config the name states
N="$X/main/names"
nl=0 bad=""
for l in "$N"/*; do
    nl=$((nl + 1))
    [ -L "$l" ] && [ -f "$l" ] || { bad="$bad $(basename "$l") (does not resolve)"; continue; }
    name=$(basename "$l")
    for kv in $(echo "$name" | tr ',' ' '); do
        k=${kv%%=*} v=${kv#*=}
        [ "$k" = seed ] && k=train.seed
        got=$(h5dump -a "/config/$k" "$l" 2>/dev/null | sed -n 's/.*(0): "*\([^"]*\)"*$/\1/p')
        [ "$got" = "$v" ] || bad="$bad $name ($k is $got)"
    done
done
[ "$nl" -eq 8 ] && [ -z "$bad" ]
check "names/: 8 links like model.patch=4,pe.kind=abs,seed=0 -> ../<id>.h5, each resolving to the run with those values" $? \
    "$nl links; $(ls "$N" | head -n 2 | tr '\n' ' ')$bad"
ls -l --time-style=full-iso "$N" | grep -v '^total' > "$T/names1"
ln -s ../000000000000.h5 "$N/stale-link" && echo keep > "$N/my-notes.txt"
$PB run "$X/experiment.yaml" --out "$T/s" > /dev/null 2>&1
ls -l --time-style=full-iso "$N" | grep -v '^total' | grep -v my-notes > "$T/names2"
cmp -s "$T/names1" "$T/names2" && [ -f "$N/my-notes.txt" ] && [ ! -L "$N/stale-link" ]
check "names/ rewritten idempotently: right links untouched, a stale link removed, other files kept" $? "$(diff "$T/names1" "$T/names2" | head -n 3 | tr '\n' ' ')"
$PB export "$X" > "$T/export.csv" 2>/dev/null
rows=$(($(grep -c . "$T/export.csv") - 1))
[ "$rows" -eq 8 ]
check "names/ links are not counted as runs (export: one row per run)" $? "$rows rows"

# ---- watch --once, plain: done runs by name, and a running, stopped, queued and damaged run
W="$T/w/exp/main"
mkdir -p "$W/names"
cp "$A" "$W/$id.h5" && cp "$T/a/$id.metrics.jsonl" "$W/"                        # done
ln -s "../aaaaaaaaaaaa.h5" "$W/names/pe.kind=abs,seed=0" && ln -s "../$id.h5" "$W/names/pe.kind=none,seed=0"  # queued; done
echo "not hdf5" > "$W/bbbbbbbbbbbb.h5"                                            # damaged
cp "$T/k/$id.metrics.jsonl" "$W/cccccccccccc.metrics.jsonl"; : > "$W/cccccccccccc.ckpt"  # stopped
sleep 60 & SLEEPER=$!
echo "$SLEEPER" > "$W/dddddddddddd.lock"; head -n 5 "$M" > "$W/dddddddddddd.metrics.jsonl"  # running (a live lock holder)
$PB watch "$T/w" --once > "$T/watch.out" 2>&1; rc=$?
kill "$SLEEPER" 2>/dev/null
ok=0
for want in '5 runs: 1 running, 1 queued, 1 stopped, 1 done, 1 damaged' \
    "^done  *exp/main/pe.kind=none,seed=0  *16/16  .*top1 [0-9.]*% top5 [0-9.]*% loss [0-9.]* (step 16)" \
    '^queued  *exp/main/pe.kind=abs,seed=0  ' '^damaged  *exp/main/bbbbbbbbbbbb .*does not open as HDF5' \
    '^stopped  *exp/main/cccccccccccc  *16/16 ' '^running  *exp/main/dddddddddddd  *5/16  *[0-9.]*  *[0-9]*s  *-$'; do
    grep -q "$want" "$T/watch.out" || { ok=1; echo "  watch output lacks: $want"; }
done
[ "$(grep -c '\[' "$T/watch.out")" -eq 0 ] || ok=1 # plain lines: no escape sequences
check "watch --once (plain): every state, step, loss, ETA and last eval in %" $(( ok + rc )) "exit $rc; $(tr '\n' '|' < "$T/watch.out")"
$PB watch "$T/nonexistent" --once > "$T/o" 2>&1; rc=$?
[ $rc -eq 2 ]
check "watch on a missing directory: exit 2" $? "exit $rc: $(cat "$T/o")"
# ---- watch: a run file whose name holds an ESC sequence (window title) shows it escaped; no ESC
# byte reaches the terminal
mkdir -p "$T/wesc" && printf 'junk' > "$T/wesc/$(printf 'a\033]0;pwned\007b').h5"
$PB watch "$T/wesc" --once > "$T/wesc.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -qF 'a\x1b]0;pwned\x07b' "$T/wesc.out" && ! grep -q "$(printf '\033')" "$T/wesc.out"
check "watch: an ESC sequence in a run's file name is shown escaped (\\x1b), never sent" $? "exit $rc: $(od -c "$T/wesc.out" | head -n 3 | tr '\n' ' ')"
# ---- train --help TOPIC: only the keys of the topic; a topic nothing matches exits 2 naming the groups
$PB train --help pe > "$T/help_pe.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^  pe.kind ' "$T/help_pe.out" && ! grep -q '^  model.dim ' "$T/help_pe.out" && ! grep -q '^usage:' "$T/help_pe.out"
check "train --help pe: the pe keys, not model.dim, no usage text" $? "exit $rc, $(grep -c '^  ' "$T/help_pe.out") keys"
$PB train --help zzz > "$T/help_zzz.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "no key is about 'zzz' (key groups: data, " "$T/help_zzz.out"
check "train --help with a topic nothing matches: exit 2 naming the key groups" $? "exit $rc: $(cat "$T/help_zzz.out")"
