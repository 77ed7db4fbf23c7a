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
