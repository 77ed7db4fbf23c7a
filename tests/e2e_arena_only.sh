#!/bin/sh
# tests/e2e_arena_only.sh — `posbench bench --arena-only` on the command line (its numbers are
# tests/test_arena_plan.c's): one cpu and one cuda row per config with every part and the total,
# the parts adding up to the total (to the print's rounding); GPU configs included without
# --config; bad input exits 2 naming what is valid; and the predicted-arena table of
# bench/perf/RESULTS.md is what `sh scripts/arena_table.sh` writes today (else the diff and the
# fix). Under a second.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-arena.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS arena-only: $1"; else echo "FAIL arena-only: $1: $3"; fi; }

"$PB" bench --arena-only --precision bf16 --activations bf16 > "$T/all" 2> "$T/err"
rc=$?
# config row: name cpu + 10 numbers; the next: cuda + 10 numbers; parts (9) sum to the total (±0.1 per part)
bad=$(awk '
    NF == 12 && $2 == "cpu" { name = $1; s = 0; for (i = 3; i < 12; i++) s += $i; if (s - $12 > 1 || $12 - s > 1) print name "(cpu sum " s " != " $12 ")"; rows++ }
    NF == 11 && $1 == "cuda" { s = 0; for (i = 2; i < 11; i++) s += $i; if (s - $11 > 1 || $11 - s > 1) print name "(cuda sum " s " != " $11 ")"; rows++ }
    END { print rows + 0 }' "$T/all")
rows=$(printf '%s\n' "$bad" | tail -n 1)
bad=$(printf '%s\n' "$bad" | sed '$d')
check "every config (GPU ones included) has a cpu and a cuda row whose parts add up to the total" \
    "$([ $rc -eq 0 ] && [ "$rows" -ge 20 ] && [ -z "$bad" ] && grep -q '^vit-b16-224 ' "$T/all" && echo 0 || echo 1)" \
    "exit $rc, $rows rows, $bad $(head -c 300 "$T/err")"

"$PB" bench --arena-only --config no-such-config > "$T/out" 2> "$T/err"
rc=$?
check "an unknown --config exits 2 naming it" "$([ $rc -eq 2 ] && grep -q "no-such-config" "$T/err" && [ ! -s "$T/out" ] && echo 0 || echo 1)" \
    "exit $rc: $(head -c 300 "$T/err")"
"$PB" bench --arena-only --attention materialised > "$T/out" 2> "$T/err"
rc=$?
check "a bf16 attention route without --precision bf16 exits 2" "$([ $rc -eq 2 ] && grep -q "needs --precision bf16" "$T/err" && echo 0 || echo 1)" \
    "exit $rc: $(head -c 300 "$T/err")"
"$PB" bench --arena-only --save "$T/x.tsv" > "$T/out" 2> "$T/err"
rc=$?
check "--arena-only with --save exits 2 (it measures nothing)" "$([ $rc -eq 2 ] && grep -q "runs nothing" "$T/err" && [ ! -e "$T/x.tsv" ] && echo 0 || echo 1)" \
    "exit $rc: $(head -c 300 "$T/err")"

# bench/perf/RESULTS.md's predicted-arena table is the script's output today
if ! command -v python3 > /dev/null 2>&1; then
    echo "SKIP arena-only: RESULTS.md's predicted-arena table: python3 not found (make deps-test installs it)"
elif sh scripts/arena_table.sh "$PB" > "$T/table.md" 2> "$T/err"; then
    if python3 -c "import sys; sys.exit(0 if open(sys.argv[1]).read() in open(sys.argv[2]).read() else 1)" \
        "$T/table.md" bench/perf/RESULTS.md; then
        check "bench/perf/RESULTS.md's predicted-arena table equals scripts/arena_table.sh's output" 0 ""
    else
        check "bench/perf/RESULTS.md's predicted-arena table equals scripts/arena_table.sh's output" 1 \
            "the table is out of date; fix: sh scripts/arena_table.sh, paste its output over the table (and its bullets) in bench/perf/RESULTS.md"
        cat "$T/table.md"
    fi
else
    check "scripts/arena_table.sh" 1 "$(head -c 300 "$T/err")"
fi
