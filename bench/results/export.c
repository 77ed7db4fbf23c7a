// bench/results/export.c — `posbench export`'s tables (runs, long-form series) and their CSV
// (RFC 4180) and JSON (RFC 8259) writers (columns and rules in export.h).
#include "export.h"
#include "run_metrics.h"
#include "../config/config.h"
#include "text_index.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- cells and the two writers ----------------------------------------------------------
// text with every byte that is not part of valid UTF-8 as "\xNN" (C1 controls are valid UTF-8 and
// kept: CSV and JSON readers decode them), malloc'd.
static char *visible_invalid(const char *text) {
    size_t len = 4 * strlen(text) + 1, o = 0;
    char *out = xmalloc(len, "export field");
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        int n = text_char_length(p);
        if (n == 0 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) n = 2; // a C1 control: valid UTF-8
        if (n == 0) o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p), p++;
        else memcpy(out + o, p, (size_t)n), o += (size_t)n, p += n;
    }
    out[o] = '\0';
    return out;
}
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
    // Valid UTF-8 whatever the bytes: a byte that is not is written as a visible "\xNN" (a Latin-1
    // path never makes the whole file undecodable); the text is quoted per RFC 4180 when it must be.
    char *shown = NULL;
    for (const unsigned char *p = (const unsigned char *)text; *p && !shown; p++)
        if (*p >= 0x80) shown = visible_invalid(text);
    const char *t = shown ? shown : text;
    if (!strpbrk(t, ",\"\r\n")) {
        fputs(t, out);
    } else {
        fputc('"', out);
        for (const char *p = t; *p; p++) {
            if (*p == '"') fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    }
    free(shown);
}

void export_json_string(FILE *out, const char *text) {
    char *shown = visible_invalid(text); // as in the CSV: a byte that is not UTF-8 as a visible \xNN
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)shown; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', out), fputc(*p, out);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p == '\r') fputs("\\r", out);
        else if (*p < 0x20 || *p == 0x7F) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
    free(shown);
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
static const char *const fixed_names[FIXED] = {"run_id", "experiment", "stage", "status", "seed", "path"};

// A growing list of column names with a hash of them (one lookup per attribute of every run).
typedef struct {
    char **names;
    int n, cap;
    text_index index;
} column_set;

static void columns_add(column_set *c, const char *name) {
    if (ti_put(&c->index, name, c->n) != c->n) return;
    rr_grow((void **)&c->names, c->n, &c->cap, sizeof *c->names);
    c->names[c->n++] = xstrdup(name, "export column");
}

static void columns_free(column_set *c) {
    for (int i = 0; i < c->n; i++) free(c->names[i]);
    free(c->names);
    ti_free(&c->index);
}

// The column of a /config key: the key, or "/config/<key>" when it is a fixed column's name (a
// foreign file's /config run_id or status never shadows the fixed column of every run).
static void config_column(const char *key, char *out, size_t len) {
    int fixed = 0;
    for (int c = 0; c < FIXED; c++) fixed |= !strcmp(key, fixed_names[c]);
    snprintf(out, len, "%s%s", fixed ? "/config/" : "", key);
}

// The column of a metric column name: itself, or "/final/<name>" when a fixed or /config column
// has that name.
static void final_column(const text_index *taken, const char *name, char *out, size_t len) {
    snprintf(out, len, "%s%s", ti_get(taken, name) >= 0 ? "/final/" : "", name);
}

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

// Whether the /config key of column `column` ("/config/<key>" for a fixed column's name) has one
// cell (value, or absence) in every run of set.
static int constant_key(const rr_set *set, const char *column) {
    const char *key = strncmp(column, "/config/", 8) ? column : column + 8;
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
    char name[600], column[700];
    column_set keys = {0}, metrics = {0};
    text_index taken = {0}; // the fixed and /config columns' names
    for (int c = 0; c < FIXED; c++) ti_put(&taken, fixed_names[c], c);
    metric_info **tables = xcalloc((size_t)set->nruns + 1, sizeof *tables, "export metric tables");
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        tables[r] = run_table(run);
        for (int i = 0; i < run->config.n; i++) {
            config_column(run->config.items[i].name, column, sizeof column);
            columns_add(&keys, column), ti_put(&taken, column, 0);
        }
    }
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        for (int i = 0; i < run->final.n; i++) {
            cell c;
            if (!is_metric(&run->final.items[i])) continue;
            metric_column(tables[r], &run->final.items[i], name, sizeof name, &c);
            final_column(&taken, name, column, sizeof column);
            columns_add(&metrics, column);
        }
    }
    if (varying && set->nruns > 1) { // only the keys whose value differs between the runs
        column_set kept = {0};
        for (int k = 0; k < keys.n; k++)
            if (!constant_key(set, keys.names[k])) columns_add(&kept, keys.names[k]);
        columns_free(&keys);
        keys = kept;
    }
    if (keys.n > 1) qsort(keys.names, (size_t)keys.n, sizeof *keys.names, cmp_str);
    if (metrics.n > 1) qsort(metrics.names, (size_t)metrics.n, sizeof *metrics.names, cmp_str);
    int ncols = FIXED + keys.n + metrics.n;
    char **cols = xcalloc((size_t)ncols, sizeof *cols, "export columns");
    text_index where = {0}; // column name -> index
    for (int c = 0; c < FIXED; c++) cols[c] = (char *)fixed_names[c];
    for (int c = 0; c < keys.n; c++) cols[FIXED + c] = keys.names[c];
    for (int c = 0; c < metrics.n; c++) cols[FIXED + keys.n + c] = metrics.names[c];
    for (int c = 0; c < ncols; c++) ti_put(&where, cols[c], c);
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
            config_column(a->name, column, sizeof column);
            int k = ti_get(&where, column);
            if (k >= 0) row[k] = config_cell(a); // absent: a constant key left out by `varying`
        }
        for (int i = 0; i < run->final.n; i++) {
            cell c = {0};
            if (!is_metric(&run->final.items[i])) continue;
            metric_column(tables[r], &run->final.items[i], name, sizeof name, &c);
            final_column(&taken, name, column, sizeof column);
            row[ti_get(&where, column)] = c;
        }
        write_row(out, fmt, cols, ncols, row, r);
    }
    write_end(out, fmt);
    for (int r = 0; r < set->nruns; r++) free(tables[r]);
    columns_free(&keys), columns_free(&metrics), ti_free(&taken), ti_free(&where);
    free(tables), free(cols), free(row);
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
