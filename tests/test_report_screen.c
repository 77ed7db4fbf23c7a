// tests/test_report_screen.c — `posbench report` and `posbench plot` on hostile results folders
// (issue 29, items 1, 2, 8, 9, 12): copies of a run file (backup/X.h5, "X copy.h5", a file with
// no run id and the same config and seed) are counted once and named; a done run whose /final
// top1 is a string, a 2-element array or Inf, or that has no /final, is left out as damaged with
// the reason while the others keep their columns; runs of an earlier version of an experiment
// (another data.limit) are left out of tables and findings and counted in a note, runs of
// another scale of the current file are kept; an older folder's findings.tsv (no
// experiment.yaml) is read; a foreign file declaring a 2^31-element dataset is skipped naming
// it, and plot draws the rest; a finding's match value that only another scale has loads. The run files are written with bench/results/results.h and,
// for what posbench never writes, the HDF5 C API. Runs from the repository root; a second.
#include "testing.h"
#include "report_runs.h"
#include "../bench/experiment/exp_tables.h"
#include "../bench/experiment/experiment.h"
#include "../bench/report/plot.h"
#include "../bench/report/report.h"
#include "../bench/report/report_versions.h"
#include "../bench/results/results.h"
#include "../bench/results/results_read.h"
#include "../bench/results/run_screen.h"
#include "../bench/store/run_files.h"
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void mkdirs(const char *path) {
    char buf[600];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') *p = '\0', mkdir(buf, 0777), *p = '/';
    mkdir(buf, 0777);
}

// One done run file at path: experiment exp, stage, run id (NULL: no run_id attribute), seed,
// /config model.dim (and data.limit when > 0), /final top1 (NAN: no /final at all), /train and
// /eval series.
static void write_run(const char *path, const char *exp, const char *stage, const char *id, long seed, int dim, int limit,
                      double top1) {
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", exp);
    results_attr_str(r, "/", "stage", stage);
    if (id) results_attr_str(r, "/", "run_id", id);
    results_attr_str(r, "/", "status", "done");
    results_attr_int(r, "/", "seed", seed);
    results_attr_str(r, "/", "started", "2026-01-02T00:00:00Z");
    results_attr_int(r, "/config", "train.seed", seed);
    results_attr_int(r, "/config", "model.dim", dim);
    if (limit > 0) results_attr_int(r, "/config", "data.limit", limit);
    results_column cols[] = {{"step", 'i'}, {"loss", 'd'}};
    results_series *s = results_series_create(r, "/train", 2, cols, 8);
    for (int i = 0; i < 4; i++) results_series_append(s, (double[]){i, 2.0 - 0.1 * i});
    results_column ecols[] = {{"epoch", 'i'}, {"top1", 'd'}};
    results_series *e = results_series_create(r, "/eval", 2, ecols, 8);
    results_series_append(e, (double[]){1, isnan(top1) ? 0.5 : top1});
    if (!isnan(top1)) {
        results_attr_double(r, "/final", "top1", top1);
        results_attr_double(r, "/final", "loss", 1.0 - top1);
        results_attr_int(r, "/final", "params", 1000 + dim);
    }
    results_close(r);
}

// Replaces /final `name` of the file at path by what posbench never writes: the string "0.9"
// (how = 's'), a 2-element float64 array ('a') or +Inf ('i'). 0, or -1.
static int spoil_final(const char *path, const char *name, char how) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return -1;
    hid_t g = H5Gopen2(f, "/final", H5P_DEFAULT);
    hsize_t two = 2;
    double v[2] = {how == 'i' ? INFINITY : 0.5, 0.6};
    hid_t s = how == 'a' ? H5Screate_simple(1, &two, NULL) : H5Screate(H5S_SCALAR);
    hid_t t = how == 's' ? H5Tcopy(H5T_C_S1) : H5Tcopy(H5T_IEEE_F64LE);
    int rc = g >= 0 && s >= 0 && t >= 0 && H5Adelete(g, name) >= 0 && (how != 's' || H5Tset_size(t, 4) >= 0) ? 0 : -1;
    hid_t a = rc == 0 ? H5Acreate2(g, name, t, s, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (a < 0 || (how == 's' ? H5Awrite(a, t, "0.9") : H5Awrite(a, H5T_NATIVE_DOUBLE, v)) < 0) rc = -1;
    if (a >= 0) H5Aclose(a);
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    if (g >= 0) H5Gclose(g);
    return H5Fclose(f) < 0 ? -1 : rc;
}

// A small foreign file whose dataset `dset` (in group `group`) declares dims but holds no data
// (chunked, nothing written: the file stays a few KB).
static int write_foreign(const char *path, const char *group, const char *dset, int ndim, const hsize_t *dims) {
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return -1;
    hid_t g = H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t maxd[4], chunk[4];
    for (int i = 0; i < ndim; i++) maxd[i] = H5S_UNLIMITED, chunk[i] = 64;
    hid_t s = H5Screate_simple(ndim, dims, maxd), p = H5Pcreate(H5P_DATASET_CREATE);
    int rc = g >= 0 && s >= 0 && p >= 0 && H5Pset_chunk(p, ndim, chunk) >= 0 ? 0 : -1;
    hid_t d = rc == 0 ? H5Dcreate2(g, dset, H5T_IEEE_F64LE, s, H5P_DEFAULT, p, H5P_DEFAULT) : -1;
    if (d < 0) rc = -1;
    else H5Dclose(d);
    if (p >= 0) H5Pclose(p);
    if (s >= 0) H5Sclose(s);
    if (g >= 0) H5Gclose(g);
    return H5Fclose(f) < 0 ? -1 : rc;
}

static void copy_file(const char *from, const char *to) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    if (system(cmd) != 0) test_fail("setup", "%s failed", cmd);
}

// The line of the report's stage table for model.dim = dim: "| dim | n |".
static int row_has_n(const char *md, int dim, int n) {
    char want[64];
    snprintf(want, sizeof want, "| %d | %d |", dim, n);
    return md && strstr(md, want) != NULL;
}

// capture() with the command's stdout on one line ('|' for newlines), as a check's detail.
static int run_flat(int (*fn)(int, char **), const char *dir, char **out, char **errs) {
    int rc = capture(fn, 1, (char *[]){(char *)dir}, out, errs);
    for (char *p = *out; p && *p; p++)
        if (*p == '\n') *p = '|';
    return rc;
}

static char *report_md(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/REPORT.md", dir);
    return slurp(path);
}

// ---- item 1: copies of a run file -------------------------------------------------------
static void test_duplicates(void) {
    char dir[400], stage[500], path[700], from[700];
    snprintf(dir, sizeof dir, "%s/dups", g_root);
    snprintf(stage, sizeof stage, "%s/scr/main", dir);
    mkdirs(stage);
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 3; s++) {
            snprintf(path, sizeof path, "%s/a%d%010d.h5", stage, d, s);
            char id[16];
            snprintf(id, sizeof id, "a%d%010d", d, s);
            write_run(path, "scr", "main", id, s, 16 << d, 0, 0.5 + 0.1 * d + 0.01 * s);
        }
    snprintf(from, sizeof from, "%s/a00000000000.h5", stage);
    snprintf(path, sizeof path, "%s/backup", stage);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/backup/a00000000000.h5", stage);
    copy_file(from, path);
    snprintf(path, sizeof path, "%s/a00000000000 copy.h5", stage); // sorts before the original
    copy_file(from, path);
    snprintf(path, sizeof path, "%s/other.h5", stage); // no run id: the same config and seed as a00000000001
    write_run(path, "scr", "main", NULL, 1, 16, 0, 0.9);
    rr_set set;
    char err[1024];
    if (rr_scan(dir, RR_ATTRS, &set, err, sizeof err) != 0) {
        test_fail("duplicates: scan", "%s", err);
        return;
    }
    test_check("duplicates: rr_scan reads every file as it is (export's view)", set.nruns == 9 && set.nleft == 0, "%d runs", set.nruns);
    rr_screen(&set);
    int dup = 0, names_counted = 1;
    for (int i = 0; i < set.nleft; i++) {
        dup += set.left[i].kind == RR_LEFT_DUPLICATE;
        names_counted &= strstr(set.left[i].why, "/scr/main/a0000000000") && strstr(set.left[i].why, "which is counted");
    }
    test_check("duplicates: 3 copies left out, 6 runs counted", set.nruns == 6 && dup == 3 && set.nleft == 3,
               "%d runs, %d left out (%d duplicates)", set.nruns, set.nleft, dup);
    test_check("duplicates: the file at <stage>/<run-id>.h5 is the one counted", names_counted && set.nleft == 3,
               "%s", set.nleft ? set.left[0].why : "none left out");
    rr_set_free(&set);
    char *out = NULL, *errs = NULL;
    int rc = run_flat(cmd_report, dir, &out, &errs);
    char *md = report_md(dir);
    test_check("duplicates: report exits 0 with n = 3 per configuration (not 5 or 4)",
               rc == 0 && row_has_n(out, 16, 3) && row_has_n(out, 32, 3), "exit %d; stdout: %.600s", rc, out ? out : "");
    test_check("duplicates: report names each copy and the file counted (stderr and REPORT.md)",
               errs && strstr(errs, "backup/a00000000000.h5: duplicate of run a00000000000 (the same run id as ") &&
                   strstr(errs, "a00000000000 copy.h5: duplicate of run a00000000000") &&
                   strstr(errs, "other.h5: duplicate of run a00000000001 (the same configuration and seed as ") && md &&
                   strstr(md, "3 duplicates (a second file of a run that is counted)"),
               "stderr: %.900s", errs ? errs : "");
    free(out), free(errs), free(md);
}

// ---- item 8: a malformed /final ------------------------------------------------------------
static void test_damaged_final(void) {
    char dir[400], stage[500], path[700];
    snprintf(dir, sizeof dir, "%s/damaged", g_root);
    snprintf(stage, sizeof stage, "%s/scr/main", dir);
    mkdirs(stage);
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 3; s++) {
            char id[16];
            snprintf(id, sizeof id, "b%d%010d", d, s);
            snprintf(path, sizeof path, "%s/%s.h5", stage, id);
            // b10000000000: status done, no /final at all
            write_run(path, "scr", "main", id, s, 16 << d, 0, d == 1 && s == 0 ? NAN : 0.5 + 0.1 * d + 0.01 * s);
            char how = d == 0 && s == 0 ? 's' : d == 0 && s == 1 ? 'a' : d == 1 && s == 1 ? 'i' : 0;
            if (how && spoil_final(path, "top1", how) != 0) test_fail("damaged: setup", "could not rewrite /final top1 of %s", path);
        }
    // train, run and list do not skip such a file as done (bench/store/run_files.h)
    char why[512] = "", why2[512] = "", good[700];
    snprintf(path, sizeof path, "%s/b00000000001.h5", stage);
    snprintf(good, sizeof good, "%s/b00000000002.h5", stage);
    run_file_state st = run_file_status(path, why, sizeof why), st2 = run_file_status(good, why2, sizeof why2);
    test_check("damaged /final: run, list and train see the file as damaged, not done",
               st == RUN_FILE_DAMAGED && strstr(why, "says done but /final top1 holds 2 values, not one") && st2 == RUN_FILE_DONE,
               "%s (%s); the sound one: %s", run_file_state_name(st), why, run_file_state_name(st2));
    char *out = NULL, *errs = NULL;
    int rc = run_flat(cmd_report, dir, &out, &errs);
    char *md = report_md(dir);
    test_check("damaged /final: the top1 column stays for everyone, n = 1 per configuration",
               rc == 0 && out && strstr(out, "top1 (%)") && row_has_n(out, 16, 1) && row_has_n(out, 32, 1),
               "exit %d; stdout: %.700s", rc, out ? out : "");
    test_check("damaged /final: each bad file is named with its reason",
               errs && strstr(errs, "b00000000000.h5: /final top1 is a string ('0.9'), not a number") &&
                   strstr(errs, "b00000000001.h5: /final top1 holds 2 values, not one") &&
                   strstr(errs, "b10000000000.h5: status done but no /final attributes") &&
                   strstr(errs, "b10000000001.h5: /final top1 is inf, not a finite number") && md &&
                   strstr(md, "4 damaged (a done run whose /final is not sound)"),
               "stderr: %.900s", errs ? errs : "");
    free(out), free(errs), free(md);
}

// ---- item 12: a foreign file declaring a huge dataset ---------------------------------------
static void test_huge_declared(void) {
    char dir[400], stage[500], path[700];
    snprintf(dir, sizeof dir, "%s/huge", g_root);
    snprintf(stage, sizeof stage, "%s/scr/main", dir);
    mkdirs(stage);
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 2; s++) {
            char id[16];
            snprintf(id, sizeof id, "c%d%010d", d, s);
            snprintf(path, sizeof path, "%s/%s.h5", stage, id);
            write_run(path, "scr", "main", id, s, 16 << d, 0, 0.5 + 0.1 * d + 0.01 * s);
        }
    hsize_t big = (hsize_t)1 << 31, square[2] = {65536, 65536};
    snprintf(path, sizeof path, "%s/foreign.h5", stage);
    int ok = write_foreign(path, "/train", "loss", 1, &big) == 0;
    snprintf(path, sizeof path, "%s/foreign2.h5", stage);
    ok &= write_foreign(path, "/attention", "relmap", 2, square) == 0;
    struct stat st;
    ok &= stat(path, &st) == 0 && st.st_size < 200000;
    test_check("huge declared: the foreign files are small", ok, "foreign2.h5 %lld bytes", (long long)st.st_size);
    rr_set set;
    char err[1024];
    if (rr_scan(dir, RR_SERIES | RR_ARRAYS, &set, err, sizeof err) != 0) {
        test_fail("huge declared: scan", "%s", err);
        return;
    }
    test_check("huge declared: both files skipped naming the dataset and its declared size, 4 runs read",
               set.nruns == 4 && set.nskipped == 2 &&
                   strstr(set.skipped[0], "foreign.h5: /train/loss declares 2147483648 elements (more than the 67108864") &&
                   strstr(set.skipped[1], "foreign2.h5: /attention/relmap declares 65536 x 65536 elements"),
               "%d runs, %d skipped: %s | %s", set.nruns, set.nskipped, set.nskipped ? set.skipped[0] : "",
               set.nskipped > 1 ? set.skipped[1] : "");
    rr_set_free(&set);
    if (system("gnuplot -e 'exit' >/dev/null 2>&1") != 0) {
        test_skip("huge declared: plot draws the rest", "gnuplot not installed (Debian package gnuplot-nox)");
        return;
    }
    char *out = NULL, *errs = NULL;
    int rc = run_flat(cmd_plot, dir, &out, &errs);
    snprintf(path, sizeof path, "%s/figures/scr_main_top1-vs-dim.png", dir);
    test_check("huge declared: plot names the file and draws the rest",
               rc == 0 && errs && strstr(errs, "left out ") && strstr(errs, "foreign.h5: /train/loss declares") &&
                   file_starts(path, "\x89PNG", 4),
               "exit %d; stdout %.300s; stderr %.600s", rc, out ? out : "", errs ? errs : "");
    free(out), free(errs);
}

// ---- item 2: runs of an earlier version of the experiment ------------------------------------
static const char *const version_yaml =
    "name: ver\nbase: {data: {limit: %d}, train: {epochs: 1}}\nstages:\n  s: {}\nseeds: [0, 1]\n"
    "scales:\n  smoke: {data.limit: 32}\n"
    "findings:\n  - {claim: \"reaches 50%%\", kind: at_least, a: {stage: s, metric: top1}, value: 0.5}\n";

// Writes the experiment file for data.limit `limit` at path and the run files of its runs (at
// `scale`, NULL for none) under dir/ver/s. The number of runs, or -1.
static int version_runs(const char *path, int limit, const char *scale, const char *dir, double top1) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, version_yaml, limit);
    fclose(f);
    static experiment e;
    char err[2048], run[700];
    if (experiment_load(&e, path, scale, err, sizeof err) != 0) {
        test_fail("versions: setup", "%s", err);
        experiment_free(&e);
        return -1;
    }
    snprintf(run, sizeof run, "%s/ver/s", dir);
    mkdirs(run);
    int n = e.nruns;
    for (int i = 0; i < n; i++) {
        snprintf(run, sizeof run, "%s/ver/s/%s.h5", dir, e.runs[i].run_id);
        write_run(run, "ver", "s", e.runs[i].run_id, e.runs[i].seed, 64, scale ? 32 : limit, top1 + 0.01 * e.runs[i].seed);
    }
    experiment_free(&e);
    return n;
}

static void test_versions(void) {
    char dir[400], old[500], copy[500];
    snprintf(dir, sizeof dir, "%s/versions", g_root);
    snprintf(old, sizeof old, "%s/ver-before-edit.yaml", g_root);
    snprintf(copy, sizeof copy, "%s/ver/experiment.yaml", dir);
    mkdirs(dir);
    int n_old = version_runs(old, 128, NULL, dir, 0.2);     // the first version: data.limit 128, low top1
    mkdirs(copy), rmdir(copy);                               // (the folder ver/)
    int n_new = version_runs(copy, 64, NULL, dir, 0.9);     // edited to 64 and rerun: the copy is replaced
    if (n_old != 2 || n_new != 2) {
        test_fail("versions: setup", "%d and %d runs", n_old, n_new);
        return;
    }
    char *out = NULL, *errs = NULL;
    int rc = run_flat(cmd_report, dir, &out, &errs);
    char *md = report_md(dir);
    test_check("versions: the table and the finding use the current version's runs only (n = 2, no data.limit axis)",
               rc == 0 && out && strstr(out, "(n = 2, ") && !strstr(out, "data.limit") && strstr(out, "2 runs, 1 configuration"),
               "exit %d; stdout: %.1500s", rc, out ? out : "");
    test_check("versions: the report says 2 runs of an earlier version are not used",
               md && strstr(md, "**Not used:** 2 runs of an earlier version of this experiment are not used") && errs &&
                   strstr(errs, "is not a run of ") && strstr(errs, "ver/experiment.yaml at any scale (an earlier version"),
               "stderr: %.600s", errs ? errs : "");
    free(out), free(errs), free(md);
    // runs of another scale of the current file are the current file's
    if (version_runs(copy, 64, "smoke", dir, 0.9) != 2) return;
    rr_set set;
    char err[1024];
    if (rr_scan(dir, RR_ATTRS, &set, err, sizeof err) != 0) {
        test_fail("versions: scan", "%s", err);
        return;
    }
    rr_screen(&set);
    report_current_versions(&set, dir);
    test_check("versions: runs of --scale smoke are kept, only the 2 earlier ones left out",
               set.nruns == 4 && set.nleft == 2 && report_earlier_count(&set, "ver") == 2, "%d runs, %d left out", set.nruns,
               set.nleft);
    rr_set_free(&set);
}

// ---- item 9: a results folder from before experiment files were copied ------------------------
static void test_older_layout(void) {
    char dir[400], stage[500], path[700];
    snprintf(dir, sizeof dir, "%s/older", g_root);
    snprintf(stage, sizeof stage, "%s/old/s", dir);
    mkdirs(stage);
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 3; s++) {
            char id[16];
            snprintf(id, sizeof id, "d%d%010d", d, s);
            snprintf(path, sizeof path, "%s/%s.h5", stage, id);
            write_run(path, "old", "s", id, s, 16 << d, 0, 0.5 + 0.2 * d + 0.01 * s);
        }
    snprintf(path, sizeof path, "%s/old/findings.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        test_fail("older layout: setup", "cannot write %s", path);
        return;
    }
    fputs("# posbench findings (format: bench/experiment/exp_tables.h); fields: kind, claim, paper, a.stage, a.match, "
          "a.metric, b.stage, b.match, b.metric, value, x, per\nexperiment\told\n"
          "greater\twider is better\tTable\\t1\ts\tmodel.dim=32\ttop1\ts\tmodel.dim=16\ttop1\t\t\t\n"
          "at_least\treaches 40%\t\ts\t\ttop1\t\t\t\t0.4\t\t\n", f);
    fclose(f);
    char *out = NULL, *errs = NULL;
    int rc = run_flat(cmd_report, dir, &out, &errs);
    test_check("older layout: findings.tsv (no experiment.yaml) is read and its findings checked",
               rc == 0 && out && strstr(out, "## Findings (experiment `old`)") && strstr(out, "Findings read from `") &&
                   strstr(out, "| wider is better | 71.00 vs 51.00 (n = 3 vs 3") && strstr(out, "| Table 1 | holds |") && strstr(out, "| reaches 40% |"),
               "exit %d; stdout: %.1500s; stderr %.300s", rc, out ? out : "", errs ? errs : "");
    free(out), free(errs);
    f = fopen(path, "w");
    if (f) fputs("experiment\told\ngreater\ttoo few fields\n", f), fclose(f);
    expect_status("older layout: a malformed findings.tsv exits 2 naming file:line", cmd_report, 1, (char *[]){dir}, 2,
                  "old/findings.tsv:2: expected 12 tab-separated fields");
}

// ---- findings checked when the experiment loads (the hostile values: tests/experiments/findings/bad_*.yaml,
// checked by test_experiment): a match value that only another scale has is not an error ----
static void test_match_other_scale(void) {
    static experiment e;
    char err[2048] = "";
    const char *path = "tests/experiments/findings/good_match_other_scale.yaml";
    int rc = experiment_load(&e, path, "smoke", err, sizeof err);
    if (rc == 0) rc = exp_tables_write(&e, NULL, err, sizeof err);
    test_check("findings: a match value of the full matrix is accepted at --scale smoke, which leaves it out", rc == 0 && e.nruns == 1,
               "%s", err[0] ? err : "loads");
    experiment_free(&e);
}

int main(void) {
    snprintf(g_root, sizeof g_root, "/tmp/posbench-screen.XXXXXX");
    if (!mkdtemp(g_root)) {
        test_fail("setup", "mkdtemp failed");
        return 1;
    }
    snprintf(g_dir, sizeof g_dir, "%s/runs", g_root);
    test_duplicates();
    test_damaged_final();
    test_huge_declared();
    test_versions();
    test_older_layout();
    test_match_other_scale();
    report_runs_cleanup();
    return test_exit_code();
}
