// tests/test_plot.c — `posbench plot` on the synthetic run files of tests/report_runs.h: a PNG
// (magic bytes), an SVG and a data file for every expected figure, none for a stage without
// the data; gMLP's spatial weights reshaped onto the token grid (cls left out) and as a matrix
// for a sequence; figures.tsv selecting figures, including a metric against a final metric;
// a failing gnuplot script exits 1 with its message, gnuplot missing exits 2. SKIPs without
// gnuplot. Issue 32 §4: readable file names (no run id) in PNG, SVG and PDF; categorical axes
// as points at category positions with the series offset; error bars and curve bands the mean's
// 95% CI with n in the legend; label:/xlabel:/ylabel: from the experiment file; a one-point
// figure without gnuplot warnings. Runs from the repository root (plots/); a few seconds.
#include "testing.h"
#include "report_runs.h"
#include "../bench/report/plot.h"
#include "../bench/results/results.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Does the figure data file hold "x y value" in block `block` (blocks separated by two blank lines)?
static int dat_has_point(const char *path, int block, int x, int y, double value) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    int k = 0, blanks = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (line[0] == '\n') {
            if (++blanks == 2) k++;
            continue;
        }
        blanks = 0;
        int lx, ly;
        double v;
        found = k == block && sscanf(line, "%d %d %lf", &lx, &ly, &v) == 3 && lx == x && ly == y && v == value;
    }
    fclose(f);
    return found;
}

// Splits a data line "x mean lo hi n "label"" into its numbers; 1 when it is one.
static int dat_row(const char *line, double *x, double *m, double *lo, double *hi, int *n, char *label, size_t len) {
    char lab[128] = "";
    if (line[0] == '#' || sscanf(line, "%lf %lf %lf %lf %d \"%127[^\"]\"", x, m, lo, hi, n, lab) != 6) return 0;
    snprintf(label, len, "%s", lab);
    return 1;
}

// metric_vs_axis over pe.kind (text) and over model.dim (two whole numbers): points at category
// positions 0, 1 (each series offset sideways, the two never at one x), tics only there, and the
// error bars the 95% CI of the mean: mean ± t(0.975, n-1) s / sqrt(n) over the seeds.
static void check_categorical(void) {
    char path[512], line[512], label[128];
    snprintf(path, sizeof path, "%s/figures/data/exp_finetune_top1-vs-kind.dat", g_dir);
    FILE *f = fopen(path, "r");
    double xs[2][2] = {{NAN, NAN}, {NAN, NAN}}, lo64 = NAN, hi64 = NAN, m64 = NAN;
    int block = 0, blanks = 0, rows = 0, off_grid = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '\n') {
            block += ++blanks == 2;
            continue;
        }
        blanks = 0;
        double x, m, lo, hi;
        int n;
        if (!dat_row(line, &x, &m, &lo, &hi, &n, label, sizeof label) || block > 1) continue;
        int k = !strcmp(label, "none");
        rows++;
        off_grid += fabs(x - k) > 0.15;
        xs[block][k] = x;
        if (block == 0 && k == 0) m64 = m, lo64 = lo, hi64 = hi; // model.dim=64, abs: seeds 0, 1, 2 all done
    }
    if (f) fclose(f);
    test_check("plot categorical axis: each point within 0.15 of its category's position, the series side by side",
               rows == 4 && !off_grid && xs[0][0] < xs[1][0] && xs[0][1] < xs[1][1],
               "%d rows, %d off their category; x: %g %g | %g %g", rows, off_grid, xs[0][0], xs[0][1], xs[1][0], xs[1][1]);
    double v[3], mean = 0, ss = 0;
    for (int s = 0; s < 3; s++) mean += (v[s] = 100 * ft_top1(0, 0, s)) / 3;
    for (int s = 0; s < 3; s++) ss += (v[s] - mean) * (v[s] - mean);
    double half = 4.302652729911275 * sqrt(ss / 2) / sqrt(3); // t(0.975, 2)
    test_check("plot error bars: the 95% CI of the mean over seeds (t, n-1 df), not the std",
               fabs(m64 - mean) < 1e-9 && fabs(lo64 - (mean - half)) < 1e-6 && fabs(hi64 - (mean + half)) < 1e-6,
               "got %g [%g, %g], want %g [%g, %g]", m64, lo64, hi64, mean, mean - half, mean + half);
    snprintf(path, sizeof path, "%s/figures/exp_finetune_top1-vs-kind.svg", g_dir);
    char *svg = slurp(path);
    int lines_between = svg && strstr(svg, ">0.5<"); // a numeric tic between the categories
    test_check("plot categorical axis: tics are the categories (abs, none), none at 0.5", svg && strstr(svg, ">abs<") &&
               strstr(svg, ">none<") && !lines_between, "tics in %s", path);
    free(svg);
    snprintf(path, sizeof path, "%s/figures/exp_finetune_top1-vs-dim.svg", g_dir);
    svg = slurp(path);
    test_check("plot a few whole-number values (model.dim 64, 128) are categories too", svg && strstr(svg, ">64<") &&
               strstr(svg, ">128<") && !strstr(svg, ">80<") && !strstr(svg, ">96<"), "tics in %s", path);
    free(svg);
}

// The value of `name=` in a figure's settings file DIR/figures/data/<base>.gp (the variables
// posbench passed to gnuplot, one per line) into out (quotes kept); 0 when absent.
static int setting(const char *dir, const char *base, const char *name, char *out, size_t len) {
    char path[700], line[4096];
    snprintf(path, sizeof path, "%s/figures/data/%s.gp", dir, base);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = strlen(name);
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == '=') {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, len, "%s", line + n + 1);
            found = 1;
        }
    fclose(f);
    return found;
}

// A one-point figure: a stage whose one done run has one /train and one /eval row, beside a failed
// run (so pe.kind varies but one configuration has a value): every figure is drawn, and gnuplot
// prints nothing (no "empty x range" warning: the ranges are given).
static void check_one_point(void) {
    char dir[400], path[600];
    snprintf(dir, sizeof dir, "%s/one", g_root);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/solo", dir), mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/solo/one", dir), mkdir(path, 0777);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/solo/one/r%d.h5", dir, k);
        results *r = results_create(path);
        results_attr_str(r, "/", "experiment", "solo"), results_attr_str(r, "/", "stage", "one");
        results_attr_str(r, "/", "run_id", k ? "r1" : "r0"), results_attr_str(r, "/", "status", k ? "failed" : "done");
        results_attr_int(r, "/", "seed", 0), results_attr_str(r, "/", "started", "2026-01-01T00:00:00Z");
        results_attr_int(r, "/config", "train.seed", 0), results_attr_str(r, "/config", "pe.kind", k ? "none" : "abs");
        if (!k) {
            results_attr_double(r, "/final", "top1", 0.5), results_attr_double(r, "/final", "loss", 1.5);
            results_column tc[] = {{"step", 'i'}, {"epoch", 'i'}, {"loss", 'd'}}, ec[] = {{"epoch", 'i'}, {"step", 'i'}, {"top1", 'd'}};
            results_series *t = results_series_create(r, "/train", 3, tc, 4), *e = results_series_create(r, "/eval", 3, ec, 4);
            results_series_append(t, (double[]){1, 1, 1.5}), results_series_append(e, (double[]){1, 1, 0.5});
        }
        results_close(r);
    }
    char *out = NULL, *err = NULL;
    int rc = capture(cmd_plot, 1, (char *[]){dir}, &out, &err);
    const char *names[] = {"solo_one_top1-vs-kind", "solo_one_train-loss-vs-step", "solo_one_eval-top1-vs-epoch"};
    int missing = 0;
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/figures/%s.svg", dir, names[i]);
        missing += !file_starts(path, "<?xml", 5);
    }
    test_check("plot one-point figures: drawn, and gnuplot prints no warning (nothing captured on stderr from it)",
               rc == 0 && !missing && err && !strstr(err, "gnuplot (") && !strstr(err, "arning: empty"),
               "exit %d, %d missing; stderr: %.600s", rc, missing, err ? err : "");
    char points[64] = "", title[600] = "";
    setting(dir, "solo_one_eval-top1-vs-epoch", "points_only", points, sizeof points);
    setting(dir, "solo_one_eval-top1-vs-epoch", "subtitle", title, sizeof title);
    test_check("plot a curve of one point per configuration: drawn as points, and its subtitle says so",
               !strcmp(points, "1") && strstr(title, "one point per setting"), "points_only %s, title %s", points, title);
    free(out), free(err);
}

// Whether every CI bound (columns 3 and 4) of a figure's data file lies in [lo, hi]; *rows counts them.
static int ci_within(const char *dir, const char *base, double lo, double hi, int *rows) {
    char path[700], line[512];
    snprintf(path, sizeof path, "%s/figures/data/%s.dat", dir, base);
    FILE *f = fopen(path, "r");
    *rows = 0;
    if (!f) return 0;
    int ok = 1;
    while (fgets(line, sizeof line, f)) {
        double x, m, a, b;
        if (line[0] == '#' || sscanf(line, "%lf %lf %lf %lf", &x, &m, &a, &b) != 4) continue;
        (*rows)++;
        ok &= a >= lo && b <= hi && a <= b;
    }
    fclose(f);
    return ok;
}

// Paper-ready axes, read from what posbench wrote (the settings files and data) and from the
// scripts' own text, so a change to either that breaks them fails here: whole-number tics on an
// epoch axis, accuracy axes from 0 to at most 100 with CI bounds inside, a non-negative metric
// from 0; the scripts apply those settings, and every map and attention grid has a colour box.
static void check_paper_axes(void) {
    char v[512], ymax[64] = "", ymin[64] = "";
    int has_step = setting(g_dir, "exp_finetune_eval-top1-vs-epoch", "xtic_step", v, sizeof v);
    long step = has_step ? strtol(v, NULL, 10) : 0;
    test_check("plot figure settings: an epoch axis gets whole-number tics (xtic_step a whole number >= 1)",
               has_step && step >= 1 && !strchr(v, '.'), "xtic_step %s", has_step ? v : "(absent)");
    int y0 = setting(g_dir, "exp_finetune_eval-top1-vs-epoch", "ymin", ymin, sizeof ymin) &&
             setting(g_dir, "exp_finetune_eval-top1-vs-epoch", "ymax", ymax, sizeof ymax);
    test_check("plot figure settings: an accuracy curve's y axis runs from 0 to at most 100", y0 && atof(ymin) == 0 &&
               atof(ymax) > 0 && atof(ymax) <= 100, "ymin %s, ymax %s", ymin, ymax);
    y0 = setting(g_dir, "exp_finetune_top1-vs-kind", "ymin", ymin, sizeof ymin) &&
         setting(g_dir, "exp_finetune_top1-vs-kind", "ymax", ymax, sizeof ymax);
    int rows = 0, inside = ci_within(g_dir, "exp_finetune_top1-vs-kind", 0, 100, &rows);
    test_check("plot figure settings: a final accuracy's axis in [0, 100] and its CI bars clipped to it",
               y0 && atof(ymin) == 0 && atof(ymax) <= 100 && inside && rows >= 2, "ymin %s, ymax %s, %d rows inside %d", ymin, ymax, rows, inside);
    char *curves = slurp("plots/curves.gp"), *axis = slurp("plots/metric_vs_axis.gp"), *heat = slurp("plots/heatmap.gp"),
         *grid = slurp("plots/image_grid.gp");
    test_check("plot scripts: curves.gp applies xtic_step with whole-number labels and the y range; metric_vs_axis.gp the y range",
               curves && strstr(curves, "set xtics xtic_step") && strstr(curves, "set format x '%.0f'") &&
               strstr(curves, "set yrange [ymin:ymax]") && axis && strstr(axis, "set yrange [ymin:ymax]"),
               "plots/curves.gp or plots/metric_vs_axis.gp lost a setting");
    test_check("plot scripts: heatmaps and the [CLS]-attention grid draw a colour box",
               heat && strstr(heat, "set colorbox") && grid && strstr(grid, "exists('colorbox')") && strstr(grid, "set colorbox") &&
               strstr(grid, "lc palette"), "plots/heatmap.gp or plots/image_grid.gp has no colour box");
    free(curves), free(axis), free(heat), free(grid);
}

static int have_gnuplot(void) { return system("gnuplot -e 'exit' >/dev/null 2>&1") == 0; }

static void test_plot(void) {
    char no_dir[300];
    snprintf(no_dir, sizeof no_dir, "%s/no-such-dir", g_root);
    expect_status("plot missing DIR exits 2", cmd_plot, 1, (char *[]){no_dir}, 2, NULL);
    expect_status("plot bad --only exits 2", cmd_plot, 3, (char *[]){g_dir, "--only", "pie"}, 2, "not a figure kind");
    if (!have_gnuplot()) {
        test_skip("plot figures", "gnuplot not installed (Debian package gnuplot-nox)");
        return;
    }
    // an earlier plot's figure under an old name (its data file in figures/data) and a file of the user's
    char old_png[512], old_dat[512], mine[512];
    snprintf(old_png, sizeof old_png, "%s/figures", g_dir), mkdir(old_png, 0777);
    snprintf(old_dat, sizeof old_dat, "%s/figures/data", g_dir), mkdir(old_dat, 0777);
    snprintf(old_png, sizeof old_png, "%s/figures/finetune_metric_vs_axis_top1_vs_pe.kind.png", g_dir);
    snprintf(old_dat, sizeof old_dat, "%s/figures/data/finetune_metric_vs_axis_top1_vs_pe.kind.dat", g_dir);
    snprintf(mine, sizeof mine, "%s/figures/my_sketch.png", g_dir);
    FILE *w;
    if ((w = fopen(old_png, "w"))) fputs("old", w), fclose(w);
    if ((w = fopen(old_dat, "w"))) fputs("old", w), fclose(w);
    if ((w = fopen(mine, "w"))) fputs("mine", w), fclose(w);
    char *out = NULL, *err = NULL;
    int rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    test_check("plot exit status", rc == 0, "rc %d; stderr: %.2000s", rc, err ? err : "");
    test_check("plot removes an earlier plot's figure it no longer draws, keeps other files",
               access(old_png, F_OK) != 0 && access(old_dat, F_OK) != 0 && access(mine, F_OK) == 0, "old png %s, old dat %s, user file %s",
               access(old_png, F_OK) ? "gone" : "kept", access(old_dat, F_OK) ? "gone" : "kept", access(mine, F_OK) ? "gone" : "kept");
    // readable names: <experiment>_<stage>_<metric>-vs-<axis>, a configuration as key-value, no run id
    const char *bases[] = {"exp_pretrain_top1-vs-eta", "exp_pretrain_train-loss-vs-step", "exp_pretrain_eval-top1-vs-epoch",
                           "exp_pretrain_relmap_eta-0.5_seed0", "exp_pretrain_samples_eta-0_seed1",
                           "exp_pretrain_spatial-W_eta-0.5_seed0", "exp_pretrain_spatial-W_eta-0_seed0",
                           "exp_finetune_top1-vs-dim", "exp_finetune_top1-vs-kind",
                           "exp_finetune_train-loss-vs-step", "exp_finetune_eval-top1-vs-epoch"};
    int nb = (int)(sizeof bases / sizeof *bases), missing = 0;
    for (int i = 0; i < nb; i++) {
        char png[512], svg[512], pdf[512], dat[512];
        snprintf(png, sizeof png, "%s/figures/%s.png", g_dir, bases[i]);
        snprintf(svg, sizeof svg, "%s/figures/%s.svg", g_dir, bases[i]);
        snprintf(pdf, sizeof pdf, "%s/figures/%s.pdf", g_dir, bases[i]);
        snprintf(dat, sizeof dat, "%s/figures/data/%s.dat", g_dir, bases[i]);
        int ok = file_starts(png, "\x89PNG\r\n\x1a\n", 8) && file_starts(svg, "<?xml", 5) && file_starts(pdf, "%PDF-", 5) &&
                 access(dat, R_OK) == 0;
        if (!ok) test_fail("plot figure", "%s: png/svg/pdf/dat missing or malformed", bases[i]), missing++;
    }
    test_check("plot every expected PNG, SVG, PDF and data file, under its readable name", missing == 0, "%d figures expected, %d missing",
               nb, missing);
    int hashed = 0; // no figure is named after a run id (p0000000000a, f00000000000, m...)
    for (const char *q = out; q && (q = strstr(q, "figure ")); q += 7) {
        const char *name = strrchr(q, '/'), *end = strchr(q, '\n');
        for (const char *c = name; c && end && c < end; c++) hashed += !strncmp(c, "0000000", 7);
    }
    test_check("plot: no figure file name carries a run id", out && !hashed, "%d names with an id", hashed);
    check_categorical();
    check_paper_axes();
    char svg[512];
    snprintf(svg, sizeof svg, "%s/figures/exp_finetune_train-loss-vs-step.svg", g_dir);
    char *text = slurp(svg);
    test_check("plot curves: the legend states n per configuration", text && strstr(text, "(n = 3)") && strstr(text, "(n = 2-3)"),
               "want '(n = 3)' and '(n = 2-3)' (the diverged seed stops) in %s", svg);
    test_check("plot curves: the mean's 95% CI drawn as a band (a filled, translucent area)", text && strstr(text, "fill-opacity"),
               "no translucent fill in %s", svg);
    free(text);
    char stray[512];
    snprintf(stray, sizeof stray, "%s/figures/exp_finetune_relmap_dim-64_kind-abs_seed0.png", g_dir);
    test_check("plot no heatmap without relmap", access(stray, F_OK) != 0, "finetune has no /attention");
    // spatial_weights: on the 4 x 4 grid, panel (block 1, query 2 = the centre token (2,2) = W row
    // 1 + 10) at col 3, row 1 is W[1][11][1 + 4 + 3] = 1228; on the sequence, key 4 of query 2 is 24
    char dat[512];
    snprintf(dat, sizeof dat, "%s/figures/data/exp_pretrain_spatial-W_eta-0.5_seed0.dat", g_dir);
    test_check("plot spatial_weights: grid rows of W reshaped, block by query token", dat_has_point(dat, 1 * 4 + 2, 3, 1, 1228),
               "want '3 1 1228' in block 6 of %s", dat);
    test_check("plot spatial_weights: grid panels exclude the cls token", !dat_has_point(dat, 0, 0, 0, 20),
               "block 0 at (0,0) is W[0][1][1] = 21, not the cls column's 20");
    snprintf(dat, sizeof dat, "%s/figures/data/exp_pretrain_spatial-W_eta-0_seed0.dat", g_dir);
    test_check("plot spatial_weights: a sequence's W as a matrix (query down, key across)", dat_has_point(dat, 0, 4, 2, 24),
               "want '4 2 24' in %s", dat);
    free(out), free(err);

    check_one_point();
    // figures.tsv selects: only final top5 vs model.dim of finetune
    char path[512];
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    FILE *f = fopen(path, "w");
    if (f) fputs("kind\tstage\tmetric\taxis\nmetric_vs_axis\tfinetune\ttop5\tmodel.dim\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    int figs = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) figs += !strncmp(p, "figure ", 7);
    snprintf(path, sizeof path, "%s/figures/exp_finetune_top5-vs-dim.png", g_dir);
    test_check("plot figures.tsv selects", rc == 0 && figs == 1 && file_starts(path, "\x89PNG", 4), "exit %d, %d figures", rc, figs);
    free(out), free(err);
    // x: final.<metric>: top1 against the mean final loss, one point per configuration in x order
    // (eta 0.5: loss 1.895, top1 50.5%; eta 0: 1.995, 40.5%)
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    if ((f = fopen(path, "w"))) fputs("metric_vs_axis\tpretrain\ttop1\tfinal.loss\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    snprintf(path, sizeof path, "%s/figures/data/exp_pretrain_top1-vs-loss.dat", g_dir);
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    int points = 0;
    FILE *d = fopen(path, "r");
    char row[512];
    while (d && fgets(row, sizeof row, d))
        if (row[0] != '#' && row[0] != '\n') points += sscanf(row, "%lf %lf", points ? &x1 : &x0, points ? &y1 : &y0) == 2;
    if (d) fclose(d);
    test_check("plot metric against a final metric (x: final.loss), points in x order", rc == 0 && points == 2 &&
               fabs(x0 - 1.895) < 1e-9 && fabs(y0 - 50.5) < 1e-9 && fabs(x1 - 1.995) < 1e-9 && fabs(y1 - 40.5) < 1e-9,
               "exit %d, %d points: (%g, %g) (%g, %g)", rc, points, x0, y0, x1, y1);
    free(out), free(err);
    // image_grid with another stage (YAML with: [mp3]): mp3's seed-1 run (pretrain's seed), its
    // original equal to pretrain's drawn once: original, context, reassembled, mp3's reconstruction
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    if ((f = fopen(path, "w"))) fputs("image_grid\tpretrain\t*\tmp3\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    snprintf(path, sizeof path, "%s/figures/data/exp_pretrain_samples_eta-0_seed1_with_mp3.dat", g_dir);
    char *grid = slurp(path);
    test_check("plot image_grid with another stage: its same-seed run, a shared original drawn once", rc == 0 && grid &&
               strstr(grid, "/m00000000001.h5: x y r g b, 4 rows") && !strstr(grid, "m00000000000"),
               "exit %d; header: %.200s", rc, grid ? grid : "(no data file)");
    free(grid), free(out), free(err);
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    unlink(path);

    // the figures: list of the experiment copy DIR/exp/experiment.yaml selects (no figures.tsv),
    // and an unknown key there (a typo) is bad input naming file:line:col
    char copy[512], *orig;
    snprintf(copy, sizeof copy, "%s/exp/experiment.yaml", g_dir);
    orig = slurp(copy);
    if ((f = fopen(copy, "a")))
        fputs("figures:\n  - {kind: metric_vs_axis, stage: finetune, metric: final.top5, x: model.dim, label: \"Top-5 & width <b>\",\n"
              "     xlabel: \"embedding width d\", ylabel: \"test top-5 accuracy (%)\"}\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    figs = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) figs += !strncmp(p, "figure ", 7);
    test_check("plot: the experiment copy's figures: selects", rc == 0 && figs == 1, "exit %d, %d figures", rc, figs);
    free(out), free(err);
    snprintf(path, sizeof path, "%s/figures/exp_finetune_top5-vs-dim.svg", g_dir);
    char *labelled = slurp(path);
    test_check("plot: the figure's label:, xlabel:, ylabel: from the experiment file are its title and axis labels",
               labelled && strstr(labelled, "Top-5 &amp; width &lt;b") && strstr(labelled, "embedding width d") &&
               strstr(labelled, "test top-5 accuracy (%)") && !strstr(labelled, ">model.dim<"), "texts in %s", path);
    free(labelled);
    // labels: stage titles and key names for people, in titles, legends and axes
    if (orig && (f = fopen(copy, "w")))
        fprintf(f, "%sfigures:\n  - {kind: metric_vs_axis, stage: finetune, metric: final.top1, x: pe.kind}\nlabels:\n"
                   "  stages: {finetune: Finetuned from MP3}\n  keys: {pe.kind: position encoding, model.dim: embedding width}\n", orig),
            fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    char t[600] = "", xl[300] = "", l1[300] = "";
    setting(g_dir, "exp_finetune_top1-vs-kind", "title", t, sizeof t);
    setting(g_dir, "exp_finetune_top1-vs-kind", "xlabel", xl, sizeof xl);
    setting(g_dir, "exp_finetune_top1-vs-kind", "title1", l1, sizeof l1);
    test_check("plot labels: the stage's title, the key's name on the axis and in the legend (no raw key)",
               rc == 0 && strstr(t, "Finetuned from MP3") && !strstr(t, "finetune:") && !strcmp(xl, "'position encoding'") &&
               strstr(l1, "embedding width: ") && !strstr(l1, "model.dim"), "exit %d; title %s, xlabel %s, legend %s", rc, t, xl, l1);
    free(out), free(err);
    int lines = 1;
    for (const char *p = orig; p && *p; p++) lines += *p == '\n';
    if (orig && (f = fopen(copy, "w"))) fprintf(f, "%sfigures:\n  - {kind: curves, metrc: eval.top1}\n", orig), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    char want[600];
    snprintf(want, sizeof want, "exp/experiment.yaml:%d:20: figures: unknown key 'metrc' for kind curves", lines + 1);
    test_check("plot: an unknown figure key in the copy exits 2 naming file:line:col", rc == 2 && err && strstr(err, want),
               "exit %d: %.300s (want %s)", rc, err ? err : "", want);
    free(out), free(err);
    if (orig && (f = fopen(copy, "w"))) fputs(orig, f), fclose(f);
    free(orig);

    // a failing script -> exit 1 with gnuplot's message; gnuplot missing -> exit 2
    char broken[400], script[500];
    snprintf(broken, sizeof broken, "%s/brokenplots", g_root);
    mkdir(broken, 0777);
    snprintf(script, sizeof script, "%s/metric_vs_axis.gp", broken);
    if ((f = fopen(script, "w"))) fputs("this is not gnuplot\n", f), fclose(f);
    setenv("POSBENCH_PLOTS", broken, 1);
    expect_status("plot gnuplot failure exits 1", cmd_plot, 3, (char *[]){g_dir, "--only", "metric_vs_axis"}, 1, "this is not gnuplot");
    unsetenv("POSBENCH_PLOTS");
    char *saved = strdup(getenv("PATH") ? getenv("PATH") : "");
    setenv("PATH", "/nonexistent", 1);
    expect_status("plot without gnuplot exits 2", cmd_plot, 1, (char *[]){g_dir}, 2, "gnuplot-nox");
    setenv("PATH", saved, 1);
    free(saved);
}
int main(void) {
    if (report_runs_setup() != 0) return 1;
    test_plot();
    report_runs_cleanup();
    return test_exit_code();
}
