#!/bin/sh
# tests/e2e_yaml_escapes.sh — YAML that posbench writes from user text (bench/text/yaml_text.h),
# through the commands that write it; a table of hostile values, each read back with Debian's
# python3-yaml:
#   - `posbench train --print-config` with data.path holding '"', a newline and "limit: 5", and
#     with --out holding a newline and "data:": data.limit stays 0, data.path and the results path
#     read back exactly, no key is added;
#   - `posbench sweep --save` with --out or --name holding a newline and "seeds: [7]": the saved
#     file has no seeds key (the comment line stays one line); a --name that is no valid name is
#     refused by the experiment loader (exit 2) naming the key.
# No training runs (--print-config, --dry-run); a few seconds.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
PY=/usr/bin/python3
if ! "$PY" -c 'import yaml' 2>/dev/null; then
    echo "SKIP yaml escapes: $PY has no yaml module (Debian package python3-yaml)"
    exit 0
fi
T=$(mktemp -d /tmp/posbench-yaml.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
NL='
'
# print-config: name, key=value argument, --out argument
i=0
for row in "data.path|x\"${NL}  limit: 5" "data.path|a: b${NL}data:${NL}  limit: 7 # \\ back" "--out|/tmp/o\"${NL}data:${NL}  limit: 9"; do
    i=$((i + 1))
    key=${row%%|*}; value=${row#*|}
    if [ "$key" = "--out" ]; then
        $PB train --print-config --out "$value" > "$T/pc$i.yaml" 2> "$T/pc$i.err"; rc=$?
    else
        $PB train --print-config "$key=$value" > "$T/pc$i.yaml" 2> "$T/pc$i.err"; rc=$?
    fi
    out=$("$PY" - "$T/pc$i.yaml" "$key" "$value" <<'PYEOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
key, value = sys.argv[2], sys.argv[3]
got = d["data"]["path"] if key == "data.path" else d["results"].rsplit("/", 1)[0]
print("ok" if d["data"]["limit"] == 0 and got == value and set(d) >= {"run_id", "results", "data"} else
      f"limit {d['data']['limit']}, got {got!r}")
PYEOF
)
    [ $rc -eq 0 ] && [ "$out" = ok ]
    check "yaml escapes: train --print-config with $key holding a quote and a newline (case $i) changes no other key" $? "exit $rc, $out"
done
# sweep --save: --out and --name
$PB sweep train.lr=0.001,0.002 --save "$T/sw1.yaml" --dry-run --out "$T/out${NL}seeds: [7]" > "$T/sw1.log" 2>&1; rc=$?
out=$("$PY" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print("ok" if "seeds" not in d and d["name"] == "sweep-train_lr" else d)' "$T/sw1.yaml" 2>&1)
[ $rc -eq 0 ] && [ "$out" = ok ]
check "yaml escapes: sweep --out holding a newline and seeds: [7] adds no seeds to the saved experiment" $? "exit $rc, $out"
$PB sweep train.lr=0.001,0.002 --save "$T/sw2.yaml" --dry-run --out "$T/o2" --name "a${NL}seeds: [7]" > "$T/sw2.log" 2>&1; rc=$?
out=$("$PY" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print("ok" if "seeds" not in d and d["name"] == "a\nseeds: [7]" else d)' "$T/sw2.yaml" 2>&1)
[ $rc -eq 2 ] && [ "$out" = ok ] && grep -q 'name: expected 1-127 characters' "$T/sw2.log"
check "yaml escapes: sweep --name holding a newline and seeds: [7] is one name, refused by the loader (exit 2)" $? \
    "exit $rc, $out, $(head -c 200 "$T/sw2.log")"
exit 0
