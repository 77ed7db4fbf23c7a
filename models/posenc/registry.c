// models/posenc/registry.c — the table of position-encoding kinds (POSENC_KINDS in
// encoding.h) and lookups by name.
#include "encoding.h"
#include "../model.h"
#include <stdio.h>
#include <string.h>

#define POSENC_ENTRY(name) &posenc_##name,
static const posenc_kind *const kinds[] = {POSENC_KINDS(POSENC_ENTRY)};
#undef POSENC_ENTRY
enum { KIND_COUNT = sizeof kinds / sizeof kinds[0] };

const posenc_kind *posenc_find(const char *name) {
    for (int i = 0; i < KIND_COUNT; i++)
        if (name && !strcmp(kinds[i]->name, name)) return kinds[i];
    return NULL;
}

const posenc_kind *posenc_for_model(const model_config *c) {
    const posenc_kind *k = posenc_find(c->pe_kind ? c->pe_kind : "none");
    return k && c->features > 0 && k->sequence_kind ? k->sequence_kind : k;
}

const char *posenc_names(void) { return POSENC_CHOICES; }

const char *posenc_reference_names(void) {
    static char names[256];
    if (names[0]) return names;
    for (int i = 0; i < KIND_COUNT; i++)
        if (kinds[i]->reference_table)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", kinds[i]->name);
    return names;
}

const posenc_kind *posenc_at(int i) { return i >= 0 && i < KIND_COUNT ? kinds[i] : NULL; }
int posenc_count(void) { return KIND_COUNT; }

const char *posenc_names_where(int (*ok)(const posenc_kind *k), char *buf, size_t len) {
    if (len == 0) return buf;
    buf[0] = 0;
    for (int i = 0; i < KIND_COUNT; i++)
        if (ok(kinds[i])) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", kinds[i]->name);
    return buf;
}

int posenc_in_attention(const posenc_kind *k) { return k && (k->qk_forward || k->bias_forward); }
