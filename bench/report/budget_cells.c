// bench/report/budget_cells.c — the report's `updates` and `images seen` cells (budget_cells.h).
#include "budget_cells.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int report_budget_attr(const char *name) {
    static const char *const names[] = {"updates", "images_seen", "updates_total", "images_seen_total", "budget_updates",
                                        "budget_images_seen"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i])) return 1;
    return 0;
}

static double num(const rr_attrs *a, const char *name) {
    const rr_attr *x = rr_attr_get(a, name);
    return x && x->is_num ? x->num : NAN;
}

typedef struct {
    double lo, hi;
    int n;
} range;

static void add(range *r, double v) {
    if (!isfinite(v)) return;
    if (r->n == 0 || v < r->lo) r->lo = v;
    if (r->n == 0 || v > r->hi) r->hi = v;
    r->n++;
}

static void range_text(const range *r, char *out, size_t len) {
    if (r->lo == r->hi) snprintf(out, len, "%.0f", r->lo);
    else snprintf(out, len, "%.0f–%.0f", r->lo, r->hi);
}

// One column: total, and "(init + own)" when the chain added something.
static void cell(const range *total, const range *own, int legacy, char *out, size_t len) {
    if (total->n == 0) {
        snprintf(out, len, "—");
        return;
    }
    char t[64], o[64], i[64];
    range_text(total, t, sizeof t);
    if (legacy) {
        snprintf(out, len, "%s (own)", t);
        return;
    }
    range_text(own, o, sizeof o);
    if (total->lo == own->lo && total->hi == own->hi) {
        snprintf(out, len, "%s", t);
        return;
    }
    range init = {total->lo - own->lo, total->hi - own->hi, 1};
    range_text(&init, i, sizeof i);
    snprintf(out, len, "%s (%s + %s)", t, i, o);
}

void report_budget_cells(const rr_set *set, const rr_config *c, char *updates, size_t ulen, char *images, size_t ilen) {
    range ut = {0}, uo = {0}, it = {0}, io = {0};
    int legacy = 0;
    for (int k = 0; k < c->nruns; k++) {
        const rr_run *r = &set->runs[c->runs[k]];
        if (strcmp(rr_run_status(r), "done")) continue;
        double total = num(&r->final, "updates_total"), own = num(&r->final, "updates");
        double itotal = num(&r->final, "images_seen_total"), iown = num(&r->final, "images_seen");
        if (!isfinite(total) || !isfinite(itotal)) { // an older file, or an init without its run file: its own only
            double steps = isfinite(own) ? own : num(&r->final, "steps"), batch = num(&r->config, "train.batch");
            legacy = 1;
            add(&ut, steps), add(&uo, steps), add(&it, isfinite(iown) ? iown : steps * batch), add(&io, steps * batch);
            continue;
        }
        add(&ut, total), add(&uo, own), add(&it, itotal), add(&io, iown);
    }
    cell(&ut, &uo, legacy, updates, ulen);
    cell(&it, &io, legacy, images, ilen);
}
