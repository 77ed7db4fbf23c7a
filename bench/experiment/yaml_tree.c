// bench/experiment/yaml_tree.c — libyaml event stream -> ynode tree with marks (see yaml_tree.h).
// One pass over the events with an explicit stack of open mappings/lists; every rejection
// (syntax, duplicate key, merge key, anchor, alias, tag, second document) names its mark.
#include "yaml_tree.h"

#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_DEPTH 64

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    ynode *stack[MAX_DEPTH];
    int depth;
    ynode *root;
} builder;

static int fail_at(builder *b, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(builder *b, yaml_mark_t m, const char *fmt, ...) {
    int n = snprintf(b->err, b->errlen, "%s:%zu:%zu: ", b->path, m.line + 1, m.column + 1); // 1-based, as editors count
    if (n < 0 || (size_t)n >= b->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static ynode *node_new(yt_kind kind, yaml_mark_t m) {
    ynode *n = xcalloc(1, sizeof *n, "yaml node");
    n->kind = kind;
    n->line = (int)m.line + 1; // 1-based (libyaml counts from 0)
    n->col = (int)m.column + 1;
    return n;
}

void ytree_free(ynode *n) {
    if (!n) return;
    for (int i = 0; i < n->n; i++) {
        if (n->key) ytree_free(n->key[i]);
        ytree_free(n->val[i]);
    }
    free(n->key);
    free(n->val);
    free(n->text);
    free(n);
}

// Makes room for item n; new key slots start NULL ("expecting a key").
static void grow(ynode *p) {
    if (p->n < p->cap) return;
    int old = p->cap;
    p->cap = p->cap ? 2 * p->cap : 8;
    p->val = realloc(p->val, sizeof *p->val * (size_t)p->cap);
    if (p->kind == YT_MAP) p->key = realloc(p->key, sizeof *p->key * (size_t)p->cap);
    if (!p->val || (p->kind == YT_MAP && !p->key)) die_fail("out of memory reading YAML");
    for (int i = old; i < p->cap; i++) {
        p->val[i] = NULL;
        if (p->key) p->key[i] = NULL;
    }
}

// Attaches n to the innermost open collection (or makes it the root). A mapping alternates
// key, value: a pending key sits in key[n] until its value arrives. Takes ownership of n.
static int attach(builder *b, ynode *n, yaml_mark_t m) {
    if (b->depth == 0) {
        b->root = n;
        return 0;
    }
    ynode *p = b->stack[b->depth - 1];
    grow(p);
    if (p->kind == YT_SEQ) {
        p->val[p->n++] = n;
        return 0;
    }
    if (p->key[p->n] == NULL) { // n is a key
        if (n->kind != YT_SCALAR) {
            const char *what = n->kind == YT_MAP ? "mappings" : "lists";
            ytree_free(n);
            return fail_at(b, m, "mapping keys must be plain scalars, not %s", what);
        }
        if (!n->quoted && strcmp(n->text, "<<") == 0) {
            ytree_free(n);
            return fail_at(b, m, "merge keys ('<<') are not supported; write the keys out");
        }
        for (int i = 0; i < p->n; i++)
            if (strcmp(p->key[i]->text, n->text) == 0) {
                int l = p->key[i]->line, c = p->key[i]->col;
                ytree_free(n);
                return fail_at(b, m, "duplicate key '%s' (first at %d:%d)", p->key[i]->text, l, c);
            }
        p->key[p->n] = n;
        p->val[p->n] = NULL;
        return 0;
    }
    p->val[p->n++] = n;
    return 0;
}

static int check_props(builder *b, yaml_mark_t m, const yaml_char_t *anchor, const yaml_char_t *tag) {
    if (anchor) return fail_at(b, m, "anchors (&%s) are not supported; write the values out", (const char *)anchor);
    if (tag) return fail_at(b, m, "tags (%s) are not supported; quote a value to make it a string", (const char *)tag);
    return 0;
}

static int on_event(builder *b, yaml_event_t *ev, int *docs) {
    yaml_mark_t m = ev->start_mark;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++*docs > 1) return fail_at(b, m, "only one YAML document is allowed (found a second '---')");
        return 0;
    case YAML_ALIAS_EVENT:
        return fail_at(b, m, "aliases (*%s) are not supported; write the values out", (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT: {
        if (check_props(b, m, ev->data.scalar.anchor, ev->data.scalar.tag) != 0) return -1;
        ynode *n = node_new(YT_SCALAR, m);
        n->text = xmalloc(ev->data.scalar.length + 1, "yaml scalar");
        memcpy(n->text, ev->data.scalar.value, ev->data.scalar.length);
        n->text[ev->data.scalar.length] = 0;
        n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        return attach(b, n, m);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        int map = ev->type == YAML_MAPPING_START_EVENT;
        const yaml_char_t *anchor = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
        const yaml_char_t *tag = map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
        if (check_props(b, m, anchor, tag) != 0) return -1;
        if (b->depth >= MAX_DEPTH) return fail_at(b, m, "nested more than %d levels deep", MAX_DEPTH);
        ynode *n = node_new(map ? YT_MAP : YT_SEQ, m);
        if (map) grow(n); // key[n] == NULL marks "expecting a key"
        if (attach(b, n, m) != 0) return -1;
        b->stack[b->depth++] = n;
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        b->depth--;
        return 0;
    default: return 0;
    }
}

// The byte at libyaml's mark (m.index counts bytes from the start), or EOF.
static int char_at(FILE *f, yaml_mark_t m) {
    if (fseek(f, (long)m.index, SEEK_SET) != 0) return EOF;
    return fgetc(f);
}

int ytree_load(const char *path, ynode **root, char *err, size_t errlen) {
    *root = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not an experiment file (give a .yaml file)", path);
        return -1;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { // a FIFO would block forever, a device never end
        snprintf(err, errlen, "%s: is %s, not a regular file (an experiment file is a regular .yaml file)", path,
                 S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)" : S_ISCHR(st.st_mode) ? "a character device"
                 : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
        return -1;
    }
    if (stat(path, &st) == 0 && st.st_size > YTREE_MAX_BYTES) {
        snprintf(err, errlen, "%s: %lld bytes; an experiment file is at most %d bytes", path, (long long)st.st_size,
                 YTREE_MAX_BYTES);
        return -1;
    }
    FILE *f; // opened without blocking and checked again: what sits at path may have changed since stat
    if (safe_fopen_read(path, YTREE_MAX_BYTES, SAFE_FOLLOW, &f, NULL, err, errlen) != SAFE_OK) return -1;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) die_fail("libyaml: cannot initialize the parser");
    yaml_parser_set_input_file(&parser, f);
    builder b = {.path = path, .err = err, .errlen = errlen};
    int docs = 0, rc = 0, done = 0;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            yaml_mark_t m = parser.problem_mark;
            const char *tab = char_at(f, m) == '\t' ? " (a tab: YAML indents and separates with spaces only)" : "";
            if (parser.context)
                fail_at(&b, m, "YAML syntax error: %s%s (%s at %zu:%zu)", parser.problem, tab, parser.context,
                        parser.context_mark.line + 1, parser.context_mark.column + 1);
            else
                fail_at(&b, m, "YAML syntax error: %s%s", parser.problem ? parser.problem : "unknown", tab);
            rc = -1;
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event(&b, &ev, &docs);
        yaml_event_delete(&ev);
        if (rc != 0) break;
    }
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc != 0) {
        // Open collections are already attached to the root: freeing the root frees them all.
        // A pending key (attached, its value never came) sits in key[n] of its mapping.
        for (int i = 0; i < b.depth; i++) {
            ynode *p = b.stack[i];
            if (p->kind == YT_MAP && p->n < p->cap && p->key[p->n]) {
                ytree_free(p->key[p->n]);
                p->key[p->n] = NULL;
            }
        }
        ytree_free(b.root);
        return -1;
    }
    *root = b.root;
    return 0;
}

const ynode *ytree_get(const ynode *map, const char *key, const ynode **key_node) {
    if (key_node) *key_node = NULL;
    if (!map || map->kind != YT_MAP) return NULL;
    for (int i = 0; i < map->n; i++)
        if (strcmp(map->key[i]->text, key) == 0) {
            if (key_node) *key_node = map->key[i];
            return map->val[i];
        }
    return NULL;
}

int ytree_is_null(const ynode *n) {
    if (!n || n->kind != YT_SCALAR || n->quoted) return 0;
    const char *t = n->text;
    return !t[0] || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") || !strcmp(t, "NULL");
}

void ytree_describe(const ynode *n, char *buf, size_t len) {
    if (!n) snprintf(buf, len, "nothing");
    else if (n->kind == YT_MAP) snprintf(buf, len, "a mapping");
    else if (n->kind == YT_SEQ) snprintf(buf, len, "a list");
    else if (ytree_is_null(n)) snprintf(buf, len, "no value");
    else if (n->quoted) snprintf(buf, len, "the string \"%s\"", n->text);
    else snprintf(buf, len, "'%s'", n->text);
}

int ytree_fail(const char *path, const ynode *at, const char *section, char *err, size_t errlen, const char *fmt, ...) {
    int n = snprintf(err, errlen, "%s:%d:%d: %s: ", path, at ? at->line : 1, at ? at->col : 1, section);
    if (n < 0 || (size_t)n >= errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}
