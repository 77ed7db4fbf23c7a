#!/bin/sh
# scripts/gpu_remeasure.sh OUT [EXPERIMENT.yaml[:SEEDS] ...] — re-measures experiments on a lent GPU
# in one device call and packs their run files so that they come back in the same call. On the
# GPU machine, after scripts/gpu_session.sh's bundle is unpacked (see its header):
#   /tmp/pb/env.sh sh scripts/gpu_remeasure.sh "$OUT" bench/experiments/gvp-order.yaml:0,1,2 ...
# Every experiment runs at once as its own `posbench run --device cuda --jobs $GPU_REMEASURE_JOBS
# --threads 1 --retries 1` into OUT/results (small models share one GPU well: last sessions ran
# 14 processes on one H100). `:SEEDS` runs a copy of the file with `seeds: [SEEDS]` (same name,
# so the same results folder and run ids as the file would give with those seeds). At
# $GPU_REMEASURE_DEADLINE_S seconds (default 420) every `posbench run` still going is stopped with
# SIGTERM to its process group (its runs with it; a rerun resumes each from its last checkpoint),
# so the packing always happens within the call.
# Packing (the device call returns at most 8 files of at most 16 MiB, 64 MiB in all): every
# finished and partial run's .h5, .log and metrics, the experiment.yaml/tsv files, without the
# .weights and .ckpt files (3/4 of the bytes; a report needs none of them), as one tar.xz split
# into 15 MiB parts OUT/pack/results.tar.xz.NN; OUT/pack/MANIFEST lists per experiment the runs
# done. Here: cat results.tar.xz.* | tar -xJ. Exit 0 when every run is done, 1 otherwise.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:?usage: scripts/gpu_remeasure.sh OUT [EXPERIMENT.yaml[:SEEDS] ...]}
shift
PB=${POSBENCH:-build/posbench}
JOBS=${GPU_REMEASURE_JOBS:-2}
DEADLINE=${GPU_REMEASURE_DEADLINE_S:-420}
DEV=${GPU_REMEASURE_DEVICE:-cuda}   # cpu-guarded in tests/e2e_gpu_remeasure.sh
SCALE=${GPU_REMEASURE_SCALE:-}       # a scale of the experiments (e.g. smoke); empty: their default
mkdir -p "$OUT/results" "$OUT/pack" "$OUT/yaml" "$OUT/logs" || exit 1
pids=""
for spec in "$@"; do
    yaml=${spec%%:*}
    [ -f "$yaml" ] || { echo "gpu_remeasure: no experiment file $yaml" >&2; exit 2; }
    name=$(basename "$yaml" .yaml)
    if [ "$spec" != "$yaml" ]; then # a copy with the seeds asked for
        seeds=${spec#*:}
        case $seeds in *[!0-9,]* | "") echo "gpu_remeasure: seeds '$seeds' in $spec (valid: digits and commas, e.g. 0,1,2)" >&2; exit 2 ;; esac
        grep -q '^seeds:' "$yaml" || { echo "gpu_remeasure: $yaml has no top-level seeds: line" >&2; exit 2; }
        sed "s/^seeds:.*/seeds: [$(echo "$seeds" | sed 's/,/, /g')]/" "$yaml" > "$OUT/yaml/$name.yaml" || exit 1
        yaml=$OUT/yaml/$name.yaml
    fi
    # its own process group (setsid), so that the deadline's SIGTERM reaches its forked runs too
    setsid "$PB" run "$yaml" ${SCALE:+--scale "$SCALE"} --out "$OUT/results" --device "$DEV" --jobs "$JOBS" --threads 1 \
        --retries 1 > "$OUT/logs/$name.log" 2>&1 &
    pids="$pids $!"
done
start=$(date +%s)
while :; do
    running=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && running=1; done
    [ $running -eq 0 ] && break
    if [ $(($(date +%s) - start)) -ge "$DEADLINE" ]; then
        echo "gpu_remeasure: deadline ${DEADLINE}s reached: stopping the runs still going (they resume when rerun)"
        for p in $pids; do kill -TERM "-$p" 2>/dev/null; done
        for p in $pids; do wait "$p" 2>/dev/null; done
        sleep 1 # the runs' own processes end with their group
        break
    fi
    sleep 1
done
status=0
for p in $pids; do wait "$p" 2>/dev/null || status=1; done
: > "$OUT/pack/MANIFEST"
for d in "$OUT"/results/*/; do
    [ -d "$d" ] || continue
    echo "$(basename "$d"): $(find "$d" -name '*.h5' | wc -l) runs done, $(find "$d" -name '*.h5.partial' | wc -l) partial" \
        >> "$OUT/pack/MANIFEST"
done
cat "$OUT/pack/MANIFEST"
(cd "$OUT" && find results -type f ! -name '*.weights' ! -name '*.ckpt' ! -name '*.lock' -print | sort |
    tar -cf - -T - | xz -T0 -6 | split -b 15m -d - pack/results.tar.xz.) || status=1
ls -l "$OUT/pack"
exit $status
