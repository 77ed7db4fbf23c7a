// bench/experiment/caveats_spec.c — checks an experiment's `caveats:` list (caveats_spec.h).
#include "caveats_spec.h"
#include <stdio.h>
#include <string.h>

static int fail(const char *path, const ynode *n, char *err, size_t errlen, const char *msg, const char *got) {
    snprintf(err, errlen, "%s:%d:%d: caveats: %s%s", path, n->line, n->col, msg, got);
    return -1;
}

int caveats_check(const char *path, const ynode *list, char *err, size_t errlen) {
    if (!list) return 0;
    char got[300];
    ytree_describe(list, got, sizeof got);
    if (list->kind != YT_SEQ) return fail(path, list, err, errlen, "expected a list of texts (- \"...\"), got ", got);
    for (int i = 0; i < list->n; i++) {
        const ynode *item = list->val[i];
        ytree_describe(item, got, sizeof got);
        if (item->kind != YT_SCALAR) return fail(path, item, err, errlen, "each caveat must be a text (a quoted string), got ", got);
        if (ytree_is_null(item) || !item->text[0]) return fail(path, item, err, errlen, "empty caveat", "");
        size_t len = strlen(item->text);
        while (len > 0 && item->text[len - 1] == '\n') len--; // a folded scalar (>) ends with one
        if (strcspn(item->text, "\n\r\t") < len) return fail(path, item, err, errlen, "a caveat is one line (no line break or tab)", "");
    }
    return 0;
}
