// bench/train/budget.c — updates and images seen of a run, its init chain and a matched-budget
// run's derived length (rules: budget.h; the training loop's use: train.c setup and finish_file).
#include "budget.h"
#include "train_internal.h"
#include "../results/results_read.h"
#include "../../core/common.h"
#include "../../datasets/registry.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long budget_updates(const train_settings *s, int train_rows) {
    long steps = s->steps, batch = s->batch;
    if (steps > 0) return steps;
    return (long)(train_rows / batch) * s->epochs; // the last partial batch is dropped
}

long budget_updates_of_config(const config *c) {
    train_settings s;
    train_settings_resolve_or_die(c, &s);
    return budget_updates(&s, s.steps > 0 ? 0 : budget_train_rows(&s));
}

// Row counts already read in this process, by the data.* keys that decide them.
static struct { char key[1024]; int rows; } g_rows[64];
static int g_nrows;

static void rows_key(const config *c, char *out, size_t len) {
    out[0] = '\0';
    for (int i = 0; i < cfg_key_count; i++) {
        if (strncmp(cfg_keys[i].key, "data.", 5)) continue;
        char v[256];
        config_value_text(c, i, v, sizeof v);
        snprintf(out + strlen(out), len - strlen(out), "%s=%s\n", cfg_keys[i].key, v);
    }
}

int budget_train_rows(const train_settings *s) {
    char key[1024];
    rows_key(s->cfg, key, sizeof key);
    for (int i = 0; i < g_nrows; i++)
        if (!strcmp(g_rows[i].key, key)) return g_rows[i].rows;
    dataset ds;
    char err[1024];
    dataset_options opt = s->data_options;
    opt.limit = s->data_limit; // only the rows data.limit keeps are counted
    if (dataset_load(&ds, s->data_name, &opt, "train", err, sizeof err) != 0) die_input("budget: %s", err);
    dataset_limit(&ds, s->data_limit);
    dataset_labeled_subset(&ds, s->labeled_fraction, s->subset_seed);
    int n = ds.n;
    dataset_free(&ds);
    if (g_nrows < (int)(sizeof g_rows / sizeof g_rows[0])) {
        snprintf(g_rows[g_nrows].key, sizeof g_rows[g_nrows].key, "%s", key);
        g_rows[g_nrows++].rows = n;
    }
    return n;
}

// A matched-budget run: its length is the sum of its chain's updates (train_options.budget_cfgs).
void budget_setup(run *r) {
    const train_options *o = r->opt;
    if (o->nbudget <= 0) return;
    long updates = 0, images = 0;
    char desc[sizeof r->budget_desc] = "";
    for (int i = 0; i < o->nbudget; i++) {
        train_settings s;
        train_settings_resolve_or_die(o->budget_cfgs[i], &s);
        int rows = s.steps > 0 ? 0 : budget_train_rows(&s);
        long u = budget_updates(&s, rows), b = s.batch;
        if (u <= 0) die_input("budget: stage '%s' trains for %ld updates (%d training rows at batch %ld)", o->budget_stages[i], u, rows, b);
        updates += u;
        images += u * b;
        size_t used = strlen(desc);
        snprintf(desc + used, sizeof desc - used, "%s%s %ld", i ? " + " : "", o->budget_stages[i], u);
    }
    if (images != updates * r->batch) // the experiment loader checks the batches; this guards `posbench train` callers
        die_input("budget: %ld updates of the chain saw %ld images, but %ld updates at train.batch=%d see %ld: "
                  "give every stage of the chain the same train.batch", updates, images, updates, r->batch, updates * (long)r->batch);
    r->total_steps = updates;
    r->epochs = (int)((r->total_steps + r->steps_per_epoch - 1) / r->steps_per_epoch);
    r->budget_updates = updates;
    r->budget_images = images;
    snprintf(r->budget_desc, sizeof r->budget_desc, "%s updates", desc);
    printf("budget: %ld updates, %ld images seen, as %s\n", updates, images, vis(r->budget_desc));
}

// The parent's cumulative totals, from the finished run file beside its weights.
void budget_read_init(run *r, const char *weights) {
    r->init_updates = r->init_images = -1;
    size_t n = strlen(weights);
    if (n < 8 || strcmp(weights + n - 8, ".weights")) return;
    char *path = xmalloc(n + 8, "init run file");
    snprintf(path, n + 8, "%.*s.h5", (int)(n - 8), weights);
    rr_run pr;
    char err[4400];
    if (rr_read(path, RR_ATTRS, &pr, err, sizeof err) != 0) {
        printf("budget: no finished run file %s beside the init weights: cumulative updates not recorded\n", vis(path));
        free(path);
        return;
    }
    const rr_attr *ut = rr_attr_get(&pr.final, "updates_total"), *it = rr_attr_get(&pr.final, "images_seen_total");
    const rr_attr *steps = rr_attr_get(&pr.final, "steps"), *batch = rr_attr_get(&pr.config, "train.batch");
    if (ut && it && ut->is_num && it->is_num) {
        r->init_updates = (long)ut->num, r->init_images = (long)it->num;
    } else if (steps && batch && steps->is_num && batch->is_num) { // written before the totals existed: its own
        r->init_updates = (long)steps->num, r->init_images = (long)(steps->num * batch->num);
    }
    rr_free(&pr);
    free(path);
}

void budget_record(run *r) {
    long images = r->step * (long)r->batch;
    results_attr_int(r->res, "/final", "updates", r->step);
    results_attr_int(r->res, "/final", "images_seen", images);
    int init = r->opt->init_weights != NULL;
    if (!init || r->init_updates >= 0) {
        results_attr_int(r->res, "/final", "updates_total", r->step + (init ? r->init_updates : 0));
        results_attr_int(r->res, "/final", "images_seen_total", images + (init ? r->init_images : 0));
    }
    if (r->budget_updates > 0) {
        results_attr_int(r->res, "/final", "budget_updates", r->budget_updates);
        results_attr_int(r->res, "/final", "budget_images_seen", r->budget_images);
        results_attr_str(r->res, "/", "budget", r->budget_desc);
    }
}
