#!/bin/sh
# tests/e2e_recompute.sh — train.recompute=gelu end to end (real Fashion-MNIST, a tiny ViT, 3
# steps at train.activations=bf16): no block keeps its GELU output, one shared bf16 buffer is
# written in the forward and recomputed from the stored hidden in the backward, so the run file is
# bitwise the run without it (tests/h5_same.py, the key's own /config attribute and config_yaml
# line left out; the same file name: not part of the run id) on cpu, on cpu-guarded and with
# train.graph=on, and its activations (/final act_bytes) and backend peak are smaller by exactly
# the (depth - 1)·B·T·hd bf16 values the tensor table no longer declares; `posbench bench` and
# `--arena-only` print an arena smaller by the same count; MAE (encoder and decoder blocks) bitwise too; the refusals (no bf16 activations,
# a bad value). 20 to 30 CPU seconds.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-recompute.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { # name, status (0 = ok), detail
    if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi
}

# bench's CI config vit-d64-L2-p4-28px-ci: B 32, T 50 (7x7 patches + cls), hidden 128, depth 2:
# (2 - 1)·32·50·128·2 = 409600 bytes = 0.391 MiB less (printed to 0.1 MiB).
bench_arena() { # extra flags -> the config's arena MiB
    $PB bench --device cpu --no-torch --threads 2 --iters 1 --config vit-d64-L2-p4-28px-ci --precision bf16 \
        --activations bf16 "$@" 2>&1 | awk '$1 == "vit-d64-L2-p4-28px-ci" { print $6 }'
}
A0=$(bench_arena)
A1=$(bench_arena --recompute gelu)
awk -v a="$A0" -v b="$A1" 'BEGIN { d = a - b - 409600 / 1048576; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d <= 0.1) }'
check "bench --recompute gelu: arena smaller by (depth - 1)·B·T·hd·2 bytes = 0.39 MiB (printed to 0.1 MiB)" $? \
    "recompute off $A0 MiB, gelu $A1 MiB"
plan_total() { # extra flags -> the CI config's cpu-rules total MiB under --arena-only
    $PB bench --arena-only --config vit-d64-L2-p4-28px-ci --precision bf16 --activations bf16 "$@" 2>&1 |
        awk '$1 == "vit-d64-L2-p4-28px-ci" && $2 == "cpu" { print $12 }'
}
P0=$(plan_total)
P1=$(plan_total --recompute gelu)
[ -n "$P0" ] && [ "$P0" = "$A0" ] && [ "$P1" = "$A1" ]
check "bench --arena-only --recompute gelu: the cpu total is the measured arena" $? \
    "predicted $P0 / $P1 MiB, measured $A0 / $A1 MiB"
$PB bench --arena-only --config vit-d64-L2-p4-28px-ci --precision bf16 --recompute gelu >"$T/bp.out" 2>"$T/bp.err"; rc=$?
[ $rc -eq 2 ] && grep -q "needs --activations bf16" "$T/bp.err"
check "bench refuses --recompute gelu without --activations bf16" $? "exit $rc: $(head -c 200 "$T/bp.err")"
$PB bench --arena-only --recompute all >"$T/bv.out" 2>"$T/bv.err"; rc=$?
[ $rc -eq 2 ] && grep -q "off or gelu" "$T/bv.err"
check "bench refuses a --recompute value that is not off or gelu" $? "exit $rc: $(head -c 200 "$T/bv.err")"

if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e recompute training: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"
    exit 0
fi
# 48 training images, batch 16 (evaluation too, so the arena's B is 16): 3 steps; drop path on.
CFG="data.limit=48 data.test_limit=16 train.epochs=1 train.batch=16 eval.batch=16 eval.view_images=0 eval.samples=0 eval.position_limit=16 model.dim=32 model.depth=3 model.heads=2 model.patch=4 model.drop_path=0.2 train.precision=bf16 train.activations=bf16"
$PB train $CFG --threads 2 --out "$T/off" >/dev/null 2>"$T/off.err"
# The run file against the recompute=off run's: its /final act_bytes and backend_peak_bytes are
# checked apart (smaller by the freed bytes); train.graph's own attribute and line left out too.
same() { # folder
    python3 tests/h5_same.py --new-key train.recompute=off --new-key train.recompute=gelu --new-key train.graph=off \
        --new-key train.graph=on --ignore backend_peak_bytes --ignore act_bytes "$T/off" "$1"
}
final() { # folder, attribute of /final -> its value (0 when the run left no file)
    h5dump -a "/final/$2" "$(ls "$1"/*.h5 2>/dev/null | head -n 1)" 2>/dev/null |
        awk -F'[():]+' '/\(0\)/ { v = $3 + 0 } END { print v + 0 }'
}
# depth 3, B 16, T 50, hidden 64: (3 - 1)·16·50·64·2 = 204800 bytes fewer
for case in cpu cpu-guarded graph; do
    dev=cpu extra=""
    [ $case = cpu-guarded ] && dev=cpu-guarded
    [ $case = graph ] && extra="train.graph=on"
    # shellcheck disable=SC2086
    $PB train $CFG train.recompute=gelu $extra --device $dev --threads 2 --out "$T/$case" >/dev/null 2>"$T/$case.err"; rc=$?
    out=$(same "$T/$case" 2>&1)
    ok=$?
    [ $rc -eq 0 ] && [ "$(ls "$T/off")" = "$(ls "$T/$case")" ] || ok=1
    saved=$(( $(final "$T/off" backend_peak_bytes) - $(final "$T/$case" backend_peak_bytes) ))
    acts=$(( $(final "$T/off" act_bytes) - $(final "$T/$case" act_bytes) ))
    # train.graph=on adds the step's backend arrays (1072 bytes, tests/e2e_graph_runs.sh)
    want=204800
    [ $case = graph ] && want=$((204800 - 1072))
    [ $ok -eq 0 ] && [ "$saved" -eq "$want" ] && [ "$acts" -eq 204800 ]
    check "train.recompute=gelu ($case${extra:+, $extra}): run file bitwise = recompute off, same name; activations and backend peak smaller by (depth - 1)·B·T·hd·2" $? \
        "exit $rc, $(echo "$out" | tr '\n' ' ')($(ls "$T/$case" | tr '\n' ' ')); activations $acts bytes fewer, peak $saved (want 204800, $want)"
done
# MAE: the encoder (12 kept patches + cls) and the decoder (its own ViT blocks, 50 tokens,
# width 16, hidden 32) both recompute: (2 - 1)·16·13·64·2 + (2 - 1)·16·50·32·2 = 77824 bytes.
MAE="data.limit=32 data.test_limit=16 train.epochs=1 train.batch=16 eval.batch=16 eval.view_images=0 eval.samples=0 model.dim=32 model.depth=2 model.heads=2 model.patch=4 train.precision=bf16 train.activations=bf16 objective.name=mae pe.kind=sin2d objective.eta=0.75 mae.decoder_depth=2 mae.decoder_dim=16"
$PB train $MAE --threads 2 --out "$T/mae-off" >/dev/null 2>&1
$PB train $MAE train.recompute=gelu --threads 2 --out "$T/mae" >/dev/null 2>&1; rc=$?
out=$(python3 tests/h5_same.py --new-key train.recompute=off --new-key train.recompute=gelu --ignore backend_peak_bytes \
    --ignore act_bytes "$T/mae-off" "$T/mae" 2>&1)
ok=$?
acts=$(( $(final "$T/mae-off" act_bytes) - $(final "$T/mae" act_bytes) ))
[ $rc -eq 0 ] && [ $ok -eq 0 ] && [ "$acts" -eq 77824 ]
check "train.recompute=gelu (MAE, encoder and decoder blocks): run file bitwise = recompute off; activations smaller by 77824 bytes" $? \
    "exit $rc, $(echo "$out" | tr '\n' ' ')activations $acts bytes fewer"

REFUSE_BASE="data.limit=128 data.test_limit=100 train.epochs=1 train.batch=64 model.dim=32 model.depth=1 model.heads=2 model.patch=4"
. tests/refuse_lib.sh
refuse "train.recompute=gelu needs train.activations=bf16" "train.recompute=gelu recomputes the bf16 GELU output of train.activations=bf16" \
    train.recompute=gelu train.precision=bf16
refuse "train.recompute takes off or gelu" "train.recompute" train.recompute=all
