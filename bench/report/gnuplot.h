// bench/report/gnuplot.h — running gnuplot on the scripts in plots/: finding gnuplot and
// plots/, the variables a script takes (passed with gnuplot -e), and one figure as PNG, SVG and PDF.
// Used by `posbench plot` (plot.c) and `posbench bench --history` (bench/perf/history.c).
#pragma once
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#define GP_MAX_VARS 128

typedef struct {
    int n;
    char *text[GP_MAX_VARS]; // "name=value" in gnuplot syntax
} gp_vars;

typedef struct {
    char gnuplot[PATH_MAX]; // the executable (from PATH)
    char plots[PATH_MAX];   // the folder with the *.gp scripts
} gp_tools;

// Adds name=<printf result> (a number or an expression) / name='s' (a gnuplot string, one line: below).
void gp_var(gp_vars *v, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void gp_var_str(gp_vars *v, const char *name, const char *s);
// Adds name="path": a file gnuplot opens, its bytes exact (octal escapes: gnuplot.c).
void gp_var_path(gp_vars *v, const char *name, const char *path);
void gp_vars_free(gp_vars *v);

// Finds gnuplot in PATH and plots/ ($POSBENCH_PLOTS, ../plots beside the executable, ./plots).
// 0, or -1 with what is missing and how to get it in err.
int gp_find(gp_tools *t, char *err, size_t errlen);

// One gnuplot process: the variables, then plots/<kind>.gp loaded with term='png', term='svg' and
// term='pdf' (pdfcairo), writing <dir>/<base>.png, .svg and .pdf: to temporary names first, which
// replace the three files only when gnuplot exited 0 and each is complete (gp_output_complete).
// 0 (and "figure ..." printed) then (anything gnuplot printed, a warning included, is passed on
// to stderr as "posbench: gnuplot (<base>): ..."); EXIT_RUN_FAILED with gnuplot's output or the
// incomplete file named otherwise, the figure's earlier files untouched.
int gp_render(const gp_tools *t, const char *kind, const char *dir, const char *base, gp_vars *v);

// 1 when the file at path ends as a complete file of its format ext ("png": the IEND chunk;
// "svg": "</svg>"; "pdf": "%%EOF"; trailing blanks allowed), 0 when it is missing, empty or cut.
int gp_output_complete(const char *path, const char *ext);

// Creates the directory path (its parent must exist; an existing one is fine). 0, or -1 with
// "posbench: error: cannot create PATH: why" printed.
int gp_make_dir(const char *path);

// Text from files (stage names, axis values, labels, paths) in what gnuplot reads, one escaper per
// place, so no value can add a point, a line or a command (controls, a newline among them, and
// bytes that are not UTF-8 become a visible "\xNN": core/visible_text.h):
//   gp_var_str     a -e variable: one line, in single quotes ('' for ');
//   gp_var_path    a -e variable naming a file: its exact bytes, controls as octal escapes;
//   gp_data_string a data file's string column: in double quotes, '"' as "\x22";
//   gp_comment     a data file's "# ..." line from a printf format: one line, then '\n'.
void gp_data_string(FILE *f, const char *s);
void gp_comment(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// File names: every character other than letters, digits, '.', '-', '_' becomes '_'.
void gp_sanitize(char *s);
