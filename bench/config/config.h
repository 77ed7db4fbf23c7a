// bench/config/config.h — the one table of configuration keys (name, type, default, range, meaning),
// typed values, `key=value` overrides, the canonical text and the run id derived from it.
// Every key has exactly one default, here; `posbench train --help` prints this table.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../../core/keys.h"

// The key type (cfg_key, cfg_type) and key_reader: core/keys.h. The table is gathered on first
// use from the keys every stage shares (config.c) and the keys of every objective, position
// encoding and backbone (their registry entries' `keys`), in name order.
const cfg_key *config_key_table(void);
int config_key_table_count(void);
#define cfg_keys (config_key_table())
#define cfg_key_count (config_key_table_count())

#define CFG_MAX_KEYS 128 // capacity of a config; config.c asserts the key table fits

typedef struct config_s {
    double num[CFG_MAX_KEYS];    // CFG_INT, CFG_FLOAT, CFG_BOOL (0/1) values by key index
    char *str[CFG_MAX_KEYS];     // CFG_STRING, CFG_CHOICE, CFG_INT_LIST values by key index (owned)
    // Where each key's value was written, for error messages: 1-based line and column in the
    // file `source` (not owned; NULL, and 0 for a key: a default or the command line). The
    // experiment loader sets them; values, run ids and the canonical text ignore them.
    const char *source;
    int line[CFG_MAX_KEYS], col[CFG_MAX_KEYS];
} config;

// A key_reader over c (core/keys.h), for the modules' own settings (c must outlive its use).
key_reader config_reader(const config *c);

void config_defaults(config *c);
void config_free(config *c);
void config_copy(config *dst, const config *src);
int cfg_index(const char *key);             // -1 when unknown
// "file:line:col: " where key `index` of c was written (config.source), or "" when it was not
// written in a file (a default or the command line).
void config_key_where(const config *c, int index, char *buf, size_t len);
// Parses and range-checks text for key `index` into c. Returns 0, or -1 with a message in err
// naming the key, the bad value and what is valid.
int config_set(config *c, int index, const char *text, char *err, size_t errlen);
// A boolean as YAML 1.2 spells it, the same on the command line and in experiment files:
// true/True/TRUE -> 1, false/False/FALSE -> 0, anything else -> -1.
int cfg_parse_bool(const char *text);
// Applies "key=value"; on error writes "unknown key 'x' (did you mean 'y'?)" or the value
// error into err and returns -1.
int config_apply_override(config *c, const char *arg, char *err, size_t errlen);
// Levenshtein distance (strings up to 63 characters; longer ones count as far apart).
int cfg_edit_distance(const char *a, const char *b);
// " (did you mean '--device'?)" when one of the flags of `valid` (a message's list, e.g. "--out
// DIR, --threads N, --help": each item's first word) is within 2 edits of flag (and closer than
// half its length); "" otherwise. A static buffer, valid until the next call.
const char *cfg_flag_hint(const char *flag, const char *valid);
// The closest known key to `key` (Levenshtein), or NULL when none is close.
const char *cfg_suggest(const char *key);

long cfg_int(const config *c, const char *key);     // dies on an unknown key (programming error)
double cfg_float(const config *c, const char *key);
int cfg_bool(const config *c, const char *key);
const char *cfg_str(const config *c, const char *key);
// CFG_INT_LIST: writes up to `max` values into out and returns how many there are.
int cfg_int_list(const config *c, const char *key, int *out, int max);
#define CFG_LIST_MAX 32 // most values a CFG_INT_LIST key holds

// Canonical value text of key `index` (numbers in shortest round-trip form).
void config_value_text(const config *c, int index, char *buf, size_t len);
// The full config as YAML (nested by the dotted prefixes, keys sorted). Caller frees.
char *config_yaml(const config *c);
// Short hash (12 hex digits, FNV-1a 64) of "key=value\n" (canonical value text) for every
// identity key whose value differs from its default, in table order. Defaults are left out
// so that adding a key whose default keeps the old behaviour leaves existing run ids (and
// finished sweeps) valid; changing a key's default therefore requires renaming the key.
// The value a key had, in effect, before it existed, when that is not its default (today:
// model.embed_init -> "normal002"); NULL for every other key. Run ids leave this value (not the
// default) out of the hash, and run files that lack the key are read as having it.
const char *config_legacy_value(const char *key);
void config_run_id(const config *c, char out[13]);
// The hashing behind config_run_id, for ids that hash more (experiment runs add the stage and
// the parent run): FNV-1a 64 of text onto h; the identity lines of c onto h.
uint64_t config_hash_text(uint64_t h, const char *text);
uint64_t config_identity_hash(uint64_t h, const config *c);
// Prints the key table (key, default, help, what is valid), every key or only those of topic
// (a group such as "pe", a key, or a word of a key or of its help; case-insensitive); returns how
// many keys it printed (0: nothing matched the topic).
int config_print_help(FILE *out, const char *topic);
// The key groups ("data, model, pe, ...": the part before the first '.'), in table order.
const char *config_key_groups(void);
// Prints the key table as Markdown, one table per prefix (data., model., ...): docs/keys.md,
// written by `make docs` through the hidden `posbench --keys-markdown`.
void config_print_markdown(FILE *out);
