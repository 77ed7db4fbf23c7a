// tests/test_plot.c — `posbench plot` on the synthetic run files of tests/report_runs.h: a PNG
// (magic bytes), an SVG and a data file for every expected figure, none for a stage without
// the data; gMLP's spatial weights reshaped onto the token grid (cls left out) and as a matrix
// for a sequence; figures.tsv selecting figures, including a metric against a final metric;
// a failing gnuplot script exits 1 with its message, gnuplot missing exits 2. SKIPs without
// gnuplot. Runs from the repository root (plots/); a few seconds.
#include "testing.h"
#include "report_runs.h"
#include "../bench/report/plot.h"
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
    char *out = NULL, *err = NULL;
    int rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    test_check("plot exit status", rc == 0, "rc %d; stderr: %.2000s", rc, err ? err : "");
    const char *bases[] = {"pretrain_metric_vs_axis_top1_vs_objective.eta", "pretrain_curves_train_loss", "pretrain_curves_eval_top1",
                           "pretrain_heatmap_relmap_p0000000000a", "pretrain_image_grid_p00000000001",
                           "pretrain_spatial_weights_p0000000000a", "pretrain_spatial_weights_p00000000000",
                           "finetune_metric_vs_axis_top1_vs_model.dim", "finetune_metric_vs_axis_top1_vs_pe.kind",
                           "finetune_curves_train_loss", "finetune_curves_eval_top1"};
    int nb = (int)(sizeof bases / sizeof *bases), missing = 0;
    for (int i = 0; i < nb; i++) {
        char png[512], svg[512], dat[512];
        snprintf(png, sizeof png, "%s/figures/%s.png", g_dir, bases[i]);
        snprintf(svg, sizeof svg, "%s/figures/%s.svg", g_dir, bases[i]);
        snprintf(dat, sizeof dat, "%s/figures/data/%s.dat", g_dir, bases[i]);
        int ok = file_starts(png, "\x89PNG\r\n\x1a\n", 8) && file_starts(svg, "<?xml", 5) && access(dat, R_OK) == 0;
        if (!ok) test_fail("plot figure", "%s: png/svg/dat missing or malformed", bases[i]), missing++;
    }
    test_check("plot every expected PNG, SVG and data file", missing == 0, "%d figures expected, %d missing", nb, missing);
    char stray[512];
    snprintf(stray, sizeof stray, "%s/figures/finetune_heatmap_relmap_f00000000000.png", g_dir);
    test_check("plot no heatmap without relmap", access(stray, F_OK) != 0, "finetune has no /attention");
    // spatial_weights: on the 4 x 4 grid, panel (block 1, query 2 = the centre token (2,2) = W row
    // 1 + 10) at col 3, row 1 is W[1][11][1 + 4 + 3] = 1228; on the sequence, key 4 of query 2 is 24
    char dat[512];
    snprintf(dat, sizeof dat, "%s/figures/data/pretrain_spatial_weights_p0000000000a.dat", g_dir);
    test_check("plot spatial_weights: grid rows of W reshaped, block by query token", dat_has_point(dat, 1 * 4 + 2, 3, 1, 1228),
               "want '3 1 1228' in block 6 of %s", dat);
    test_check("plot spatial_weights: grid panels exclude the cls token", !dat_has_point(dat, 0, 0, 0, 20),
               "block 0 at (0,0) is W[0][1][1] = 21, not the cls column's 20");
    snprintf(dat, sizeof dat, "%s/figures/data/pretrain_spatial_weights_p00000000000.dat", g_dir);
    test_check("plot spatial_weights: a sequence's W as a matrix (query down, key across)", dat_has_point(dat, 0, 4, 2, 24),
               "want '4 2 24' in %s", dat);
    free(out), free(err);

    // figures.tsv selects: only final top5 vs model.dim of finetune
    char path[512];
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    FILE *f = fopen(path, "w");
    if (f) fputs("kind\tstage\tmetric\taxis\nmetric_vs_axis\tfinetune\ttop5\tmodel.dim\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    int figs = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) figs += !strncmp(p, "figure ", 7);
    snprintf(path, sizeof path, "%s/figures/finetune_metric_vs_axis_top5_vs_model.dim.png", g_dir);
    test_check("plot figures.tsv selects", rc == 0 && figs == 1 && file_starts(path, "\x89PNG", 4), "exit %d, %d figures", rc, figs);
    free(out), free(err);
    // x: final.<metric>: top1 against the mean final loss, one point per configuration in x order
    // (eta 0.5: loss 1.895, top1 50.5%; eta 0: 1.995, 40.5%)
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    if ((f = fopen(path, "w"))) fputs("metric_vs_axis\tpretrain\ttop1\tfinal.loss\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    snprintf(path, sizeof path, "%s/figures/data/pretrain_metric_vs_metric_top1_vs_loss.dat", g_dir);
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
    snprintf(path, sizeof path, "%s/figures/data/pretrain_image_grid_p00000000001_with_mp3.dat", g_dir);
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
    if ((f = fopen(copy, "a"))) fputs("figures:\n  - {kind: metric_vs_axis, stage: finetune, metric: final.top5, x: model.dim}\n", f), fclose(f);
    rc = capture(cmd_plot, 1, (char *[]){g_dir}, &out, &err);
    figs = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) figs += !strncmp(p, "figure ", 7);
    test_check("plot: the experiment copy's figures: selects", rc == 0 && figs == 1, "exit %d, %d figures", rc, figs);
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
