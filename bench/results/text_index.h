// bench/results/text_index.h — a hash table from text to an int (open addressing, FNV-1a), so that
// grouping run files by stage, configuration or run id is linear in the number of runs rather
// than quadratic: one lookup per run instead of a comparison with every earlier run.
// Keys are copied; values are whatever the caller stores (an index into its own arrays).
#pragma once
#include <stddef.h>

typedef struct {
    char **keys;  // (cap) NULL where empty
    int *values;  // (cap)
    size_t cap, n;
} text_index;

// The value stored for key, or -1 when it is absent.
int ti_get(const text_index *t, const char *key);
// Stores value for key unless key is there; returns the value now stored for key (the earlier
// one when it was there). Dies when out of memory.
int ti_put(text_index *t, const char *key, int value);
void ti_free(text_index *t);

// A growing text buffer for composite keys (e.g. the values of a configuration's axes, each
// length-prefixed so that no value can be confused with a separator).
typedef struct {
    char *s;
    size_t n, cap;
} text_key;
void tk_reset(text_key *k);
void tk_add(text_key *k, const char *part); // appends "<length>:<part>"
void tk_free(text_key *k);
