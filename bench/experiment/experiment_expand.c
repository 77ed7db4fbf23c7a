// bench/experiment/experiment_expand.c — expands the validated stages, axes, seeds and excludes of an
// experiment into runs: resolved configs, impossible-combination checks, run ids, parents.
// Rules: experiment.h. State: experiment_expand.h (exp_ctx, filled by experiment.c); exp_fail
// (the error helper both files use) lives here.
#include "experiment_expand.h"
#include "settings.h"
#include "../../models/posenc/encoding.h"
#include "../../models/model.h"
#include "../../datasets/registry.h"
#include "../../core/common.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exp_fail(exp_ctx *x, const ynode *at, const char *fmt, ...) {
    int n = snprintf(x->err, x->errlen, "%s:%d:%d: ", x->e->path, at ? at->line : 1, at ? at->col : 1);
    if (n < 0 || (size_t)n >= x->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

// Keys that set a run's number of updates and images: its length and batch, and every data.*
// key (they decide how many training rows an epoch has).
// Identity keys only: a bookkeeping key (data.max_bytes) neither changes results nor run ids.
static int budget_key(int cfg) {
    const char *k = cfg_keys[cfg].key;
    if (!cfg_keys[cfg].identity) return 0;
    return !strcmp(k, "train.steps") || !strcmp(k, "train.epochs") || !strcmp(k, "train.batch") || !strncmp(k, "data.", 5);
}

static int budget_axis(const exp_axis *a) {
    for (int k = 0; k < a->nkeys; k++)
        if (budget_key(a->keys[k].index)) return 1;
    return 0;
}

// Hashes "budget=<stage>:<key>=<value>\n" for every budget key of every run of the chain of
// run q (q, its parent, ...): a matched-budget run's id changes exactly when its budget does.
static uint64_t budget_hash(const experiment *e, int q, uint64_t h) {
    for (; q >= 0; q = e->runs[q].parent)
        for (int i = 0; i < cfg_key_count; i++) {
            if (!budget_key(i)) continue;
            char value[512], line[800];
            config_value_text(&e->runs[q].cfg, i, value, sizeof value);
            snprintf(line, sizeof line, "budget=%s:%s=%s\n", e->runs[q].stage, cfg_keys[i].key, value);
            h = config_hash_text(h, line);
        }
    return h;
}

// "stage=<stage>\n", the identity lines of the config (config_identity_hash: non-default
// identity keys), "parent=<id>\n", and for a `budget:` stage its chain's budget keys.
static void run_id(const experiment *e, const char *stage, const config *c, const char *parent, int budget, char out[13]) {
    char line[700];
    snprintf(line, sizeof line, "stage=%s\n", stage);
    uint64_t h = config_hash_text(1469598103934665603ull, line); // FNV-1a 64 offset basis
    h = config_identity_hash(h, c);
    if (parent) {
        snprintf(line, sizeof line, "parent=%s\n", parent);
        h = config_hash_text(h, line);
    }
    if (budget >= 0) h = budget_hash(e, budget, h);
    snprintf(out, 13, "%012llx", (unsigned long long)(h & 0xffffffffffffull));
}

// The run of budget stage bs matched to a run of stage s with axis values idx and seed k: the
// first with the same values of the axes both have. -1 when there is none (excluded).
static int budget_match(exp_ctx *x, int s, int bs, const int *idx, int k) {
    const experiment *e = x->e;
    for (int i = 0; i < e->nruns; i++) {
        const exp_run *q = &e->runs[i];
        int same = q->stage_index == bs && q->seed_index == k;
        for (int a = 0; a < e->naxes && same; a++) same = !x->eff[s][a] || !x->eff[bs][a] || q->axis_value[a] == idx[a];
        if (same) return i;
    }
    return -1;
}

// `budget: [a, b, ...]`: the chain of b's matched run has a's budget keys, stage by stage.
static int check_budget_also(exp_ctx *x, int s, const exp_run *r, const int *idx, int k) {
    const experiment *e = x->e;
    for (int j = 0; j < x->nbudget_also[s]; j++) {
        int o = budget_match(x, s, x->budget_also[s][j], idx, k), q = r->budget;
        if (o < 0) continue;
        for (; q >= 0 || o >= 0; q = e->runs[q].parent, o = e->runs[o].parent) {
            if (q < 0 || o < 0)
                return exp_fail(x, x->budget_node[s], "stage '%s' (%s): budget: the chains of '%s' and '%s' have different lengths; "
                                "give each its own matched-budget stage", r->stage, r->axes, e->runs[r->budget].stage,
                                e->stage_names[x->budget_also[s][j]]);
            for (int i = 0; i < cfg_key_count; i++) {
                if (!budget_key(i)) continue;
                char vq[512], vo[512];
                config_value_text(&e->runs[q].cfg, i, vq, sizeof vq);
                config_value_text(&e->runs[o].cfg, i, vo, sizeof vo);
                if (strcmp(vq, vo))
                    return exp_fail(x, x->budget_node[s], "stage '%s' (%s): budget: '%s' has %s=%s but '%s' has %s=%s, so their "
                                    "budgets may differ; give each its own matched-budget stage", r->stage, r->axes,
                                    e->runs[q].stage, cfg_keys[i].key, vq, e->runs[o].stage, cfg_keys[i].key, vo);
            }
        }
    }
    return 0;
}

// A matched-budget run sees as many images per update as every run of its chain, so equal
// updates are equal images: the batches must agree.
static int check_budget_batch(exp_ctx *x, int s, const exp_run *r) {
    const experiment *e = x->e;
    long batch = cfg_int(&r->cfg, "train.batch");
    for (int q = r->budget; q >= 0; q = e->runs[q].parent) {
        long other = cfg_int(&e->runs[q].cfg, "train.batch");
        if (other != batch)
            return exp_fail(x, x->budget_node[s], "stage '%s' (%s): budget: train.batch is %ld here but %ld in stage '%s' (%s); "
                            "equal updates see equal images only at the same batch: set the same train.batch",
                            r->stage, r->axes, batch, other, e->runs[q].stage, e->runs[q].axes);
    }
    return 0;
}

// The value node of key cfg in a run of stage s when one of the stage's own axes sets it.
static const ynode *axis_node(exp_ctx *x, int s, const int *idx, int cfg) {
    for (int a = 0; a < x->e->naxes; a++) {
        const exp_axis *ax = &x->e->axes[a];
        if (!x->own[s][a]) continue;
        for (int k = 0; k < ax->nkeys; k++)
            if (ax->keys[k].index == cfg) return ax->nodes[idx[a] * ax->nkeys + k];
    }
    return NULL;
}

// Where a bad combination of keys a and b came from: an axis value setting a, else one
// setting b, else the base/stage/scale line setting a, else b (NULL: both are defaults).
static const ynode *blame(exp_ctx *x, int s, const int *idx, int a, int b) {
    const ynode *n = axis_node(x, s, idx, a);
    if (!n) n = axis_node(x, s, idx, b);
    if (!n) n = x->origin[s][a];
    return n ? n : x->origin[s][b];
}

static int check_run(exp_ctx *x, int s, const exp_run *r, const char *combo) {
    const config *c = &r->cfg;
    char what[1400];
    if (combo[0]) snprintf(what, sizeof what, "%s%s%scombination %s", x->e->nstages > 1 ? "stage '" : "",
                           x->e->nstages > 1 ? r->stage : "", x->e->nstages > 1 ? "', " : "", combo);
    else snprintf(what, sizeof what, "stage '%s'", r->stage);
    const char *data = cfg_str(c, "data.name");
    long patch = cfg_int(c, "model.patch"), dim = cfg_int(c, "model.dim"), heads = cfg_int(c, "model.heads");
    int ipatch = cfg_index("model.patch"), idim = cfg_index("model.dim"), iheads = cfg_index("model.heads");
    // Image side of the dataset (speech: frames, each a sequence token of `features` MFCCs; text:
    // bytes per sequence); 0 = not known here (idx files of any size): not checked.
    const dataset_kind *data_kind = dataset_find(data);
    dataset_options dopt = dataset_options_from_config(c);
    dataset_shape shape = data_kind ? data_kind->shape(&dopt) : (dataset_shape){0};
    int side = shape.side;
    long resolution = cfg_int(c, "data.resolution");
    int ires = cfg_index("data.resolution");
    if (resolution > 0 && resolution % patch != 0)
        return exp_fail(x, blame(x, s, r->axis_value, ires, ipatch), "%s: model.patch must divide data.resolution=%ld (got %ld)",
                        what, resolution, patch);
    if (resolution == 0 && side && side % patch != 0)
        return exp_fail(x, blame(x, s, r->axis_value, ipatch, cfg_index("data.name")),
                        "%s (data %s, %d px): model.patch must divide %d (got %ld)", what, data, side, side, patch);
    if (dim % heads != 0)
        return exp_fail(x, blame(x, s, r->axis_value, iheads, idim),
                        "%s: model.heads must divide model.dim (heads %ld, dim %ld)", what, heads, dim);
    // Every image size of the run (UniViT's, the evaluation sizes and their TTA neighbours).
    long delta = cfg_int(c, "eval.tta_delta");
    static const char *const size_keys[] = {"data.resolutions", "eval.resolutions"};
    for (int k = 0; k < 2; k++) {
        int sizes[CFG_LIST_MAX], n = cfg_int_list(c, size_keys[k], sizes, CFG_LIST_MAX), ik = cfg_index(size_keys[k]);
        for (int i = 0; i < n; i++)
            for (int shift = k == 1 && delta > 0 ? -1 : 0; shift <= (k == 1 && delta > 0 ? 1 : 0); shift++) {
                long size = sizes[i] + shift * delta;
                if (size >= patch && size % patch == 0) continue;
                if (shift == 0)
                    return exp_fail(x, blame(x, s, r->axis_value, ik, ipatch), "%s: %s value %d is not a multiple of model.patch=%ld",
                                    what, size_keys[k], sizes[i], patch);
                return exp_fail(x, blame(x, s, r->axis_value, cfg_index("eval.tta_delta"), ik),
                                "%s: eval.tta_delta=%ld around eval.resolutions value %d gives %ld px, not a multiple of model.patch=%ld",
                                what, delta, sizes[i], size, patch);
            }
    }
    // The encoding's and the objective's own rules (models/posenc/, objectives/<name>/).
    int ipe = cfg_index("pe.kind");
    model_config vc = model_config_from_config(c, 1, side, 1, shape.features); // what an encoding's config_error reads
    const posenc_kind *kind = posenc_for_model(&vc);
    const char *why = kind && kind->config_error ? kind->config_error(&vc) : NULL;
    if (why) return exp_fail(x, blame(x, s, r->axis_value, ipe, idim), "%s: %s", what, why);
    objective_settings os;
    objective_settings_from_config(c, &os);
    why = objective_config_error(&os);
    if (why) {
        int sizes = strstr(why, "one size") != NULL; // the objective refuses several image sizes
        int first = sizes ? cfg_index("objective.name") : ipe;
        if (!strncmp(why, "eval.knn=", 9)) first = cfg_index("eval.knn"); // a probe on data without labels
        if (!strncmp(why, "eval.linear_probe=", 18)) first = cfg_index("eval.linear_probe");
        int second = sizes ? cfg_index("eval.resolutions") : cfg_index("objective.ref_fraction");
        return exp_fail(x, blame(x, s, r->axis_value, first, second), "%s: %s", what, why);
    }
    // The backbone's own rules (models/backbones/), given what the objective asks of it.
    const objective_kind *objective = objective_find(os.name);
    if (objective && objective->configure_model) objective->configure_model(&os, &vc);
    const backbone_kind *arch = backbone_find(cfg_str(c, "model.arch"));
    why = arch && arch->config_error ? arch->config_error(&vc) : NULL;
    if (why) return exp_fail(x, blame(x, s, r->axis_value, cfg_index("model.arch"), ipe), "%s: %s", what, why);
    return 0;
}

static int push_run(exp_ctx *x, int *cap, int s, const int *idx, int seed_index, int parent, int budget) {
    experiment *e = x->e;
    if (e->nruns >= EXP_MAX_RUNS) return exp_fail(x, e->tree, "the experiment expands to more than %d runs", EXP_MAX_RUNS);
    if (e->nruns == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        e->runs = realloc(e->runs, sizeof *e->runs * (size_t)*cap);
        if (!e->runs) die_fail("out of memory expanding the experiment");
    }
    exp_run *r = &e->runs[e->nruns++];
    memset(r, 0, sizeof *r);
    snprintf(r->stage, sizeof r->stage, "%s", e->stage_names[s]);
    r->stage_index = s;
    r->parent = parent;
    r->budget = budget;
    r->seed_index = seed_index;
    r->axis_value = xmalloc(sizeof(int) * (size_t)(e->naxes ? e->naxes : 1), "run axes");
    config_copy(&r->cfg, &x->stage_cfg[s]);
    char msg[512], combo[990] = "";
    for (int a = 0; a < e->naxes; a++) {
        const exp_axis *ax = &e->axes[a];
        r->axis_value[a] = x->eff[s][a] ? idx[a] : -1;
        if (!x->eff[s][a]) continue;
        for (int k = 0; k < ax->nkeys; k++) {
            const char *t = ax->text[idx[a] * ax->nkeys + k];
            snprintf(combo + strlen(combo), sizeof combo - strlen(combo), "%s%s=%s", combo[0] ? " " : "", ax->keys[k].name, t);
            if (x->own[s][a] && config_set(&r->cfg, ax->keys[k].index, t, msg, sizeof msg) != 0)
                return exp_fail(x, ax->nodes[idx[a] * ax->nkeys + k], "%s", msg);
        }
    }
    if (e->nseeds) {
        char seed[32];
        snprintf(seed, sizeof seed, "%ld", e->seeds[seed_index]);
        if (config_set(&r->cfg, cfg_index("train.seed"), seed, msg, sizeof msg) != 0) return exp_fail(x, NULL, "%s", msg);
    }
    r->cfg.source = e->path; // where each key was written, for the trainer's refusals (train_settings.h)
    for (int k = 0; k < cfg_key_count; k++) {
        const ynode *n = axis_node(x, s, idx, k);
        if (!n) n = x->origin[s][k];
        if (n) r->cfg.line[k] = n->line, r->cfg.col[k] = n->col;
    }
    r->seed = cfg_int(&r->cfg, "train.seed");
    snprintf(r->axes, sizeof r->axes, "%s%sseed=%ld", combo, combo[0] ? " " : "", r->seed);
    if (check_run(x, s, r, combo) != 0) return -1;
    if (budget >= 0 && check_budget_batch(x, s, r) != 0) return -1;
    run_id(e, r->stage, &r->cfg, parent >= 0 ? e->runs[parent].run_id : NULL, budget, r->run_id);
    for (int i = 0; i < e->nruns - 1; i++) {
        if (e->runs[i].stage_index != s || strcmp(e->runs[i].run_id, r->run_id) != 0) continue;
        const ynode *at = x->stage_key[s]; // point at the axis that differs
        for (int a = e->naxes - 1; a >= 0; a--)
            if (r->axis_value[a] != e->runs[i].axis_value[a]) at = e->axes[a].node;
        return exp_fail(x, at, "stage '%s': runs '%s' and '%s' have the same config (run id %s); an axis varies a key that does not change results",
                        r->stage, e->runs[i].axes, r->axes, r->run_id);
    }
    return 0;
}

int exp_expand(exp_ctx *x) {
    experiment *e = x->e;
    int cap = 0;
    for (int s = 0; s < e->nstages; s++) { // the implicit stage 'main' has no key of its own
        if (!x->stage_key[s]) x->stage_key[s] = e->naxes ? e->axes[0].node : e->tree;
        int p = e->stage_init[s], bs = e->stage_budget[s];
        for (int a = 0; a < e->naxes; a++) { // a budget stage inherits its chain's axes over budget keys
            x->own[s][a] = e->axes[a].stage < 0 || e->axes[a].stage == s;
            x->eff[s][a] = x->own[s][a] || (p >= 0 && x->eff[p][a]) || (bs >= 0 && x->eff[bs][a] && budget_axis(&e->axes[a]));
        }
        double total = e->nseeds ? e->nseeds : 1;
        for (int a = 0; a < e->naxes; a++) total *= x->eff[s][a] ? e->axes[a].nvalues : 1;
        if (total + e->nruns > EXP_MAX_RUNS)
            return exp_fail(x, x->stage_key[s], "stage '%s' expands to %.0f runs (at most %d in all)", e->stage_names[s], total, EXP_MAX_RUNS);
        int idx[EXP_MAX_AXES] = {0}, first = e->nruns, done = 0;
        while (!done) {
            for (int k = 0; k < (e->nseeds ? e->nseeds : 1); k++) {
                int skip = 0;
                for (int j = 0; j < x->nexcl && !skip; j++) {
                    excl_entry *en = &x->excl[j];
                    int match = 1;
                    for (int c = 0; c < en->n && match; c++) {
                        const exp_axis *ax = &e->axes[en->c[c].axis];
                        match = x->eff[s][en->c[c].axis] && !strcmp(ax->text[idx[en->c[c].axis] * ax->nkeys + en->c[c].key], en->c[c].text);
                    }
                    if (match) en->hits++, skip = 1;
                }
                int parent = -1;
                for (int i = 0; !skip && p >= 0 && i < e->nruns && parent < 0; i++) {
                    const exp_run *q = &e->runs[i];
                    int same = q->stage_index == p && q->seed_index == k;
                    for (int a = 0; a < e->naxes && same; a++) same = !x->eff[p][a] || q->axis_value[a] == idx[a];
                    if (same) parent = i;
                }
                int budget = !skip && bs >= 0 ? budget_match(x, s, bs, idx, k) : -1; // its chain sets the length
                if (skip || (p >= 0 && parent < 0) || (bs >= 0 && budget < 0)) continue; // excluded, or its parent (budget run) was
                if (push_run(x, &cap, s, idx, k, parent, budget) != 0) return -1;
                if (budget >= 0 && check_budget_also(x, s, &e->runs[e->nruns - 1], idx, k) != 0) return -1;
            }
            done = 1; // odometer over this stage's axes, last axis fastest
            for (int a = e->naxes - 1; a >= 0; a--) {
                if (!x->eff[s][a]) continue;
                if (++idx[a] < e->axes[a].nvalues) {
                    done = 0;
                    break;
                }
                idx[a] = 0;
            }
        }
        e->stage_runs[s] = e->nruns - first;
        if (!e->stage_runs[s])
            return exp_fail(x, x->stage_key[s], "stage '%s' has no runs left after exclude", e->stage_names[s]);
    }
    for (int j = 0; j < x->nexcl; j++) {
        const excl_entry *en = &x->excl[j];
        if (en->hits) continue;
        int applies = 0;
        for (int s = 0; s < e->nstages; s++) {
            int all = 1;
            for (int c = 0; c < en->n; c++) all &= x->eff[s][en->c[c].axis];
            applies |= all;
        }
        if (!applies)
            return exp_fail(x, en->node, "exclude: no stage has all of these keys as axes (an entry applies to a stage "
                                     "whose axes, inherited through init included, contain every key)");
        return exp_fail(x, en->node, "exclude: this entry matches no combination (its values never occur together, "
                                 "or an earlier entry already skips them)");
    }
    return 0;
}
