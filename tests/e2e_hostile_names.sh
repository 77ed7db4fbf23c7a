#!/bin/sh
# tests/e2e_hostile_names.sh — text from outside reaches the terminal only escaped: a table of
# hostile names (an ESC sequence "\033[2J", a newline followed by " PASS fake", an invalid UTF-8
# byte \377, a 250-byte name) used as a data path, an experiment file name, a run folder name,
# a copied run file's folder, a metrics key, a YAML key and value, a bench --save path, and run
# through the commands that read or write them (train, run, list, report, plot, export, watch,
# print-config, bench). For every command and name: no raw ESC or \377 byte reaches stdout or
# stderr, no output line starts with the injected "PASS fake" (the escaper core/visible_text.h
# turns them into visible \xNN), a refused input exits 2 naming the path or key, and the
# finished run in the hostile folder keeps its bytes (md5) through every command.
# One tiny training run (a few seconds); everything else only reads or refuses.
cd "$(dirname "$0")/.." || exit 1
PB=${PB:-$(pwd)/build/posbench}
T=$(mktemp -d /tmp/posbench-names.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain LC_ALL=C
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
ESC=$(printf '\033')
FF=$(printf '\377')
NL='
'
LONG=$(printf '%0250d' 0 | tr 0 n)
# the hostile part of each name, by kind
hostile() {
    case $1 in
        esc) printf 'x\033[2Jy' ;;
        newline) printf 'x\n PASS fake' ;;
        invalid) printf 'x\377y' ;;
        long) printf '%s' "$LONG" ;;
    esac
}
# clean FILE...: none of the files holds a raw ESC or \377 byte or a line starting "PASS fake"
clean() {
    for f in "$@"; do
        grep -q "$ESC" "$f" && return 1
        grep -q "$FF" "$f" && return 1
        grep -q '^ *PASS fake' "$f" && return 1
    done
    return 0
}
shown() { head -c 300 "$1" | tr '\n\033' ' ?'; }
# expect NAME CODE TEXT -- COMMAND...: exit CODE (any when "-"), TEXT in stderr (none when ""),
# stdout and stderr clean
expect() {
    label=$1 code=$2 text=$3; shift 4
    timeout 60 "$@" > "$T/o" 2> "$T/e" < /dev/null; rc=$?
    ok=0
    [ "$code" = "-" ] || [ $rc -eq "$code" ] || ok=1
    [ -z "$text" ] || grep -qF -- "$text" "$T/e" || ok=1
    clean "$T/o" "$T/e" || ok=1
    check "$label" $ok "exit $rc (want $code): $(shown "$T/e")"
}

TINY="data.limit=64 data.test_limit=64 train.epochs=1 train.batch=32 model.dim=16 model.depth=1 model.heads=2 model.patch=7 eval.knn=false"
H="x${ESC}[2J${NL} PASS fake${FF}" # all three in one folder name
R="$T/run$H"
timeout 120 $PB train $TINY --out "$R" --threads 1 > "$T/train.out" 2> "$T/train.err"; rc=$?
clean "$T/train.out" "$T/train.err"
check "train --out a hostile folder: the run ends, its messages are escaped" "$([ $rc -eq 0 ] && clean "$T/train.out" "$T/train.err"; echo $?)" "exit $rc: $(shown "$T/train.out")"
ID=$(ls "$R" | sed -n 's/\.h5$//p')
[ -n "$ID" ] || { echo "FAIL hostile names: no run file in the hostile folder"; exit 0; }
grep -qF 'x\x1b[2J\x0a PASS fake\xff' "$T/train.out"
check "train: the results path is shown with visible escapes" $? "$(grep results "$T/train.out" | shown /dev/stdin)"
sums() { (cd "$R" && find . -maxdepth 1 -type f -name "$ID*" | sort | xargs md5sum); }
sums > "$T/before"
# a copy of the run in a subfolder with a hostile name: report/plot/export name it as left out
mkdir -p "$R/copy$H" && cp "$R/$ID.h5" "$R/copy$H/$ID.h5"

expect "report of the hostile folder (its copy named as left out)" 0 "left out" -- $PB report "$R"
expect "plot of the hostile folder: figures drawn (gnuplot opens the exact path)" 0 "" -- $PB plot "$R"
expect "export of the hostile folder" 0 "" -- $PB export "$R" --out "$T/x.csv"
expect "export to a hostile file name" 0 "" -- $PB export "$R" --out "$T/out$H.csv"
expect "watch --once of the hostile folder" 0 "" -- $PB watch "$R" --once
# a running-looking run whose metrics keys and stage carry hostile text
W="$T/watch$H"
mkdir -p "$W"
printf '{"step": 1, "loss": 0.5, "epoch": 0, "eval_top1%s[2J%s": 0.5}\n' "$ESC" "$FF" > "$W/abcdef012345.metrics.jsonl"
: > "$W/abcdef012345.h5.partial"
expect "watch --once: raw ESC and 0xff in a metrics key" 0 "" -- $PB watch "$W" --once
grep -qF 'top1\x1b[2J\xff' "$T/o"
check "watch: the hostile metrics key is shown with visible escapes" $? "$(shown "$T/o")"
expect "train --print-config with a hostile data.path" 0 "" -- $PB train --print-config "data.path=$H"

for kind in esc newline invalid long; do
    bad=$(hostile $kind; printf .) && bad=${bad%.} # keeps a trailing newline
    expect "train data.path=<$kind>: refused naming the folder" 2 "dataset directory $T/d" -- $PB train data.name=fashion-mnist "data.path=$T/d$bad"
    expect "train <$kind key>=1: refused naming the key" 2 "unknown key 'a" -- $PB train "a$bad=1"
    expect "train model.arch=<$kind>: refused naming the key" 2 "model.arch" -- $PB train "model.arch=$bad"
    expect "train --init <$kind path>: refused naming the path" 2 "$T/i" -- $PB train $TINY --init "$T/i$bad"
    expect "list <$kind experiment file> (missing): refused" 2 "$T/exp" -- $PB list "$T/exp$bad.yaml"
    expect "bench --save <$kind path in a missing folder>: refused" 2 "$T/no" -- $PB bench --save "$T/no$bad/b.tsv"
    expect "report <$kind missing folder>: refused" 2 "$T/m" -- $PB report "$T/m$bad"
    expect "export <$kind missing folder>: refused" 2 "$T/m" -- $PB export "$T/m$bad"
    expect "watch <$kind missing folder>: refused" 2 "$T/m" -- $PB watch "$T/m$bad" --once
done
# An experiment file with a hostile name, YAML key and value (YAML's "\e" is ESC)
X="$T/hostile$H.yaml"
cat > "$X" <<'EOF'
name: hostile
base:
  data: {name: fashion-mnist, limit: 64, test_limit: 64}
  model: {dim: 16, depth: 1, heads: 2, patch: 7}
  train: {epochs: 1, batch: 32}
  eval: {knn: false}
stages:
  only: {objective: {name: supervised}}
seeds: [0]
EOF
expect "list of an experiment file with a hostile name" 0 "" -- $PB list "$X"
expect "run --dry-run into a hostile folder" 0 "" -- $PB run "$X" --dry-run --out "$R"
sed 's/^seeds: \[0\]$/"seeds\\e[2J\\n PASS fake": [0]/' "$X" > "$T/k.yaml"
expect "list: a hostile YAML key is refused naming the file" 2 "k.yaml" -- $PB list "$T/k.yaml"
sed 's/^name: hostile$/name: "h\\e[2J\\n PASS fake\\xff"/' "$X" > "$T/v.yaml"
expect "list: a hostile YAML value is refused naming the file" 2 "v.yaml" -- $PB list "$T/v.yaml"
sed 's/name: supervised/name: "sup\\e[2J\\n PASS fake"/' "$X" > "$T/o.yaml"
expect "run: a hostile objective name is refused naming the file" 2 "o.yaml" -- $PB run "$T/o.yaml" --dry-run --out "$T/orun"
sums > "$T/after"
cmp -s "$T/before" "$T/after"
check "the finished run in the hostile folder keeps its bytes through every command" $? "$(diff "$T/before" "$T/after" | head -c 200)"
