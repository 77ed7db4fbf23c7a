// models/posenc/registry.c — the table of position-encoding kinds (POSENC_KINDS in
// encoding.h) and lookups by name.
#include "encoding.h"
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

const char *posenc_names(void) {
    static char names[256];
    if (!names[0])
        for (int i = 0; i < KIND_COUNT; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "|" : "", kinds[i]->name);
    return names;
}

const char *posenc_reference_names(void) {
    static char names[256];
    if (names[0]) return names;
    int n = 0, total = 0;
    for (int i = 0; i < KIND_COUNT; i++) total += kinds[i]->reference_table != NULL;
    for (int i = 0; i < KIND_COUNT; i++) {
        if (!kinds[i]->reference_table) continue;
        n++;
        const char *sep = n == 1 ? "" : n == total ? " or " : ", ";
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", sep, kinds[i]->name);
    }
    return names;
}
