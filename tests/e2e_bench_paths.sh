#!/bin/sh
# tests/e2e_bench_paths.sh — `posbench bench` starts the PyTorch step from an argument vector,
# never through a shell: a binary installed under a directory whose name holds quotes, a
# semicolon, `$(...)`, backquotes and a newline still times PyTorch beside it, and no command in
# the name runs.
cd "$(dirname "$0")/.." || exit 1
if ! /usr/bin/python3 -c 'import torch' 2> /dev/null; then
    echo "SKIP bench paths: /usr/bin/python3 has no PyTorch (make deps-test installs python3-torch)"
    exit 0
fi
T=$(mktemp -d /tmp/posbench-bench-paths.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
nl='
'
odd="$T/it's; touch $T/INJECTED; ' \$(touch $T/INJECTED) \`touch $T/INJECTED\`${nl}\"end"
mkdir -p "$odd/build" || exit 1
cp build/posbench "$odd/build/posbench" && ln -s "$(pwd)/bench" "$odd/bench" || exit 1
(cd "$T" && "$odd/build/posbench" bench --device cpu --config vit-d64-L2-p4-28px-ci --iters 2 --threads 1) > "$T/log" 2>&1
rc=$?
row=$(grep '^vit-d64-L2-p4-28px-ci ' "$T/log")
ratio=$(echo "$row" | awk '{print $10}')
if [ $rc -eq 0 ] && [ -n "$ratio" ] && [ "$ratio" != "-" ] && [ ! -e "$T/INJECTED" ]; then
    echo "PASS bench from a directory named with quotes, commands and a newline: PyTorch timed beside it (ratio $ratio), the command never ran"
else
    echo "FAIL bench from an odd directory: exit $rc, ratio '$ratio', injected file $([ -e "$T/INJECTED" ] && echo created || echo absent): $(grep -i 'pytorch not timed' "$T/log")"
fi
