// bench/experiment/exp_tables.c — the checks `posbench run` makes before anything runs
// (`reference:`: reference_spec.c, `findings:`: findings_spec.c) and the copy of the experiment
// file it keeps in the results dir (exp_tables.h), from which `posbench report` and `posbench
// plot` read the reference numbers, findings, caveats and figures.
#include "exp_tables.h"
#include "findings_spec.h"
#include "findings_check.h"
#include "figure_kinds.h"
#include "reference_spec.h"
#include "yaml_tree.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// DIR/experiment.yaml: the experiment file's text, byte for byte, so `posbench report` reads
// the findings (and anything else) as the experiment states them. Read as a regular file within
// the experiment file's cap, written atomically (core/safe_file.h: never through a link at the name).
static int keep_copy(const experiment *e, const char *dir, char *err, size_t errlen) {
    char path[4200], *text;
    size_t n;
    if ((size_t)snprintf(path, sizeof path, "%s/experiment.yaml", dir) >= sizeof path) {
        snprintf(err, errlen, "%.200s...: the path is too long", dir);
        return -1;
    }
    if (safe_read_file(e->path, YTREE_MAX_BYTES, SAFE_FOLLOW, &text, &n, NULL, err, errlen) != SAFE_OK) return -1;
    int rc = safe_write_file(path, text, n, err, errlen);
    free(text);
    return rc == SAFE_OK ? 0 : -1;
}

// A metric_vs_axis figure's /final metric must be one that a run of its stage (or of any stage
// when it names none) records (findings_check.h): `top11` is an error at its position.
static int figures_metrics(const experiment *e, char *err, size_t errlen) {
    const ynode *list = e->figures;
    for (int i = 0; list && list->kind == YT_SEQ && i < list->n; i++) {
        figure_spec spec;
        char why[600], valid[1024];
        if (figure_spec_check(e->path, list->val[i], &spec, why, sizeof why) != 0) continue; // reported when it loaded
        if (spec.kind != FIGURE_metric_vs_axis || !spec.metric[0] || strchr(spec.metric, '/')) continue;
        if (findings_metric_known(e, spec.stage[0] ? spec.stage : NULL, spec.metric, valid, sizeof valid)) continue;
        const ynode *at = ytree_get(list->val[i], "metric", NULL);
        snprintf(err, errlen, "%s:%d:%d: figures: metric '%s' is not recorded by any run of %s%s%s (valid: %s)", e->path,
                 at ? at->line : 1, at ? at->col : 1, spec.metric, spec.stage[0] ? "stage '" : "this experiment",
                 spec.stage[0] ? spec.stage : "", spec.stage[0] ? "'" : "", valid);
        return -1;
    }
    return 0;
}

int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen) {
    if (reference_parse(e, NULL, NULL, err, errlen)) return -1;
    if (figures_metrics(e, err, errlen)) return -1;
    findings_list fl;
    if (findings_parse(e, &fl, err, errlen)) return -1;
    findings_list_free(&fl);
    return dir ? keep_copy(e, dir, err, errlen) : 0;
}
