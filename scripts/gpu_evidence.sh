#!/bin/sh
# scripts/gpu_evidence.sh OUT [DEVICE] — the GPU speed work's evidence call: the first use of a lent
# GPU, one device call planned for under 8 minutes (not yet timed), everything under OUT and packed into OUT.tar.gz (well
# under the 64 MiB a call brings back). It is scripts/gpu_session.sh with these steps:
#   0 the probe (GPU, driver, PyTorch and its cuDNN, posbench's cuda/cudnn lines);
#   1 the op parity table against cuda (test_parity: every op, the bf16 activation ops, the
#     bf16-input linear layer on both linear routes, cuBLASLt, the v2 kernels bitwise v1, the
#     training attention routes: fused, materialised, cuDNN and its fallback, attention on bf16
#     storage), the bf16 twins (test_dense_bf16) and the programs that are not per-op parity
#     (test_cuda_*: the Lt workspace, NCCL), each on the legacy stream and on POSBENCH_STREAM=own;
#   2 whole runs, CPU against the GPU, every objective;
#   8 the speed switches on and off (bench --no-torch --breakdown) at ViT-B/16, ViT-S/4 and MP3
#     eta 0.75: route A, cuDNN, cuBLASLt + v2, all three, bf16 activations alone (and with route A
#     reading its bf16 operands in place, --attention materialised-inplace, against the packs; and with
#     --recompute gelu: the GELU recomputed in the backward) and with all three, everything on with --graph on (the step without host reads, replayed as a CUDA
#     graph, MP3 eta 0.75 included: its breakdown says whether it replayed; and that with
#     --recompute gelu: the arena target's row, the cuDNN state sized as the row lse), route A with
#     --graph on, fp32;
#   3 the bench rows against torch.compile in bf16, with every new path on (GPU_EVIDENCE_FLAGS);
#   5 determinism: 100 steps twice, fp32, bf16, bf16 + cuDNN, bf16 + cuDNN + cuBLASLt + v2, fp32 with
#     train.graph=on, MP3 eta 0.75, GVP with fixed segmentation, SimCLR and DINO (3 local crops)
#     with the graph off and on (and the graph runs' parity: bitwise the same run with the graph
#     off; each must replay).
# No step or A/B bench run starts after 480 s (GPU_SESSION_DEADLINE_S; each left out is named in
# SUMMARY.md), so the summary and the archive are written inside a 600 s device call.
# Step 8 runs the three target configs only (GPU_SESSION_AB_CONFIGS; gpu_session.sh's default adds
# dino-s16-224): 13 variants x 3 configs, 39 bench runs rather than 52.
# ncu (step 7, ~5 minutes for two configs) is the second call when time is left:
#   GPU_SESSION_STEPS=7 GPU_SESSION_BENCH_FLAGS="$GPU_EVIDENCE_FLAGS" sh scripts/gpu_session.sh OUT2
# Before the call, here: make deps-gpu (the cuDNN frontend headers: without them the cuDNN route is
# compiled out and its rows say so), make, make test, make gpu-bundle, and the dry run
# sh tests/e2e_gpu_session.sh. On the GPU machine, from the unpacked bundle:
#   mkdir -p /tmp/pb && tar -xzf build/gpu-bundle.tar.gz -C /tmp/pb && /tmp/pb/env.sh sh scripts/gpu_evidence.sh "$OUT/ev" DEVICE defaults to cuda; cpu-guarded is the dry run here (the
# GPU-only steps are left out there). Exit status: gpu_session.sh's.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:?usage: scripts/gpu_evidence.sh OUT [DEVICE]}
DEV=${2:-cuda}
FLAGS=${GPU_EVIDENCE_FLAGS:---attention cudnn --linear lt --kernels v2}
AB_TARGETS=""; [ "$DEV" = cpu-guarded ] || AB_TARGETS="vit-b16-224 vit-s4-32 mp3-b16-224-e75" # empty: gpu_session.sh's CPU default
GPU_SESSION_STEPS=${GPU_SESSION_STEPS:-0 1 2 8 3 5} \
GPU_SESSION_CONFIGS=${GPU_SESSION_CONFIGS:-vit-b16-224 vit-s4-32 mp3-b16-224-e75} \
GPU_SESSION_PRECISIONS=${GPU_SESSION_PRECISIONS:-bf16} \
GPU_SESSION_BENCH_FLAGS=${GPU_SESSION_BENCH_FLAGS:-$FLAGS} \
GPU_SESSION_AB_ITERS=${GPU_SESSION_AB_ITERS:-10} \
GPU_SESSION_AB_CONFIGS=${GPU_SESSION_AB_CONFIGS:-$AB_TARGETS} \
GPU_SESSION_ARCHIVE=${GPU_SESSION_ARCHIVE:-$OUT.tar.gz} \
GPU_SESSION_DEADLINE_S=${GPU_SESSION_DEADLINE_S:-480} \
    sh scripts/gpu_session.sh "$OUT" "$DEV"
