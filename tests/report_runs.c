// tests/report_runs.c — the synthetic run files of tests/test_report.c and tests/test_plot.c
// (what they hold: report_runs.h).
#include "report_runs.h"
#include "../bench/results/results.h"
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char g_root[256], g_dir[300];

// ---- synthetic runs -----------------------------------------------------------------
const int dims[2] = {64, 128};
const char *const pes[2] = {"abs", "none"};

double ft_top1(int d, int p, int s) { return 0.70 + 0.05 * d + 0.08 * (p == 0) + 0.0123 * s + 0.0007 * s * s; }
double ft_time(int d, int s) { return 100.0 + 10.0 * s + 50.0 * d + 0.25 * s * s; }
int64_t ft_mem(int d, int s) { return (int64_t)(200 + dims[d]) * 1048576 + (int64_t)s * 4096 * 17; }
int ft_diverged(int d, int p, int s) { return d == 1 && p == 1 && s == 2; }

// mp3: top1 peaks inside the eta range with a PE, rises with eta without one; the step gets
// cheaper as eta rises. Configuration eta 0.75 without a PE failed (both seeds).
const double etas[4] = {0, 0.25, 0.5, 0.75};
double mp3_top1(int e, int p, int s) {
    static const double abs_top1[4] = {0.70, 0.78, 0.74, 0.72}, none_top1[4] = {0.72, 0.75, 0.79, 0.80};
    return (p == 0 ? abs_top1[e] : none_top1[e]) + 0.004 * s;
}
double mp3_step_ms(int e, int s) { return 20.0 - 4.0 * e + 0.1 * s; }
int mp3_failed(int e, int p) { return e == 3 && p == 1; }

// step_ms: every step's time (mp3: its /final median, with a ±0.1 ms spread around it)
static void write_series(results *r, int rows, double base, double step_ms) {
    results_column tc[] = {{"step", 'i'}, {"epoch", 'i'}, {"loss", 'd'}, {"lr", 'd'}, {"grad_norm", 'd'}, {"step_time_ms", 'd'}};
    results_column ec[] = {{"epoch", 'i'}, {"step", 'i'}, {"top1", 'd'}, {"top5", 'd'}, {"loss", 'd'}};
    results_series *t = results_series_create(r, "/train", 6, tc, 8);
    results_series *e = results_series_create(r, "/eval", 5, ec, 4);
    for (int i = 0; i < rows; i++) {
        double row[6] = {i + 1, i / 10, 2.3 * exp(-0.1 * i) + base, 1e-3, 1.0, step_ms + 0.1 * (i % 3 - 1) * (step_ms != 12.5)};
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

const finding_case cases[] = {
    {"greater", "G1 finetune with a PE beats finetune without", "", "finetune", "pe.kind=abs", "top1", "finetune", "pe.kind=none", "top1", "", "", "", "holds"},
    {"greater", "G2 finetune without a PE beats finetune with one", "", "finetune", "pe.kind=none", "top1", "finetune", "pe.kind=abs", "top1", "", "", "", "does not hold (model.dim=64: significant against; model.dim=128: significant against)"},
    {"greater", "G3 finetune beats mp3", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "", "does not hold (pe.kind=none, model.dim=64 vs pe.kind=none, objective.eta=0.25, pretrain.objective.eta=0.25: significant against; pe.kind=none, model.dim=64 vs pe.kind=none, objective.eta=0.5, pretrain.objective.eta=0.5: significant against; pe.kind=none, model.dim=128 vs pe.kind=none, objective.eta=0.5, pretrain.objective.eta=0.5: significant against)"},
    {"greater", "G4 finetune beats mp3 per pe.kind", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "pe.kind", "does not hold (none: model.dim=64 vs objective.eta=0.25, pretrain.objective.eta=0.25: significant against; model.dim=64 vs objective.eta=0.5, pretrain.objective.eta=0.5: significant against; model.dim=128 vs objective.eta=0.5, pretrain.objective.eta=0.5: significant against)"},
    {"greater", "G5 finetune | abs beats none per model.dim", "Table 3:\\t84.0 vs 73.4", "finetune", "pe.kind=abs", "top1", "finetune", "pe.kind=none", "top1", "", "", "model.dim", "holds"},
    {"at_least", "L1 pretrain at eta 0 reaches 40%", "", "pretrain", "objective.eta=0.0", "top1", "", "", "", "0.40", "", "", "inconclusive (seeds not planned: its experiment file states no `effect:` for this finding)"},
    {"at_least", "L2 pretrain at eta 0 reaches 41%", "", "pretrain", "objective.eta=0.0", "top1", "", "", "", "0.41", "", "", "inconclusive (opposite direction, not significant; seeds not planned: its experiment file states no `effect:` for this finding)"},
    {"at_most", "M1 pretrain at eta 0 stays at most 41%", "", "pretrain", "objective.eta=0", "top1", "", "", "", "0.41", "", "", "inconclusive (seeds not planned: its experiment file states no `effect:` for this finding)"},
    {"at_most", "M2 pretrain at eta 0 stays at most 40%", "", "pretrain", "objective.eta=0", "top1", "", "", "", "0.40", "", "", "inconclusive (opposite direction, not significant; seeds not planned: its experiment file states no `effect:` for this finding)"},
    {"at_least", "L3 a stage-qualified match key", "", "finetune", "finetune.pe.kind=abs", "top1", "", "", "", "0.75", "", "", "inconclusive (not significant after Holm's correction over 24 comparisons of experiment `exp`)"},
    {"at_least", "L4 mp3 reaches 70% per pe.kind", "", "mp3", "", "top1", "", "", "", "0.70", "", "pe.kind", "inconclusive (abs: objective.eta=0, pretrain.objective.eta=0: seeds not planned: its experiment file states no `effect:` for this finding)"},
    {"at_least", "L5 mp3 reaches 74% per pe.kind", "", "mp3", "", "top1", "", "", "", "0.74", "", "pe.kind", // against p 0.017 before correction: in the claims' family of 24 its Holm p is 0.142
     "inconclusive (against the claim, not significant after Holm's correction over 24 comparisons of experiment `exp`)"},
    {"peak_inside", "P1 mp3 with a PE peaks inside", "", "mp3", "pe.kind=abs", "top1", "", "", "", "", "objective.eta", "", "holds"},
    {"peak_inside", "P2 mp3 without a PE peaks inside", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "objective.eta", "", "does not hold (vs 0.5: significant against)"},
    {"peak_inside", "P3 mp3 peaks inside per pe.kind", "", "mp3", "", "top1", "", "", "", "", "objective.eta", "pe.kind", "does not hold (none: vs 0.5: significant against)"},
    {"decreasing", "D1 the mp3 step gets cheaper as eta rises", "", "mp3", "", "step_time_ms", "", "", "", "", "objective.eta", "", "holds"},
    {"decreasing", "D2 mp3 without a PE falls with eta", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "objective.eta", "", "does not hold (significant against)"},
    {"increasing", "I1 mp3 without a PE rises with eta", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "objective.eta", "", "holds"},
    {"increasing", "I2 the mp3 step gets dearer as eta rises", "", "mp3", "", "step_time_ms", "", "", "", "", "objective.eta", "", "does not hold (pe.kind=abs: significant against; pe.kind=none: significant against)"},
    {"increasing", "I3 a stage-qualified x key", "", "mp3", "pe.kind=none", "top1", "", "", "", "", "pretrain.objective.eta", "", "holds"},
    {"at_least", "L6 finetune with a PE reaches 95%", "", "finetune", "pe.kind=abs", "top1", "", "", "", "0.95", "", "", "does not hold (model.dim=64: significant against; model.dim=128: significant against)"},
    {"at_most", "M3 finetune with a PE stays at most 95%", "", "finetune", "pe.kind=abs", "top1", "", "", "", "0.95", "", "", "holds"},
    {"greater", "G6 without a PE the wider model places patches better", "", "finetune", "pe.kind=none,model.dim=128", "pos_top1", "finetune",
     "pe.kind=none,model.dim=64", "pos_top1", "", "", "", "inconclusive (seeds not planned: its experiment file states no `effect:` for this finding)"},
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
    // model.dim is a key of bench/config/config.c: mp3's runs, which lack it, ran at its default 128
    {"greater", "N5b a known per key one side lacks is its default", "", "finetune", "", "top1", "mp3", "", "top1", "", "", "model.dim", // against p 0.046 before correction: Holm p 0.323 among 24
     "inconclusive (against the claim, not significant after Holm's correction over 24 comparisons of experiment `exp`)"},
};
const int ncases = (int)(sizeof cases / sizeof cases[0]);

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

void make_runs(void) {
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
                write_series(r, div ? 13 : 20, 0.01 * d + 0.02 * p + 0.001 * s, 12.5);
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
                results_attr_int(r, "/final", "updates", div ? 13 : 20); // the budget: 40 pretraining updates before, batch 64
                results_attr_int(r, "/final", "images_seen", (div ? 13 : 20) * 64);
                results_attr_int(r, "/final", "updates_total", 40 + (div ? 13 : 20));
                results_attr_int(r, "/final", "images_seen_total", (40 + (div ? 13 : 20)) * 64);
                results_close(r);
            }
    for (int e = 0; e < 2; e++)
        for (int s = 0; s < 2; s++) {
            char id[16];
            snprintf(id, sizeof id, "p%011x", (unsigned)(e * 10 + s));
            results *r;
            write_run("pretrain", id, "2026-01-01T00:00:00Z", "done", s, &r);
            results_attr_double(r, "/config", "objective.eta", 0.5 * e);
            write_series(r, 20, 0.05 * e + 0.001 * s, 12.5);
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
                write_series(r, 10, 0.01 * e, mp3_step_ms(e, s));
                if (!mp3_failed(e, p)) {
                    results_attr_double(r, "/final", "top1", mp3_top1(e, p, s));
                    results_attr_double(r, "/final", "step_time_ms", mp3_step_ms(e, s));
                }
                if (e == 0 && p == 0) { // samples beside pretrain's: seed 1 has its originals, seed 0 others
                    float a[4 * 8 * 8];
                    for (int i = 0; i < 4 * 64; i++) a[i] = s == 1 ? (float)((i % 8) + (i / 8 % 8)) / 14.0f : 0.25f;
                    results_dataset_f32(r, "/samples/original", 4, (int[]){4, 1, 8, 8}, a);
                    for (int i = 0; i < 4 * 64; i++) a[i] = 1.0f - a[i];
                    results_dataset_f32(r, "/samples/reconstruction", 4, (int[]){4, 1, 8, 8}, a);
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

// ---- running a command with stdout/stderr captured -----------------------------------
char *slurp(const char *path) {
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
int capture(int (*fn)(int, char **), int argc, char **argv, char **out, char **err) {
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

int file_starts(const char *path, const char *magic, size_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[16] = {0};
    size_t got = fread(buf, 1, n, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    return got == n && size > 100 && memcmp(buf, magic, n) == 0;
}

void expect_status(const char *name, int (*fn)(int, char **), int argc, char **argv, int want, const char *needle) {
    char *out = NULL, *err = NULL;
    int rc = capture(fn, argc, argv, &out, &err);
    int ok = rc == want && (!needle || (err && strstr(err, needle)));
    test_check(name, ok, "exit %d (want %d); stderr: %.300s", rc, want, err ? err : "");
    free(out), free(err);
}
int report_runs_setup(void) {
    snprintf(g_root, sizeof g_root, "/tmp/posbench-report.XXXXXX");
    if (!mkdtemp(g_root)) {
        test_fail("setup", "mkdtemp failed");
        return -1;
    }
    snprintf(g_dir, sizeof g_dir, "%s/runs", g_root);
    mkdir(g_dir, 0777);
    make_runs();
    return 0;
}

void report_runs_cleanup(void) {
    if (test_exit_code() == 0 && !getenv("POSBENCH_TEST_KEEP")) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_root);
    } else {
        printf("# files kept in %s\n", g_root);
    }
}
