#!/bin/sh
# tests/e2e_bench_breakdown.sh — `posbench bench --breakdown`: the step's phases (upload, forward,
# zero, backward, optimizer) measured between timing marks (ops timer_mark) on the CPU and the
# guarded backends: every phase printed and non-negative, forward and backward the largest, and
# the phases' per-step total within 5% of the step's median wall time (the marks cover the step); the
# host reads per step (2, and 0 with --graph on, for the supervised, the MP3 and the GVP config, and
# for SimCLR and DINO, which draw their own views from bench's synthetic raw images) and the
# switches line's graph.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-breakdown.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
PB=build/posbench
for dev in cpu cpu-guarded; do
    $PB bench --device $dev --config vit-d64-L2-p4-28px-ci --iters 7 --no-torch --breakdown --threads 1 > "$T/$dev.log" 2>&1
    rc=$?
    line=$(grep '^  breakdown (median ms):' "$T/$dev.log")
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        echo "FAIL bench --breakdown on $dev: exit $rc, no breakdown line: $(tail -n 3 "$T/$dev.log" | tr '\n' ' ')"
        continue
    fi
    echo "$line" | python3 -c '
import re, sys
line = sys.stdin.read()
dev = sys.argv[1]
phases = dict((k, float(v)) for k, v in re.findall(r"(upload|forward|zero|backward|optimizer) ([0-9.]+)", line))
m = re.search(r"phases total ([0-9.]+) = ([0-9.]+)% of the step.s ([0-9.]+); host blocked ([0-9.]+)", line)
problems = []
if sorted(phases) != sorted(["upload", "forward", "zero", "backward", "optimizer"]):
    problems.append("phases printed: %s" % sorted(phases))
if not m:
    problems.append("no total")
else:
    total, pct, step, blocked = map(float, m.groups())
    if abs(total - step) > 0.05 * step:
        problems.append("phases total %.2f ms is not within 5%% of the step %.2f ms" % (total, step))
    if blocked != 0:
        problems.append("host blocked %.2f on a CPU backend (nothing to wait for)" % blocked)
if phases and not (phases.get("forward", 0) > phases.get("upload", 1) and phases.get("backward", 0) > phases.get("optimizer", 1)):
    problems.append("forward/backward not larger than upload/optimizer: %s" % phases)
if problems:
    print("FAIL bench --breakdown on %s: %s (%s)" % (dev, "; ".join(problems), line.strip()))
else:
    print("PASS bench --breakdown on %s: %s" % (dev, line.strip()))
' "$dev"
done
# Without the flag: no breakdown, the table unchanged.
$PB bench --device cpu --config vit-d64-L2-p4-28px-ci --iters 2 --no-torch --threads 1 > "$T/plain.log" 2>&1
if grep -q '^vit-d64-L2-p4-28px-ci ' "$T/plain.log" && ! grep -q 'breakdown' "$T/plain.log"; then
    echo "PASS bench without --breakdown prints no breakdown"
else
    echo "FAIL bench without --breakdown: $(cat "$T/plain.log" | tr '\n' ' ' | cut -c1-300)"
fi
# The host reads per step: 2 for the step that reads its loss and norm at once (the sum of the
# losses, the sum of squares of the gradients), 0 with --graph on (the step without host reads;
# the CPU runs it eagerly and says why it is not replayed); the switches line names the graph.
$PB bench --device cpu --config vit-d64-L2-p4-28px-ci --iters 3 --no-torch --breakdown --graph on --threads 1 > "$T/graph.log" 2>&1
off=$(grep '^  breakdown' "$T/cpu.log" | sed -n 's/.*host reads per step \([0-9]*\).*/\1/p')
on=$(grep '^  breakdown' "$T/graph.log" | sed -n 's/.*host reads per step \([0-9]*\).*/\1/p')
if [ "$off" = 2 ] && [ "$on" = 0 ] && grep -q '^switches: .* graph=on$' "$T/graph.log" && grep -q '^switches: .* graph=off$' "$T/cpu.log" \
    && grep -q '^  graph: not replayed: the CPU backends' "$T/graph.log"; then
    echo "PASS bench --breakdown host reads per step: $off with the graph off, $on with --graph on; $(grep '^  graph:' "$T/graph.log" | sed 's/^  //')"
else
    echo "FAIL bench --breakdown host reads per step: off '$off' (want 2), --graph on '$on' (want 0): $(grep -E '^switches|^  (breakdown|graph)' "$T/graph.log" | tr '\n' ' ')"
fi
# MP3 (eta 0.75, its contexts drawn on the host before each step) and GVP (fixed segmentation, its
# orders, group ids, predicted rows and targets drawn on the host before each step): 2 host reads
# per step with the graph off, 0 with --graph on on cpu and cpu-guarded, and only the CPU backends
# stop their replay.
config_reads() { # name, config, device, graph: the host reads per step of the config
    $PB bench --device "$3" --config "$2" --iters 2 --no-torch --breakdown --graph "$4" --threads 1 > "$T/$1-$3-$4.log" 2>&1
    grep '^  breakdown' "$T/$1-$3-$4.log" | sed -n 's/.*host reads per step \([0-9]*\).*/\1/p'
}
mp3_reads() { config_reads mp3 mp3-d64-L2-p4-28px-e75 "$@"; }
off=$(mp3_reads cpu off) on=$(mp3_reads cpu on) guarded=$(mp3_reads cpu-guarded on)
if [ "$off" = 2 ] && [ "$on" = 0 ] && [ "$guarded" = 0 ] && grep -q '^  graph: not replayed: the CPU backends' "$T/mp3-cpu-on.log" \
    && grep -q '^  graph: not replayed: the CPU backends' "$T/mp3-cpu-guarded-on.log"; then
    echo "PASS bench --breakdown MP3 host reads per step: $off with the graph off, $on with --graph on (cpu-guarded $guarded); $(grep '^  graph:' "$T/mp3-cpu-on.log" | sed 's/^  //')"
else
    echo "FAIL bench --breakdown MP3 host reads per step: off '$off' (want 2), --graph on '$on' and on cpu-guarded '$guarded' (want 0): $(grep -E '^  (breakdown|graph)' "$T/mp3-cpu-on.log" "$T/mp3-cpu-guarded-on.log" | tr '\n' ' ')"
fi
gvp_reads() { config_reads gvp gvp-d64-L2-p4-28px-fixed "$@"; }
off=$(gvp_reads cpu off) on=$(gvp_reads cpu on) guarded=$(gvp_reads cpu-guarded on)
if [ "$off" = 2 ] && [ "$on" = 0 ] && [ "$guarded" = 0 ] && grep -q '^  graph: not replayed: the CPU backends' "$T/gvp-cpu-on.log" \
    && grep -q '^  graph: not replayed: the CPU backends' "$T/gvp-cpu-guarded-on.log"; then
    echo "PASS bench --breakdown GVP host reads per step: $off with the graph off, $on with --graph on (cpu-guarded $guarded); $(grep '^  graph:' "$T/gvp-cpu-on.log" | sed 's/^  //')"
else
    echo "FAIL bench --breakdown GVP host reads per step: off '$off' (want 2), --graph on '$on' and on cpu-guarded '$guarded' (want 0): $(grep -E '^  (breakdown|graph)' "$T/gvp-cpu-on.log" "$T/gvp-cpu-guarded-on.log" | tr '\n' ' ')"
fi
# SimCLR (2 views per image) and DINO (2 global + 6 local 12 px crops) draw their own views: bench
# gives them a batch of synthetic raw images, staged before each step with --graph on (DINO also
# on cpu-guarded) and drawn by train_views with the graph off (DINO); the step time is printed.
for obj in simclr dino; do
    cfg=$obj-d64-L2-p4-28px
    on=$(config_reads $obj $cfg cpu on) off=2 guarded=0 # SimCLR: only --graph on on the CPU
    if [ $obj = dino ]; then
        off=$(config_reads $obj $cfg cpu off) guarded=$(config_reads $obj $cfg cpu-guarded on)
        grep -q '^  graph: not replayed: the CPU backends' "$T/$obj-cpu-guarded-on.log" || guarded="$guarded (no CPU note)"
    fi
    ms=$(sed -n "s/^$cfg  *\([0-9.]*\) .*/\1/p" "$T/$obj-cpu-on.log")
    if [ "$off" = 2 ] && [ "$on" = 0 ] && [ "$guarded" = 0 ] && [ -n "$ms" ] \
        && grep -q '^  graph: not replayed: the CPU backends' "$T/$obj-cpu-on.log"; then
        echo "PASS bench --breakdown $obj (own views) host reads per step: $([ $obj = dino ] && echo "$off with the graph off, ")$on with --graph on$([ $obj = dino ] && echo " (cpu-guarded $guarded)"); step $ms ms; $(grep '^  graph:' "$T/$obj-cpu-on.log" | sed 's/^  //')"
    else
        echo "FAIL bench --breakdown $obj (own views) host reads per step: off '$off' (want 2), --graph on '$on' and on cpu-guarded '$guarded' (want 0), step '${ms}' ms: $(grep -E "^$cfg|^  (breakdown|graph)|rror" "$T"/$obj-cpu-*.log | tr '\n' ' ')"
    fi
done
$PB bench --device cpu --graph maybe > "$T/bad.log" 2>&1
[ $? -eq 2 ] && grep -q -- "--graph must be on or off" "$T/bad.log" && echo "PASS bench --graph refuses a bad value (exit 2)" \
    || echo "FAIL bench --graph maybe: $(head -n 1 "$T/bad.log")"
