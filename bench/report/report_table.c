// bench/report/report_table.c — a report table as cells, written as Markdown, CSV or JSON
// (formats in report_table.h; the CSV and JSON pieces are bench/results/export.h's).
#include "report_table.h"
#include "../text/markdown_text.h"
#include "../results/export.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

report_table *rt_new(const char *name, const char *experiment, const char *stage, const char *title) {
    report_table *t = xcalloc(1, sizeof *t, "report table");
    t->name = xstrdup(name, "report table");
    t->experiment = xstrdup(experiment, "report table");
    t->stage = xstrdup(stage, "report table");
    t->title = xstrdup(title, "report table");
    return t;
}

void rt_free(report_table *t) {
    if (!t) return;
    for (int i = 0; i < t->ncols; i++) free(t->header[i]);
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i].text);
    free(t->header), free(t->right), free(t->kind), free(t->cells);
    free(t->name), free(t->experiment), free(t->stage), free(t->title), free(t);
}

static void *grow(void *p, size_t n, size_t size) {
    void *q = realloc(p, n * size);
    if (!q) die_fail("out of memory building a report table");
    return q;
}

void rt_col(report_table *t, const char *header, int right, rt_kind kind) {
    if (t->nrows) die_fail("report table %s: a column added after its rows", t->name);
    t->header = grow(t->header, (size_t)t->ncols + 1, sizeof *t->header);
    t->right = grow(t->right, (size_t)t->ncols + 1, sizeof *t->right);
    t->kind = grow(t->kind, (size_t)t->ncols + 1, sizeof *t->kind);
    t->header[t->ncols] = xstrdup(header, "report table");
    t->right[t->ncols] = right;
    t->kind[t->ncols++] = kind;
}

void rt_row(report_table *t) {
    t->cells = grow(t->cells, (size_t)(t->nrows + 1) * (size_t)t->ncols + 1, sizeof *t->cells);
    for (int c = 0; c < t->ncols; c++) t->cells[t->nrows * t->ncols + c] = (rt_cell){NULL, NAN, NAN};
    t->nrows++;
    t->filled = 0;
}

static rt_cell *next_cell(report_table *t) {
    if (t->nrows == 0 || t->filled >= t->ncols) die_fail("report table %s: more cells than columns", t->name);
    return &t->cells[(t->nrows - 1) * t->ncols + t->filled++];
}

void rt_text(report_table *t, const char *text) { next_cell(t)->text = xstrdup(text, "report table"); }

void rt_count(report_table *t, int n) {
    char s[32];
    snprintf(s, sizeof s, "%d", n);
    rt_cell *c = next_cell(t);
    c->text = xstrdup(s, "report table"), c->mean = n;
}

void rt_stats(report_table *t, const char *text, double mean, double std) {
    rt_cell *c = next_cell(t);
    c->text = xstrdup(text, "report table"), c->mean = mean, c->std = std;
}

static const char *cell_text(const rt_cell *c) { return c->text ? c->text : ""; }

// ---- Markdown -------------------------------------------------------------------------
void rt_md_cell(FILE *f, const char *text) { // one line, '|' escaped (bench/text/markdown_text.h)
    fputc(' ', f);
    md_cell(f, text);
    fputs(" |", f);
}

char *rt_markdown(const report_table *t) {
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    fputc('|', f);
    for (int c = 0; c < t->ncols; c++) rt_md_cell(f, t->header[c]);
    fputs("\n|", f);
    for (int c = 0; c < t->ncols; c++) fputs(t->right[c] ? "---:|" : "---|", f);
    fputc('\n', f);
    for (int r = 0; r < t->nrows; r++) {
        fputc('|', f);
        for (int c = 0; c < t->ncols; c++) rt_md_cell(f, cell_text(&t->cells[r * t->ncols + c]));
        fputc('\n', f);
    }
    if (fclose(f) != 0) die_fail("report: cannot build a table: %s", strerror(errno));
    return s;
}

// ---- CSV and JSON ---------------------------------------------------------------------
static void csv_number(FILE *out, double v) {
    char num[40];
    export_number(v, num, sizeof num); // "" when not finite
    fputs(num, out);
}

static void json_number(FILE *out, double v) {
    char num[40];
    export_number(v, num, sizeof num);
    fputs(num[0] ? num : "null", out);
}

int rt_csv(const report_table *t, FILE *out) {
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputc(',', out);
        if (t->kind[c] != RT_STATS) {
            export_csv_field(out, t->header[c]);
            continue;
        }
        size_t len = strlen(t->header[c]) + 8;
        char *h = xmalloc(len, "header");
        export_csv_field(out, t->header[c]); // the mean: the metric's one column name, as in export
        fputc(',', out);
        snprintf(h, len, "%s std", t->header[c]);
        export_csv_field(out, h);
        free(h);
    }
    fputs("\r\n", out);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const rt_cell *cell = &t->cells[r * t->ncols + c];
            if (c) fputc(',', out);
            if (t->kind[c] == RT_TEXT) export_csv_field(out, cell_text(cell));
            else if (t->kind[c] == RT_COUNT) csv_number(out, cell->mean);
            else csv_number(out, cell->mean), fputc(',', out), csv_number(out, cell->std);
        }
        fputs("\r\n", out);
    }
    return ferror(out) ? -1 : 0;
}

int rt_json(const report_table *t, FILE *out) {
    fputs("{\"name\": ", out), export_json_string(out, t->name);
    fputs(", \"experiment\": ", out), export_json_string(out, t->experiment);
    fputs(", \"stage\": ", out), export_json_string(out, t->stage);
    fputs(", \"title\": ", out), export_json_string(out, t->title);
    fputs(", \"columns\": [", out);
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputs(", ", out);
        export_json_string(out, t->header[c]);
    }
    fputs("], \"rows\": [", out);
    for (int r = 0; r < t->nrows; r++) {
        fputs(r ? ",\n  {" : "\n  {", out);
        for (int c = 0; c < t->ncols; c++) {
            const rt_cell *cell = &t->cells[r * t->ncols + c];
            if (c) fputs(", ", out);
            export_json_string(out, t->header[c]);
            fputs(": ", out);
            if (t->kind[c] == RT_TEXT) export_json_string(out, cell_text(cell));
            else if (t->kind[c] == RT_COUNT) json_number(out, cell->mean);
            else {
                fputs("{\"mean\": ", out), json_number(out, cell->mean);
                fputs(", \"std\": ", out), json_number(out, cell->std), fputc('}', out);
            }
        }
        fputc('}', out);
    }
    fputs(t->nrows ? "\n]}" : "]}", out);
    return ferror(out) ? -1 : 0;
}
