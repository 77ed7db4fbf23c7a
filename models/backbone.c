// models/backbone.c — the table of backbones (BACKBONE_KINDS in backbone.h) and lookup by name.
#include "backbone.h"
#include <string.h>

// model.arch (backbone.h).
const cfg_key backbone_common_keys[] = {
    {"model.arch", CFG_CHOICE, "vit", 0, 0, BACKBONE_CHOICES, 1, "backbone, the blocks between the embedding and the head"},
    {NULL},
};

#define BACKBONE_ENTRY(name) &backbone_##name,
static const backbone_kind *const kinds[] = {BACKBONE_KINDS(BACKBONE_ENTRY)};
#undef BACKBONE_ENTRY
enum { KIND_COUNT = sizeof kinds / sizeof kinds[0] };

const backbone_kind *backbone_find(const char *name) {
    if (!name) name = "vit";
    for (int i = 0; i < KIND_COUNT; i++)
        if (!strcmp(kinds[i]->name, name)) return kinds[i];
    return NULL;
}

const backbone_kind *backbone_at(int i) { return i >= 0 && i < KIND_COUNT ? kinds[i] : NULL; }
