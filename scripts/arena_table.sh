#!/bin/sh
# scripts/arena_table.sh [POSBENCH] — the "predicted arena" table of bench/perf/RESULTS.md, as
# Markdown on stdout: `posbench bench --arena-only` (nothing allocated or run; bench/perf/arena_plan.h)
# for the GPU bench configs of the speed targets (ViT-B/16 224 px b128, ViT-S/4 32 px b256, MP3 η
# 0.75 on ViT-B/16) at fp32, at bf16 with bf16 activations, at bf16 with bf16 activations and
# --recompute gelu (train.recompute=gelu), and that with --attention cudnn (cuDNN counted as loaded:
# the calls it can express keep only the row log-sum-exp), each under the CPU and the CUDA
# backend's sizing rules, then the targets' arithmetic on the CUDA rows (ViT-B/16 arena ≤ 12 GB;
# MP3 η 0.75 / ViT-B/16 ≤ 0.72 in memory). Runs in well under a second on a CPU.
set -eu
PB=${1:-build/posbench}
CONFIGS="vit-b16-224 vit-s4-32 mp3-b16-224-e75"
T=$(mktemp -d /tmp/posbench-arena.XXXXXX)
trap 'rm -rf "$T"' EXIT

for c in $CONFIGS; do
    "$PB" bench --arena-only --config "$c" > "$T/fp32.$c"
    "$PB" bench --arena-only --config "$c" --precision bf16 --activations bf16 > "$T/bf16.$c"
    "$PB" bench --arena-only --config "$c" --precision bf16 --activations bf16 --recompute gelu > "$T/bf16r.$c"
    "$PB" bench --arena-only --config "$c" --precision bf16 --activations bf16 --recompute gelu --attention cudnn > "$T/bf16rc.$c"
done

echo "| config | precision, activations | rules | parameters | gradients | AdamW m, v | activations | attention state | activation grads | inputs | objective | workspace | **total MiB** |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in fp32 bf16 bf16r bf16rc; do
    for c in $CONFIGS; do
        case $s in fp32) label="fp32, fp32" ;; bf16) label="bf16, bf16" ;; bf16r) label="bf16, bf16, recompute gelu" ;;
        bf16rc) label="bf16, bf16, recompute gelu, cudnn" ;; esac
        # A config whose model keeps fp32 activations under --activations bf16 says so under its rows
        # (and recomputes nothing: --recompute gelu acts on bf16 activations only).
        if grep -q '^  (activations fp32 here' "$T/$s.$c"; then label="bf16, fp32 (model keeps fp32)"; fi
        rows=$(awk -v cfg="$c" -v label="$label" '
            $1 == cfg && $2 == "cpu" && NF == 12 { printf "| %s | %s | cpu |", cfg, label; for (i = 3; i < 12; i++) printf " %s |", $i; printf " **%s** |\n", $12 }
            $1 == "cuda" && NF == 11 { printf "| %s | %s | cuda |", cfg, label; for (i = 2; i < 11; i++) printf " %s |", $i; printf " **%s** |\n", $11 }
        ' "$T/$s.$c")
        if [ "$(printf '%s\n' "$rows" | grep -c '^| ')" -ne 2 ]; then
            echo "arena_table.sh: no cpu and cuda rows for $c in posbench bench --arena-only's output (its format changed?)" >&2
            exit 1
        fi
        printf '%s\n' "$rows"
    done
done

total() { # $1 = fp32|bf16|bf16r|bf16rc, $2 = config: the cuda rules' total MiB
    awk '$1 == "cuda" && NF == 11 { print $11 }' "$T/$1.$2"
}
echo
for s in fp32 bf16 bf16r bf16rc; do
    b16=$(total "$s" vit-b16-224)
    mp3=$(total "$s" mp3-b16-224-e75)
    awk -v s="$s" -v b="$b16" -v m="$mp3" 'BEGIN {
        gb = 12e9 / 1048576
        printf "- %s, CUDA rules: ViT-B/16 %.1f MiB against the target 12 GB (%.0f MiB): %s by %.0f MiB; MP3 η 0.75 / ViT-B/16 = %.1f / %.1f = **%.3f** (target ≤ 0.72: %s)\n",
            s == "fp32" ? "fp32" : s == "bf16" ? "bf16 with bf16 activations" : s == "bf16r" ? "bf16 with bf16 activations and recompute gelu" : "bf16 with bf16 activations, recompute gelu and --attention cudnn", b, gb, b <= gb ? "within" : "over", b <= gb ? gb - b : b - gb,
            m, b, m / b, m / b <= 0.72 ? "met" : "missed"
    }'
done
