// bench/experiment/experiment_expand.h — the interface of experiment_expand.c: the state
// experiment.c fills while reading and validating the YAML (exp_ctx), the expansion of the
// stages into runs, and the "file:line:col: message" error helper both use. Private to
// those two files (everyone else includes experiment.h).
#pragma once
#include "experiment_types.h"

#define NKEYS ((int)(sizeof(((config *)0)->num) / sizeof(double))) // slots per config
#define MAX_EXCL_CONDS 64

typedef struct { int axis, key; char text[512]; } excl_cond;
typedef struct { int n; excl_cond c[MAX_EXCL_CONDS]; const ynode *node; int hits; } excl_entry;

typedef struct {
    experiment *e;
    char *err;
    size_t errlen;
    config scratch;                          // validates values
    config stage_cfg[EXP_MAX_STAGES];        // defaults <- base <- stage <- scale
    const ynode *origin[EXP_MAX_STAGES][NKEYS]; // where each key was last set
    const ynode *stage_key[EXP_MAX_STAGES], *stage_body[EXP_MAX_STAGES], *init_node[EXP_MAX_STAGES];
    const ynode *budget_node[EXP_MAX_STAGES];  // the stage's `budget:` value, or NULL
    int budget_also[EXP_MAX_STAGES][EXP_MAX_STAGES], nbudget_also[EXP_MAX_STAGES]; // a budget list's other stages
    int own[EXP_MAX_STAGES][EXP_MAX_AXES], eff[EXP_MAX_STAGES][EXP_MAX_AXES];
    excl_entry *excl;
    int nexcl;
    exp_axis *cur;  // axis being filled by a leaf callback
    int setting_stage, setting_apply;                  // set_leaf's target stage (-1: all), 0: validate only
    int scale_apply;                                   // scale_axis_leaf: 1 = the chosen scale (replace), 0 = check only
    const ynode *body_seen[EXP_MAX_STAGES + 1][NKEYS]; // [stage + 1][key]: set in the current body at
} exp_ctx;

// Writes "file:line:col: message" (at's mark; 0:0 when at is NULL) into x->err; returns -1.
int exp_fail(exp_ctx *x, const ynode *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// Expands every stage into e->runs (rules in experiment.h); 0 or -1 with x->err set.
int exp_expand(exp_ctx *x);
