// tests/test_train_settings.c — train_settings_resolve (bench/train/train_settings.h): the
// defaults and overrides arrive typed in their fields, and each cross-key rule refuses its
// config with a message naming the keys and what is valid, after the file:line:col of the key
// when the config came from a file.
#include "testing.h"
#include "../bench/config/config.h"
#include "../bench/train/train_settings.h"
#include "../core/attention_route.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

// A config of the defaults plus the overrides in `args` (NULL-terminated); 0, or -1 (a FAIL line).
static int make_config(const char *name, config *c, const char *const *args) {
    char err[512];
    config_defaults(c);
    for (int i = 0; args[i]; i++)
        if (config_apply_override(c, args[i], err, sizeof err) != 0) {
            test_fail(name, "override %s: %s", args[i], err);
            config_free(c);
            return -1;
        }
    return 0;
}

static void check_fields(void) {
    const char *name = "train_settings: overrides arrive typed in their fields";
    const char *args[] = {"train.batch=48", "train.accumulate=3", "train.steps=7", "train.precision=bf16",
                          "train.attention=fused", "train.graph=on", "train.schedule=step_halving", "train.lr=0.25",
                          "data.test_split=train", "data.resolutions=16,24", "eval.probe_layers=all",
                          "eval.speech_rates=80,125", "eval.speech_rate_mode=hop", "eval.knn=true", NULL};
    config c;
    if (make_config(name, &c, args) != 0) return;
    train_settings s;
    char err[1024] = "";
    int rc = train_settings_resolve(&c, &s, err, sizeof err);
    int ok = rc == 0 && s.cfg == &c && s.batch == 48 && s.accumulate == 3 && s.steps == 7 && s.bf16 == 1 &&
             s.attention_route == attention_route_setting_named("fused") && s.graph == 1 &&
             s.optim.schedule == OPTIM_STEP_HALVING && s.optim.lr == 0.25f && s.test_on_train == 1 &&
             s.n_resolutions == 2 && s.resolutions[0] == 16 && s.resolutions[1] == 24 && s.probe_all_layers == 1 &&
             s.n_speech_rates == 2 && s.speech_rates[1] == 125 && s.speech_rate_modes == 2 && s.knn == 1 &&
             s.n_speech_durations == 0 && !strcmp(s.data_name, "fashion-mnist");
    test_check(name, ok, "rc %d (%s): batch %d accumulate %d steps %ld bf16 %d route %d graph %d schedule %d lr %g "
               "test_on_train %d resolutions %d modes %d knn %d", rc, err, s.batch, s.accumulate, s.steps, s.bf16,
               s.attention_route, s.graph, (int)s.optim.schedule, s.optim.lr, s.test_on_train, s.n_resolutions,
               s.speech_rate_modes, s.knn);
    config_free(&c);
}

static void check_optim(void) {
    const char *name = "train_settings: warmup from train.warmup_epochs unless train.warmup_steps is set";
    const char *epochs[] = {"train.warmup_epochs=1.5", NULL}, *steps[] = {"train.warmup_epochs=1.5", "train.warmup_steps=9", NULL};
    config a, b;
    if (make_config(name, &a, epochs) != 0) return;
    if (make_config(name, &b, steps) != 0) { config_free(&a); return; }
    train_settings sa, sb;
    char err[1024] = "";
    int rc = train_settings_resolve(&a, &sa, err, sizeof err) | train_settings_resolve(&b, &sb, err, sizeof err);
    optim_config oa = train_settings_optim(&sa, 100, 10), ob = train_settings_optim(&sb, 100, 10);
    test_check(name, rc == 0 && oa.warmup_steps == 15 && ob.warmup_steps == 9 && oa.total_steps == 100,
               "rc %d (%s): warmup %ld (want 15) and %ld (want 9), total %ld", rc, err, oa.warmup_steps, ob.warmup_steps,
               oa.total_steps);
    config_free(&a);
    config_free(&b);
}

// Each refused config: its overrides and words its message must hold.
static void check_refusal(const char *name, const char *const *args, const char *want1, const char *want2) {
    config c;
    if (make_config(name, &c, args) != 0) return;
    train_settings s;
    char err[1024] = "";
    int rc = train_settings_resolve(&c, &s, err, sizeof err);
    test_check(name, rc == -1 && strstr(err, want1) && strstr(err, want2) && strstr(err, "valid"), "rc %d: %s", rc, err);
    config_free(&c);
}

// A config whose keys were written in a file: the refusal starts with "file:line:col: " of the
// key it blames, or of the other key when the first was not written there.
static void check_position(void) {
    const char *name = "train_settings: a refusal names the file:line:col where its key was written";
    const char *args[] = {"train.batch=32", "train.accumulate=3", NULL};
    config c;
    if (make_config(name, &c, args) != 0) return;
    c.source = "exp.yaml";
    int acc = cfg_index("train.accumulate"), batch = cfg_index("train.batch");
    c.line[acc] = 7, c.col[acc] = 15, c.line[batch] = 4, c.col[batch] = 10;
    train_settings s;
    char err[1024] = "", err2[1024] = "";
    int rc = train_settings_resolve(&c, &s, err, sizeof err);
    c.line[acc] = c.col[acc] = 0; // train.accumulate from the command line: the batch's line
    int rc2 = train_settings_resolve(&c, &s, err2, sizeof err2);
    test_check(name, rc == -1 && rc2 == -1 && !strncmp(err, "exp.yaml:7:15: train.accumulate=3", 33) &&
                         !strncmp(err2, "exp.yaml:4:10: train.accumulate=3", 33),
               "%s | %s", err, err2);
    config_free(&c);
}

int main(void) {
    check_position();
    check_fields();
    check_optim();
    const char *acc[] = {"train.batch=32", "train.accumulate=3", NULL};
    check_refusal("train_settings refuses train.accumulate that does not divide train.batch", acc, "train.accumulate=3",
                  "train.batch=32");
    const char *act[] = {"train.activations=bf16", NULL};
    check_refusal("train_settings refuses train.activations=bf16 without train.precision=bf16", act,
                  "train.activations=bf16", "train.precision=bf16");
    const char *rec[] = {"train.precision=bf16", "train.recompute=gelu", NULL};
    check_refusal("train_settings refuses train.recompute=gelu without train.activations=bf16", rec,
                  "train.recompute=gelu", "train.activations=bf16");
    const char *route[] = {"train.attention=materialised", NULL};
    check_refusal("train_settings refuses a bf16 attention route without train.precision=bf16", route,
                  "train.attention=materialised", "train.precision=bf16");
    const char *fine[] = {"train.attention=materialised", "train.precision=bf16", "train.activations=bf16",
                          "train.recompute=gelu", "train.batch=32", "train.accumulate=4", NULL};
    config c;
    if (make_config("train_settings accepts the same keys when they agree", &c, fine) == 0) {
        train_settings s;
        char err[1024] = "";
        int rc = train_settings_resolve(&c, &s, err, sizeof err);
        test_check("train_settings accepts the same keys when they agree", rc == 0, "rc %d: %s", rc, err);
        config_free(&c);
    }
    return test_exit_code();
}
