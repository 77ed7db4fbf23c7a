#!/bin/sh
# tests/e2e_run_ids.sh [--update] — the run ids of every shipped experiment (bench/experiments/*.yaml
# and investigations/, at the default scale and at smoke) against tests/run_ids.golden. A run id
# names a finished result: when one changes, `posbench run` no longer finds the run done and
# trains it again, and reports of older folders see another experiment. So a change of run ids is
# a decision, made visible here (a new bookkeeping key once slipped into the budget stages' ids:
# every matched-budget baseline would have been retrained). --update rewrites the golden file.
set -u
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
GOLDEN=tests/run_ids.golden
T=$(mktemp -d /tmp/posbench-run-ids.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fails=$((fails + 1)); fi; }
for f in bench/experiments/*.yaml bench/experiments/investigations/*.yaml; do
    for scale in default smoke; do
        flag=""; [ "$scale" = smoke ] && flag="--scale smoke"
        # shellcheck disable=SC2086
        out=$("$PB" run "$f" $flag --dry-run --out "$T/none" 2>&1) || {
            # an experiment without a smoke scale is refused: that is not a run id
            [ "$scale" = smoke ] && continue
            echo "$out" | head -n 3 >&2
            check "dry run of $f" 1 "posbench run --dry-run failed"
            continue
        }
        echo "$out" | awk -v f="${f#bench/experiments/}" -v s="$scale" '$3 == "pending" { print f, s, $1, $2 }'
    done
done | sort > "$T/ids"
if [ "${1:-}" = --update ]; then
    cp "$T/ids" "$GOLDEN" && echo "wrote $GOLDEN ($(wc -l < "$GOLDEN") run ids)"
    exit 0
fi
n=$(wc -l < "$T/ids")
[ "$n" -gt 100 ]
check "every shipped experiment expands (default and smoke scales)" $? "$n run ids"
diff "$GOLDEN" "$T/ids" > "$T/diff"; rc=$?
check "run ids unchanged against $GOLDEN (a change retrains every finished run it touches: if intended, sh tests/e2e_run_ids.sh --update)" $rc \
    "$(grep -c '^[<>]' "$T/diff") lines differ$( [ $rc -ne 0 ] && head -n 6 "$T/diff" | tr '\n' ';')"
[ $fails -eq 0 ]
