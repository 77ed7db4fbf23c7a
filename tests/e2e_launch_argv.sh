#!/bin/sh
# tests/e2e_launch_argv.sh — programs posbench starts get an argument vector, never a shell
# (bench/run/launch.c, bench/crosscheck/crosscheck.c). A stand-in `mpirun` first on PATH records
# its arguments (one file each, so a newline inside one stays inside it) and runs the program as
# one rank; posbench is copied into a directory whose name holds a space, quotes, `;`, `$(...)`,
# backquotes, `&`, `|`, `*`, a backslash and a newline, and its results, data path and
# POSBENCH_MPIRUN_ARGS words hold the same. Checked: `train --ranks 2` and `bench --ranks 2` pass
# each as one argument, exactly (mpirun's whole vector compared), and finish (exit 0); the
# PyTorch step of `crosscheck` (a stand-in trainer under --python /bin/sh) gets its script, plan
# and result paths as one argument each; no command inside a name ever runs; without mpirun on
# PATH `--ranks` exits 2 saying so (PATH is searched without a shell). About 5 CPU seconds.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e launch argv: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"; exit 0
fi
T=$(mktemp -d /tmp/posbench-launch-argv.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
nl='
'
odd="$T/a b it's \"q\"; \$(touch $T/INJECTED) \`touch $T/INJECTED\` & | * \\ ${nl}end"
mkdir -p "$odd/build" "$T/bin" || exit 1
cp "$PB" "$odd/build/posbench" || exit 1
ln -s /usr/share/datasets/fashion-mnist "$odd/fm" || exit 1
# The stand-in mpirun: every argument into $FAKE_RECORD/1, 2, ... and their count into
# $FAKE_RECORD/argc; then, as mpirun runs the ranks, the program and its arguments once (the
# first argument equal to $FAKE_EXE onwards), exiting with its status.
cat > "$T/bin/mpirun" <<'SH'
#!/bin/sh
mkdir -p "$FAKE_RECORD" || exit 1
i=0
for a in "$@"; do i=$((i + 1)); printf '%s' "$a" > "$FAKE_RECORD/$i" || exit 1; done
echo $i > "$FAKE_RECORD/argc"
while [ $# -gt 0 ] && [ "$1" != "$FAKE_EXE" ]; do shift; done
[ $# -gt 0 ] || { echo "stand-in mpirun: the program $FAKE_EXE is not among its arguments" >&2; exit 1; }
exec "$@"
SH
chmod +x "$T/bin/mpirun"
# argv_is DIR WORD...: the vector recorded in DIR is exactly the words given; says the first difference.
argv_is() {
    d=$1; shift
    got=$(cat "$d/argc" 2>/dev/null)
    [ "$got" = $# ] || { diff_at="$got arguments recorded, $# expected"; return 1; }
    i=0
    for w in "$@"; do
        i=$((i + 1))
        printf '%s' "$w" | cmp -s - "$d/$i" || { diff_at="argument $i is '$(cat "$d/$i")', expected '$w'"; return 1; }
    done
    diff_at="all $# equal"
}
root=; [ "$(id -u)" = 0 ] && root=--allow-run-as-root
EXE="$odd/build/posbench"
CFG="data.limit=64 data.test_limit=50 train.epochs=1 train.batch=32 model.dim=16 model.depth=1 model.heads=2 model.patch=7 eval.samples=0"

# 1. train --ranks 2: mpirun -np 2 --bind-to none [--allow-run-as-root] <POSBENCH_MPIRUN_ARGS words> EXE train ARGS
extra="--mca x;\$(touch${nl}$T/INJECTED)"
(cd "$T" && PATH="$T/bin:$PATH" FAKE_RECORD="$T/rec-train" FAKE_EXE="$EXE" POSBENCH_MPIRUN_ARGS="$extra" \
    "$EXE" train $CFG "data.path=$odd/fm" --ranks 2 --threads 1 --out "$odd/out") > "$T/train.log" 2>&1
rc=$?
# shellcheck disable=SC2086
argv_is "$T/rec-train" -np 2 --bind-to none $root --mca "x;\$(touch" "$T/INJECTED)" "$EXE" train $CFG "data.path=$odd/fm" \
    --threads 1 --out "$odd/out"
same=$?
runs=0; for f in "$odd/out"/*.h5; do [ -f "$f" ] && runs=$((runs + 1)); done
[ $rc -eq 0 ] && [ $same -eq 0 ] && [ "$runs" -eq 1 ] && [ ! -e "$T/INJECTED" ]
check "train --ranks 2 from a hostile path: mpirun gets each path, value and POSBENCH_MPIRUN_ARGS word as one argument" $? \
    "exit $rc; $diff_at; $runs run file(s) in the odd --out; injected file $([ -e "$T/INJECTED" ] && echo created || echo absent); $(grep -m1 error "$T/train.log")"

# 2. bench --ranks 2: the one-process run and mpirun's ranks both start the odd path directly.
mkdir -p "$odd/tmp" || exit 1
(cd "$T" && PATH="$T/bin:$PATH" FAKE_RECORD="$T/rec-bench" FAKE_EXE="$EXE" TMPDIR="$odd/tmp" \
    "$EXE" bench --ranks 2 --iters 2 --threads 2) > "$T/bench.log" 2>&1
rc=$?
left=$(ls -A "$odd/tmp" | wc -l) # its temporary folder, removed once both runs finished
n=$(cat "$T/rec-bench/argc" 2>/dev/null || echo 0)
exe_at=0; i=0
while [ $i -lt "$n" ]; do i=$((i + 1)); printf '%s' "$EXE" | cmp -s - "$T/rec-bench/$i" && exe_at=$i && break; done
after=$(cat "$T/rec-bench/$((exe_at + 1))" 2>/dev/null) out_flag=$(cat "$T/rec-bench/$((n - 1))" 2>/dev/null)
rows=$(grep -cE '^[12] +[0-9]+ +[0-9.]+ ' "$T/bench.log")
out_dir=$(cat "$T/rec-bench/$n" 2>/dev/null)
case "$out_dir" in "$odd/tmp/posbench-ranks."*/ranks) in_tmp=0 ;; *) in_tmp=1 ;; esac
[ $rc -eq 0 ] && [ $exe_at -gt 0 ] && [ "$after" = train ] && [ "$out_flag" = --out ] && [ $in_tmp -eq 0 ] && [ "$rows" -eq 2 ] &&
    [ "$left" -eq 0 ] && ! grep -q 'warning\|error' "$T/bench.log" && [ ! -e "$T/INJECTED" ]
check "bench --ranks 2 from a hostile path and TMPDIR: the program one argument of mpirun's, both runs finish, the table prints, the temporary folder removed" $? \
    "exit $rc; the program at argument $exe_at of $n, then '$after'; --out at $((n - 1)): '$out_flag' (in TMPDIR: $([ $in_tmp -eq 0 ] && echo yes || echo no)); $rows table rows; $left left in TMPDIR; $(grep -m1 -E 'warning|error|failed' "$T/bench.log")"

# 3. No mpirun on PATH: exit 2 naming what is missing (PATH searched by posbench itself).
mkdir -p "$T/empty"
(cd "$T" && PATH="$T/empty" "$EXE" train $CFG --ranks 2 --out "$T/none") > "$T/nompi.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'needs mpirun on PATH' "$T/nompi.log" && [ ! -e "$T/none" ]
check "--ranks without mpirun on PATH: exit 2 saying so, nothing written" $? "exit $rc; $(head -n 1 "$T/nompi.log")"

# 4. crosscheck's PyTorch step: a stand-in trainer (run by /bin/sh, script in the odd directory)
# records its arguments and writes a result; its script, plan and result are one argument each.
cat > "$T/cc.yaml" <<'YAML'
name: launch-cc
base:
  data: {limit: 64, test_limit: 50}
  model: {patch: 7, dim: 16, depth: 1, heads: 2, drop_path: 0}
  train: {batch: 32, epochs: 1}
  eval: {samples: 0}
stages:
  main: {pe: {kind: abs}}
seeds: [0]
YAML
cat > "$odd/train.sh" <<SH
i=0
for a in "\$0" "\$@"; do i=\$((i + 1)); printf '%s' "\$a" > "$T/rec-cc.\$i"; done
echo \$i > "$T/rec-cc.argc"
printf 'top1 0.5\nloss 1.2\ninit ours\ninit_max_abs_diff 0\ncontent_rms 0.5\nposenc_rms nan\nseconds 1.5\nstep_losses 2.3 2.2\n' > "\$3"
SH
(cd "$T" && "$EXE" crosscheck "$T/cc.yaml" --stage main --out "$odd/cc" --threads 1 --python /bin/sh --script "$odd/train.sh") \
    > "$T/cc.log" 2>&1
rc=$?
mkdir -p "$T/rec-cc" && for f in "$T"/rec-cc.*; do mv "$f" "$T/rec-cc/${f##*/rec-cc.}"; done
id=; for f in "$odd/cc/launch-cc/main/"*.h5; do [ -f "$f" ] && id=${f##*/} && id=${id%.h5}; done
D="$odd/cc/launch-cc/main/crosscheck"
argv_is "$T/rec-cc" "$odd/train.sh" "$D/$id.plan" --out "$D/$id.torch.new" --threads 1
same=$?
[ $rc -eq 0 ] && [ -n "$id" ] && [ $same -eq 0 ] && [ -f "$D/$id.torch" ] && [ ! -e "$T/INJECTED" ]
check "crosscheck's PyTorch step from a hostile script and --out: script, plan and result one argument each" $? \
    "exit $rc; run $id; $diff_at; $(grep -m1 -E 'error' "$T/cc.log")"
