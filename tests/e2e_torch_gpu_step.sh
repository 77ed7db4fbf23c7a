#!/bin/sh
# tests/e2e_torch_gpu_step.sh — smoke test of bench/perf/torch_gpu_step.py (the PyTorch GPU
# step `posbench bench --device cuda` compares against) on the CPU: the tiny ViT and MP3
# configs, one timed step each, fp32 and bf16 autocast, must print one JSON line per mode with
# a positive step time and the MP3 context of cls + round((1 - eta)·N) tokens; a bad --eta is
# refused (exit 2); the custom MP3 shape; posbench bench's CPU-sized MP3 config and --precision
# refusal. Uses Debian's /usr/bin/python3 (as bench/perf/torch_cpu_step.py does);
# SKIP when it has no PyTorch.
cd "$(dirname "$0")/.." || exit 1
PY=/usr/bin/python3
S=bench/perf/torch_gpu_step.py
T=$(mktemp -d /tmp/posbench-torchgpu.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
if ! "$PY" -c 'import torch' 2>/dev/null; then
    echo "SKIP e2e torch gpu step: $PY has no PyTorch"; exit 0
fi
# field NAME FILE: the value of "NAME" in the first JSON line of FILE
field() { "$PY" -c 'import json,sys; print(json.loads(open(sys.argv[2]).readline())[sys.argv[1]])' "$1" "$2"; }
for prec in fp32 bf16; do
    "$PY" $S --config tiny --device cpu --warmup 1 --iters 1 --precision $prec --modes eager > "$T/vit" 2> "$T/err"; rc=$?
    ms=$(field median_ms "$T/vit" 2>/dev/null); lines=$(wc -l < "$T/vit")
    [ $rc -eq 0 ] && [ "$lines" -eq 1 ] && awk -v m="$ms" 'BEGIN { exit !(m > 0) }'
    check "torch_gpu_step tiny ViT on the cpu ($prec)" $? "exit $rc, $lines JSON line(s), median_ms $ms"
done
# eta 0.75 of N = 16 patches: 4 context patches + cls = 5 keys of 17 tokens
"$PY" $S --config mp3-tiny --eta 0.75 --device cpu --warmup 1 --iters 1 --precision fp32 --modes eager > "$T/mp3" 2> "$T/err"; rc=$?
ctx=$(field context "$T/mp3" 2>/dev/null); tok=$(field tokens "$T/mp3" 2>/dev/null); ms=$(field median_ms "$T/mp3" 2>/dev/null)
[ $rc -eq 0 ] && [ "$ctx" = 5 ] && [ "$tok" = 17 ] && awk -v m="$ms" 'BEGIN { exit !(m > 0) }'
check "torch_gpu_step tiny MP3 eta 0.75 on the cpu" $? "exit $rc, context $ctx of $tok tokens, median_ms $ms"
"$PY" $S --config mp3-tiny --eta 1.5 --device cpu > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ]
check "torch_gpu_step refuses --eta 1.5" $? "exit $rc"
# --config custom --mp3 1: the MP3 step of any shape (posbench bench's mp3 configs call it so)
"$PY" $S --config custom --image 16 --channels 1 --patch 4 --dim 16 --depth 1 --heads 2 --mlp-ratio 2 --classes 10 \
    --batch 2 --mp3 1 --eta 0.75 --device cpu --warmup 1 --iters 1 --precision fp32 --modes eager > "$T/custom" 2> "$T/err"; rc=$?
ctx=$(field context "$T/custom" 2>/dev/null); tok=$(field tokens "$T/custom" 2>/dev/null)
[ $rc -eq 0 ] && [ "$ctx" = 5 ] && [ "$tok" = 17 ]
check "torch_gpu_step --config custom --mp3 1 --eta 0.75" $? "exit $rc, context $ctx of $tok tokens"
# posbench bench's CPU-sized MP3 step runs through the objective table and reports its arena peak
build/posbench bench --config mp3-d64-L2-p4-28px-e75 --iters 1 --no-torch --threads 2 > "$T/bench" 2>&1; rc=$?
line=$(grep '^mp3-d64-L2-p4-28px-e75 ' "$T/bench")
[ $rc -eq 0 ] && echo "$line" | awk '{ exit !($2 > 0 && $6 > 1) }'
check "posbench bench mp3-d64-L2-p4-28px-e75: a step time and an arena peak" $? "exit $rc: $line"
build/posbench bench --config vit-d64-L2-p4-28px-ci --precision fp16 > "$T/bad" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "fp32 or bf16" "$T/bad"
check "posbench bench --precision fp16 is refused (exit 2)" $? "exit $rc: $(cat "$T/bad")"
# bench/perf/torch_cpu_step.py --arch 1|2: PyTorch's gMLP / aMLP step (posbench bench's gMLP config compares with it)
for arch in 1 2; do
    "$PY" bench/perf/torch_cpu_step.py --arch $arch --tiny-attn-dim 8 --image 8 --channels 1 --patch 4 --dim 8 --depth 1 \
        --heads 2 --mlp-ratio 2 --classes 3 --batch 2 --threads 1 --warmup 0 --iters 1 --cls 1 > "$T/g$arch" 2> "$T/err"; rc=$?
    ms=$(field median_ms "$T/g$arch" 2>/dev/null)
    [ $rc -eq 0 ] && awk -v m="$ms" 'BEGIN { exit !(m > 0) }'
    check "torch_cpu_step --arch $arch (gMLP 1, aMLP 2)" $? "exit $rc, median_ms $ms $(tail -n 1 "$T/err")"
done
