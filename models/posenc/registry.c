// models/posenc/registry.c — the table of position-encoding kinds (POSENC_KINDS in
// encoding.h) and lookups by name.
#include "encoding.h"
#include "../api/model_config.h"
#include "../../core/common.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

// The keys every kind shares (encoding.h).
const cfg_key posenc_common_keys[] = {
    {"pe.content_scale", CFG_CHOICE, "none", 0, 0, "none|sqrt_d", 1, "multiply the embedded patch content by this before the encoding is added: none (1) or sqrt_d (sqrt(model.dim), as public CAPE re-implementations, so the content's magnitude matches a sinusoid's ~0.7 per channel)"},
    {"pe.kind", CFG_CHOICE, "abs", 0, 0, POSENC_CHOICES, 1, "position encoding"},
    {NULL},
};

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

void posenc_read_keys(const key_reader *r, model_config *c) {
    c->pe_kind = key_str(r, "pe.kind");
    c->content_scale = !strcmp(key_str(r, "pe.content_scale"), "sqrt_d") ? sqrtf((float)key_int(r, "model.dim")) : 1.0f;
    posenc_read_own(r, c);
}

void posenc_read_own(const key_reader *r, model_config *c) {
    memset(c->pe_own, 0, sizeof c->pe_own);
    const posenc_kind *k = posenc_for_model(c); // NULL: an unknown name, which model_config_error names
    if (k && k->read_keys) k->read_keys(r, c);
}

double posenc_key_default(const posenc_kind *k, const char *name) {
    for (const cfg_key *key = k->keys; key && key->key; key++)
        if (!strcmp(key->key, name)) return strtod(key->fallback, NULL);
    die_fail("internal: pe.kind=%s has no key %s", k->name, name);
}
