#!/bin/sh
# tests/e2e_gpu_session.sh — scripts/gpu_evidence.sh (scripts/gpu_session.sh's steps for the first
# call of a session with a lent GPU) kept working where there is none: its CPU-vs-device, bf16 and cross-device resume
# steps run with the device cpu-guarded on a tiny config (the CUDA parity and bench steps are
# left out there; the probe and the switch matrix of `bench --breakdown` run on the CPU's
# routes), must report every check passed (its deadline lifted: a loaded machine is slow, and the
# deadline has its own check below), and its archive must hold the summary; past its
# deadline (GPU_SESSION_DEADLINE_S) it leaves the remaining steps out, names them, and still archives.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-gpu-session.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e gpu session: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
GPU_SESSION_KEYS="data.limit=256 data.test_limit=100 train.epochs=2 train.batch=64 eval.batch=100 model.dim=16 model.depth=1 model.heads=2 model.patch=7" \
GPU_SESSION_CASES="supervised mp3" GPU_SESSION_DET_CASES="fp32 bf16 fp32-graph mp3 mp3-graph gvp gvp-graph simclr simclr-graph dino dino-graph" \
GPU_SESSION_CURVE_STEPS=20 GPU_SESSION_CURVE_MODEL="model.dim=16 model.depth=1 model.heads=2 model.patch=7" GPU_SESSION_DINO_LOCAL_SIZE=14 \
GPU_SESSION_AB_ITERS=3 GPU_SESSION_DEADLINE_S=100000 sh scripts/gpu_evidence.sh "$T/out" cpu-guarded > "$T/log" 2>&1; rc=$?
passed=$(grep -c '^- PASS' "$T/out/SUMMARY.md" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$passed" -eq 29 ] && grep -q '^0 failed' "$T/out/SUMMARY.md" &&
    tar -tzf "$T/out.tar.gz" 2>/dev/null | grep -q 'SUMMARY.md'; then
    echo "PASS gpu_session.sh on cpu-guarded: $passed checks passed (probe, cpu vs device for 2 objectives, bf16 vs fp32 and vs the CPU, resume across devices, determinism fp32, bf16, fp32 with train.graph=on, MP3, GVP (fixed segmentation), SimCLR and DINO (3 local crops) each without and with train.graph=on, each graph run bitwise its run without, loss curve, the switch matrix with --breakdown: fp32, bf16, bf16 activations, bf16 activations with --recompute gelu, --graph on) and packed into one archive"
else
    echo "FAIL gpu_session.sh on cpu-guarded: exit $rc, $passed checks passed: $(grep -E '^- FAIL|failed|left out' "$T/out/SUMMARY.md" 2>/dev/null | tr '\n' ' ')"
fi
# The deadline: past GPU_SESSION_DEADLINE_S no step begins, each named as left out, and the summary
# and the archive are still written (what a device call that must end in time brings back).
GPU_SESSION_STEPS="1 2" GPU_SESSION_DEADLINE_S=0 GPU_SESSION_ARCHIVE="$T/late.tar.gz" \
    sh scripts/gpu_session.sh "$T/late" cpu-guarded > "$T/late.log" 2>&1; rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^(step [12] left out: past the deadline' "$T/late/SUMMARY.md")" -eq 2 ] &&
    tar -tzf "$T/late.tar.gz" 2>/dev/null | grep -q 'SUMMARY.md'; then
    echo "PASS gpu_session.sh past its deadline: steps 1 and 2 left out and named, the summary archived"
else
    echo "FAIL gpu_session.sh past its deadline: exit $rc; $(grep 'left out' "$T/late/SUMMARY.md" 2>/dev/null | tr '\n' ' ')"
fi
