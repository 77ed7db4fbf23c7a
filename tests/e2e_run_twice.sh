#!/bin/sh
# tests/e2e_run_twice.sh — two `posbench run` processes of one experiment into one folder at
# once (no lock holder of the test's own: two real runners). Every run ends done, each is trained
# by exactly one of them (the run lock: its `[start]` appears in one output only), and both exit
# 0 (docs/experiments.md: a run another process holds is waited for and counted as it was left).
# The second case stops one runner (SIGSTOP) while its own run is held, so the other finishes
# every run the stopped one still lists as waiting: resumed, it takes the locks of runs that
# are done by now and must count them done without starting them again. About 6 CPU seconds.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "SKIP e2e run twice: Fashion-MNIST is not installed (make deps installs dataset-fashion-mnist)"; exit 0
fi
T=$(mktemp -d /tmp/posbench-run-twice.XXXXXX) || exit 1
trap 'kill -CONT "$B" 2>/dev/null; rm -rf "$T"' EXIT # a stopped runner is resumed on any exit
export POSBENCH_PROGRESS=plain
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
cat > "$T/twice.yaml" <<'YAML'
name: twice
description: two posbench run processes of one experiment into one folder
base:
  data: {limit: 128, test_limit: 100}
  model: {dim: 16, depth: 1, heads: 2, mlp_ratio: 2, patch: 7}
  train: {epochs: 1, batch: 64, warmup_epochs: 0}
  eval: {batch: 100, samples: 0}
stages:
  fit: {pe: {kind: none}}
seeds: [0, 1, 2, 3]
YAML
N=4
# verdict NAME DIR A.out rcA B.out rcB: every run done; each started by one runner only; exit 0 twice;
# every run has a [done] line, at most one in each output and no other ending; no run's log
# was written by the runner that did not train it
verdict() {
    name=$1 dir=$2 a=$3 rca=$4 b=$5 rcb=$6
    ids=$($PB list "$T/twice.yaml" --out "$dir" 2>/dev/null | awk '$2 == "fit" && $NF ~ /seed/ {print $1}')
    nid=$(echo "$ids" | grep -c .)
    done_n=$($PB list "$T/twice.yaml" --out "$dir" 2>/dev/null | grep -cE '^[0-9a-f]{12} +fit +.* done ')
    sa=$(grep '^\[start\]' "$a" | awk '{print $2}' | sort) sb=$(grep '^\[start\]' "$b" | awk '{print $2}' | sort)
    both=$(printf '%s\n%s\n' "$sa" "$sb" | grep . | sort | uniq -d | tr '\n' ' ')
    union=$(printf '%s\n%s\n' "$sa" "$sb" | grep . | sort -u | grep -c .)
    # each output: at most one [done] line per run (none for a run already done when that runner
    # listed the experiment) and no other ending ([failed], [retry], ...); each run [done] somewhere
    ends_ok=1
    for id in $ids; do
        seen=0
        for o in "$a" "$b"; do
            k=$(grep -cE "^\[done\] +$id " "$o"); seen=$((seen + k))
            [ "$k" -le 1 ] && ! grep -qE "^\[(failed|retry|diverged|damaged|blocked)\] +$id " "$o" || ends_ok=0
        done
        [ "$seen" -ge 1 ] || ends_ok=0
    done
    touched=$(grep -l 'already finished' "$dir"/twice/fit/*.log 2>/dev/null | wc -l) # a log written by the second runner
    [ "$rca" -eq 0 ] && [ "$rcb" -eq 0 ] && [ "$nid" -eq $N ] && [ "$touched" -eq 0 ] && [ "$done_n" -eq $N ] && [ -z "$both" ] && [ "$union" -eq $N ] && [ $ends_ok -eq 1 ]
    check "$name" $? "exits $rca and $rcb; $done_n of $nid runs done; started by both: '${both}'; $union runs started in all; one [done] per run in each output: $ends_ok; logs written by both: $touched; $(tail -n 1 "$a"); $(tail -n 1 "$b")"
}

# 1. Both at once, one job and one thread each.
$PB run "$T/twice.yaml" --out "$T/r1" --threads 1 > "$T/a1" 2>&1 & A=$!
$PB run "$T/twice.yaml" --out "$T/r1" --threads 1 > "$T/b1" 2>&1; rcb=$?
wait $A; rca=$?
verdict "two runs of one experiment into one folder at once: every run done, each trained by one of them, both exit 0" \
    "$T/r1" "$T/a1" $rca "$T/b1" $rcb

# 2. B is stopped while it holds its first run (its lock held, its child trains on); A finishes
# every other run, then waits for B's. Resumed, B meets runs it still lists as waiting, done by A.
: > "$T/a2"; : > "$T/b2" # polled below before the runners may have opened them
$PB run "$T/twice.yaml" --out "$T/r2" --threads 1 > "$T/b2" 2>&1 & B=$!
i=0; while ! grep -q '^\[start\]' "$T/b2" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -STOP $B
$PB run "$T/twice.yaml" --out "$T/r2" --threads 1 > "$T/a2" 2>&1 & A=$!
# B may have finished a run (or one and taken the next) before it was stopped: a run takes well
# under the poll's tenth of a second on a fast machine. A is done when every run outside those it
# found locked (B's) is done and, where A started it, A printed its [done] (A releases a run's
# lock before that line); B is resumed then. None locked (B's run done before A listed it): A
# trains the other runs and exits.
a_idle() {
    held=$(grep '^\[locked\]' "$T/a2" | awk '{print $2}' | sort -u)
    $PB list "$T/twice.yaml" --out "$T/r2" 2>/dev/null | awk '$2 == "fit" && $NF ~ /seed/' > "$T/list2" || return 1
    [ "$(grep -c . "$T/list2")" -eq $N ] || return 1
    for id in $(awk '{print $1}' "$T/list2"); do
        echo "$held" | grep -qx "$id" && continue
        grep -qE "^$id +fit +.* done " "$T/list2" || return 1
        ! grep -qE "^\[start\] +$id " "$T/a2" || grep -qE "^\[done\] +$id " "$T/a2" || return 1
    done
}
i=0; while ! a_idle && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
kill -CONT $B
wait $B; rcb=$?
wait $A; rca=$?
verdict "a runner resumed after the other finished its waiting runs counts them done, starts none again, both exit 0" \
    "$T/r2" "$T/a2" $rca "$T/b2" $rcb
# the case was the one meant: B met each run it did not start done when it took its lock (never
# locked), and it had started at least one before it was stopped
met=$(grep -c '^\[done\] .*the other process finished it' "$T/b2") locked=$(grep -c '^\[locked\]' "$T/b2")
own=$(grep -c '^\[start\]' "$T/b2")
[ "$own" -ge 1 ] && [ "$own" -lt $N ] && [ "$met" -eq $((N - own)) ] && [ "$locked" -eq 0 ]
check "the resumed runner took the locks of runs the other had finished meanwhile" $? "$own started by it, $met counted as finished by the other (expected $((N - own))), $locked waited for"
