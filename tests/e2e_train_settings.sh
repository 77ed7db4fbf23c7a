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
# Needs only the sources (no build).
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
