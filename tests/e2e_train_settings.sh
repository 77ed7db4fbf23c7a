#!/bin/sh
# tests/e2e_train_settings.sh — the trainer reads its configuration through train_settings
# (bench/train/train_settings.h), never a key by name: in bench/train, a key look-up
# (cfg_int, cfg_float, cfg_bool, cfg_str, cfg_int_list, a key_reader's key_int/key_float/key_str
# or config_reader) appears only in train_settings.c. The exceptions, each with its reason:
#   train.c: model_config_from_config and objective_settings_from_config: the model's and the
#     objective's own settings, which bench/experiment/settings.c resolves for them;
#   train_settings.c: dataset_options_from_config, the loader's options (the same resolver).
# A second check makes sure the first can fail: the same scan of a copy with a look-up added
# to train_step.c must name that file.
# And `posbench run` refuses an experiment whose run breaks one of train_settings' rules before
# any run starts, exit 2, naming the file:line:col of the key (needs build/posbench; no data).
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-train-settings.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }

LOOKUP='\b(cfg_(int|float|bool|str|int_list)|key_(int|float|str)|config_reader)[[:space:]]*\('
RESOLVER='(model_config_from_config|objective_settings_from_config|dataset_options_from_config)[[:space:]]*\('
# file:line:text of every look-up outside train_settings.c, under folder $1.
scan() {
    grep -rnE "$LOOKUP" "$1" --include='*.c' --include='*.h' | grep -v '^[^:]*/train_settings\.c:'
    grep -rnE "$RESOLVER" "$1" --include='*.c' --include='*.h' |
        grep -vE '^[^:]*/train\.c:[0-9]+:.*(model_config_from_config|objective_settings_from_config)' |
        grep -vE '^[^:]*/train_settings\.c:[0-9]+:.*dataset_options_from_config'
}

[ -d bench/train ] && [ -f bench/train/train_settings.c ] || { echo "FAIL train settings: bench/train/train_settings.c is missing"; exit 0; }
n_here=$(grep -cE "$LOOKUP" bench/train/train_settings.c)
scan bench/train > "$T/found"
[ ! -s "$T/found" ] && [ "$n_here" -gt 0 ]
check "bench/train reads keys by name only in train_settings.c" $? \
    "$n_here look-ups in train_settings.c; elsewhere: $(wc -l < "$T/found") $(head -n 3 "$T/found" | tr '\n' ' ')"

cp -r bench/train "$T/train" && printf '\nstatic long crept_in(const config *c) { return cfg_int(c, "train.batch"); }\n' >> "$T/train/train_step.c"
scan "$T/train" > "$T/planted"
grep -q 'train_step\.c:.*cfg_int(c, "train.batch")' "$T/planted"
check "train settings scan: a look-up added to train_step.c is found" $? "$(head -n 1 "$T/planted")"

PB=build/posbench
if [ ! -x "$PB" ]; then
    echo "SKIP train settings: posbench run refusal: build/posbench is missing (make)"
    exit 0
fi
cat > "$T/acc.yaml" <<'YAML'
name: acc
base:
  model: {dim: 32, depth: 1, heads: 2, patch: 7}
  train:
    batch: 32
    accumulate: 3
YAML
$PB run "$T/acc.yaml" --out "$T/r" > "$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "acc.yaml:6:17: train.accumulate=3 must divide train.batch=32" "$T/out" &&
    [ -z "$(find "$T/r" -name '*.h5*' 2>/dev/null)" ]
check "posbench run: a run breaking train.accumulate's rule is refused before training, at its file:line:col" $? \
    "exit $rc: $(tr '\n' ' ' < "$T/out")"
