// datasets/registry.c — the dataset registry's list (registry.h: the entries live beside their
// loaders) and dataset_load, which dispatches through it.
#include "registry.h"
#include "file_read.h"
#include <stdio.h>
#include <string.h>

#define DATASET_ADDRESS_(id, name) &dataset_##id,
static const dataset_kind *const ENTRIES[] = {DATASET_KINDS(DATASET_ADDRESS_)};
#define N_ENTRIES (int)(sizeof ENTRIES / sizeof ENTRIES[0])

const dataset_kind *dataset_at(int i) { return i >= 0 && i < N_ENTRIES ? ENTRIES[i] : NULL; }

const dataset_kind *dataset_find(const char *name) {
    for (int i = 0; name && i < N_ENTRIES; i++)
        if (strcmp(ENTRIES[i]->name, name) == 0) return ENTRIES[i];
    return NULL;
}

int dataset_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    memset(ds, 0, sizeof *ds);
    if (err && errlen) err[0] = '\0';
    const dataset_kind *k = dataset_find(name);
    if (!k) {
        char valid[256] = "";
        for (int i = 0; i < N_ENTRIES; i++)
            snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", ENTRIES[i]->name);
        dataset_set_err(err, errlen, "unknown dataset '%s' (valid: %s)", name ? name : "(null)", valid);
        return -1;
    }
    dataset_options none = {0};
    if (k->load(ds, name, opt ? opt : &none, split, err, errlen) != 0) return -1;
    ds->kind = k;
    return 0;
}
