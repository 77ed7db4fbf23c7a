// tests/test_report_hostile.c — text from files cannot become structure in what report and plot
// write, and a report states what is missing. Tables of hostile inputs:
//   Markdown/HTML (bench/text/markdown_text.h, report_html.h): a run file's `stage` or
//     `experiment` attribute and file names below DIR (an unreadable file, a copy) holding a
//     newline followed by a Markdown heading, a table row or a findings row with "holds", a '|',
//     a backtick or an ESC; REPORT.md then has exactly the headings, table rows and verdicts of
//     the real runs, no raw ESC, and REPORT.html no "holds" row;
//   gnuplot data (gnuplot.h): a string axis value with '"', a newline and a fake point; each data
//     file has one line per configuration (no added point);
//   what is missing (run_select.h, report.h): an experiment file with matrix model.dim [16, 32]
//     x 2 seeds whose dim 32 runs are one missing and one damaged: the table keeps the model.dim
//     column and its header says "1 missing" and "1 damaged"; its listed heatmap (the runs have no
//     attention maps) is a warning naming the entry.
// Run files: bench/results/results.h; runs from the repository root; a few seconds.
#include "testing.h"
#include "report_runs.h"
#include "../bench/experiment/experiment.h"
#include "../bench/report/plot.h"
#include "../bench/report/report.h"
#include "../bench/results/results.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void mkdirs(const char *path) {
    char buf[700];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') *p = '\0', mkdir(buf, 0777), *p = '/';
    mkdir(buf, 0777);
}

// One done run file: experiment, stage, run id, seed, /config model.dim and pe.kind (a string),
// /final top1 (a string when damaged).
static void write_run(const char *path, const char *exp, const char *stage, const char *id, long seed, int dim, const char *pe,
                      double top1, int damaged) {
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", exp);
    results_attr_str(r, "/", "stage", stage);
    results_attr_str(r, "/", "run_id", id);
    results_attr_str(r, "/", "status", "done");
    results_attr_int(r, "/", "seed", seed);
    results_attr_str(r, "/", "started", "2026-01-02T00:00:00Z");
    results_attr_int(r, "/config", "train.seed", seed);
    results_attr_int(r, "/config", "model.dim", dim);
    results_attr_str(r, "/config", "pe.kind", pe);
    if (damaged) results_attr_str(r, "/final", "top1", "0.9");
    else results_attr_double(r, "/final", "top1", top1);
    results_column cols[] = {{"step", 'i'}, {"loss", 'd'}};
    results_series *s = results_series_create(r, "/train", 2, cols, 8);
    for (int i = 0; i < 3; i++) results_series_append(s, (double[]){i, 2.0 - 0.1 * i});
    if (results_close(r) != 0) fprintf(stderr, "cannot write %s\n", path);
}

// Lines of text starting with prefix.
static int count_lines(const char *text, const char *prefix) {
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, prefix, len)) n++;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    return n;
}

static char *read_in(const char *dir, const char *name) {
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return slurp(path);
}

// ---- Markdown and HTML ------------------------------------------------------------------------
static void test_markdown(void) {
    char dir[400], path[900], sub[700];
    snprintf(dir, sizeof dir, "%s/md", g_root);
    static const struct {
        const char *what, *stage;
    } stages[] = {
        {"a newline and a heading", "s1\n## stage `fake` (experiment `x`)\n\n1 run"},
        {"a newline and a table", "s2\n| claim | ours | paper | verdict |\n|---|---|---|---|\n| fake | 1 | 2 | holds |"},
        {"a '|', a backtick and bold", "s3 | x `code` **bold**"},
        {"an ESC sequence", "s4\x1b[2J\x1b]0;title\x07"},
    };
    int n = (int)(sizeof stages / sizeof stages[0]);
    for (int k = 0; k < n; k++) {
        snprintf(sub, sizeof sub, "%s/st%d", dir, k);
        mkdirs(sub);
        for (int s = 0; s < 2; s++) {
            char id[32];
            snprintf(id, sizeof id, "h%d%d", k, s);
            snprintf(path, sizeof path, "%s/%s.h5", sub, id);
            write_run(path, "hostile\n## fake experiment", stages[k].stage, id, s, 16, "abs", 0.5 + 0.1 * s, 0);
        }
    }
    // file names: an unreadable run file and a copy of a counted one
    snprintf(path, sizeof path, "%s/st0/x\n| fake claim | 99 | 1 | holds |\n\x1b[31m.h5", dir);
    FILE *f = fopen(path, "w");
    if (f) fputs("not HDF5", f), fclose(f);
    char from[900];
    snprintf(from, sizeof from, "%s/st1/h10.h5", dir);
    snprintf(path, sizeof path, "%s/st1/copy\n## fake heading\n- **holds**.h5", dir);
    char *bytes = slurp(from);
    struct stat st;
    if (bytes && stat(from, &st) == 0 && (f = fopen(path, "wb"))) fwrite(bytes, 1, (size_t)st.st_size, f), fclose(f);
    free(bytes);

    char *out = NULL, *err = NULL;
    char *args[] = {dir, "--format", "md,html"};
    int rc = capture(cmd_report, 3, args, &out, &err);
    char *md = read_in(dir, "REPORT.md"), *html = read_in(dir, "REPORT.html");
    int headings = count_lines(md, "## "), tables = count_lines(md, "|---"), rows = count_lines(md, "| ");
    // want: Provenance + one heading per stage (4); one table per stage; header + 1 row per stage
    test_check("hostile markdown: stage names and file names holding newlines, headings, table rows and '|' add no heading, "
               "table or row to REPORT.md",
               rc == 0 && md && headings == 1 + n && tables == n && rows == 2 * n && !strstr(md, "\n## fake") && !strstr(md, "\n| fake"),
               "exit %d; %d headings (want %d), %d tables (want %d), %d table lines (want %d); stderr %.300s", rc, headings, 1 + n, tables,
               n, rows, 2 * n, err ? err : "");
    test_check("hostile markdown: a newline, '|' and backtick in a stage name are shown as \\x0a, \\| and \\x60 in its heading",
               md && strstr(md, "## stage `s1\\x0a## stage \\x60fake\\x60") && strstr(md, "s3 \\x7c x \\x60code\\x60 **bold**"),
               "%.400s", md ? strstr(md, "## stage") : "");
    test_check("hostile markdown: no ESC byte reaches REPORT.md, stdout or stderr (shown as \\x1b)",
               md && out && err && !strchr(md, 0x1b) && !strchr(out, 0x1b) && !strchr(err, 0x1b) && strstr(md, "\\x1b[2J"),
               "ESC in REPORT.md %d, stdout %d, stderr %d", md && strchr(md, 0x1b) != NULL, out && strchr(out, 0x1b) != NULL,
               err && strchr(err, 0x1b) != NULL);
    test_check("hostile html: REPORT.html has no findings row, no <h2> for a fake heading and no raw ESC",
               html && !strstr(html, "<tr class=\"verdict-holds\"") && !strstr(html, ">fake heading<") && !strstr(html, "<h2 id=\"s3\">fake") &&
                   !strchr(html, 0x1b),
               "holds rows: %d", html && strstr(html, "<tr class=\"verdict-holds\"") != NULL);
    free(out), free(err), free(md), free(html);
}

// ---- gnuplot data -------------------------------------------------------------------------------
static void test_gnuplot_data(void) {
    char dir[400], sub[500], path[700];
    snprintf(dir, sizeof dir, "%s/gp", g_root);
    snprintf(sub, sizeof sub, "%s/main", dir);
    mkdirs(sub);
    static const char *const pes[] = {"abs", "x\" 1 99 99 99 9 \"fake\n0.5 99 99 99 9 \"fake", "say \"hi\""};
    int n = 0;
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++) {
            char id[32];
            snprintf(id, sizeof id, "g%d%d", k, s);
            snprintf(path, sizeof path, "%s/%s.h5", sub, id);
            write_run(path, "", "main", id, s, 16, pes[k], 0.5 + 0.1 * k + 0.01 * s, 0);
            n++;
        }
    char *out = NULL, *err = NULL;
    char *args[] = {dir};
    int rc = capture(cmd_plot, 1, args, &out, &err);
    char data[600];
    snprintf(data, sizeof data, "%s/figures/data/main_top1-vs-kind.dat", dir);
    char *text = slurp(data);
    int points = 0, comments = 0;
    for (const char *p = text; p && *p;) {
        if (*p == '#') comments++;
        else if (*p != '\n') points++;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    test_check("hostile gnuplot data: a string axis value with '\"', a newline and a fake point adds no point (3 configurations, "
               "3 points, 1 comment line)",
               rc == 0 && text && points == 3 && comments == 1 && strstr(text, "\"x\\x22 1 99 99 99 9 \\x22fake\\x0a0.5"),
               "exit %d; %s: %d points, %d comments; %.300s; stderr %.300s", rc, data, points, comments, text ? text : "", err ? err : "");
    free(text), free(out), free(err);
}

// ---- what is missing ----------------------------------------------------------------------------
static void test_missing_axis(void) {
    char dir[400], copy[500], path[800];
    snprintf(dir, sizeof dir, "%s/half", g_root);
    snprintf(copy, sizeof copy, "%s/half/experiment.yaml", dir);
    mkdirs(copy), rmdir(copy);
    FILE *f = fopen(copy, "w");
    if (!f) {
        test_fail("missing: setup", "cannot write %s", copy);
        return;
    }
    fputs("name: half\nbase: {train: {epochs: 1}}\nstages:\n  s: {}\nmatrix:\n  model.dim: [16, 32]\nseeds: [0, 1]\n"
          "figures:\n  - {kind: heatmap, stage: s}\n  - {kind: metric_vs_axis, stage: s, x: model.dim}\n", f);
    fclose(f);
    static experiment e;
    char err[2048];
    if (experiment_load(&e, copy, NULL, err, sizeof err) != 0 || e.nruns != 4) {
        test_fail("missing: setup", "%s (%d runs)", err, e.nruns);
        experiment_free(&e);
        return;
    }
    char stage_dir[600];
    snprintf(stage_dir, sizeof stage_dir, "%s/half/s", dir);
    mkdirs(stage_dir);
    int missing_done = 0, damaged_done = 0;
    for (int i = 0; i < e.nruns; i++) {
        long dim = cfg_int(&e.runs[i].cfg, "model.dim");
        if (dim == 32 && !missing_done) { // half the axis: one run never written, the other damaged
            missing_done = 1;
            continue;
        }
        int damaged = dim == 32 && !damaged_done;
        damaged_done |= damaged;
        snprintf(path, sizeof path, "%s/%s.h5", stage_dir, e.runs[i].run_id);
        write_run(path, "half", "s", e.runs[i].run_id, e.runs[i].seed, (int)dim, "abs", 0.6 + 0.01 * i, damaged);
    }
    experiment_free(&e);
    char *out = NULL, *errs = NULL;
    char *args[] = {dir};
    int rc = capture(cmd_report, 1, args, &out, &errs);
    test_check("missing: half of a matrix axis missing or damaged: the table keeps the model.dim column and its header counts "
               "1 missing and 1 damaged",
               rc == 0 && out && strstr(out, "| model.dim |") && strstr(out, "2 runs, 1 configuration") &&
                   strstr(out, "**Not in this table:** 1 missing (runs the experiment file enumerates with no run file), 1 damaged"),
               "exit %d; stdout %.900s", rc, out ? out : "");
    test_check("missing: the missing run is named in a warning",
               errs && strstr(errs, "experiment half: 1 run that ") && strstr(errs, "has no run file (stage s: 1)"), "stderr %.600s",
               errs ? errs : "");
    free(out), free(errs);
    rc = capture(cmd_plot, 1, args, &out, &errs);
    test_check("missing: a listed figure that cannot be drawn is a warning naming the entry, the kind and the stage",
               errs && strstr(errs, "experiment.yaml:") && strstr(errs, ": figure heatmap of stage s was not drawn: its runs hold no data it can draw"),
               "exit %d; stderr %.600s", rc, errs ? errs : "");
    free(out), free(errs);
}

int main(void) {
    results_process_init();
    if (report_runs_setup() != 0) return 1;
    test_markdown();
    test_gnuplot_data();
    test_missing_axis();
    report_runs_cleanup();
    return test_exit_code();
}
