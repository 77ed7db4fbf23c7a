#!/bin/sh
# tests/e2e_slurm_script.sh — the script `posbench slurm` writes, without a Slurm: quoting
# (issue 29 item 13: an --out of o'$(touch PWNED)' ran the command; #SBATCH --output left spaces
# unquoted), the job's own CPUs as --threads, the log folder, and the refusals (exit 2) of what
# Slurm or an array task cannot take. The script runs under bash with a stub in place of the
# posbench binary that records the arguments it gets. tests/e2e_slurm_real.sh submits it for real.
cd "$(dirname "$0")/.." || exit 1
PB=$(pwd)/build/posbench
T=$(mktemp -d /tmp/posbench-slurmscript.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then printf 'PASS %s: %s\n' "$1" "$3"; else printf 'FAIL %s: %s\n' "$1" "$3"; fi; }
one_line() { head -c 300 "$1" | tr '\n' ' '; }
cd "$T" || exit 1
cp "$OLDPWD/tests/experiments/good_sweep.yaml" "$T/x.yaml" || exit 1
printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done > "$ARGS_FILE"\n' > stub && chmod +x stub

# Quoting: a hostile --out and --only reach posbench run as they were given, nothing runs.
OUT="$T/o'\$(touch $T/PWNED)' x %y"
ONLY="p'\$(touch $T/PWNED2)'\"\`touch $T/PWNED3\`"
"$PB" slurm x.yaml --out "$OUT" --only "$ONLY" --cpus-per-task 3 --max-parallel 2 > s.sbatch 2> s.err; rc=$?
[ $rc -eq 0 ] && [ -d "$OUT/sweep" ]
check "slurm with a hostile --out: script written, log folder created" $? "exit $rc: $(one_line s.err)"
grep -qxF "#SBATCH --output=\"$T/o'\$(touch $T/PWNED)' x %%y/sweep/slurm-%A_%a.log\"" s.sbatch
check "#SBATCH --output: one double-quoted word, % written %%" $? "$(grep -- --output s.sbatch)"
grep -q '^#SBATCH --cpus-per-task=3$' s.sbatch && grep -q '^#SBATCH --array=0-7%2$' s.sbatch
check "#SBATCH --cpus-per-task and --array with --max-parallel" $? "$(grep -c '^#SBATCH' s.sbatch) #SBATCH lines"
sed "s|^exec '$PB' run |exec \"\$STUB\" run |" s.sbatch > stubbed.sbatch
SLURM_ARRAY_TASK_ID=5 SLURM_CPUS_PER_TASK=3 STUB="$T/stub" ARGS_FILE="$T/args" bash stubbed.sbatch > b.out 2>&1; rc=$?
printf '%s\n' run "$T/x.yaml" --only "$ONLY" --out "$OUT" --shard 5/8 --threads 3 > want
[ $rc -eq 0 ] && cmp -s want args && [ ! -e "$T/PWNED" ] && [ ! -e "$T/PWNED2" ] && [ ! -e "$T/PWNED3" ]
check "bash runs posbench run with the values as given, the task's shard and its CPUs as --threads; nothing injected ran" $? \
    "exit $rc $(one_line b.out); got: $(tr '\n' ' ' < args 2>/dev/null)"
SLURM_ARRAY_TASK_ID= bash s.sbatch > c.out 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "submit this script with sbatch" c.out
check "run outside Slurm: it says to submit it with sbatch" $? "exit $rc: $(one_line c.out)"
mkdir -p sub && ( cd sub && "$PB" slurm ../x.yaml --out rel > ../r.sbatch 2>&1 ); rc=$?
[ $rc -eq 0 ] && grep -qxF "cd '$T/sub'" r.sbatch && grep -qF " --out '$T/sub/rel' " r.sbatch &&
    grep -qF "#SBATCH --output=\"$T/sub/rel/sweep/slurm-%A_%a.log\"" r.sbatch && [ -d sub/rel/sweep ]
check "a relative --out is made absolute (the job may start elsewhere)" $? "exit $rc: $(grep -- '--output' r.sbatch)"

# Refusals: each exit 2 with a message naming the flag or value.
refuse() { # name, pattern the message must hold, flags...
    name=$1 pat=$2; shift 2
    "$PB" slurm x.yaml --out "$T/ok" "$@" > r.out 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q -- "$pat" r.out
    check "refused: $name" $? "exit $rc: $(one_line r.out)"
}
refuse 'an --out with "' 'holds the character ", which an #SBATCH --output line cannot carry' --out "$T/a\"b"
refuse 'an --out with \' 'holds the character \\' --out "$T/a\\b"
refuse 'an --out with a newline' 'holds a control character' --out "$T/a
b"
refuse '--time of a bad form' "--time 'soon' is not a Slurm time" --time soon
refuse '--time with four fields' "is not a Slurm time" --time 1:2:3:4
refuse '--mem of a bad form' "--mem '4GB' is not a Slurm size" --mem 4GB
refuse '--partition with a space' "--partition 'a b' has the character ' '" --partition "a b"
refuse '--gres with a quote' "--gres" --gres "gpu'1"
refuse '--jobs' "does not take --jobs" --jobs 2
refuse '--shard' "does not take --shard" --shard 0/2
refuse '--threads' "does not take --threads" --threads 2
refuse '--force' "does not take --force" --force
refuse '--cpus-per-task 0' "cpus-per-task" --cpus-per-task 0
refuse '--device of no name' "is not one of" --device tpu
"$PB" slurm x.yaml --out "$T/ok" --time 1-12:00 --mem 8G --partition gpu,cpu --account lab_1 --qos normal \
    --gres gpu:a100:1 --device cuda --retries 1 > ok.sbatch 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^#SBATCH --time="1-12:00"$' ok.sbatch && grep -q '^#SBATCH --mem="8G"$' ok.sbatch &&
    grep -q '^#SBATCH --gres="gpu:a100:1"$' ok.sbatch && grep -q '^#SBATCH --partition="gpu,cpu"$' ok.sbatch &&
    grep -q " --device 'cuda' " ok.sbatch && grep -q " --retries 1 " ok.sbatch
check "accepted: --time, --mem, --partition, --account, --qos, --gres, --device, --retries" $? "exit $rc: $(grep -c '^#SBATCH' ok.sbatch) #SBATCH lines"
