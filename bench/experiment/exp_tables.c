// bench/experiment/exp_tables.c — the checks `posbench run` makes before anything runs
// (`reference:`: reference_spec.c, `findings:`: findings_spec.c) and the copy of the experiment
// file it keeps in the results dir (exp_tables.h), from which `posbench report` and `posbench
// plot` read the reference numbers, findings, caveats and figures.
#include "exp_tables.h"
#include "findings_spec.h"
#include "findings_check.h"
#include "figure_kinds.h"
#include "reference_spec.h"
#include "../../core/common.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *open_tmp(const char *dir, const char *name, char *tmp, size_t len, char *err, size_t errlen) {
    snprintf(tmp, len, "%s/%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f) snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    return f;
}

static int close_rename(FILE *f, const char *tmp, char *err, size_t errlen) {
    char final[4200];
    snprintf(final, sizeof final, "%.*s", (int)(strlen(tmp) - 4), tmp);
    if (fclose(f) != 0 || rename(tmp, final) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", final, strerror(errno));
        return -1;
    }
    return 0;
}

// DIR/experiment.yaml: the experiment file's text, byte for byte, so `posbench report` reads
// the findings (and anything else) as the experiment states them.
static int keep_copy(const experiment *e, const char *dir, char *err, size_t errlen) {
    char tmp[4200], buf[65536];
    FILE *in = fopen(e->path, "rb");
    if (!in) {
        snprintf(err, errlen, "%s: cannot read: %s", e->path, strerror(errno));
        return -1;
    }
    FILE *out = open_tmp(dir, "experiment.yaml", tmp, sizeof tmp, err, errlen);
    if (!out) {
        fclose(in);
        return -1;
    }
    size_t n;
    int bad = 0;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, n, out) != n;
    bad |= ferror(in);
    fclose(in);
    if (bad) {
        snprintf(err, errlen, "%s: cannot copy %s: %s", tmp, e->path, strerror(errno));
        fclose(out);
        unlink(tmp);
        return -1;
    }
    return close_rename(out, tmp, err, errlen);
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
