// bench/results/export.c — `posbench export`'s tables (runs, long-form series) and their CSV
// (RFC 4180) and JSON (RFC 8259) writers (columns and rules in export.h).
#include "export.h"
#include "run_metrics.h"
#include "../config/config.h"
#include "../../core/common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- cells and the two writers ----------------------------------------------------------
typedef struct {
    char kind;        // 0 empty, 'n' a double, 'i' an integer (text), 's' a string, 'b' a boolean (text)
    double num;
    const char *text; // 'i', 's' (not owned)
} cell;

void export_number(double v, char *buf, size_t len) {
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", "");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) { // a whole number as one (steps 10, 20, ...: never "1e+01")
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int p = 1; p <= 17; p++) { // the shortest that reads back as v (17 always does)
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

void export_csv_field(FILE *out, const char *text) {
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

// The length of the valid UTF-8 sequence at p (1-4), or 0 when it is not one.
static int utf8_len(const unsigned char *p) {
    int n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 2 && p[0] < 0xC2) return 0; // overlong
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0; // overlong, surrogates
    if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || p[0] > 0xF4 || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
    return n;
}

void export_json_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        int n = utf8_len(p);
        if (n == 0) { // not UTF-8: U+FFFD, as a JSON reader would decode it
            fputs("\\ufffd", out), p++;
        } else if (*p == '"' || *p == '\\') {
            fputc('\\', out), fputc(*p, out), p++;
        } else if (*p == '\n') {
            fputs("\\n", out), p++;
        } else if (*p == '\t') {
            fputs("\\t", out), p++;
        } else if (*p == '\r') {
            fputs("\\r", out), p++;
        } else if (*p < 0x20 || *p == 0x7F) {
            fprintf(out, "\\u%04x", *p), p++;
        } else {
            fwrite(p, 1, (size_t)n, out), p += n;
        }
    }
    fputc('"', out);
}

static void write_cell(FILE *out, export_format fmt, const cell *c) {
    char num[40];
    if (c->kind == 'n') export_number(c->num, num, sizeof num);
    const char *text = c->kind == 'n' ? num : c->kind ? c->text : "";
    if (fmt == EXPORT_CSV) export_csv_field(out, text);
    else if (c->kind == 's') export_json_string(out, text);
    else if (c->kind == 'b') fputs(text, out); // true / false
    else fputs(text[0] ? text : "null", out); // numbers; empty and non-finite: null
}

// The header (CSV) or the start of the array (JSON).
static void write_start(FILE *out, export_format fmt, char *const *cols, int ncols) {
    if (fmt == EXPORT_JSON) {
        fputc('[', out);
        return;
    }
    for (int c = 0; c < ncols; c++) {
        if (c) fputc(',', out);
        export_csv_field(out, cols[c]);
    }
    fputs("\r\n", out);
}

static void write_row(FILE *out, export_format fmt, char *const *cols, int ncols, const cell *row, long index) {
    if (fmt == EXPORT_JSON) fputs(index ? ",\n{" : "\n{", out);
    for (int c = 0; c < ncols; c++) {
        if (fmt == EXPORT_JSON) {
            if (c) fputs(", ", out);
            export_json_string(out, cols[c]);
            fputs(": ", out);
        } else if (c) {
            fputc(',', out);
        }
        write_cell(out, fmt, &row[c]);
    }
    fputs(fmt == EXPORT_JSON ? "}" : "\r\n", out);
}

static void write_end(FILE *out, export_format fmt) {
    if (fmt == EXPORT_JSON) fputs("\n]\n", out);
}

// ---- the runs table ---------------------------------------------------------------------
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// Adds name to the list unless it is there (linear: a few hundred columns at most).
static void add_name(char ***names, int *n, int *cap, const char *name) {
    for (int i = 0; i < *n; i++)
        if (!strcmp((*names)[i], name)) return;
    rr_grow((void **)names, *n, cap, sizeof **names);
    (*names)[(*n)++] = xstrdup(name, "export column");
}

static int find_name(char *const *names, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

// A numeric /final attribute as its column: its column name (metric_column_name: the report's
// column header, "top1 (%)", "step (ms)") and the value in that unit when the run's metric table
// gives a unit, else (no entry, or no unit) the stored value, an integer kept as one.
static void metric_column(const metric_info *table, const rr_attr *a, char *name, size_t len, cell *c) {
    const metric_info *m = table ? metric_info_match(table, a->name) : NULL;
    metric_column_name(m, a->name, name, len);
    if (m && m->unit && m->unit[0]) {
        c->kind = 'n', c->num = a->num * (m->scale != 0 ? m->scale : 1.0);
    } else {
        if (a->type == 'i') c->kind = 'i', c->text = a->text;
        else c->kind = 'n', c->num = a->num;
    }
}

static int is_metric(const rr_attr *a) { return (a->type == 'i' || a->type == 'd') && strcmp(a->name, "metric_info"); }

// The run's own metric table (NULL when it has none or it does not parse).
static metric_info *run_table(const rr_run *r) {
    const rr_attr *a = rr_attr_get(&r->final, "metric_info");
    char err[256];
    return a && a->type == 's' ? run_metrics_parse(a->text, err, sizeof err) : NULL;
}

// The file name of path without directory and ".h5" (the run id of a file without one).
static const char *file_stem(const char *path, char *buf, size_t len) {
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    snprintf(buf, len, "%.*s", (int)(n > 3 && !strcmp(base + n - 3, ".h5") ? n - 3 : n), base);
    return buf;
}

enum { FIXED = 6 }; // run_id, experiment, stage, status, seed, path

int export_is_bool_key(const char *name) {
    for (const char *k = name; k; k = strchr(k, '.') ? strchr(k, '.') + 1 : NULL) { // "pretrain.eval.knn": a parent's copy
        int i = cfg_index(k);
        if (i >= 0) return cfg_keys[i].type == CFG_BOOL;
    }
    return 0;
}

// A /config attribute as its cell: a boolean key's 0/1 as false/true, an integer as one.
static cell config_cell(const rr_attr *a) {
    if (a->type == 'i' && export_is_bool_key(a->name)) return (cell){.kind = 'b', .text = a->num != 0 ? "true" : "false"};
    if (a->type == 'i') return (cell){.kind = 'i', .text = a->text};
    if (a->type == 'd') return (cell){.kind = 'n', .num = a->num};
    return (cell){.kind = 's', .text = a->text};
}

static int same_cell(const cell *a, const cell *b) {
    if (a->kind != b->kind) return 0;
    if (a->kind == 'n') return a->num == b->num || (isnan(a->num) && isnan(b->num));
    return !a->kind || !strcmp(a->text, b->text);
}

// Whether /config key `key` has one cell (value, or absence) in every run of set.
static int constant_key(const rr_set *set, const char *key) {
    cell first = {0};
    for (int r = 0; r < set->nruns; r++) {
        const rr_attr *a = rr_attr_get(&set->runs[r].config, key);
        cell c = a ? config_cell(a) : (cell){0};
        if (r == 0) first = c;
        else if (!same_cell(&first, &c)) return 0;
    }
    return 1;
}

int export_runs(const rr_set *set, export_format fmt, int varying, FILE *out) {
    char **keys = NULL, **metrics = NULL, name[512];
    int nkeys = 0, kcap = 0, nmetrics = 0, mcap = 0;
    metric_info **tables = xcalloc((size_t)set->nruns + 1, sizeof *tables, "export metric tables");
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        tables[r] = run_table(run);
        for (int i = 0; i < run->config.n; i++) add_name(&keys, &nkeys, &kcap, run->config.items[i].name);
        for (int i = 0; i < run->final.n; i++) {
            cell c;
            if (!is_metric(&run->final.items[i])) continue;
            metric_column(tables[r], &run->final.items[i], name, sizeof name, &c);
            add_name(&metrics, &nmetrics, &mcap, name);
        }
    }
    if (varying && set->nruns > 1) // only the keys whose value differs between the runs
        for (int k = 0; k < nkeys;) {
            if (!constant_key(set, keys[k])) {
                k++;
                continue;
            }
            free(keys[k]);
            keys[k] = keys[--nkeys];
        }
    if (nkeys > 1) qsort(keys, (size_t)nkeys, sizeof *keys, cmp_str);
    if (nmetrics > 1) qsort(metrics, (size_t)nmetrics, sizeof *metrics, cmp_str);
    int ncols = FIXED + nkeys + nmetrics;
    char **cols = xcalloc((size_t)ncols, sizeof *cols, "export columns");
    static const char *fixed[FIXED] = {"run_id", "experiment", "stage", "status", "seed", "path"};
    for (int c = 0; c < FIXED; c++) cols[c] = (char *)fixed[c];
    for (int c = 0; c < nkeys; c++) cols[FIXED + c] = keys[c];
    for (int c = 0; c < nmetrics; c++) cols[FIXED + nkeys + c] = metrics[c];
    cell *row = xcalloc((size_t)ncols, sizeof *row, "export row");
    write_start(out, fmt, cols, ncols);
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        char stem[512], seed[32];
        memset(row, 0, (size_t)ncols * sizeof *row);
        const char *fixed_text[FIXED] = {rr_attr_text(&run->root, "run_id", file_stem(run->path, stem, sizeof stem)),
                                         rr_attr_text(&run->root, "experiment", ""), rr_attr_text(&run->root, "stage", ""),
                                         rr_run_status(run), NULL, run->path};
        snprintf(seed, sizeof seed, "%ld", rr_run_seed(run));
        for (int c = 0; c < FIXED; c++) row[c] = (cell){.kind = c == 4 ? 'i' : 's', .text = c == 4 ? seed : fixed_text[c]};
        for (int i = 0; i < run->config.n; i++) {
            const rr_attr *a = &run->config.items[i];
            int k = find_name(keys, nkeys, a->name);
            if (k >= 0) row[FIXED + k] = config_cell(a);
        }
        for (int i = 0; i < run->final.n; i++) {
            cell c = {0};
            if (!is_metric(&run->final.items[i])) continue;
            metric_column(tables[r], &run->final.items[i], name, sizeof name, &c);
            row[FIXED + nkeys + find_name(metrics, nmetrics, name)] = c;
        }
        write_row(out, fmt, cols, ncols, row, r);
    }
    write_end(out, fmt);
    for (int r = 0; r < set->nruns; r++) free(tables[r]);
    for (int c = 0; c < nkeys; c++) free(keys[c]);
    for (int c = 0; c < nmetrics; c++) free(metrics[c]);
    free(tables), free(keys), free(metrics), free(cols), free(row);
    return ferror(out) ? -1 : 0;
}

// ---- the series, long form --------------------------------------------------------------
int export_series(const rr_set *set, export_format fmt, FILE *out) {
    static char *cols[5] = {"run_id", "series", "step", "epoch", "value"};
    write_start(out, fmt, cols, 5);
    long index = 0;
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        char stem[512], series[512];
        const char *id = rr_attr_text(&run->root, "run_id", file_stem(run->path, stem, sizeof stem));
        for (int g = 0; g < 2; g++) {
            const rr_series *s = g ? &run->eval : &run->train;
            const rr_column *step = rr_column_get(s, "step"), *epoch = rr_column_get(s, "epoch");
            for (int c = 0; c < s->ncols; c++) {
                const rr_column *col = &s->cols[c];
                if (col == step || col == epoch) continue;
                snprintf(series, sizeof series, "%s/%s", g ? "eval" : "train", col->name);
                for (long i = 0; i < col->n; i++) {
                    cell row[5] = {{.kind = 's', .text = id}, {.kind = 's', .text = series}, {0}, {0}, {.kind = 'n', .num = col->v[i]}};
                    if (step && i < step->n) row[2] = (cell){.kind = 'n', .num = step->v[i]};
                    if (epoch && i < epoch->n) row[3] = (cell){.kind = 'n', .num = epoch->v[i]};
                    write_row(out, fmt, cols, 5, row, index++);
                }
            }
        }
    }
    write_end(out, fmt);
    return ferror(out) ? -1 : 0;
}
