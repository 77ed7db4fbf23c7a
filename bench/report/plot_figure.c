// bench/report/plot_figure.c — what every figure of `posbench plot` shares, below plot.c and the
// figure kinds that both call it: naming a figure and opening its data file, its title and axis
// labels, running gnuplot on plots/<kind>.gp, and the texts of legends, stage titles and file
// names (plot_figure.h).
#include "plot_figure.h"
#include "gnuplot.h"
#include "../experiment/figure_labels.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// An axis key in a file name: its last dotted part ("pretrain.objective.eta" -> "eta"), or the
// whole key with '.' -> '-' when another axis of the stage ends the same way.
static void short_key_as(const rr_stage *s, int ax, char *out, size_t len, int dashes) {
    const char *dot = strrchr(s->axes[ax], '.'), *tail = dot ? dot + 1 : s->axes[ax];
    int clash = 0;
    for (int a = 0; a < s->naxes && !clash; a++) {
        const char *d = strrchr(s->axes[a], '.');
        clash = a != ax && !strcmp(d ? d + 1 : s->axes[a], tail);
    }
    snprintf(out, len, "%s", clash ? s->axes[ax] : tail);
    for (char *c = out; *c && dashes; c++) *c = *c == '.' ? '-' : *c;
}
void plot_short_key(const rr_stage *s, int ax, char *out, size_t len) { short_key_as(s, ax, out, len, 1); }

// A configuration in a legend or subtitle: "pe.kind=abs, model.dim=64", or with short keys
// ("arch=gmlp, depth=2, ...") when that is long: the full label of a long sweep does not fit a key.
// skip: an axis left out (the figure's x), or -1; hide: NULL, or per axis 1 to leave it out too.
// The keys in full ("pe.kind=abs") while the legend stays short (48 characters), else their last
// parts ("arch=gmlp, mlp_ratio=6, ...").
// A key with a labels: entry is written "label: value" and never shortened.
void plot_config_legend_hiding(const plotter *p, const rr_stage *s, const rr_config *c, int skip, const int *hide, char *out,
                               size_t len) {
    for (int shortened = 0; shortened < 2; shortened++) {
        out[0] = '\0';
        for (int a = 0; a < s->naxes; a++) {
            if (a == skip || (hide && hide[a])) continue;
            char key[256];
            const char *label = figure_labels_key(p->labels, s->axes[a]);
            if (shortened && !label) short_key_as(s, a, key, sizeof key, 0);
            else snprintf(key, sizeof key, "%s", label ? label : s->axes[a]);
            size_t used = strlen(out);
            snprintf(out + used, len - used, "%s%s%s%s", used ? ", " : "", key, label ? ": " : "=", c->values[a]);
        }
        if (strlen(out) <= 48) break;
    }
    if (!out[0]) snprintf(out, len, "one configuration");
}
void plot_config_legend(const plotter *p, const rr_stage *s, const rr_config *c, int skip, char *out, size_t len) {
    plot_config_legend_hiding(p, s, c, skip, NULL, out, len);
}

const char *plot_stage_title(const plotter *p, const char *stage) { return figure_labels_stage(p->labels, stage); }

const char *plot_key_name(const plotter *p, const char *key) {
    const char *label = figure_labels_key(p->labels, key);
    return label ? label : key;
}

// A configuration in a file name: "<key>-<value>" per axis, '_'-separated ("kind-abs_patch-4");
// "" when the stage has no axes.
void plot_config_slug(const rr_stage *s, const rr_config *c, char *out, size_t len) {
    out[0] = '\0';
    for (int a = 0; a < s->naxes; a++) {
        char key[256];
        plot_short_key(s, a, key, sizeof key);
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s-%s", a ? "_" : "", key, c->values[a]);
    }
}

FILE *plot_begin_figure(plotter *p, const rr_stage *s, char *base, size_t blen, char *path, size_t plen, const char *fmt, ...) {
    int n = snprintf(base, blen, "%s%s%s_", s->experiment, s->experiment[0] ? "_" : "", s->name);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < blen) vsnprintf(base + n, blen - (size_t)n, fmt, ap);
    va_end(ap);
    gp_sanitize(base);
    size_t stem = strlen(base);
    for (int k = 2, taken = 1; taken; k++) {
        taken = 0;
        for (int i = 0; i < p->nnames && !taken; i++) taken = !strcmp(p->names[i], base);
        if (taken) snprintf(base + stem, blen - stem, "-%d", k);
    }
    p->names = xrealloc(p->names, (size_t)(p->nnames + 1) * sizeof *p->names, "figure names");
    p->names[p->nnames++] = xstrdup(base, "figure name");
    snprintf(path, plen, "%s/figures/data/%s.dat", p->dir, base);
    char err[8800];
    int rc = safe_out_begin(&p->data, path, err, sizeof err);
    if (rc != SAFE_OK) {
        p->data_refused |= rc == SAFE_REFUSED;
        error_msg("cannot write %s", err);
        return NULL;
    }
    return p->data.f;
}

// The figure's title and axis labels: the figures: entry's label:, xlabel:, ylabel: where given,
// else the ones made from the stage, metric and axis names.
void plot_figure_texts(const plotter *p, gp_vars *v, const char *title, const char *xlabel, const char *ylabel) {
    const figure_spec *f = p->spec;
    gp_var_str(v, "title", f && f->label[0] ? f->label : title);
    if (xlabel) gp_var_str(v, "xlabel", f && f->xlabel[0] ? f->xlabel : xlabel);
    if (ylabel) gp_var_str(v, "ylabel", f && f->ylabel[0] ? f->ylabel : ylabel);
}

int plot_close_data(plotter *p, const char *path) {
    char err[8800];
    if (safe_out_commit(&p->data, err, sizeof err) != SAFE_OK) {
        error_msg("writing %s failed: %s", path, err);
        return -1;
    }
    return 0;
}

// DIR/figures/data/<base>.gp: the figure's settings (the variables passed to gnuplot, one per
// line) and the script they drive, so it can be drawn again or restyled by hand:
// gnuplot -e "term='png'; out='x.png'" DIR/figures/data/<base>.gp. 0, or -1 with the error printed.
static int write_settings(plotter *p, const char *kind, const char *base, const gp_vars *v) {
    char path[PATH_MAX + 64], err[8800];
    snprintf(path, sizeof path, "%s/figures/data/%s.gp", p->dir, base);
    safe_out o; // written atomically, never through a link or device at the name (core/safe_file.h)
    int rc = safe_out_begin(&o, path, err, sizeof err);
    if (rc != SAFE_OK) {
        error_msg("%s", err);
        if (rc == SAFE_REFUSED) p->data_refused = 1;
        return -1;
    }
    fprintf(o.f, "# %s: the settings posbench plot gave plots/%s.gp (draw again: gnuplot -e \"term='png'; out='%s.png'\" %s)\n",
            base, kind, base, path);
    for (int i = 0; i < v->n; i++) fprintf(o.f, "%s\n", v->text[i]);
    fprintf(o.f, "load '%s/%s.gp'\n", p->tools.plots, kind);
    if (safe_out_commit(&o, err, sizeof err) != SAFE_OK) {
        error_msg("writing %s failed: %s", path, err);
        return -1;
    }
    return 0;
}

int plot_run_gnuplot(plotter *p, const char *kind, const char *base, gp_vars *v) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/figures", p->dir);
    if (write_settings(p, kind, base, v) != 0) return EXIT_RUN_FAILED;
    int rc = gp_render(&p->tools, kind, dir, base, v);
    if (rc == 0) p->figures++;
    return rc;
}

