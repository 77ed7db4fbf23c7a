// objectives/plan_scalar.c — a crosscheck plan's scalar (objective_plan_scalar, objectives/objective.h),
// in a file of its own: the objectives' plan functions call it, and objective.c, whose table names
// the objectives, does not, so no objective calls back into the registry's file (no call circle).
#include "objective.h"
#include <stdio.h>

void objective_plan_scalar(tensorfile *tf, const char *key, double v) {
    char name[96];
    int one[1] = {1};
    snprintf(name, sizeof name, "config.%s", key);
    tf_add(tf, name, TF_F64, 1, one, &v);
}
