// bench/report/report_table.h — one table of `posbench report` (a stage's metrics, a per-size
// table) kept as cells, so the same table is written as Markdown (REPORT.md), CSV and JSON
// (`posbench report --format md,csv,json`).
// Columns: a header (the Markdown header, e.g. "top1 (%)"), right-aligned or not, and a kind:
//   RT_TEXT   the cell's text in every format (axes, budgets, paper numbers, status)
//   RT_COUNT  an integer (n): a JSON number
//   RT_STATS  a metric: Markdown shows the formatted "M ± S" text; CSV has two columns,
//             "<header>" (the mean, under the metric's one column name, the same as `posbench
//             export`'s: objectives/metric.h) and "<header> std", and JSON an object {"mean": M, "std": S}, the
//             numbers in the header's unit (the stored value × the metric's scale, shortest
//             round-trip decimal); std is empty / null when n < 2 or the metric is mean-only,
//             both when no run is done.
// CSV: RFC 4180 (CRLF, quoted when needed: bench/results/export.h); JSON: an object
//   {"name", "experiment", "stage", "title", "columns": [...], "rows": [{header: value}, ...]}.
#pragma once
#include <stdio.h>

typedef enum { RT_TEXT, RT_COUNT, RT_STATS } rt_kind;

typedef struct {
    char *text;       // what Markdown shows
    double mean, std; // RT_STATS, RT_COUNT (mean): NaN when absent
} rt_cell;

typedef struct {
    char *name;       // a file-name stem, unique in the report: "<experiment>_<stage>[_<what>]"
    char *experiment, *stage, *title;
    int ncols, nrows;
    char **header;
    int *right;
    rt_kind *kind;
    rt_cell *cells; // (nrows, ncols)
    int filled;     // cells of the last row written so far
} report_table;

report_table *rt_new(const char *name, const char *experiment, const char *stage, const char *title);
void rt_free(report_table *t);
void rt_col(report_table *t, const char *header, int right, rt_kind kind);
void rt_row(report_table *t); // starts a row; its cells follow in column order
void rt_text(report_table *t, const char *text);
void rt_count(report_table *t, int n);
void rt_stats(report_table *t, const char *text, double mean, double std);

// The Markdown table (header, separator, rows; each cell one line with '|' escaped: bench/text/markdown_text.h's md_cell), malloc'd.
char *rt_markdown(const report_table *t);
// One Markdown table cell, " text |": '|' escaped, newlines and tabs flattened to spaces.
void rt_md_cell(FILE *f, const char *text);
// RFC 4180 CSV / one JSON object. 0, or -1 when a write failed.
int rt_csv(const report_table *t, FILE *out);
int rt_json(const report_table *t, FILE *out);
