#!/bin/sh
# scripts/gpu_session.sh OUT [DEVICE] — everything a session with a lent GPU should measure, in
# one call, written under OUT (issue 14's evidence): on a GPU machine, from the root of a
# checkout where `make gpu-bundle` was run here and the bundle unpacked to /tmp/pb:
#   mkdir -p /tmp/pb && tar -xzf build/gpu-bundle.tar.gz -C /tmp/pb && /tmp/pb/env.sh sh scripts/gpu_session.sh "$OUT"
# Steps, each logged to OUT/<step>.log and summarised in OUT/SUMMARY.md:
#   0. the probe: GPU, driver, nvcc, PyTorch and the cuDNN it carries (version, library path),
#      posbench --version (CUDA runtime, cuBLAS, cuDNN as posbench sees them);
#   1. the op parity table against cuda (build/tests/test_parity --backend cuda: every op and the
#      training attention routes), the bf16 twins on cuda (test_dense_bf16) and the CUDA programs
#      that are not per-op parity (build/tests/test_cuda_*: the Lt workspace, NCCL);
#   2. whole-step parity: one small Fashion-MNIST training per objective on the CPU and on DEVICE
#      (fp32), compared by tests/runs_close.py (losses within 1e-3 relative); the same training
#      in bf16 on DEVICE against fp32 (within 5%) and against bf16 on the CPU (within 1e-2: the
#      CPU emulates the rounding points); a run stopped after 5 steps on DEVICE and
#      resumed on the CPU finishes;
#   3. posbench bench --device DEVICE for every config, fp32 and bf16, with PyTorch's ratio;
#   4. PyTorch's MP3 ViT-B/16 step at eta 0.3/0.5/0.75/0.9 against its ViT-B/16 step (MP3 Table 2);
#   5. a 100-step training on DEVICE, run twice in fp32, in bf16, in bf16 with the cuDNN attention,
#      in bf16 with cuDNN, cuBLASLt and the v2 kernels, in fp32 with train.graph=on (the step
#      without host reads, replayed as a CUDA graph), and MP3 at eta 0.75, GVP with fixed
#      segmentation, SimCLR and DINO (3 local crops of GPU_SESSION_DINO_LOCAL_SIZE px, default 12, a
#      multiple of the curve model's patch; drop path) with the graph off and on (GPU_SESSION_DET_CASES): bitwise the same
#      losses (determinism); each graph run bitwise its run without the graph (parity; MP3's, GVP's,
#      SimCLR's and DINO's must replay on cuda); the fp32 loss curve in
#      OUT/loss-curve-100.tsv;
#   6. make reproduce-mp3 SCALE=smoke on the CPU and on DEVICE: the same verdicts, finding by finding
#      (needs the speech set: a bundle made with GPU_BUNDLE_SPEECH=1 GPU_BUNDLE_TESTS=0)
#      (the timing experiment mp3-table2 left out of the comparison: its findings are the device's);
#   7. ncu's per-kernel time of the bf16 step of each GPU_SESSION_NCU_CONFIGS config (default
#      vit-b16-224 and vit-s4-32: where the step's time goes);
#   8. the on/off matrix of the speed switches: posbench bench --no-torch --breakdown for each
#      GPU_SESSION_AB_CONFIGS config (default vit-b16-224 vit-s4-32 mp3-b16-224-e75 dino-s16-224) under each
#      variant of GPU_SESSION_AB_VARIANTS, a ';'-separated list of NAME|WORDS where WORDS are
#      VAR=value environment settings and bench flags (default: the bf16 routes there are, and
#      train.activations=bf16 alone and with every other route: --activations bf16; bf16-act-inplace:
#      bf16-act's flags with --attention materialised-inplace (route A reading its bf16 operands in
#      place instead of packing them, mp3-b16-224-e75's compact attention included), against bf16-act;
#      bf16 activations with train.recompute=gelu beside them alone: --recompute gelu (arena MiB against bf16-act's);
#      --graph on: the step without host reads, replayed as a CUDA graph where the config replays;
#      its breakdown says whether it did and the host reads per step).
# Every step's commands run under their own timeout, so a hang still returns the rest;
# GPU_SESSION_ARCHIVE=FILE packs OUT into one .tar.gz at the end (what a device call brings back).
# GPU_SESSION_KEYS replaces the small training config of step 2, GPU_SESSION_CASES its list of
# objectives (supervised must stay: bf16 and resume compare with it). GPU_SESSION_STEPS picks steps
# (default "1 2 3 4 5 6 7": a device call is limited to 10 minutes, so a session may split them),
# GPU_SESSION_CONFIGS the bench configs of step 3, GPU_SESSION_PRECISIONS its precisions,
# GPU_SESSION_BENCH_FLAGS extra flags for its `posbench bench` (e.g. --attention fused --no-torch). DEVICE defaults to cuda; `cpu-guarded` runs the same steps on the CPU (tests/e2e_train.sh uses
# it to keep this script working where there is no GPU; step 3 and 4 are then left out).
# Exit 0 when every check passed, 1 otherwise.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:?usage: scripts/gpu_session.sh OUT [DEVICE]}
DEV=${2:-cuda}
PB=build/posbench
mkdir -p "$OUT" || exit 1
# Fashion-MNIST: Debian's copy, else the GPU bundle's (scripts/gpu_bundle.sh packs it).
DATA=/usr/share/datasets/fashion-mnist
[ -f "$DATA/train-images-idx3-ubyte.gz" ] || DATA=${POSBENCH_BUNDLE:-/tmp/pb}/data/fashion-mnist
SUM="$OUT/SUMMARY.md"
fails=0
note() { echo "$*" | tee -a "$SUM"; }
result() { # name, status, detail
    if [ "$2" -eq 0 ]; then note "- PASS $1: $3"; else note "- FAIL $1: $3"; fails=$((fails + 1)); fi
}
: > "$SUM"
note "# GPU session $(date -u +%Y-%m-%dT%H:%M:%SZ), device $DEV"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >> "$SUM"
# The bundle's commit (scripts/gpu_bundle.sh writes it; the GPU machine's .git is not the
# checkout's), else this checkout's.
COMMIT_FILE=${POSBENCH_BUNDLE:-/tmp/pb}/COMMIT
if [ -f "$COMMIT_FILE" ]; then note "commit $(cat "$COMMIT_FILE") (the GPU bundle's)"; else note "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"; fi

STEPS=${GPU_SESSION_STEPS:-0 1 2 3 4 5 6 7 8}
# GPU_SESSION_DEADLINE_S: seconds after the start past which no step (and no further A/B bench run
# of step 8) begins, each left out with a line saying so, so that the summary and the archive are
# written inside a device call's limit; unset, no deadline.
START_S=$(date +%s)
past_deadline() { [ -n "${GPU_SESSION_DEADLINE_S:-}" ] && [ $(( $(date +%s) - START_S )) -ge "$GPU_SESSION_DEADLINE_S" ]; }
step() {
    case " $STEPS " in *" $1 "*) ;; *) note ""; note "(step $1 left out: GPU_SESSION_STEPS=$STEPS)"; return 1 ;; esac
    if past_deadline; then
        note ""; note "(step $1 left out: past the deadline, $(( $(date +%s) - START_S )) s of GPU_SESSION_DEADLINE_S=$GPU_SESSION_DEADLINE_S)"; return 1
    fi
}

if step 0; then
note ""
note "## 0. Probe: GPU, driver, toolkit, PyTorch and its cuDNN, posbench's view"
{
    command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi
    command -v nvcc > /dev/null 2>&1 && nvcc --version
    timeout 60 python3 - <<'EOP'
import os
try:
    import torch
    print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())
    print('torch cudnn', torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else 'not available')
    if torch.cuda.is_available():
        print('gpu', torch.cuda.get_device_name(0))
except Exception as e:
    print('torch: not importable:', e)
try:
    import nvidia.cudnn as m
    d = list(m.__path__)[0] + '/lib'
    print('libcudnn dir', d, sorted(os.listdir(d)) if os.path.isdir(d) else 'missing')
except Exception as e:
    print('nvidia.cudnn wheel: not found:', e)
EOP
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    timeout 60 $PB --version
} > "$OUT/probe.log" 2>&1
timeout 60 $PB --version > /dev/null 2>&1
result "probe (probe.log)" $? "$(grep -E '^(torch|gpu|libcudnn)' "$OUT/probe.log" | cut -c1-160 | tr '\n' ';')"
grep -E '^(cuda|cudnn)' "$OUT/probe.log" | sed 's/^/    /' >> "$SUM" # what posbench itself found
fi

if step 1; then
note ""
note "## 1. CUDA parity: the op table and the route programs"
if [ "$DEV" = cuda ]; then
    # each program on the legacy default stream (the default), then on the backend's own stream
    # (POSBENCH_STREAM=own: the stream train.graph captures on), until own becomes the default
    # The op parity table (build/tests/test_parity against cuda, the attention routes' family
    # included; GPU_SESSION_PARITY_ARGS narrows it, e.g. "--family attention_routes" or "--op
    # linear_forward"; GPU_SESSION_TABLE_S its time limit, default 300 s), the bf16 twins on cuda
    # (test_dense_bf16), then the programs that are not per-op parity (test_cuda_*; each
    # GPU_SESSION_PARITY_S, default 120 s).
    for stream in legacy own; do
        for t in build/tests/test_parity build/tests/test_dense_bf16 build/tests/test_cuda_*; do
            [ -x "$t" ] || continue
            name=$(basename "$t")
            args= limit=${GPU_SESSION_PARITY_S:-120}
            [ "$name" = test_parity ] && args="--backend cuda ${GPU_SESSION_PARITY_ARGS:-}" limit=${GPU_SESSION_TABLE_S:-300}
            [ "$stream" = own ] && name="$name-own-stream"
            # shellcheck disable=SC2086 # args are words
            timeout "$limit" env POSBENCH_STREAM=$stream "$t" $args > "$OUT/$name.log" 2>&1; rc=$?
            result "$name" $rc "$(grep -c '^PASS' "$OUT/$name.log") passed, $(grep -c '^FAIL' "$OUT/$name.log") failed, $(grep -c '^SKIP' "$OUT/$name.log") skipped"
        done
    done
else
    note "(left out: device $DEV)"
fi
fi

if step 2; then
note ""
note "## 2. Whole training runs: CPU vs $DEV"
SMALL=${GPU_SESSION_KEYS:-"data.limit=1024 data.test_limit=500 train.epochs=2 train.batch=64 eval.batch=250 model.dim=64 model.depth=2 model.heads=2 model.patch=4"}
run() { # dir, device, extra keys...
    d=$1 dev=$2
    shift 2
    $PB train $SMALL data.path="$DATA" "$@" --device "$dev" --threads 2 --out "$OUT/runs/$d" > "$OUT/runs-$d.log" 2>&1
}
file() { ls "$OUT/runs/$1"/*.h5 2>/dev/null | head -n 1; }
CASES=${GPU_SESSION_CASES:-supervised cape mp3 gvp relbias gmlp simclr dino}
for name in $CASES; do
    case $name in
    supervised) keys="pe.kind=abs" ;;
    cape) keys="pe.kind=cape" ;;
    mp3) keys="objective.name=mp3 pe.kind=none objective.eta=0.5" ;;
    gvp) keys="objective.name=gvp objective.groups=4" ;;
    relbias) keys="pe.kind=relbias" ;;
    gmlp) keys="model.arch=gmlp pe.kind=none" ;;
    simclr) keys="objective.name=simclr pe.kind=sin2d" ;;
    dino) keys="objective.name=dino pe.kind=sin2d" ;;
    *) echo "GPU_SESSION_CASES: '$name' is not a case (valid: supervised cape mp3 gvp relbias gmlp simclr dino)" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086
    run "$name-cpu" cpu $keys; rc1=$?
    # shellcheck disable=SC2086
    run "$name-dev" "$DEV" $keys; rc2=$?
    if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
        result "$name: trains on cpu and $DEV" 1 "exit $rc1 / $rc2 (see $OUT/runs-$name-*.log)"
        continue
    fi
    python3 tests/runs_close.py "$(file "$name-cpu")" "$(file "$name-dev")" 1e-3 > "$OUT/close-$name.txt" 2>&1
    result "$name: cpu vs $DEV fp32 losses within 1e-3" $? "$(tr '\n' ' ' < "$OUT/close-$name.txt")"
    grep -h "^final" "$OUT/runs-$name-cpu.log" "$OUT/runs-$name-dev.log" | sed 's/^/    /' >> "$SUM"
done
run bf16-dev "$DEV" pe.kind=abs train.precision=bf16; rc=$?
[ $rc -eq 0 ] && python3 tests/runs_close.py "$(file supervised-dev)" "$(file bf16-dev)" 0.05 > "$OUT/close-bf16.txt" 2>&1
result "bf16 on $DEV within 5% of fp32" $? "$(tr '\n' ' ' < "$OUT/close-bf16.txt" 2>/dev/null)"
# The same bf16 run on the CPU, which emulates the device's rounding points (linear operands,
# attention q/k/v/P/dout/dS): the two differ by summation order and rare rounding tie-breaks.
run bf16-cpu cpu pe.kind=abs train.precision=bf16; rc=$?
[ $rc -eq 0 ] && python3 tests/runs_close.py "$(file bf16-cpu)" "$(file bf16-dev)" 1e-2 > "$OUT/close-bf16-cpu.txt" 2>&1
result "bf16 on $DEV within 1e-2 of bf16 on the CPU" $? "$(tr '\n' ' ' < "$OUT/close-bf16-cpu.txt" 2>/dev/null)"
run resume "$DEV" pe.kind=abs --stop-after 5; rc1=$?
run resume cpu pe.kind=abs; rc2=$?
grep -q "resuming run .* from step 5" "$OUT/runs-resume.log" && [ -n "$(file resume)" ]
result "a run stopped on $DEV after 5 steps resumes on the CPU and finishes" $? "exit $rc1 then $rc2"
[ -n "$(file resume)" ] && python3 tests/runs_close.py "$(file supervised-cpu)" "$(file resume)" 1e-3 > "$OUT/close-resume.txt" 2>&1
result "resumed across devices: losses within 1e-3 of the CPU run" $? "$(tr '\n' ' ' < "$OUT/close-resume.txt" 2>/dev/null)"
fi

if [ "$DEV" = cuda ] && step 3; then
    note ""
    note "## 3. posbench bench --device cuda (fp32 and bf16, PyTorch compiled beside)"
    for prec in ${GPU_SESSION_PRECISIONS:-fp32 bf16}; do
        for cfg in ${GPU_SESSION_CONFIGS:-vit-d128-L6-p4-28px gmlp-d128-L6-p4-28px vit-d192-L12-p4-32px vit-s4-32 vit-b16-224 mp3-b16-224-e30 mp3-b16-224-e50 mp3-b16-224-e75 mp3-b16-224-e90 dino-s16-224}; do
            # shellcheck disable=SC2086
            $PB bench --device cuda --precision $prec --config $cfg --iters 20 ${GPU_SESSION_BENCH_FLAGS:-} > "$OUT/bench-$cfg-$prec.log" 2>&1
            result "bench $cfg $prec" $? "$(grep "^$cfg" "$OUT/bench-$cfg-$prec.log")"
        done
    done
fi
if [ "$DEV" = cuda ] && step 4; then
    note ""
    note "## 4. PyTorch ViT-B/16 vs MP3 ViT-B/16 step (MP3 Table 2), bf16 autocast, eager and compiled"
    python3 bench/perf/torch_gpu_step.py --config vit-b16-224 --modes eager,compile --precision bf16 > "$OUT/torch-vit-b16.jsonl" 2>&1
    result "torch ViT-B/16" $? "$(tr '\n' ' ' < "$OUT/torch-vit-b16.jsonl" | cut -c1-400)"
    for eta in 0.3 0.5 0.75 0.9; do
        python3 bench/perf/torch_gpu_step.py --config mp3-b16-224 --eta $eta --modes eager,compile --precision bf16 > "$OUT/torch-mp3-$eta.jsonl" 2>&1
        result "torch MP3 ViT-B/16 eta $eta" $? "$(tr '\n' ' ' < "$OUT/torch-mp3-$eta.jsonl" | cut -c1-400)"
    done
fi
if step 5; then
    note ""
    note "## 5. A 100-step loss curve on $DEV, and bitwise run-to-run determinism (fp32 and bf16)"
    # GPU_SESSION_CURVE_STEPS: the curve's steps (100; the CPU dry run of tests/e2e_gpu_session.sh
    # takes fewer, on a smaller model: GPU_SESSION_CURVE_MODEL)
    CURVE_STEPS=${GPU_SESSION_CURVE_STEPS:-100}
    CURVE="data.path=$DATA data.limit=$((CURVE_STEPS * 64)) data.test_limit=500 train.epochs=1 train.batch=64 eval.batch=250 ${GPU_SESSION_CURVE_MODEL:-model.dim=64 model.depth=2 model.heads=2 model.patch=4}"
    # bf16-cudnn: the cuDNN attention route (its deterministic backward); on the CPU the same bf16 run
    # bf16-new: the cuDNN attention with the cuBLASLt linear layers and the v2 kernels
    # fp32-graph: train.graph=on, its parity reference the fp32 case
    # mp3, mp3-graph: MP3 at eta 0.75 (pe.kind=none) with the graph off and on (its contexts staged
    # before each step, so on the GPU it replays), the second's parity reference the first
    # gvp, gvp-graph: GVP with fixed segmentation, 4 groups (its orders, predicted rows and targets
    # staged before each step: static shapes, so on the GPU it replays), the same pair
    # simclr, simclr-graph: SimCLR with the graph off and on (its two views per image staged before
    # each step, so on the GPU it replays), the same pair
    # dino, dino-graph: DINO with 3 local crops and drop path (every view, the teacher temperature,
    # EMA momentum and freeze gate staged before each step, each size's grid tables kept on the
    # device, head, loss, centre and EMA on the device, so on the GPU it replays), the same pair
    DET_CASES=${GPU_SESSION_DET_CASES:-fp32 bf16 bf16-cudnn bf16-new fp32-graph mp3 mp3-graph gvp gvp-graph simclr simclr-graph dino dino-graph}
    MP3_KEYS="objective.name=mp3 objective.eta=0.75 pe.kind=none eval.position_limit=100 eval.samples=0"
    GVP_KEYS="objective.name=gvp objective.segmentation=fixed objective.groups=4 pe.kind=sin2d eval.samples=0"
    SIMCLR_KEYS="objective.name=simclr pe.kind=abs eval.view_images=0"
    DINO_KEYS="objective.name=dino pe.kind=sin2d dino.local_crops=3 dino.local_size=${GPU_SESSION_DINO_LOCAL_SIZE:-12} model.drop_path=0.1 dino.hidden_dim=64 dino.bottleneck_dim=32 dino.out_dim=256"
    for prec in $DET_CASES; do
        extra="train.precision=$prec pe.kind=abs" env_words=""
        case $prec in
        bf16-cudnn) extra="train.precision=bf16 train.attention=cudnn pe.kind=abs" ;;
        bf16-new) extra="train.precision=bf16 train.attention=cudnn pe.kind=abs" env_words="POSBENCH_LINEAR=lt POSBENCH_KERNELS=v2" ;;
        fp32-graph) extra="train.precision=fp32 train.graph=on pe.kind=abs" env_words="POSBENCH_STREAM=own" ;;
        mp3) extra="train.precision=fp32 $MP3_KEYS" ;;
        mp3-graph) extra="train.precision=fp32 train.graph=on $MP3_KEYS" env_words="POSBENCH_STREAM=own" ;;
        gvp) extra="train.precision=fp32 $GVP_KEYS" ;;
        gvp-graph) extra="train.precision=fp32 train.graph=on $GVP_KEYS" env_words="POSBENCH_STREAM=own" ;;
        simclr) extra="train.precision=fp32 $SIMCLR_KEYS" ;;
        simclr-graph) extra="train.precision=fp32 train.graph=on $SIMCLR_KEYS" env_words="POSBENCH_STREAM=own" ;;
        dino) extra="train.precision=fp32 $DINO_KEYS" ;;
        dino-graph) extra="train.precision=fp32 train.graph=on $DINO_KEYS" env_words="POSBENCH_STREAM=own" ;;
        esac
        for rep in 1 2; do
            # shellcheck disable=SC2086
            env $env_words $PB train $CURVE $extra --device "$DEV" --threads 2 --out "$OUT/runs/det-$prec-$rep" > "$OUT/runs-det-$prec-$rep.log" 2>&1
        done
        a=$(ls "$OUT/runs/det-$prec-1"/*.h5 2>/dev/null | head -n 1) b=$(ls "$OUT/runs/det-$prec-2"/*.h5 2>/dev/null | head -n 1)
        if [ -n "$a" ] && [ -n "$b" ]; then
            python3 tests/runs_close.py "$a" "$b" 0 /train/loss /eval/loss > "$OUT/close-det-$prec.txt" 2>&1
            result "$prec on $DEV: two runs of $CURVE_STEPS steps give bitwise the same losses" $? "$(tr '\n' ' ' < "$OUT/close-det-$prec.txt")"
        else
            result "$prec on $DEV: two runs of $CURVE_STEPS steps finish" 1 "see $OUT/runs-det-$prec-*.log"
        fi
    done
    a=$(ls "$OUT/runs/det-fp32-graph-1"/*.h5 2>/dev/null | head -n 1) b=$(ls "$OUT/runs/det-fp32-1"/*.h5 2>/dev/null | head -n 1)
    if [ -n "$a" ] && [ -n "$b" ]; then
        python3 tests/runs_close.py "$a" "$b" 0 /train/loss /train/grad_norm /eval/loss > "$OUT/close-graph.txt" 2>&1
        result "train.graph=on on $DEV: bitwise the losses and norms of train.graph=off ($(grep -c 'not replayed' "$OUT/runs-det-fp32-graph-1.log") not-replayed notes)" $? \
            "$(tr '\n' ' ' < "$OUT/close-graph.txt") $(grep 'train.graph' "$OUT/runs-det-fp32-graph-1.log" | head -n 2 | tr '\n' ' ')"
    fi
    # An objective with the graph (CASE-graph): bitwise the losses and norms of CASE without it; on
    # cuda it must replay (no "not replayed" note: the capture of its step succeeded). CASE, label.
    graph_parity() {
        a=$(ls "$OUT/runs/det-$1-graph-1"/*.h5 2>/dev/null | head -n 1) b=$(ls "$OUT/runs/det-$1-1"/*.h5 2>/dev/null | head -n 1)
        [ -n "$a" ] && [ -n "$b" ] || return 0
        python3 tests/runs_close.py "$a" "$b" 0 /train/loss /train/grad_norm /eval/loss > "$OUT/close-$1-graph.txt" 2>&1
        ok=$?
        notes=$(grep -c 'not replayed' "$OUT/runs-det-$1-graph-1.log")
        [ "$DEV" = cuda ] && [ "$notes" -ne 0 ] && ok=1
        result "$2 train.graph=on on $DEV: bitwise the losses and norms of train.graph=off ($notes not-replayed notes; 0 wanted on cuda)" $ok \
            "$(tr '\n' ' ' < "$OUT/close-$1-graph.txt") $(grep 'train.graph' "$OUT/runs-det-$1-graph-1.log" | head -n 2 | tr '\n' ' ')"
    }
    graph_parity mp3 "MP3 eta 0.75"
    graph_parity gvp "GVP fixed segmentation"
    graph_parity simclr "SimCLR"
    graph_parity dino "DINO, 3 local crops"
    a=$(ls "$OUT/runs/det-fp32-1"/*.h5 2>/dev/null | head -n 1)
    [ -n "$a" ] && python3 - "$a" "$OUT/loss-curve-100.tsv" <<'EOP'
import sys
sys.path.insert(0, 'tests')
from runs_close import values  # h5py where installed, else h5dump
loss = values(sys.argv[1], '/train/loss')
with open(sys.argv[2], 'w') as out:
    out.write('step\tloss\n')
    for i, v in enumerate(loss):
        out.write(f'{i + 1}\t{v:.6f}\n')
print(f'{len(loss)} steps: loss {loss[0]:.4f} -> {loss[-1]:.4f}')
EOP
    [ "$(wc -l < "$OUT/loss-curve-100.tsv" 2>/dev/null)" = $((CURVE_STEPS + 1)) ]
    result "$CURVE_STEPS-step loss curve written to loss-curve-100.tsv" $? "$(sed -n '2p;$p' "$OUT/loss-curve-100.tsv" 2>/dev/null | tr '\n\t' '  ')"
fi
if step 6; then
    note ""
    note "## 6. make reproduce-mp3 SCALE=smoke: $DEV against the CPU, finding by finding"
    for d in cpu "$DEV"; do
        # Every run of every experiment done (the script's own exit status also counts the
        # figures, which need gnuplot: the GPU machine has none).
        timeout "${GPU_SESSION_REPRODUCE_S:-240}" sh scripts/reproduce.sh mp3 smoke "$d" "$OUT/reproduce-$d" > "$OUT/reproduce-$d.log" 2>&1
        grep -q '^experiment .* done' "$OUT/reproduce-$d.log" && ! grep -q '^experiment .*, [1-9][0-9]* not done' "$OUT/reproduce-$d.log"
        result "reproduce-mp3 smoke on $d: every run done" $? "$(grep '^experiment .* done' "$OUT/reproduce-$d.log" | sed 's/; results in.*//' | tr '\n' ' ')"
    done
    # The findings' verdicts, except mp3-table2's: its findings are step times and memory, which
    # belong to the device (the CPU and the GPU are meant to differ there).
    verdicts() {
        awk -F'|' '/^## / { timing = ($0 ~ /mp3-table2/) } /^\| / && NF > 3 && !timing { print $2 "|" $(NF - 1) }' "$1" 2>/dev/null |
            grep -E 'holds|inconclusive|not measured'
    }
    verdicts "$OUT/reproduce-cpu/REPORT.md" > "$OUT/verdicts-cpu.txt"
    verdicts "$OUT/reproduce-$DEV/REPORT.md" > "$OUT/verdicts-$DEV.txt"
    [ -s "$OUT/verdicts-cpu.txt" ] && cmp -s "$OUT/verdicts-cpu.txt" "$OUT/verdicts-$DEV.txt"
    result "reproduce-mp3 smoke: the same verdicts on cpu and $DEV" $? "$(wc -l < "$OUT/verdicts-cpu.txt") finding lines; diff in verdicts-*.txt"
fi
if [ "$DEV" = cuda ] && step 7; then
    note ""
    note "## 7. Where the bf16 step's time goes (ncu, per kernel; 3 steps: 2 warm-up, 1 timed)"
    if command -v ncu > /dev/null 2>&1; then
        for cfg in ${GPU_SESSION_NCU_CONFIGS:-vit-b16-224 vit-s4-32}; do
            # shellcheck disable=SC2086
            timeout "${GPU_SESSION_NCU_S:-150}" ncu --clock-control none --metrics gpu__time_duration.sum \
                --print-summary per-kernel $PB bench --device cuda --precision bf16 --config "$cfg" \
                --iters 1 --no-torch ${GPU_SESSION_BENCH_FLAGS:-} > "$OUT/ncu-$cfg-bf16.txt" 2>&1
            result "ncu per-kernel summary in ncu-$cfg-bf16.txt" $? "$(grep -c 'gpu__time_duration.sum' "$OUT/ncu-$cfg-bf16.txt") kernels"
        done
    else
        note "(left out: no ncu on this machine)"
    fi
fi
if step 8; then
    note ""
    note "## 8. The speed switches on and off: posbench bench --no-torch --breakdown"
    if [ "$DEV" = cuda ]; then
        AB_CONFIGS=${GPU_SESSION_AB_CONFIGS:-vit-b16-224 vit-s4-32 mp3-b16-224-e75 dino-s16-224}
        AB_VARIANTS=${GPU_SESSION_AB_VARIANTS:-"materialised|--precision bf16 --attention materialised;cudnn|--precision bf16 --attention cudnn;lt-v2|--precision bf16 --attention materialised --linear lt --kernels v2;cudnn-lt-v2|--precision bf16 --attention cudnn --linear lt --kernels v2;bf16-act|--precision bf16 --attention materialised --activations bf16;bf16-act-inplace|--precision bf16 --attention materialised-inplace --activations bf16;bf16-act-recompute|--precision bf16 --attention materialised --activations bf16 --recompute gelu;cudnn-lt-v2-bf16-act|--precision bf16 --attention cudnn --linear lt --kernels v2 --activations bf16;own-stream|POSBENCH_STREAM=own --precision bf16 --attention materialised;all-graph|POSBENCH_STREAM=own --precision bf16 --attention cudnn --linear lt --kernels v2 --activations bf16 --graph on;all-graph-recompute|POSBENCH_STREAM=own --precision bf16 --attention cudnn --linear lt --kernels v2 --activations bf16 --recompute gelu --graph on;materialised-graph|POSBENCH_STREAM=own --precision bf16 --attention materialised --graph on;fused-fp32|--precision fp32 --attention fused"}
        AB_ITERS=${GPU_SESSION_AB_ITERS:-20}
    else # the CPU dry run: a small config, the CPU's one route
        AB_CONFIGS=${GPU_SESSION_AB_CONFIGS:-vit-d64-L2-p4-28px-ci}
        AB_VARIANTS=${GPU_SESSION_AB_VARIANTS:-"fp32|--precision fp32;bf16|--precision bf16;bf16-act|--precision bf16 --activations bf16;bf16-act-recompute|--precision bf16 --activations bf16 --recompute gelu;fp32-graph|--precision fp32 --graph on"}
        AB_ITERS=${GPU_SESSION_AB_ITERS:-5}
    fi
    echo "$AB_VARIANTS" | tr ';' '\n' > "$OUT/ab-variants.txt"
    for cfg in $AB_CONFIGS; do
        while IFS='|' read -r vname words; do
            [ -n "$vname" ] || continue
            if past_deadline; then
                note "- (A/B $cfg $vname left out: past the deadline, GPU_SESSION_DEADLINE_S=$GPU_SESSION_DEADLINE_S)"; continue
            fi
            envs="" flags=""
            for w in $words; do
                case $w in -*) flags="$flags $w" ;; *=*) envs="$envs $w" ;; *) flags="$flags $w" ;; esac
            done
            log="$OUT/ab-$cfg-$vname.log"
            # shellcheck disable=SC2086
            timeout "${GPU_SESSION_AB_S:-90}" env $envs $PB bench --device "$DEV" --config "$cfg" --iters "$AB_ITERS" \
                --no-torch --breakdown $flags > "$log" 2>&1
            rc=$?
            [ $rc -eq 0 ] && grep -q '^  breakdown' "$log"
            result "A/B $cfg $vname ($envs$flags)" $? "$(grep "^$cfg" "$log" | awk '{print $2 " ms, arena " $6 " MiB"}') $(grep '^  breakdown' "$log" | sed 's/^  breakdown (median ms)://') $(grep '^  graph:' "$log" | sed 's/^  //')"
        done < "$OUT/ab-variants.txt"
    done
fi
note ""
note "$fails failed"
if [ -n "${GPU_SESSION_ARCHIVE:-}" ]; then
    tar -czf "$GPU_SESSION_ARCHIVE" -C "$OUT" . && echo "archive: $GPU_SESSION_ARCHIVE ($(du -h "$GPU_SESSION_ARCHIVE" | cut -f1))"
fi
[ $fails -eq 0 ]
