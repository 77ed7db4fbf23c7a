// bench/experiment/yaml_tree.h — reads one YAML document with libyaml's event API into a small tree of
// mappings, lists and scalars, each with its 1-based position (line, column; libyaml's 0-based mark + 1, as editors count).
// Scalars are NOT typed here: each keeps its text and whether it was quoted (or a block
// scalar), so the caller types it by the key it belongs to and a quoted "128" stays a string.
// Rejected while reading, with "file:line:col: message": YAML syntax errors, more than one
// document, duplicate mapping keys (naming the first one's mark), merge keys (`<<`), anchors
// (`&x`), aliases (`*x`), explicit tags (`!!str`) and keys that are not scalars.
#pragma once
#include <stddef.h>

#define YTREE_MAX_BYTES (16 << 20) // an experiment file's cap, 16 MiB: far beyond any experiment, far below a runaway file

typedef enum { YT_SCALAR, YT_MAP, YT_SEQ } yt_kind;

typedef struct ynode {
    yt_kind kind;
    int line, col;       // 1-based (gcc, yamllint and editors' jump-to-error count from 1)
    char *text;          // YT_SCALAR: the text ("" for an empty value); NULL otherwise
    int quoted;          // YT_SCALAR: 1 when quoted or a block scalar (| or >): always a string
    int n, cap;          // YT_MAP: number of pairs; YT_SEQ: number of items
    struct ynode **key;  // YT_MAP: key scalars [n]; NULL for YT_SEQ
    struct ynode **val;  // YT_MAP: values [n]; YT_SEQ: items [n]
} ynode;

// Reads path. Returns 0 with *root set (NULL when the document is empty: only comments or
// whitespace), or -1 with "file:line:col: message" (or "file: cannot open: why") in err.
int ytree_load(const char *path, ynode **root, char *err, size_t errlen);
void ytree_free(ynode *n);

// The value under `key` in a mapping (NULL when absent or when map is not a mapping);
// *key_node (optional) receives the key scalar.
const ynode *ytree_get(const ynode *map, const char *key, const ynode **key_node);
// A plain (unquoted) empty scalar or ~/null/Null/NULL.
int ytree_is_null(const ynode *n);
// "a mapping", "a list", "the string \"x\"" or "'x'" (for messages saying what was found).
void ytree_describe(const ynode *n, char *buf, size_t len);
// Writes "PATH:LINE:COL: SECTION: " and the printf message into err (the position of `at`, 1:1
// when NULL); returns -1, for `return ytree_fail(...)` in a section's checker.
int ytree_fail(const char *path, const ynode *at, const char *section, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
