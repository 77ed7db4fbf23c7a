// tests/test_report.c — `posbench report` and `posbench plot` on synthetic run files written
// with bench/results/results.h: three stages (finetune: axes model.dim x pe.kind, 3 seeds, one run
// diverged; pretrain: axis objective.eta, 2 seeds, /attention/relmap and /samples on one run
// each; mp3: objective.eta (4 values) x pe.kind, 2 seeds, one configuration failed), /train
// and /eval series, DIR/reference.tsv and DIR/exp/experiment.yaml (findings:). The report's rows are
// compared exactly with cells computed here from the documented format (report.h); every
// finding kind is checked both ways (holds / does not hold), `per` pairing, each "not
// measured" reason, and exact Findings rows (findings.h); the plot must leave a PNG (magic
// bytes) and an SVG for every expected figure. SKIPs the plot checks without gnuplot. Exit
// codes: bad DIR, empty DIR, bad flags, bad reference.tsv or findings → 2; a failing
// gnuplot script → 1. Runs from the repository root (plots/); a few seconds. Its files are
// removed unless a check failed or POSBENCH_TEST_KEEP is set.
#include "testing.h"
#include "../bench/report/plot.h"
#include "../bench/report/report.h"
#include "../bench/report/significance.h"
#include "../bench/results/results.h"
#include "../bench/results/results_read.h"
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[256], g_dir[300]; // g_dir = g_root/runs; other test directories beside it

// ---- synthetic runs -----------------------------------------------------------------
static const int dims[2] = {64, 128};
static const char *pes[2] = {"abs", "none"};

static double ft_top1(int d, int p, int s) { return 0.70 + 0.05 * d + 0.08 * (p == 0) + 0.0123 * s + 0.0007 * s * s; }
static double ft_time(int d, int s) { return 100.0 + 10.0 * s + 50.0 * d + 0.25 * s * s; }
static int64_t ft_mem(int d, int s) { return (int64_t)(200 + dims[d]) * 1048576 + (int64_t)s * 4096 * 17; }
static int ft_diverged(int d, int p, int s) { return d == 1 && p == 1 && s == 2; }

// mp3: top1 peaks inside the eta range with a PE, rises with eta without one; the step gets
// cheaper as eta rises. Configuration eta 0.75 without a PE failed (both seeds).
static const double etas[4] = {0, 0.25, 0.5, 0.75};
static double mp3_top1(int e, int p, int s) {
    static const double abs_top1[4] = {0.70, 0.78, 0.74, 0.72}, none_top1[4] = {0.72, 0.75, 0.79, 0.80};
    return (p == 0 ? abs_top1[e] : none_top1[e]) + 0.004 * s;
}
static double mp3_step_ms(int e, int s) { return 20.0 - 4.0 * e + 0.1 * s; }
static int mp3_failed(int e, int p) { return e == 3 && p == 1; }

static void write_series(results *r, int rows, double base) {
    results_column tc[] = {{"step", 'i'}, {"epoch", 'i'}, {"loss", 'd'}, {"lr", 'd'}, {"grad_norm", 'd'}, {"step_time_ms", 'd'}};
    results_column ec[] = {{"epoch", 'i'}, {"step", 'i'}, {"top1", 'd'}, {"top5", 'd'}, {"loss", 'd'}};
    results_series *t = results_series_create(r, "/train", 6, tc, 8);
    results_series *e = results_series_create(r, "/eval", 5, ec, 4);
    for (int i = 0; i < rows; i++) {
        double row[6] = {i + 1, i / 10, 2.3 * exp(-0.1 * i) + base, 1e-3, 1.0, 12.5};
        results_series_append(t, row);
        if ((i + 1) % 10 == 0) {
            double er[5] = {(i + 1) / 10, i + 1, 0.5 + 0.01 * i + base, 0.8 + base, 1.0 - 0.01 * i};
            results_series_append(e, er);
        }
    }
}

static void write_run(const char *stage, const char *id, const char *started, const char *status, long seed,
                      results **out) {
    char path[512];
    snprintf(path, sizeof path, "%s/exp/%s/%s.h5", g_dir, stage, id);
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", "exp");
    results_attr_str(r, "/", "stage", stage);
    results_attr_str(r, "/", "run_id", id);
    results_attr_str(r, "/", "status", status);
    results_attr_int(r, "/", "seed", seed);
    results_attr_str(r, "/", "started", started);
    results_attr_int(r, "/config", "train.seed", seed);
    results_attr_double(r, "/config", "train.lr", 0.002);
    results_attr_str(r, "/config", "data.name", "fashion-mnist");
    *out = r;
}

// ---- findings: one table drives DIR/exp/experiment.yaml and the expected verdicts -------
typedef struct {
    const char *kind, *claim, *paper, *a_stage, *a_match, *a_metric, *b_stage, *b_match, *b_metric, *value, *x, *per;
    const char *verdict;
} finding_case;

static const finding_case cases[] = {
    {"greater", "G1 finetune with a PE beats finetune without", "", "finetune", "pe.kind=abs", "top1", "finetune", "pe.kind=none", "top1", "", "", "", "holds"},
    {"greater", "G2 finetune without a PE beats finetune with one", "", "finetune", "pe.kind=none", "top1", "finetune", "pe.kind=abs", "top1", "", "", "", "does not hold (significant against)"},
    {"greater", "G3 finetune beats mp3", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "", "holds"},
    {"greater", "G4 finetune beats mp3 per pe.kind", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "pe.kind", "does not hold (none: opposite direction, not significant)"},
    {"greater", "G5 finetune | abs beats none per model.dim", "Table 3:\\t84.0 vs 73.4", "finetune", "pe.kind=abs", "top1", "finetune", "pe.kind=none", "top1", "", "", "model.dim", "holds"},
    {"at_least", "L1 pretrain at eta 0 reaches 40%", "", "pretrain", "objective.eta=0.0", "top1", "", "", "", "0.40", "", "", "inconclusive (needs N seeds)"},
    {"at_least", "L2 pretrain at eta 0 reaches 41%", "", "pretrain", "objective.eta=0.0", "top1", "", "", "", "0.41", "", "", "does not hold (opposite direction, not significant)"},
    {"at_most", "M1 pretrain at eta 0 stays at most 41%", "", "pretrain", "objective.eta=0", "top1", "", "", "", "0.41", "", "", "inconclusive (needs N seeds)"},
    {"at_most", "M2 pretrain at eta 0 stays at most 40%", "", "pretrain", "objective.eta=0", "top1", "", "", "", "0.40", "", "", "does not hold (opposite direction, not significant)"},
    {"at_least", "L3 a stage-qualified match key", "", "finetune", "finetune.pe.kind=abs", "top1", "", "", "", "0.75", "", "", "holds"},
    {"at_least", "L4 mp3 reaches 70% per pe.kind", "", "mp3", "", "top1", "", "", "", "0.70", "", "pe.kind", "holds"},
    {"at_least", "L5 mp3 reaches 74% per pe.kind", "", "mp3", "", "top1", "", "", "", "0.74", "", "pe.kind", "does not hold (abs: opposite direction, not significant)"},
    {"peak_inside", "P1 mp3 with a PE peaks inside", "", "mp3", "pe.kind=abs", "top1", "", "", "", "", "objective.eta", "", "holds"},
    {"peak_inside", "P2 mp3 without a PE peaks inside", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "objective.eta", "", "does not hold (vs 0.5: significant against)"},
    {"peak_inside", "P3 mp3 peaks inside per pe.kind", "", "mp3", "", "top1", "", "", "", "", "objective.eta", "pe.kind", "does not hold (none: vs 0.5: significant against)"},
    {"decreasing", "D1 the mp3 step gets cheaper as eta rises", "", "mp3", "", "step_time_ms", "", "", "", "", "objective.eta", "", "holds"},
    {"decreasing", "D2 mp3 without a PE falls with eta", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "objective.eta", "", "does not hold (significant against)"},
    {"increasing", "I1 mp3 without a PE rises with eta", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "objective.eta", "", "holds"},
    {"increasing", "I2 the mp3 step gets dearer as eta rises", "", "mp3", "", "step_time_ms", "", "", "", "", "objective.eta", "", "does not hold (significant against)"},
    {"increasing", "I3 a stage-qualified x key", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "pretrain.objective.eta", "", "holds"},
    {"at_least", "L6 finetune with a PE reaches 95%", "", "finetune", "pe.kind=abs", "top1", "", "", "", "0.95", "", "", "does not hold (significant against)"},
    {"at_most", "M3 finetune with a PE stays at most 95%", "", "finetune", "pe.kind=abs", "top1", "", "", "", "0.95", "", "", "holds"},
    {"greater", "G6 without a PE the wider model places patches better", "", "finetune", "pe.kind=none,model.dim=128", "pos_top1", "finetune",
     "pe.kind=none,model.dim=64", "pos_top1", "", "", "", "inconclusive (needs N seeds per side)"},
    {"greater", "S1 one seed a side", "", "finetune", "pe.kind=abs,model.dim=64", "top1", "finetune", "pe.kind=none,model.dim=64", "top1", "", "", "train.seed",
     "inconclusive (0: 1 seed; 1: 1 seed; 2: 1 seed)"},
    {"increasing", "S2 one seed per x value", "", "mp3", "pe.kind=abs,train.seed=0", "top1", "", "", "", "", "objective.eta", "", "inconclusive (1 seed)"},
    {"peak_inside", "S3 one seed per x value", "", "mp3", "pe.kind=abs,train.seed=0", "top1", "", "", "", "", "objective.eta", "", "inconclusive (1 seed)"},
    {"at_least", "S4 one seed", "", "pretrain", "objective.eta=0,train.seed=1", "top1", "", "", "", "0.3", "", "", "inconclusive (1 seed)"},
    {"greater", "N1 b has no done runs", "", "mp3", "", "top1", "mp3", "objective.eta=0.75,pe.kind=none", "top1", "", "", "",
     "not measured (no done runs of mp3 with objective.eta=0.75, pe.kind=none)"},
    {"at_least", "N2 a metric no run has", "", "pretrain", "", "pos_top1", "", "", "", "0.5", "", "", "not measured (no done run of pretrain has /final pos_top1)"},
    {"peak_inside", "N3 two x values", "", "pretrain", "", "top1", "", "", "", "", "objective.eta", "",
     "not measured (2 values of objective.eta with a mean among the runs of pretrain, need 3)"},
    {"at_least", "N4 a stage without runs", "", "baseline", "", "top1", "", "", "", "0.5", "", "", "not measured (no runs of baseline)"},
    {"greater", "N5 a per key one side lacks", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "sweep.group",
     "not measured (the runs of mp3 have no /config key sweep.group)"},
    {"decreasing", "N6 one x value", "", "mp3", "objective.eta=0.75", "top1", "", "", "", "", "objective.eta", "",
     "not measured (1 value of objective.eta with a mean among the runs of mp3 with objective.eta=0.75, need 2)"},
    {"peak_inside", "N7 an x key the runs lack", "", "finetune", "", "top1", "", "", "", "", "sweep.level", "",
     "not measured (the runs of finetune have no /config key sweep.level)"},
    {"greater", "N8 no per value in common", "", "finetune", "pe.kind=abs", "top1", "finetune", "pe.kind=none", "top1", "", "", "pe.kind",
     "not measured (no value of pe.kind common to a and b)"},
    // model.dim is a key of bench/experiment/config.c: mp3's runs, which lack it, ran at its default 128
    {"greater", "N5b a known per key one side lacks is its default", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "model.dim", "holds"},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

// One side of a finding as YAML: {stage: S, match: {k: v, ...}, metric: M}.
static void yaml_side(FILE *f, const char *side, const char *stage, const char *match, const char *metric) {
    fprintf(f, ", %s: {stage: %s", side, stage);
    if (match[0]) {
        char m[256];
        snprintf(m, sizeof m, "%s", match);
        fputs(", match: {", f);
        int first = 1;
        for (char *pair = strtok(m, ","); pair; pair = strtok(NULL, ","), first = 0) {
            char *eq = strchr(pair, '=');
            *eq = '\0';
            fprintf(f, "%s%s: %s", first ? "" : ", ", pair, eq + 1);
        }
        fputs("}", f);
    }
    fprintf(f, ", metric: %s}", metric);
}

// The experiment file `posbench run` keeps beside the runs (DIR/exp/experiment.yaml) with
// the cases as its findings.
static void write_findings(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) {
        test_fail("setup experiment.yaml", "cannot create %s", path);
        return;
    }
    fputs("# written by tests/test_report.c\nname: exp\nfindings:\n", f);
    for (int i = 0; i < NCASES; i++) {
        const finding_case *c = &cases[i];
        fprintf(f, "  - {kind: %s, claim: \"%s\"", c->kind, c->claim);
        if (c->paper[0]) fprintf(f, ", paper: \"%s\"", c->paper);
        yaml_side(f, "a", c->a_stage, c->a_match, c->a_metric);
        if (c->b_stage[0]) yaml_side(f, "b", c->b_stage, c->b_match, c->b_metric);
        if (c->value[0]) fprintf(f, ", value: %s", c->value);
        if (c->x[0]) fprintf(f, ", x: %s", c->x);
        if (c->per[0]) fprintf(f, ", per: %s", c->per);
        fputs("}\n", f);
    }
    fclose(f);
}

static void make_runs(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/exp", g_dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/exp/finetune", g_dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/exp/pretrain", g_dir);
    mkdir(path, 0777);
    for (int d = 0; d < 2; d++)
        for (int p = 0; p < 2; p++)
            for (int s = 0; s < 3; s++) {
                char id[16];
                snprintf(id, sizeof id, "f%011x", (unsigned)(d * 100 + p * 10 + s));
                results *r;
                int div = ft_diverged(d, p, s);
                write_run("finetune", id, "2026-01-02T00:00:00Z", div ? "diverged" : "done", s, &r);
                results_attr_int(r, "/config", "model.dim", dims[d]);
                results_attr_str(r, "/config", "sweep.group", "a"); // a key posbench does not know
                results_attr_str(r, "/config", "pe.kind", pes[p]);
                write_series(r, div ? 13 : 20, 0.01 * d + 0.02 * p + 0.001 * s);
                double top1 = ft_top1(d, p, s);
                if (!div) {
                    results_attr_double(r, "/final", "top1", top1);
                    results_attr_double(r, "/final", "top5", top1 + 0.15);
                    results_attr_double(r, "/final", "pos_top1", 0.3 + 0.01 * s + 0.02 * d);
                    results_attr_double(r, "/final", "loss", 1.2 - top1 + 0.001 * s);
                } else {
                    results_attr_int(r, "/final", "diverged_step", 14);
                }
                results_attr_double(r, "/final", "train_time_s", ft_time(d, s));
                results_attr_double(r, "/final", "images_per_s", 6000.0 / ft_time(d, s));
                results_attr_int(r, "/final", "peak_mem_bytes", ft_mem(d, s));
                results_attr_int(r, "/final", "params", dims[d] * 1000 + 7);
                results_attr_double(r, "/final", "flops_per_step", dims[d] * 0.37e9);
                results_attr_int(r, "/final", "steps", div ? 13 : 20);
                results_close(r);
            }
    for (int e = 0; e < 2; e++)
        for (int s = 0; s < 2; s++) {
            char id[16];
            snprintf(id, sizeof id, "p%011x", (unsigned)(e * 10 + s));
            results *r;
            write_run("pretrain", id, "2026-01-01T00:00:00Z", "done", s, &r);
            results_attr_double(r, "/config", "objective.eta", 0.5 * e);
            write_series(r, 20, 0.05 * e + 0.001 * s);
            results_attr_double(r, "/final", "top1", 0.4 + 0.1 * e + 0.01 * s);
            results_attr_double(r, "/final", "loss", 2.0 - 0.1 * e - 0.01 * s);
            results_attr_double(r, "/final", "train_time_s", 50.0 + s);
            results_attr_double(r, "/final", "images_per_s", 1000.0 + 10 * s);
            results_attr_int(r, "/final", "peak_mem_bytes", 300 * 1048576 + s);
            results_attr_int(r, "/final", "params", 64007);
            results_attr_double(r, "/final", "flops_per_step", 1.5e9);
            if (e == 1 && s == 0) { // relmap (L=2, H=2, 5, 5): a peak at offset 0
                float rel[2 * 2 * 5 * 5], ent[4] = {1, 2, 3, 4};
                for (int k = 0; k < 4; k++)
                    for (int i = 0; i < 5; i++)
                        for (int j = 0; j < 5; j++) rel[(k * 5 + i) * 5 + j] = (float)((k + 1) * exp(-((i - 2) * (i - 2) + (j - 2) * (j - 2)) / (1.0 + k)));
                results_dataset_f32(r, "/attention/relmap", 4, (int[]){2, 2, 5, 5}, rel);
                results_dataset_f32(r, "/attention/entropy", 2, (int[]){2, 2}, ent);
                // gMLP's spatial weights on a 4 x 4 grid after a cls token: W[l][i][j] = 1000 l + 20 i + j
                static float W[2 * 17 * 17];
                for (int l = 0; l < 2; l++)
                    for (int i = 0; i < 17; i++)
                        for (int j = 0; j < 17; j++) W[(l * 17 + i) * 17 + j] = (float)(1000 * l + 20 * i + j);
                results_dataset_f32(r, "/spatial/W", 3, (int[]){2, 17, 17}, W);
                results_attr_int(r, "/spatial", "rows", 4);
                results_attr_int(r, "/spatial", "cols", 4);
                results_attr_int(r, "/spatial", "t0", 1);
            }
            if (e == 0 && s == 0) { // a sequence's W (1 block, 5 tokens, no cls): W[0][i][j] = 10 i + j
                float W[25];
                for (int k = 0; k < 25; k++) W[k] = (float)(10 * (k / 5) + k % 5);
                results_dataset_f32(r, "/spatial/W", 3, (int[]){1, 5, 5}, W);
                results_attr_int(r, "/spatial", "rows", 1);
                results_attr_int(r, "/spatial", "cols", 5);
                results_attr_int(r, "/spatial", "t0", 0);
            }
            if (e == 0 && s == 1) { // samples: (N,C,H,W) grey, (N,H,W) with NaN, (N,H,W,3) colour
                float a[4 * 8 * 8], b[4 * 8 * 8 * 3];
                for (int i = 0; i < 4 * 64; i++) a[i] = (float)((i % 8) + (i / 8 % 8)) / 14.0f;
                results_dataset_f32(r, "/samples/original", 4, (int[]){4, 1, 8, 8}, a);
                for (int i = 0; i < 4 * 64; i++) a[i] = (i / 8 % 8) < 4 ? NAN : a[i];
                results_dataset_f32(r, "/samples/context", 3, (int[]){4, 8, 8}, a);
                for (int i = 0; i < 4 * 64 * 3; i++) b[i] = (float)(i % 3 == 0 ? (i / 3 % 8) / 7.0 : i % 3 == 1 ? (i / 24 % 8) / 7.0 : 0.5);
                results_dataset_f32(r, "/samples/reassembled", 4, (int[]){4, 8, 8, 3}, b);
            }
            results_close(r);
        }
    snprintf(path, sizeof path, "%s/exp/mp3", g_dir);
    mkdir(path, 0777);
    for (int e = 0; e < 4; e++)
        for (int p = 0; p < 2; p++)
            for (int s = 0; s < 2; s++) {
                char id[16];
                snprintf(id, sizeof id, "m%011x", (unsigned)(e * 100 + p * 10 + s));
                results *r;
                write_run("mp3", id, "2026-01-01T12:00:00Z", mp3_failed(e, p) ? "failed" : "done", s, &r);
                results_attr_double(r, "/config", "objective.eta", etas[e]);
                results_attr_double(r, "/config", "pretrain.objective.eta", etas[e]); // as if from a stage-qualified axis
                results_attr_str(r, "/config", "pe.kind", pes[p]);
                write_series(r, 10, 0.01 * e);
                if (!mp3_failed(e, p)) {
                    results_attr_double(r, "/final", "top1", mp3_top1(e, p, s));
                    results_attr_double(r, "/final", "step_time_ms", mp3_step_ms(e, s));
                }
                results_close(r);
            }
    FILE *f;
    snprintf(path, sizeof path, "%s/exp/pretrain/zzzz.h5.partial", g_dir); // ignored
    if ((f = fopen(path, "w"))) fputs("not hdf5", f), fclose(f);
    snprintf(path, sizeof path, "%s/reference.tsv", g_dir);
    if ((f = fopen(path, "w"))) {
        fputs("# stage\tmatch\tmetric\tvalue\tsource\n", f);
        fputs("finetune\tmodel.dim=64,pe.kind=abs\ttop1\t85.2\tMP3 Table 2\n", f);
        fputs("finetune\tfinetune.model.dim=128.0,pe.kind=none\ttop1\t70.1\tMP3 Table 2\n", f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/exp/experiment.yaml", g_dir);
    write_findings(path);
}

// ---- expected cells -----------------------------------------------------------------
static void cell(char *out, size_t len, const double *x, int n, double scale, const char *fmt, int mean_only) {
    if (n == 0) {
        snprintf(out, len, "—");
        return;
    }
    double sum = 0, ss = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    double mean = sum / n;
    for (int i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    double sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    char m[64], s[64];
    snprintf(m, sizeof m, fmt, mean * scale);
    if (n > 1) snprintf(s, sizeof s, fmt, sd * scale);
    else snprintf(s, sizeof s, "—");
    if (mean_only) snprintf(out, len, "%s", m);
    else snprintf(out, len, "%s ± %s", m, s);
}

static void append(char *row, size_t len, const char *c) { snprintf(row + strlen(row), len - strlen(row), " %s |", c); }

static void expected_ft_row(int d, int p, char *row, size_t len) {
    double t1[3], t5[3], pos[3], loss[3], tt[3], ips[3], mem[3], par[3], fl[3];
    int n = 0;
    for (int s = 0; s < 3; s++) {
        if (ft_diverged(d, p, s)) continue;
        double top1 = ft_top1(d, p, s);
        t1[n] = top1, t5[n] = top1 + 0.15, pos[n] = 0.3 + 0.01 * s + 0.02 * d, loss[n] = 1.2 - top1 + 0.001 * s;
        tt[n] = ft_time(d, s), ips[n] = 6000.0 / ft_time(d, s), mem[n] = (double)ft_mem(d, s);
        par[n] = dims[d] * 1000 + 7, fl[n] = dims[d] * 0.37e9;
        n++;
    }
    char c[160];
    snprintf(row, len, "| %d | %s | %d |", dims[d], pes[p], n);
    cell(c, sizeof c, t1, n, 100, "%.2f", 0), append(row, len, c);
    append(row, len, d == 0 && p == 0 ? "85.2" : d == 1 && p == 1 ? "70.1" : "");
    cell(c, sizeof c, t5, n, 100, "%.2f", 0), append(row, len, c);
    cell(c, sizeof c, pos, n, 100, "%.2f", 0), append(row, len, c);
    cell(c, sizeof c, loss, n, 1, "%.4f", 0), append(row, len, c);
    cell(c, sizeof c, par, n, 1e-6, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, fl, n, 1e-9, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, tt, n, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, ips, n, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, mem, n, 1.0 / 1048576, "%.1f", 0), append(row, len, c);
    append(row, len, n == 3 ? "3 done" : "2 done, 1 diverged");
}

static void expected_pt_row(int e, char *row, size_t len) {
    double t1[2], loss[2], tt[2], ips[2], mem[2], par[2] = {64007, 64007}, fl[2] = {1.5e9, 1.5e9};
    for (int s = 0; s < 2; s++)
        t1[s] = 0.4 + 0.1 * e + 0.01 * s, loss[s] = 2.0 - 0.1 * e - 0.01 * s, tt[s] = 50.0 + s, ips[s] = 1000.0 + 10 * s,
        mem[s] = 300 * 1048576.0 + s;
    char c[160];
    snprintf(row, len, "| %s | 2 |", e ? "0.5" : "0");
    cell(c, sizeof c, t1, 2, 100, "%.2f", 0), append(row, len, c);
    cell(c, sizeof c, loss, 2, 1, "%.4f", 0), append(row, len, c);
    cell(c, sizeof c, par, 2, 1e-6, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, fl, 2, 1e-9, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, tt, 2, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, ips, 2, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, mem, 2, 1.0 / 1048576, "%.1f", 0), append(row, len, c);
}

// ---- running a command with stdout/stderr captured -----------------------------------
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

// Runs fn(argc, argv) with stdout and stderr going to files; returns its status.
static int capture(int (*fn)(int, char **), int argc, char **argv, char **out, char **err) {
    char po[300], pe[300];
    snprintf(po, sizeof po, "%s/stdout", g_root), snprintf(pe, sizeof pe, "%s/stderr", g_root);
    fflush(stdout), fflush(stderr);
    int so = dup(1), se = dup(2);
    int fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fo, 1), dup2(fe, 2), close(fo), close(fe);
    int rc = fn(argc, argv);
    fflush(stdout), fflush(stderr);
    dup2(so, 1), dup2(se, 2), close(so), close(se);
    *out = slurp(po), *err = slurp(pe);
    for (char *p = *err; p && *p; p++) // one line per check in the test output
        if (*p == '\n') *p = p[1] ? '|' : '\0';
    return rc;
}

static int file_starts(const char *path, const char *magic, size_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[16] = {0};
    size_t got = fread(buf, 1, n, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    return got == n && size > 100 && memcmp(buf, magic, n) == 0;
}

// ---- checks -------------------------------------------------------------------------
static void test_reader(void) {
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/exp/pretrain/p%011x.h5", g_dir, 10u);
    rr_run r;
    int rc = rr_read(path, RR_SERIES | RR_ARRAYS, &r, err, sizeof err);
    if (rc != 0) {
        test_fail("rr_read", "%s", err);
        return;
    }
    const rr_attr *eta = rr_attr_get(&r.config, "objective.eta"), *kind = rr_attr_get(&r.config, "data.name");
    const rr_column *loss = rr_column_get(&r.train, "loss");
    const rr_array *rel = rr_array_get(&r.attention, "relmap");
    int ok = eta && eta->type == 'd' && !strcmp(eta->text, "0.5") && eta->num == 0.5 && kind && kind->type == 's' &&
             !strcmp(kind->text, "fashion-mnist") && !strcmp(rr_run_status(&r), "done") && rr_run_seed(&r) == 0 &&
             r.train.ncols == 6 && !strcmp(r.train.cols[5].name, "step_time_ms") && loss && loss->n == 20 &&
             fabs(loss->v[3] - (2.3 * exp(-0.3) + 0.05)) < 1e-12 && r.eval.ncols == 5 && r.eval.cols[0].n == 2 && rel &&
             rel->ndim == 4 && rel->dims[2] == 5 && rel->numel == 100 && fabs(rel->data[12] - 1.0f) < 1e-6;
    test_check("rr_read attrs, series, arrays", ok, "config %d attrs, train %d cols, attention %d arrays", r.config.n,
               r.train.ncols, r.attention.n);
    // A key the file lacks (written before the key existed) reads as its default, typed as
    // the trainer writes it; the attributes stay in name order.
    const rr_attr *scale = rr_attr_get(&r.config, "pe.cape_scale"), *sizes = rr_attr_get(&r.config, "data.resolutions");
    const rr_attr *res = rr_attr_get(&r.config, "data.resolution");
    int sorted = 1;
    for (int i = 1; i < r.config.n; i++) sorted &= strcmp(r.config.items[i - 1].name, r.config.items[i].name) < 0;
    ok = scale && scale->type == 'd' && !strcmp(scale->text, "1.4") && sizes && sizes->type == 's' && !strcmp(sizes->text, "") &&
         res && res->type == 'i' && !strcmp(res->text, "0") && res->num == 0 && sorted;
    test_check("rr_read: keys absent from /config read as their defaults", ok, "pe.cape_scale '%s', data.resolutions '%s', data.resolution '%s', %s",
               scale ? scale->text : "(none)", sizes ? sizes->text : "(none)", res ? res->text : "(none)", sorted ? "sorted" : "NOT sorted");
    rr_free(&r);
    snprintf(path, sizeof path, "%s/exp/pretrain/zzzz.h5.partial", g_dir);
    rc = rr_read(path, RR_ATTRS, &r, err, sizeof err);
    test_check("rr_read error names the file", rc == -1 && strstr(err, path) != NULL, "%s", err);
}

static void test_report(void) {
    char *out = NULL, *err = NULL;
    char *argv[] = {g_dir};
    int rc = capture(cmd_report, 1, argv, &out, &err);
    test_check("report exit status", rc == 0, "rc %d; stderr: %s", rc, err ? err : "");
    char *pt = strstr(out, "## stage `pretrain`"), *ft = strstr(out, "## stage `finetune`");
    test_check("report stage order by start time", pt && ft && pt < ft, "pretrain %s before finetune", pt && ft && pt < ft ? "is" : "is not");
    const char *ft_head = "| model.dim | pe.kind | n | top1 (%) | paper top1 | top5 (%) | pos_top1 (%) | loss | params (M) | "
                          "GFLOP/step | train_time (s) | images/s | peak_mem (MiB) | status |\n";
    const char *pt_head = "| objective.eta | n | top1 (%) | loss | params (M) | GFLOP/step | train_time (s) | images/s | peak_mem (MiB) |\n";
    char *h = ft ? strstr(ft, ft_head) : NULL;
    test_check("report finetune header", h != NULL, "%s", h ? "as documented" : out);
    if (h) { // rows in order: 64 abs, 64 none, 128 abs, 128 none (numeric sort of model.dim)
        char *line = strchr(strchr(h, '\n') + 1, '\n') + 1;
        int bad = 0;
        for (int d = 0; d < 2; d++)
            for (int p = 0; p < 2; p++) {
                char want[1024];
                expected_ft_row(d, p, want, sizeof want);
                size_t n = strcspn(line, "\n");
                if (strlen(want) != n || strncmp(line, want, n)) {
                    test_fail("report finetune row", "dim %d pe %s:\n  got  %.*s\n  want %s", dims[d], pes[p], (int)n, line, want);
                    bad = 1;
                }
                line += n + 1;
            }
        test_check("report finetune rows exact", !bad, "4 configurations, mean ± std over done seeds, diverged counted");
    }
    h = pt ? strstr(pt, pt_head) : NULL;
    test_check("report pretrain header", h != NULL, "%s", h ? "as documented (no status column)" : out);
    if (h) {
        char *line = strchr(strchr(h, '\n') + 1, '\n') + 1;
        int bad = 0;
        for (int e = 0; e < 2; e++) {
            char want[1024];
            expected_pt_row(e, want, sizeof want);
            size_t n = strcspn(line, "\n");
            if (strlen(want) != n || strncmp(line, want, n)) {
                test_fail("report pretrain row", "eta %d:\n  got  %.*s\n  want %s", e, (int)n, line, want);
                bad = 1;
            }
            line += n + 1;
        }
        test_check("report pretrain rows exact", !bad, "2 configurations");
    }
    test_check("report reference source", strstr(out, "`paper` columns: MP3 Table 2\n") != NULL, "source listed under the table");
    char path[512];
    snprintf(path, sizeof path, "%s/REPORT.md", g_dir);
    char *md = slurp(path);
    test_check("REPORT.md equals stdout", md && !strcmp(md, out), "%zu bytes", md ? strlen(md) : 0);
    snprintf(path, sizeof path, "%s/REPORT.md.tmp", g_dir);
    test_check("REPORT.md written atomically", access(path, F_OK) != 0, "no .tmp left behind");
    free(md), free(out), free(err);
}

// ---- findings -----------------------------------------------------------------------
// Mean top1 of finetune over done runs with pe p (d = -1: both widths).
static double ft_mean(int p, int d) {
    double sum = 0;
    int n = 0;
    for (int dd = 0; dd < 2; dd++)
        for (int s = 0; s < 3; s++)
            if ((d < 0 || dd == d) && !ft_diverged(dd, p, s)) sum += ft_top1(dd, p, s), n++;
    return sum / n;
}

// Mean top1 of mp3 over done runs (e, p = -1: all values).
static double mp3_mean(int e, int p) {
    double sum = 0;
    int n = 0;
    for (int ee = 0; ee < 4; ee++)
        for (int pp = 0; pp < 2; pp++)
            for (int s = 0; s < 2; s++)
                if ((e < 0 || ee == e) && (p < 0 || pp == p) && !mp3_failed(ee, pp)) sum += mp3_top1(ee, pp, s), n++;
    return n ? sum / n : NAN;
}

static void pct(char *out, size_t len, double v) {
    if (isnan(v)) snprintf(out, len, "—");
    else snprintf(out, len, "%.2f", 100 * v);
}

// "0: 70.20, 0.25: 78.20, 0.5: 74.20, 0.75: 72.20": mp3 top1 along eta for pe p.
static void mp3_curve(char *out, size_t len, int p) {
    static const char *labels[4] = {"0", "0.25", "0.5", "0.75"};
    out[0] = '\0';
    for (int e = 0; e < 4; e++) {
        char v[32];
        pct(v, sizeof v, mp3_mean(e, p));
        snprintf(out + strlen(out), len - strlen(out), "%s%s: %s", e ? ", " : "", labels[e], v);
    }
}

// The row of the Findings table whose claim cell is `claim` (Markdown-escaped), or NULL.
static char *finding_row(const char *out, const char *claim, char *row, size_t len) {
    char want[400];
    size_t n = 0;
    n += (size_t)snprintf(want, sizeof want, "| ");
    for (const char *p = claim; *p && n + 3 < sizeof want; p++) {
        if (*p == '|') want[n++] = '\\';
        want[n++] = *p;
    }
    snprintf(want + n, sizeof want - n, " | ");
    const char *section = strstr(out, "## Findings (experiment `exp`)");
    const char *hit = section ? strstr(section, want) : NULL;
    if (!hit || (hit != out && hit[-1] != '\n')) return NULL;
    snprintf(row, len, "%.*s", (int)strcspn(hit, "\n"), hit);
    return row;
}

static void check_row(const char *out, const char *claim, const char *want) {
    char row[2048], label[300];
    snprintf(label, sizeof label, "findings row exact: %.12s", claim);
    int found = finding_row(out, claim, row, sizeof row) != NULL, ok = found && !strcmp(row, want);
    if (ok) test_pass(label, "as computed from the fixture");
    else test_fail(label, "got '%s', want '%s'", found ? row : "(no row)", want);
}

// The case whose claim starts with prefix.
static const finding_case *case_by(const char *prefix) {
    for (int i = 0; i < NCASES; i++)
        if (!strncmp(cases[i].claim, prefix, strlen(prefix))) return &cases[i];
    return &cases[0];
}

// A difference as findings.c shows it: sign, then |v| in percent with 2 decimals.
static void signed_pct(char *out, size_t len, double v) { snprintf(out, len, "%s%.2f", v < 0 ? "-" : "+", 100 * fabs(v)); }

// "Δ +8.00, 95% CI [+4.89, +11.11], p = 0.001" for test t (p for the claim).
static void stat_cell(char *out, size_t len, const char *label, const sig_test *t, double p) {
    char e[32], lo[32], hi[32], pt[32];
    signed_pct(e, sizeof e, t->effect), signed_pct(lo, sizeof lo, t->lo), signed_pct(hi, sizeof hi, t->hi);
    if (p < 0.001) snprintf(pt, sizeof pt, "p < 0.001");
    else if (p > 0.999) snprintf(pt, sizeof pt, "p > 0.999");
    else snprintf(pt, sizeof pt, "p = %.3f", p);
    snprintf(out, len, "%s %s, 95%% CI [%s, %s], %s", label, e, lo, hi, pt);
}

// Finetune top1 (or pos_top1 when pos) of the done runs with pe p and width d (-1: both).
static int ft_values(int p, int d, int pos, double *v) {
    int n = 0;
    for (int dd = 0; dd < 2; dd++)
        for (int s = 0; s < 3; s++)
            if ((d < 0 || dd == d) && !ft_diverged(dd, p, s)) v[n++] = pos ? 0.3 + 0.01 * s + 0.02 * dd : ft_top1(dd, p, s);
    return n;
}

// "79.35 vs 71.35 (n = 3 vs 3, Δ ..., p = ...)": a greater cell for finetune pe abs vs none at width d.
static void ft_greater_cell(char *out, size_t len, int d) {
    double a[6], b[6];
    int na = ft_values(0, d, 0, a), nb = ft_values(1, d, 0, b);
    sig_test t = sig_welch(a, na, b, nb);
    char ma[32], mb[32], st[256];
    pct(ma, sizeof ma, ft_mean(0, d)), pct(mb, sizeof mb, ft_mean(1, d));
    stat_cell(st, sizeof st, "Δ", &t, t.p);
    snprintf(out, len, "%s vs %s (n = %d vs %d, %s)", ma, mb, na, nb, st);
}

// The mp3 top1 of pe p at eta index e, both seeds (0 when the configuration failed).
static int mp3_values(int e, int p, double *v) {
    if (mp3_failed(e, p)) return 0;
    v[0] = mp3_top1(e, p, 0), v[1] = mp3_top1(e, p, 1);
    return 2;
}

static void test_findings(void) {
    char *out = NULL, *err = NULL;
    int rc = capture(cmd_report, 1, (char *[]){g_dir}, &out, &err);
    test_check("report with findings exit status", rc == 0, "rc %d; stderr: %s", rc, err ? err : "");
    const char *head = "## Findings (experiment `exp`)\n\n| claim | ours | paper | verdict |\n|---|---|---|---|\n";
    char *sec = out ? strstr(out, head) : NULL, *ft = out ? strstr(out, "## stage `finetune`") : NULL;
    test_check("findings section after the stage tables", sec && ft && sec > ft, "%s", sec ? "header as documented" : "no section");
    // the seeds an inconclusive verdict says it needs, from the fixture's values (80% power rule
    // of significance.h, checked against mpmath by test_stats)
    const double pre0[2] = {0.40, 0.41};
    double pm, pv, na_v[6], nb_v[6];
    sig_mean_var(pre0, 2, &pm, &pv);
    int n_one = sig_n_one_sample(pm - 0.40, pv);
    int na = 0, nb = 0;
    for (int s = 0; s < 3; s++) {
        if (!ft_diverged(1, 1, s)) na_v[na++] = 0.3 + 0.01 * s + 0.02;
        nb_v[nb++] = 0.3 + 0.01 * s;
    }
    sig_test g6 = sig_welch(na_v, na, nb_v, nb);
    int n_g6 = sig_n_welch(g6.effect, g6.va, g6.vb);
    test_check("findings fixture: the inconclusive cases are inconclusive by construction", g6.p > 0.05 && g6.effect > 0 && n_one > 2 && n_g6 > 3,
               "G6 p %.3f, seeds needed %d and %d", g6.p, n_one, n_g6);
    int wrong = 0;
    for (int i = 0; i < NCASES; i++) {
        char row[4096], want_end[600], verdict[300];
        const char *nat = strstr(cases[i].verdict, "needs N ");
        if (nat) snprintf(verdict, sizeof verdict, "%.*sneeds %d %s", (int)(nat - cases[i].verdict), cases[i].verdict,
                          strstr(cases[i].claim, "G6") == cases[i].claim ? n_g6 : n_one, nat + 8);
        else snprintf(verdict, sizeof verdict, "%s", cases[i].verdict);
        snprintf(want_end, sizeof want_end, " | %s |", verdict);
        int ok = out && finding_row(out, cases[i].claim, row, sizeof row) && strlen(row) >= strlen(want_end) &&
                 !strcmp(row + strlen(row) - strlen(want_end), want_end);
        if (!ok) test_fail("finding verdict", "%s: want '%s', row: %s", cases[i].claim, verdict, ok || !out ? "" : row), wrong++;
    }
    test_check("findings: every kind both ways (holds, significant against, opposite direction), inconclusive, 1 seed, per, not measured",
               wrong == 0, "%d findings, %d wrong verdicts", NCASES, wrong);
    int rows = 0;
    for (const char *p = sec; p && (p = strstr(p, "\n| ")); p++) rows++;
    test_check("findings: one row per finding", rows == NCASES + 1, "%d rows (header included), want %d", rows, NCASES + 1);
    if (!out) return;

    char a[512], b[512], c[32], d[32], want[4096], curve_abs[256], curve_none[256], st[256], st2[256];
    ft_greater_cell(a, sizeof a, 0), ft_greater_cell(b, sizeof b, 1);
    snprintf(want, sizeof want, "| G5 finetune \\| abs beats none per model.dim | 64: %s; 128: %s | Table 3: 84.0 vs 73.4 | holds |", a, b);
    check_row(out, case_by("G5")->claim, want);
    { // G4: finetune (both widths) vs mp3 (every eta), per pe.kind
        double fa[6], ma[8], fb[6], mb[8];
        int nfa = ft_values(0, -1, 0, fa), nfb = ft_values(1, -1, 0, fb), nma = 0, nmb = 0;
        for (int e = 0; e < 4; e++) nma += mp3_values(e, 0, ma + nma), nmb += mp3_values(e, 1, mb + nmb);
        sig_test t1 = sig_welch(fa, nfa, ma, nma), t2 = sig_welch(fb, nfb, mb, nmb);
        pct(c, sizeof c, ft_mean(0, -1)), pct(d, sizeof d, mp3_mean(-1, 0));
        stat_cell(st, sizeof st, "Δ", &t1, t1.p), stat_cell(st2, sizeof st2, "Δ", &t2, t2.p);
        snprintf(a, sizeof a, "abs: %s vs %s (n = %d vs %d, %s)", c, d, nfa, nma, st);
        pct(c, sizeof c, ft_mean(1, -1)), pct(d, sizeof d, mp3_mean(-1, 1));
        snprintf(want, sizeof want, "| %s | %s; none: %s vs %s (n = %d vs %d, %s) |  | %s |", case_by("G4")->claim, a, c, d, nfb, nmb, st2,
                 case_by("G4")->verdict);
        check_row(out, case_by("G4")->claim, want);
    }
    sig_test l1 = sig_one_sample(pre0, 2, 0.40);
    stat_cell(st, sizeof st, "Δ", &l1, l1.p);
    snprintf(want, sizeof want, "| %s | 40.50 (n = 2, %s) (claim ≥ 40.00) |  | inconclusive (needs %d seeds) |", case_by("L1")->claim, st, n_one);
    check_row(out, case_by("L1")->claim, want);
    // peak_inside: the highest inner mean (0.25) against each end, Welch per pair
    double v0[2], v1[2], v3[2];
    mp3_values(0, 0, v0), mp3_values(1, 0, v1), mp3_values(3, 0, v3);
    sig_test pe0 = sig_welch(v1, 2, v0, 2), pe3 = sig_welch(v1, 2, v3, 2);
    stat_cell(st, sizeof st, "Δ", &pe0, pe0.p), stat_cell(st2, sizeof st2, "Δ", &pe3, pe3.p);
    mp3_curve(curve_abs, sizeof curve_abs, 0), mp3_curve(curve_none, sizeof curve_none, 1);
    char peak_abs[1024];
    snprintf(peak_abs, sizeof peak_abs, "%s (peak 0.25 vs 0: n = 2 vs 2, %s; vs 0.75: n = 2 vs 2, %s)", curve_abs, st, st2);
    snprintf(want, sizeof want, "| %s | %s |  | holds |", case_by("P1")->claim, peak_abs);
    check_row(out, case_by("P1")->claim, want);
    double w0[2], w1[2], w2[2];
    mp3_values(0, 1, w0), mp3_values(1, 1, w1), mp3_values(2, 1, w2);
    sig_test qe0 = sig_welch(w1, 2, w0, 2), qe2 = sig_welch(w1, 2, w2, 2); // none: 0.75 failed, so 0.5 is the last end
    stat_cell(st, sizeof st, "Δ", &qe0, qe0.p), stat_cell(st2, sizeof st2, "Δ", &qe2, qe2.p);
    snprintf(want, sizeof want, "| %s | abs: (%s); none: (%s (peak 0.25 vs 0: n = 2 vs 2, %s; vs 0.5: n = 2 vs 2, %s)) |  | %s |",
             case_by("P3")->claim, peak_abs, curve_none, st, st2, case_by("P3")->verdict);
    check_row(out, case_by("P3")->claim, want);
    { // decreasing: OLS slope of step_time_ms on eta over every done run, shown times the eta range
        double x[16], y[16];
        int n = 0;
        for (int e = 0; e < 4; e++)
            for (int p = 0; p < 2; p++)
                for (int s = 0; s < 2; s++)
                    if (!mp3_failed(e, p)) x[n] = etas[e], y[n++] = mp3_step_ms(e, s);
        sig_test sl = sig_slope(x, y, n);
        double p = 1 - sl.p;
        snprintf(want, sizeof want,
                 "| %s | 0: %.1f, 0.25: %.1f, 0.5: %.1f, 0.75: %.1f (n = %d, fitted change over the range %s%.1f, 95%% CI [%s%.1f, %s%.1f], %s) |  | holds |",
                 case_by("D1")->claim, (mp3_step_ms(0, 0) + mp3_step_ms(0, 1)) / 2, (mp3_step_ms(1, 0) + mp3_step_ms(1, 1)) / 2,
                 (mp3_step_ms(2, 0) + mp3_step_ms(2, 1)) / 2, (mp3_step_ms(3, 0) + mp3_step_ms(3, 1)) / 2, n, sl.effect < 0 ? "-" : "+",
                 fabs(sl.effect) * 0.75, sl.lo < 0 ? "-" : "+", fabs(sl.lo) * 0.75, sl.hi < 0 ? "-" : "+", fabs(sl.hi) * 0.75,
                 p < 0.001 ? "p < 0.001" : "p = ?");
        check_row(out, case_by("D1")->claim, want);
    }
    pct(a, sizeof a, mp3_mean(-1, -1));
    snprintf(want, sizeof want, "| %s | %s vs — |  | %s |", case_by("N1")->claim, a, case_by("N1")->verdict);
    check_row(out, case_by("N1")->claim, want);
    snprintf(want, sizeof want, "| %s | unpaired: abs (only in a); unpaired: none (only in b) |  | %s |", case_by("N8")->claim, case_by("N8")->verdict);
    check_row(out, case_by("N8")->claim, want);
    char s1[512] = "";
    for (int s = 0; s < 3; s++) {
        pct(c, sizeof c, ft_top1(0, 0, s)), pct(d, sizeof d, ft_top1(0, 1, s));
        snprintf(s1 + strlen(s1), sizeof s1 - strlen(s1), "%s%d: %s vs %s (n = 1 vs 1)", s ? "; " : "", s, c, d);
    }
    snprintf(want, sizeof want, "| %s | %s |  | %s |", case_by("S1")->claim, s1, case_by("S1")->verdict);
    check_row(out, case_by("S1")->claim, want);
    char path[512];
    snprintf(path, sizeof path, "%s/REPORT.md", g_dir);
    char *md = slurp(path);
    test_check("REPORT.md has the findings too", md && !strcmp(md, out), "%zu bytes", md ? strlen(md) : 0);
    free(md), free(out), free(err);
}

static void expect_status(const char *name, int (*fn)(int, char **), int argc, char **argv, int want, const char *needle) {
    char *out = NULL, *err = NULL;
    int rc = capture(fn, argc, argv, &out, &err);
    int ok = rc == want && (!needle || (err && strstr(err, needle)));
    test_check(name, ok, "exit %d (want %d); stderr: %.300s", rc, want, err ? err : "");
    free(out), free(err);
}

static void test_bad_input(void) {
    char missing[300], empty[300], bad[300], path[400];
    snprintf(missing, sizeof missing, "%s/no-such-dir", g_root);
    snprintf(empty, sizeof empty, "%s/empty", g_root);
    snprintf(bad, sizeof bad, "%s/badref", g_root);
    mkdir(empty, 0777), mkdir(bad, 0777);
    expect_status("report missing DIR exits 2", cmd_report, 1, (char *[]){missing}, 2, missing);
    expect_status("report empty DIR exits 2", cmd_report, 1, (char *[]){empty}, 2, "no finished runs");
    expect_status("report no DIR exits 2", cmd_report, 0, (char *[]){NULL}, 2, "needs a results directory");
    expect_status("report bad flag exits 2", cmd_report, 2, (char *[]){g_dir, "--bogus"}, 2, "--bogus");
    expect_status("plot missing DIR exits 2", cmd_plot, 1, (char *[]){missing}, 2, NULL);
    expect_status("plot bad --only exits 2", cmd_plot, 3, (char *[]){g_dir, "--only", "pie"}, 2, "not a figure kind");
    // one good run plus a junk .h5: the junk is left out and named; a bad reference.tsv is an error
    char src[512];
    snprintf(src, sizeof src, "%s/exp/pretrain/p%011x.h5", g_dir, 0u);
    snprintf(path, sizeof path, "%s/run.h5", bad);
    char *data = NULL;
    FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
    if (in && out) {
        data = malloc(1 << 20);
        size_t n = fread(data, 1, 1 << 20, in);
        fwrite(data, 1, n, out);
    }
    if (in) fclose(in);
    if (out) fclose(out);
    free(data);
    snprintf(path, sizeof path, "%s/junk.h5", bad);
    if ((out = fopen(path, "w"))) fputs("junk", out), fclose(out);
    char *o = NULL, *e = NULL;
    int rc = capture(cmd_report, 1, (char *[]){bad}, &o, &e);
    test_check("report leaves out an unreadable file", rc == 0 && o && strstr(o, "junk.h5") && e && strstr(e, "junk.h5"), "exit %d", rc);
    free(o), free(e);
    // malformed findings in an experiment.yaml (below DIR): exit 2 naming file:line:col
    static const struct {
        const char *text, *needle;
    } bad_findings[] = {
        {"name: exp\nfindings: {claim: c}\n", "experiment.yaml:2:11: findings: expected a list of mappings"},
        {"findings: []\n", "experiment.yaml:1:1: an experiment file needs a name"},
        {"name: exp\nfindings:\n  - {claim: c, kind: bigger, a: {stage: pretrain, metric: top1}, value: 0.5}\n",
         "experiment.yaml:3:22: findings: kind 'bigger' is not valid"},
        {"name: exp\nfindings:\n  - {claim: c, kind: at_least, a: {stage: pretrain, metric: top1}, value: high}\n",
         "experiment.yaml:3:75: findings: value must be a number, got 'high'"},
        {"name: exp\nfindings:\n  - {claim: c, kind: at_least, a: {stage: pretrain, match: objective.eta, metric: top1}, value: 0.5}\n",
         "experiment.yaml:3:60: findings: a: match: expected a mapping of config key: value"},
    };
    char sub[320];
    snprintf(sub, sizeof sub, "%.300s/sub", bad);
    mkdir(sub, 0777);
    snprintf(path, sizeof path, "%s/experiment.yaml", sub);
    for (int i = 0; i < (int)(sizeof bad_findings / sizeof bad_findings[0]); i++) {
        if ((out = fopen(path, "w"))) fputs(bad_findings[i].text, out), fclose(out);
        char name[120], needle[500];
        snprintf(name, sizeof name, "report malformed findings %d exits 2", i + 1);
        snprintf(needle, sizeof needle, "%s/%s", sub, bad_findings[i].needle);
        expect_status(name, cmd_report, 1, (char *[]){bad}, 2, needle);
    }
    unlink(path);
    snprintf(path, sizeof path, "%s/reference.tsv", bad);
    if ((out = fopen(path, "w"))) fputs("pretrain\tobjective.eta=0\ttop1\n", out), fclose(out);
    expect_status("report malformed reference.tsv exits 2", cmd_report, 1, (char *[]){bad}, 2, "reference.tsv:1:");
}

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
    snprintf(path, sizeof path, "%s/figures.tsv", g_dir);
    unlink(path);

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
    snprintf(g_root, sizeof g_root, "/tmp/posbench-report.XXXXXX");
    if (!mkdtemp(g_root)) {
        test_fail("setup", "mkdtemp failed");
        return 1;
    }
    snprintf(g_dir, sizeof g_dir, "%s/runs", g_root);
    mkdir(g_dir, 0777);
    make_runs();
    test_reader();
    test_report();
    test_findings();
    test_bad_input();
    test_plot();
    if (test_exit_code() == 0 && !getenv("POSBENCH_TEST_KEEP")) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_root);
    } else {
        printf("# files kept in %s\n", g_root);
    }
    return test_exit_code();
}
