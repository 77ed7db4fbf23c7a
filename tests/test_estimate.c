// tests/test_estimate.c — the cost estimate of posbench run (bench/run/estimate.h) on the
// shipped experiments, without data:
//   - every run of every shipped experiment (bench/experiments/*.yaml), at smoke, small and, where
//     the file has one, paper scale, is counted: updates > 0, training FLOPs > 0, evaluation
//     counted (only speech-commands, whose clip counts are read from its folder, may leave
//     evaluation out); no run is left out for its dataset's size or its `budget:`;
//   - a matched-budget run's updates are its chain's: mp3-main at small, baseline_matched =
//     pretrain 3 x (60000 / 128) + finetune 10 x (6000 / 128) = 1404 + 460 = 1864, the numbers the
//     trainer measured (docs/results/mp3-small-REPORT.md: "1864 (1404 + 460)"); its training FLOPs
//     are 1864 x 128 x 3 forward passes, evaluation the same as the baseline's per evaluation;
//   - the registry's Fashion-MNIST sizes (60000 / 10000) drive the updates of an epoch run;
//   - data.name=idx (sizes in its files) is refused with a reason;
//   - data.resolution, UniViT's data.resolutions and eval.resolutions change the FLOPs by size;
//   - the linear probe's fits: by blocks, features and protocols (GVP's two), at their own rate.
// The estimate against measured runs: tests/e2e_estimate.sh.
#include "testing.h"
#include "../bench/run/estimate.h"
#include "../bench/experiment/experiment.h"
#include "../core/common.h"
#include "../datasets/registry.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIPPED "bench/experiments"

static experiment E;
static int g_text_uncounted; // runs on a text file that is not there (data/kjv.txt before `make data/kjv.txt`)

// Every run of file at scale counted; returns the runs seen (-1: the file has no such scale, or
// does not load: a FAIL line with the loader's message: every shipped file loads at every scale).
static int check_file(const char *file, const char *scale, char *problem, size_t len) {
    char err[4096], path[512];
    snprintf(path, sizeof path, "%s/%s", SHIPPED, file);
    if (experiment_load(&E, path, scale, err, sizeof err) != 0) {
        if (scale && strstr(err, "unknown scale")) return -1; // the file has no such scale
        char name[600]; // a shipped file that does not load at one of its scales is a defect
        snprintf(name, sizeof name, "estimate: %s loads at %s", file, scale ? scale : "small");
        test_check(name, 0, "the experiment does not load: %s", err);
        return -1;
    }
    int n = E.nruns;
    for (int i = 0; i < E.nruns && !problem[0]; i++) {
        run_estimate r;
        const dataset_kind *data = dataset_find(cfg_str(&E.runs[i].cfg, "data.name"));
        if (estimate_run(&E, i, &r) != 0 && data && data->tokens && strstr(r.why, "known only once"))
            g_text_uncounted++; // its length is read from the file, which a fresh clone makes later
        else if (r.why[0])
            snprintf(problem, len, "%s at %s: run %s (stage %s) not counted: %s", file, scale ? scale : "small", E.runs[i].run_id,
                     E.runs[i].stage, r.why);
        else if (!(r.updates > 0 && r.train_flops > 0 && r.eval_flops >= 0))
            snprintf(problem, len, "%s at %s: run %s: %ld updates, %g training FLOPs", file, scale ? scale : "small",
                     E.runs[i].run_id, r.updates, r.train_flops);
        else if (!r.eval_known && !(data && data->audio))
            snprintf(problem, len, "%s at %s: run %s (stage %s, data.name=%s): evaluation not counted", file,
                     scale ? scale : "small", E.runs[i].run_id, E.runs[i].stage, cfg_str(&E.runs[i].cfg, "data.name"));
    }
    experiment_free(&E);
    return n;
}

static void test_shipped(void) {
    DIR *d = opendir(SHIPPED);
    if (!d) {
        test_fail("estimate: every shipped run counted", "cannot open %s", SHIPPED);
        return;
    }
    char problem[8192] = "";
    int files = 0, runs = 0, paper = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && !problem[0]) {
        size_t l = strlen(ent->d_name);
        if (l < 6 || strcmp(ent->d_name + l - 5, ".yaml")) continue;
        files++;
        const char *scales[] = {"smoke", NULL, "paper"};
        for (int s = 0; s < 3 && !problem[0]; s++) {
            int n = check_file(ent->d_name, scales[s], problem, sizeof problem);
            if (n > 0) runs += n, paper += s == 2;
        }
    }
    closedir(d);
    if (g_text_uncounted)
        test_skip("estimate: the text runs", "%d runs on data.name=text not counted: the text file is not there "
                  "(make data/kjv.txt writes it; the reproduce targets make it before their estimate)", g_text_uncounted);
    test_check("estimate: every run of every shipped experiment counted at every scale (budget: and Fashion-MNIST included)",
               !problem[0] && files >= 15 && paper >= 2, "%d files, %d runs (%d files with a paper scale)%s%s", files, runs,
               paper, problem[0] ? "; " : "", problem);
}

// Run index of the first run of stage `stage`, or -1.
static int first_of(const char *stage) {
    for (int i = 0; i < E.nruns; i++)
        if (!strcmp(E.runs[i].stage, stage)) return i;
    return -1;
}

static void test_budget_chain(void) {
    char err[4096];
    if (experiment_load(&E, SHIPPED "/mp3-main.yaml", NULL, err, sizeof err) != 0) {
        test_fail("estimate: budget run = its chain's updates", "%s", err);
        return;
    }
    int m = first_of("baseline_matched"), b = first_of("baseline"), p = first_of("pretrain"), f = first_of("finetune");
    run_estimate rm, rb, rp, rf;
    int ok = m >= 0 && b >= 0 && p >= 0 && f >= 0 && estimate_run(&E, m, &rm) == 0 && estimate_run(&E, b, &rb) == 0 &&
             estimate_run(&E, p, &rp) == 0 && estimate_run(&E, f, &rf) == 0;
    test_check("estimate: Fashion-MNIST's sizes from the registry: pretrain 3 epochs of 60000 at 128 = 1404 updates, "
               "finetune 10 epochs of the 10% subset = 460",
               ok && rp.updates == 1404 && rf.updates == 460 && rb.updates == 460, "pretrain %ld, finetune %ld, baseline %ld",
               ok ? rp.updates : -1, ok ? rf.updates : -1, ok ? rb.updates : -1);
    // The matched run trains the baseline's model for the chain's updates: FLOPs scale with them.
    test_check("estimate: baseline_matched trains pretrain + finetune's 1864 updates (the trainer's 1864 (1404 + 460))",
               ok && rm.updates == 1864 && fabs(rm.train_flops / rb.train_flops - 1864.0 / 460.0) < 1e-9,
               "%ld updates, FLOPs %.4g vs the baseline's %.4g", ok ? rm.updates : -1, ok ? rm.train_flops : 0,
               ok ? rb.train_flops : 0);
    // Evaluation every epoch (46 steps) of 2000 test images: 41 evaluations for 1864 updates, 10 for 460.
    test_check("estimate: evaluation every epoch on data.test_limit=2000 images (41 vs 10 evaluations)",
               ok && rb.eval_known && fabs(rm.eval_flops / rb.eval_flops - 41.0 / 10.0) < 1e-9, "%.4g vs %.4g",
               ok ? rm.eval_flops : 0, ok ? rb.eval_flops : 0);
    experiment_free(&E);
}

static void set(config *c, const char *kv) {
    char err[256];
    if (config_apply_override(c, kv, err, sizeof err) != 0) die_fail("test_estimate: %s: %s", kv, err);
}

static void test_unknown_sizes(void) {
    config c;
    config_defaults(&c);
    set(&c, "data.name=idx");
    run_estimate r;
    int rc = estimate_config(&c, 0, &r);
    test_check("estimate: data.name=idx (any IDX files) is not counted, and says why", rc == -1 && strstr(r.why, "data.name=idx"),
               "rc %d: %s", rc, r.why);
    set(&c, "data.name=fashion-mnist");
    set(&c, "data.limit=1280");
    set(&c, "train.batch=128");
    set(&c, "train.epochs=2");
    rc = estimate_config(&c, 0, &r);
    test_check("estimate: fashion-mnist, data.limit=1280, batch 128, 2 epochs: 20 updates", rc == 0 && r.updates == 20 && r.eval_known,
               "rc %d, %ld updates", rc, r.updates);
    config_free(&c);
}

// The training size: data.resolution, UniViT's data.resolutions (the mean over its sizes), and
// eval.resolutions at the end, each at its own token count.
static void test_sizes(void) {
    config c;
    config_defaults(&c);
    const char *keys[] = {"data.name=fashion-mnist", "data.limit=1280", "data.test_limit=100", "train.batch=128", "train.epochs=1",
                          "model.patch=7", "model.dim=32", "model.depth=2", "model.heads=2"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) set(&c, keys[i]);
    run_estimate at28, at14, uni, evals;
    int rc = estimate_config(&c, 0, &at28);
    set(&c, "data.resolution=14");
    rc |= estimate_config(&c, 0, &at14);
    set(&c, "data.resolution=0");
    set(&c, "data.resolutions=[14, 28]");
    rc |= estimate_config(&c, 0, &uni);
    set(&c, "data.resolutions=[]");
    set(&c, "eval.resolutions=[14, 28]");
    rc |= estimate_config(&c, 0, &evals);
    // 4 tokens (+ cls) at 14 px, 16 at 28: fewer FLOPs; UniViT the mean of the two.
    test_check("estimate: data.resolution=14 trains on 4 patches of 7 px, fewer FLOPs than at 28",
               rc == 0 && at14.train_flops < 0.5 * at28.train_flops, "%.4g vs %.4g", at14.train_flops, at28.train_flops);
    test_check("estimate: UniViT data.resolutions=[14, 28]: the mean of the two sizes' FLOPs",
               rc == 0 && fabs(uni.train_flops / (0.5 * (at14.train_flops + at28.train_flops)) - 1) < 1e-9, "%.6g vs %.6g",
               uni.train_flops, 0.5 * (at14.train_flops + at28.train_flops));
    // eval.resolutions adds the test images at 14 and 28 px: per image, a forward at each size.
    double per_eval = at28.eval_flops, extra = evals.eval_flops - per_eval;
    test_check("estimate: eval.resolutions=[14, 28] adds the test images at both sizes",
               rc == 0 && extra > per_eval && extra < 2 * per_eval, "%.4g more than the %.4g of one evaluation at 28 px", extra, per_eval);
    config_free(&c);
}

// A model narrower than d = 64 runs at d/64 of the calibrated rates: its FLOPs count d/64 times
// slower (the CPU seconds of the same FLOPs double at d = 32); d = 64 and wider at the full rate.
static void test_narrow_models(void) {
    config c;
    config_defaults(&c);
    const char *keys[] = {"data.name=fashion-mnist", "data.limit=1280", "data.test_limit=100", "train.batch=128", "train.epochs=1",
                          "model.patch=7", "model.depth=2", "model.heads=2"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) set(&c, keys[i]);
    const int dims[] = {16, 32, 64, 128};
    const double want[] = {0.25, 0.5, 1.0, 1.0};
    for (int k = 0; k < 4; k++) {
        char kv[32];
        snprintf(kv, sizeof kv, "model.dim=%d", dims[k]);
        set(&c, kv);
        run_estimate r;
        int rc = estimate_config(&c, 0, &r);
        double rated = rc == 0 ? estimate_rate_flops(&r, r.train_flops) : 0.0;
        test_check("estimate: model.dim below 64 runs at dim/64 of the rates, 64 and wider at the full rate",
                   rc == 0 && r.rate_fraction == want[k] && fabs(rated / r.train_flops - 1.0 / want[k]) < 1e-12,
                   "d = %d: rate fraction %.3g (want %.3g), FLOPs at the rate %.4g of %.4g", dims[k], rc == 0 ? r.rate_fraction : -1.0,
                   want[k], rated, rc == 0 ? r.train_flops : 0.0);
    }
    config_free(&c);
}

// The linear probe's fits: none without eval.linear_probe; per probe (block, feature) 6 L2
// strengths on 4/5 of the bank and the refit on all of it, ESTIMATE_PROBE_FIT_ITERS iterations of
// 4 d K FLOPs per row; every block (eval.probe_layers=all) multiplies by the depth, model.cls=false
// halves (mean-pooled only), GVP's two protocols double; the fits' rate is d / (d + 43) of theirs.
static void test_linear_probe_fits(void) {
    config c;
    config_defaults(&c);
    const char *keys[] = {"data.name=fashion-mnist", "data.limit=1280", "data.test_limit=100", "train.batch=128", "train.epochs=1",
                          "model.patch=7", "model.dim=64", "model.depth=3", "model.heads=2", "eval.probe_train_limit=1000"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) set(&c, keys[i]);
    run_estimate none, last, all, mean_only, gvp;
    int rc = estimate_config(&c, 0, &none);
    set(&c, "eval.linear_probe=true");
    rc |= estimate_config(&c, 0, &last);
    set(&c, "eval.probe_layers=all");
    rc |= estimate_config(&c, 0, &all);
    set(&c, "model.cls=false");
    rc |= estimate_config(&c, 0, &mean_only);
    set(&c, "model.cls=true");
    set(&c, "objective.name=gvp");
    rc |= estimate_config(&c, 0, &gvp);
    double per_probe = (6.0 * 800 + 1000) * ESTIMATE_PROBE_FIT_ITERS * 4.0 * 64 * 10; // rows x iterations x 4 d K
    test_check("estimate: no linear probe, no fits", rc == 0 && none.probe_flops == 0.0 && estimate_probe_rate_flops(&none) == 0.0,
               "rc %d, %.4g", rc, none.probe_flops);
    test_check("estimate: the last block's probe: 2 features x (6 x 800 + 1000) rows x the iterations x 4 d K",
               rc == 0 && fabs(last.probe_flops / (2 * per_probe) - 1) < 1e-12, "%.6g vs %.6g", last.probe_flops, 2 * per_probe);
    test_check("estimate: eval.probe_layers=all probes each of the 3 blocks, model.cls=false the mean-pooled feature only",
               rc == 0 && fabs(all.probe_flops / last.probe_flops - 3) < 1e-12 && fabs(mean_only.probe_flops / all.probe_flops - 0.5) < 1e-12,
               "all %.4g, mean only %.4g, last %.4g", all.probe_flops, mean_only.probe_flops, last.probe_flops);
    test_check("estimate: GVP's probe is fit twice (its causal mask and full attention), its images read twice",
               rc == 0 && fabs(gvp.probe_flops / all.probe_flops - 2) < 1e-12 && gvp.eval_flops > all.eval_flops,
               "%.4g vs %.4g; evaluation %.4g vs %.4g", gvp.probe_flops, all.probe_flops, gvp.eval_flops, all.eval_flops);
    test_check("estimate: the fits run at d / (d + 43) of the probe rate (their work per row)",
               rc == 0 && fabs(estimate_probe_rate_flops(&all) / all.probe_flops - (64 + ESTIMATE_PROBE_ROW_DIMS) / 64) < 1e-12,
               "%.6g", estimate_probe_rate_flops(&all) / all.probe_flops);
    estimate_seconds t = estimate_cpu_seconds(0.0, 0.0, 1e12, 0, 100.0);
    test_check("estimate: the probes' seconds at ESTIMATE_PROBE_EFFICIENCY of the sgemm rate",
               fabs(t.probe_s - 1e12 / (ESTIMATE_PROBE_EFFICIENCY * 100e9)) < 1e-9 && t.train_s == 0 && t.eval_s == 0, "%.6g s", t.probe_s);
    config_free(&c);
}

int main(void) {
    test_shipped();
    test_linear_probe_fits();
    test_narrow_models();
    test_budget_chain();
    test_unknown_sizes();
    test_sizes();
    return test_exit_code();
}
