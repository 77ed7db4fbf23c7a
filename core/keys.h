// core/keys.h — what a configuration key is (name, type, default, range, meaning) and how a
// module reads the values of its keys, without knowing where they come from. Every module that
// has settings of its own (an objective, a position encoding, a backbone) lists its keys in its
// registry entry; bench/config/config.c gathers them into the one key table (`posbench
// train --help`, YAML checking, run ids) and hands the modules a key_reader over a run's config.
#pragma once

// CFG_INT_LIST: a list of integers, each in [min, max]; canonical text "16,28,40" ("" = empty),
// written [16, 28, 40] in YAML (a YAML list or "16,28,40" / "[16,28,40]" on the command line).
typedef enum { CFG_INT, CFG_FLOAT, CFG_BOOL, CFG_STRING, CFG_CHOICE, CFG_INT_LIST } cfg_type;

typedef struct {
    const char *key;       // dotted, e.g. "model.dim"
    cfg_type type;
    const char *fallback;  // default, as text
    double min, max;       // inclusive range for numbers
    const char *choices;   // CFG_CHOICE: "a|b|c"
    int identity;          // 1: part of the run id (changes results); 0: bookkeeping only
    const char *help;
} cfg_key;

// Key tables end with an entry whose key is NULL. Ranges: CFG_BIG for "no upper bound",
// CFG_INT_BIG for the largest integer key (counts and sizes are C ints).
#define CFG_BIG 1e30
#define CFG_INT_BIG 2147483647.0

// A run's values, by key (the key must be in the table: a programming error otherwise).
typedef struct key_reader {
    const void *ctx;
    long (*int_value)(const void *ctx, const char *key);     // CFG_INT, CFG_BOOL (0/1)
    double (*float_value)(const void *ctx, const char *key); // CFG_FLOAT
    const char *(*str_value)(const void *ctx, const char *key); // CFG_STRING, CFG_CHOICE ("" when unset)
} key_reader;

static inline long key_int(const key_reader *r, const char *key) { return r->int_value(r->ctx, key); }
static inline double key_float(const key_reader *r, const char *key) { return r->float_value(r->ctx, key); }
static inline const char *key_str(const key_reader *r, const char *key) { return r->str_value(r->ctx, key); }
