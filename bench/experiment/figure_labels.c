// bench/experiment/figure_labels.c — reading and checking an experiment's `labels:` and looking
// a stage's title or a key's name up (figure_labels.h).
#include "figure_labels.h"
#include "../config/config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


// A configuration key, or a parent stage's copy of one ("pretrain.objective.eta").
static int is_key(const char *name) {
    for (const char *k = name; k; k = strchr(k, '.') ? strchr(k, '.') + 1 : NULL)
        if (cfg_index(k) >= 0) return 1;
    return 0;
}

// One section (`stages` or `keys`): a mapping of names to one-line texts.
static int read_section(const char *path, const ynode *sec, const char *what, figure_label *list, int *n, char *err, size_t errlen) {
    char got[300];
    if (!sec || ytree_is_null(sec)) return 0;
    ytree_describe(sec, got, sizeof got);
    if (sec->kind != YT_MAP) return ytree_fail(path, sec, "labels", err, errlen, "%s: expected a mapping of names to labels, got %s", what, got);
    if (sec->n > FIGURE_LABELS_MAX) return ytree_fail(path, sec, "labels", err, errlen, "%s: %d entries (at most %d)", what, sec->n, FIGURE_LABELS_MAX);
    for (int i = 0; i < sec->n; i++) {
        const ynode *k = sec->key[i], *v = sec->val[i];
        ytree_describe(v, got, sizeof got);
        if (v->kind != YT_SCALAR || ytree_is_null(v) || !v->text[0])
            return ytree_fail(path, v, "labels", err, errlen, "%s: %s: expected one line of text, got %s", what, k->text, got);
        size_t len = strlen(v->text);
        if (len >= FIGURE_LABEL_LEN || strchr(v->text, '\n'))
            return ytree_fail(path, v, "labels", err, errlen, "%s: %s: expected one line of 1-%d characters, got %zu characters%s", what, k->text,
                        FIGURE_LABEL_LEN - 1, len, strchr(v->text, '\n') ? " over several lines" : "");
        if (!strcmp(what, "keys") && !is_key(k->text))
            return ytree_fail(path, k, "labels", err, errlen, "keys: %s is not a configuration key (posbench train --help lists them; a parent "
                        "stage's copy is <stage>.<key>)", k->text);
        snprintf(list[*n].name, sizeof list[*n].name, "%s", k->text);
        snprintf(list[*n].text, sizeof list[*n].text, "%s", v->text);
        list[(*n)++].at = k;
    }
    return 0;
}

int figure_labels_read(const char *path, const ynode *node, figure_labels *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!node || ytree_is_null(node)) return 0;
    char got[300];
    ytree_describe(node, got, sizeof got);
    if (node->kind != YT_MAP) return ytree_fail(path, node, "labels", err, errlen, "expected a mapping with stages: and keys:, got %s", got);
    for (int i = 0; i < node->n; i++)
        if (strcmp(node->key[i]->text, "stages") && strcmp(node->key[i]->text, "keys"))
            return ytree_fail(path, node->key[i], "labels", err, errlen, "unknown key '%s' (valid: stages, keys)", node->key[i]->text);
    if (read_section(path, ytree_get(node, "stages", NULL), "stages", out->stages, &out->nstages, err, errlen) != 0) return -1;
    return read_section(path, ytree_get(node, "keys", NULL), "keys", out->keys, &out->nkeys, err, errlen);
}

const char *figure_labels_stage(const figure_labels *l, const char *stage) {
    for (int i = 0; l && i < l->nstages; i++)
        if (!strcmp(l->stages[i].name, stage)) return l->stages[i].text;
    return stage;
}

const char *figure_labels_key(const figure_labels *l, const char *key) {
    for (int i = 0; l && i < l->nkeys; i++)
        if (!strcmp(l->keys[i].name, key)) return l->keys[i].text;
    return NULL;
}
