// core/ops_support.c — per-op support of a backend (core/ops_support.h): names and ids from
// core/ops_list.h, the query, and the stand-ins that fill a partial backend's missing entries.
#include "ops_support.h"
#include "common.h"
#include <stdio.h>
#include <string.h>

static const char *const op_names[OPS_COUNT] = {
#define OP(ret, op, params, args) #op,
#include "ops_list.h"
};

const char *ops_op_name(ops_id id) { return (int)id >= 0 && id < OPS_COUNT ? op_names[id] : NULL; }

int ops_op_find(const char *name) {
    for (int i = 0; name && i < OPS_COUNT; i++)
        if (!strcmp(op_names[i], name)) return i;
    return -1;
}

int ops_supports(const ops_backend *b, ops_id id) {
    switch (id) {
#define OP(ret, op, params, args) \
    case OPS_ID(op): return b->op != NULL;
#include "ops_list.h"
    case OPS_COUNT: break;
    }
    return 0;
}

int ops_missing(const ops_backend *b, char *names, size_t len) {
    int count = 0;
    size_t used = 0;
    if (len) names[0] = '\0';
    for (int i = 0; i < OPS_COUNT; i++) {
        if (ops_supports(b, (ops_id)i)) continue;
        if (len && used < len) {
            int w = snprintf(names + used, len - used, "%s%s", count ? ", " : "", op_names[i]);
            used += w > 0 ? (size_t)w : 0;
        }
        count++;
    }
    return count;
}

// The backend whose table a stand-in was put in, per op (the last ops_complete that filled it).
static const char *missing_in[OPS_COUNT];

static void __attribute__((noreturn)) missing_op(ops_id id) {
    die_fail("backend '%s' does not implement op '%s' (core/ops_list.h), which this run needs: run it on "
             "another --device, or give the backend that op (docs/architecture.md \"Adding an op\")",
             missing_in[id] ? missing_in[id] : "?", op_names[id]);
}

// One stand-in per op with the op's signature: it names the op and dies.
#define OP(ret, op, params, args) \
    static ret missing_##op params { missing_op(OPS_ID(op)); }
#include "ops_list.h"

const ops_backend *ops_complete(const ops_backend *b, ops_backend *storage) {
    if (ops_missing(b, NULL, 0) == 0) return b;
    *storage = *b;
#define OP(ret, op, params, args) \
    if (!storage->op) {                       \
        storage->op = missing_##op;           \
        missing_in[OPS_ID(op)] = b->name;     \
    }
#include "ops_list.h"
    return storage;
}
