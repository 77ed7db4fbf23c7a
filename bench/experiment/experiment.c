// bench/experiment/experiment.c — experiment YAML -> validated stages and axes (rules: experiment.h).
// Order of work: read the tree (yaml_tree.c); check top-level keys, name, stages (init DAG,
// topological order), seeds, scales; resolve each stage's config (defaults <- base <- stage
// <- scale); read matrix, zip and exclude into axes; figures; then hand over to
// experiment_expand.c, which expands every stage into runs.
#include "experiment.h"
#include "experiment_expand.h"
#include "caveats_spec.h"
#include "figure_kinds.h"
#include "figure_labels.h"
#include "../../core/common.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const top_keys[] = {"name", "description", "base", "stages", "matrix", "zip",
                                       "exclude", "seeds", "scales", "reference", "figures", "labels", "findings", "caveats"};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// ---- small helpers: edit distance, suggestions, lists ----
static const char *closest(const char *w, const char *const *cand, int n) {
    const char *best = NULL;
    int best_d = (int)strlen(w) <= 3 ? 2 : 3;
    for (int i = 0; i < n; i++) {
        int d = cfg_edit_distance(w, cand[i]);
        if (d < best_d) best_d = d, best = cand[i];
    }
    return best;
}

static void join(char *buf, size_t len, const char *const *items, int n) {
    buf[0] = 0;
    for (int i = 0; i < n; i++) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", items[i]);
}

// " (did you mean 'x'?; valid: a, b)" or " (valid: a, b)"
static void hint(char *buf, size_t len, const char *w, const char *const *cand, int n) {
    char list[1024];
    join(list, sizeof list, cand, n);
    const char *s = closest(w, cand, n);
    if (s) snprintf(buf, len, " (did you mean '%s'?; valid: %s)", s, list);
    else snprintf(buf, len, " (valid: %s)", list);
}

static int group_names(const char **out, int max) { // distinct first components of the keys
    static char names[64][32];
    int n = 0;
    for (int i = 0; i < cfg_key_count; i++) {
        size_t len = strcspn(cfg_keys[i].key, ".");
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= strlen(out[j]) == len && !strncmp(out[j], cfg_keys[i].key, len);
        if (!seen && n < max && n < 64) {
            snprintf(names[n], sizeof names[n], "%.*s", (int)len, cfg_keys[i].key);
            out[n] = names[n];
            n++;
        }
    }
    return n;
}

static int is_group(const char *path) {
    size_t n = strlen(path);
    for (int i = 0; i < cfg_key_count; i++)
        if (n && !strncmp(cfg_keys[i].key, path, n) && cfg_keys[i].key[n] == '.') return 1;
    return 0;
}

static int stage_lookup(const experiment *e, const char *s, size_t n) {
    for (int i = 0; i < e->nstages; i++)
        if (strlen(e->stage_names[i]) == n && !strncmp(e->stage_names[i], s, n)) return i;
    return -1;
}

int experiment_stage_index(const experiment *e, const char *stage) { return stage_lookup(e, stage, strlen(stage)); }

static int stage_list(const experiment *e, const char **out) {
    for (int i = 0; i < e->nstages; i++) out[i] = e->stage_names[i];
    return e->nstages;
}

// ---- key resolution and walking config maps ----
enum { R_UNKNOWN, R_LEAF, R_GROUP, R_BADSTAGE };

// path: dotted, possibly stage-qualified when allow_stage. Sets *stage (-1: unqualified) and
// *cfg (key index for R_LEAF).
static int resolve(const experiment *e, const char *path, int allow_stage, int *stage, int *cfg) {
    *stage = -1;
    if ((*cfg = cfg_index(path)) >= 0) return R_LEAF;
    if (is_group(path)) return R_GROUP;
    if (!allow_stage) return R_UNKNOWN;
    size_t n = strcspn(path, ".");
    const char *rest = path[n] ? path + n + 1 : "";
    int s = stage_lookup(e, path, n);
    if (s < 0) return *rest && (cfg_index(rest) >= 0 || is_group(rest)) ? R_BADSTAGE : R_UNKNOWN;
    *stage = s;
    if (!*rest || is_group(rest)) return R_GROUP;
    return (*cfg = cfg_index(rest)) >= 0 ? R_LEAF : R_UNKNOWN;
}

static int unknown_key(exp_ctx *x, const ynode *at, const char *path, int r, int stage, int allow_stage, const char *extra) {
    const char *cand[80];
    char list[1024];
    if (r == R_BADSTAGE) {
        size_t n = strcspn(path, ".");
        char s[128];
        snprintf(s, sizeof s, "%.*s", (int)n, path);
        int ns = stage_list(x->e, cand);
        hint(list, sizeof list, s, cand, ns);
        return exp_fail(x, at, "unknown stage '%s' in '%s'%s", s, path, list);
    }
    const char *rest = stage >= 0 ? path + strlen(x->e->stage_names[stage]) + 1 : path;
    char pre[80] = "";
    if (stage >= 0) snprintf(pre, sizeof pre, "%s.", x->e->stage_names[stage]);
    const char *s = NULL;
    int n = group_names(cand, 64);
    if (!strchr(rest, '.')) {
        int m = n;
        if (extra && stage < 0 && m < 80) cand[m++] = extra;
        for (int i = 0; allow_stage && stage < 0 && i < x->e->nstages && m < 80; i++) cand[m++] = x->e->stage_names[i];
        s = closest(rest, cand, m);
    } else {
        s = cfg_suggest(rest);
    }
    if (s) return exp_fail(x, at, "unknown key '%s' (did you mean '%s%s'?)", path, pre, s);
    join(list, sizeof list, cand, n);
    return exp_fail(x, at, "unknown key '%s' (key groups: %s; posbench train --help lists every key)", path, list);
}

typedef int (*leaf_fn)(exp_ctx *x, int stage, int cfg, const char *path, const ynode *key, const ynode *val);

// A top-level key the caller handles itself: `extra` (init, seeds), and a scale's matrix (its
// axis values, read by scale_axes) next to its seeds.
static int handled_elsewhere(const char *key, const char *extra) {
    return extra && (!strcmp(key, extra) || (!strcmp(extra, "seeds") && !strcmp(key, "matrix")) ||
                     (!strcmp(extra, "init") && !strcmp(key, "budget")));
}

// Calls fn for every leaf of a nested/dotted map of config keys, skipping what
// handled_elsewhere names.
static int walk(exp_ctx *x, const ynode *map, const char *prefix, int allow_stage, const char *extra, leaf_fn fn) {
    for (int i = 0; i < map->n; i++) {
        const ynode *k = map->key[i], *v = map->val[i];
        if (!prefix[0] && handled_elsewhere(k->text, extra)) continue;
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", k->text);
        int stage, cfg, r = resolve(x->e, path, allow_stage, &stage, &cfg);
        if (r == R_LEAF) {
            if (fn(x, stage, cfg, path, k, v) != 0) return -1;
        } else if (r == R_GROUP) {
            char got[300];
            ytree_describe(v, got, sizeof got);
            if (v->kind != YT_MAP) return exp_fail(x, v, "'%s' is a group of keys: expected a mapping, got %s", path, got);
            if (walk(x, v, path, allow_stage, NULL, fn) != 0) return -1;
        } else {
            return unknown_key(x, k, path, r, stage, allow_stage, prefix[0] ? NULL : extra);
        }
    }
    return 0;
}

// Types scalar v for key cfg (validating it into x->scratch); canon gets the canonical text.
static int scalar_value(exp_ctx *x, int cfg, const ynode *v, char *canon, size_t len) {
    const cfg_key *k = &cfg_keys[cfg];
    const char *want = k->type == CFG_INT ? "an integer" : k->type == CFG_FLOAT ? "a number"
                     : k->type == CFG_BOOL ? "true or false" : k->type == CFG_CHOICE ? "one of"
                     : k->type == CFG_INT_LIST ? "a list of integers such as [16, 28]" : "text";
    char got[300], msg[512];
    ytree_describe(v, got, sizeof got);
    if (k->type == CFG_INT_LIST && v->kind == YT_SEQ) { // [16, 28, 40]: join the items
        char joined[512] = "";
        size_t used = 0;
        for (int i = 0; i < v->n; i++) {
            const ynode *item = v->val[i];
            char item_got[300];
            ytree_describe(item, item_got, sizeof item_got);
            if (item->kind != YT_SCALAR || item->quoted || ytree_is_null(item))
                return exp_fail(x, item, "%s: expected a list of integers such as [16, 28], got %s in the list", k->key, item_got);
            used += (size_t)snprintf(joined + used, sizeof joined - used, "%s%s", i ? "," : "", item->text);
            if (used >= sizeof joined) return exp_fail(x, v, "%s: list too long", k->key);
        }
        if (config_set(&x->scratch, cfg, joined, msg, sizeof msg) != 0) return exp_fail(x, v, "%s", msg);
        config_value_text(&x->scratch, cfg, canon, len);
        return 0;
    }
    if (v->kind != YT_SCALAR) {
        if (k->type == CFG_CHOICE) return exp_fail(x, v, "%s: expected one of %s, got %s", k->key, k->choices, got);
        return exp_fail(x, v, "%s: expected %s, got %s", k->key, want, got);
    }
    const char *text = v->text;
    int num = k->type == CFG_INT || k->type == CFG_FLOAT || k->type == CFG_BOOL || k->type == CFG_INT_LIST;
    if (num && v->quoted) return exp_fail(x, v, "%s: expected %s, got %s", k->key, want, got);
    if (ytree_is_null(v)) {
        if (k->type != CFG_STRING) return exp_fail(x, v, "%s: no value given (expected %s%s%s)", k->key, want,
                                               k->type == CFG_CHOICE ? " " : "", k->type == CFG_CHOICE ? k->choices : "");
        text = "";
    }
    if (k->type == CFG_BOOL) {
        int b = cfg_parse_bool(text); // the command line's spellings too
        if (b < 0) return exp_fail(x, v, "%s: expected true or false, got %s", k->key, got);
        text = b ? "true" : "false";
    }
    if (config_set(&x->scratch, cfg, text, msg, sizeof msg) != 0) return exp_fail(x, v, "%s", msg);
    config_value_text(&x->scratch, cfg, canon, len);
    return 0;
}

// ---- base, stage bodies, scales ----
static int set_leaf(exp_ctx *x, int qstage, int cfg, const char *path, const ynode *key, const ynode *v) {
    char canon[512], msg[512];
    if (scalar_value(x, cfg, v, canon, sizeof canon) != 0) return -1;
    const ynode **seen = &x->body_seen[qstage + 1][cfg]; // `model: {dim: 1}` and `model.dim: 2`
    if (*seen) return exp_fail(x, key, "duplicate key '%s' (also set at %d:%d)", path, (*seen)->line, (*seen)->col);
    *seen = key;
    if (!x->setting_apply) return 0;
    int target = qstage >= 0 ? qstage : x->setting_stage;
    for (int s = 0; s < x->e->nstages; s++) {
        if (target >= 0 && s != target) continue;
        if (config_set(&x->stage_cfg[s], cfg, canon, msg, sizeof msg) != 0) return exp_fail(x, v, "%s", msg);
        x->origin[s][cfg] = v;
    }
    return 0;
}

static int apply_body(exp_ctx *x, const ynode *body, int stage, int allow_stage, const char *extra, int apply,
                      const char *what) {
    if (!body || ytree_is_null(body)) return 0;
    char got[300];
    ytree_describe(body, got, sizeof got);
    if (body->kind != YT_MAP) return exp_fail(x, body, "%s: expected a mapping of config keys, got %s", what, got);
    x->setting_stage = stage;
    x->setting_apply = apply;
    memset(x->body_seen, 0, sizeof x->body_seen);
    return walk(x, body, "", allow_stage, extra, set_leaf);
}

static int parse_seeds(exp_ctx *x, const ynode *n, long *out, int *count) {
    char got[300], canon[64];
    ytree_describe(n, got, sizeof got);
    if (n->kind != YT_SEQ) return exp_fail(x, n, "seeds: expected a list of integers such as [0, 1, 2], got %s", got);
    if (n->n == 0) return exp_fail(x, n, "seeds: empty list (give at least one seed, e.g. [0])");
    if (n->n > EXP_MAX_SEEDS) return exp_fail(x, n, "seeds: %d seeds (at most %d)", n->n, EXP_MAX_SEEDS);
    int seed = cfg_index("train.seed");
    for (int i = 0; i < n->n; i++) {
        if (scalar_value(x, seed, n->val[i], canon, sizeof canon) != 0) return -1;
        out[i] = (long)x->scratch.num[seed];
        for (int j = 0; j < i; j++)
            if (out[j] == out[i])
                return exp_fail(x, n->val[i], "seeds: seed %ld appears twice (first at %d:%d)", out[i], n->val[j]->line, n->val[j]->col);
    }
    *count = n->n;
    return 0;
}

static int read_scales(exp_ctx *x, const ynode *scales, const char *scale) {
    experiment *e = x->e;
    char got[300];
    if (scales) {
        ytree_describe(scales, got, sizeof got);
        if (scales->kind != YT_MAP) return exp_fail(x, scales, "scales: expected a mapping of scale name -> overrides, got %s", got);
        for (int i = 0; i < scales->n; i++) { // validate every scale, chosen or not
            const ynode *body = scales->val[i], *sn = ytree_get(body, "seeds", NULL);
            long seeds[EXP_MAX_SEEDS];
            int ns = 0;
            if (sn && parse_seeds(x, sn, seeds, &ns) != 0) return -1;
            char what[200];
            snprintf(what, sizeof what, "scale '%s'", scales->key[i]->text);
            if (apply_body(x, body, -1, 1, "seeds", 0, what) != 0) return -1;
        }
    }
    if (!scale || !scale[0]) return 0;
    snprintf(e->scale, sizeof e->scale, "%s", scale);
    if (!scales || !scales->n) return exp_fail(x, scales ? scales : e->tree, "--scale %s: this experiment defines no scales", scale);
    const ynode *body = ytree_get(scales, scale, NULL);
    if (!body) {
        const char *names[256];
        int n = 0;
        for (int i = 0; i < scales->n && n < 256; i++) names[n++] = scales->key[i]->text;
        char h[1200];
        hint(h, sizeof h, scale, names, n);
        return exp_fail(x, scales, "unknown scale '%s'%s", scale, h);
    }
    const ynode *sn = ytree_get(body, "seeds", NULL);
    if (sn) return parse_seeds(x, sn, e->seeds, &e->nseeds);
    return 0;
}

// ---- stages ----
static int valid_name(const char *s) {
    if (!s[0]) return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')) return 0;
    return 1;
}

// `budget: <stage>` or `budget: [<stage>, ...]`: the stage trains for as many updates (and
// images) as a run of <stage> and its init ancestors together (a matched-budget control; rules:
// experiment.h); further stages of a list must have the same budget (checked per run by
// experiment_expand.c). Checked here: stage names, not the stage itself, no init beside it, and
// no stage of a budget stage's init chain has a budget of its own (so budget and init edges
// never form a cycle). blist[i][0..nb[i]): the listed stages; budget_of[i] = blist[i][0] or -1.
static int read_budgets(exp_ctx *x, char names[][64], const ynode *const *body, const int *parent, const ynode **budget,
                        int blist[][EXP_MAX_STAGES], int *nb, int *budget_of, int n) {
    char got[300];
    const char *cand[EXP_MAX_STAGES];
    for (int i = 0; i < n; i++) cand[i] = names[i];
    for (int i = 0; i < n; i++) {
        budget_of[i] = -1, nb[i] = 0;
        budget[i] = ytree_get(body[i], "budget", NULL);
    }
    for (int i = 0; i < n; i++) {
        const ynode *b = budget[i];
        if (!b) continue;
        ytree_describe(b, got, sizeof got);
        int list = b->kind == YT_SEQ;
        if ((b->kind != YT_SCALAR && !list) || ytree_is_null(b) || (list && (b->n == 0 || b->n > EXP_MAX_STAGES)))
            return exp_fail(x, b, "stage '%s': budget expects a stage name (the pretrain+finetune chain to match) or a "
                            "non-empty list of them, got %s", names[i], got);
        for (int k = 0; k < (list ? b->n : 1); k++) {
            const ynode *v = list ? b->val[k] : b;
            ytree_describe(v, got, sizeof got);
            if (v->kind != YT_SCALAR || ytree_is_null(v)) return exp_fail(x, v, "stage '%s': budget: expected a stage name, got %s", names[i], got);
            int j = 0;
            while (j < n && strcmp(names[j], v->text)) j++;
            if (j == n) {
                char h[1200];
                hint(h, sizeof h, v->text, cand, n);
                return exp_fail(x, v, "stage '%s': budget '%s' is not a stage%s", names[i], v->text, h);
            }
            if (j == i) return exp_fail(x, v, "stage '%s': budget names the stage itself (name the finetune stage to match)", names[i]);
            for (int q = 0; q < nb[i]; q++)
                if (blist[i][q] == j) return exp_fail(x, v, "stage '%s': budget names '%s' twice", names[i], v->text);
            blist[i][nb[i]++] = j;
        }
        budget_of[i] = blist[i][0];
        if (parent[i] >= 0)
            return exp_fail(x, b, "stage '%s': budget and init together are not supported (a matched-budget control trains from scratch)", names[i]);
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < nb[i]; k++)
            for (int s = blist[i][k]; s >= 0; s = parent[s])
                if (budget[s])
                    return exp_fail(x, budget[i], "stage '%s': budget '%s': its chain contains stage '%s', which has a budget of its own "
                                    "(a budget stage must be a plain training chain)", names[i], names[blist[i][k]], names[s]);
    return 0;
}

static int read_stages(exp_ctx *x, const ynode *stages) {
    experiment *e = x->e;
    if (!stages) {
        e->nstages = 1;
        snprintf(e->stage_names[0], sizeof e->stage_names[0], "main");
        e->stage_init[0] = -1;
        e->stage_budget[0] = -1;
        return 0;
    }
    char got[300];
    ytree_describe(stages, got, sizeof got);
    if (stages->kind == YT_MAP && stages->n == 0)
        return exp_fail(x, stages, "stages is empty: name at least one stage (e.g. stages: {train: {}}), or leave "
                        "stages: out for one stage, main, of the base settings");
    if (stages->kind != YT_MAP)
        return exp_fail(x, stages, "stages: expected a mapping of stage name -> config (e.g. pretrain: {...}), got %s", got);
    if (stages->n > EXP_MAX_STAGES) return exp_fail(x, stages, "stages: %d stages (at most %d)", stages->n, EXP_MAX_STAGES);
    char names[EXP_MAX_STAGES][64];
    const ynode *key[EXP_MAX_STAGES], *body[EXP_MAX_STAGES], *init[EXP_MAX_STAGES], *budget[EXP_MAX_STAGES];
    int parent[EXP_MAX_STAGES], budget_of[EXP_MAX_STAGES], blist[EXP_MAX_STAGES][EXP_MAX_STAGES], nb[EXP_MAX_STAGES], n = stages->n;
    for (int i = 0; i < n; i++) {
        key[i] = stages->key[i];
        body[i] = stages->val[i];
        const char *nm = key[i]->text;
        if (!valid_name(nm) || strlen(nm) >= 64)
            return exp_fail(x, key[i], "stage name '%s' must be 1-63 characters of a-z, 0-9, _ and -", nm);
        if (is_group(nm) || !strcmp(nm, "init") || !strcmp(nm, "seeds") || !strcmp(nm, "budget"))
            return exp_fail(x, key[i], "stage name '%s' is reserved (it is a key group or keyword); rename the stage", nm);
        snprintf(names[i], 64, "%s", nm);
        ytree_describe(body[i], got, sizeof got);
        if (body[i]->kind != YT_MAP && !ytree_is_null(body[i]))
            return exp_fail(x, body[i], "stage '%s': expected a mapping of config keys (and init, budget), got %s", nm, got);
    }
    const char *cand[EXP_MAX_STAGES];
    for (int i = 0; i < n; i++) cand[i] = names[i];
    for (int i = 0; i < n; i++) {
        parent[i] = -1;
        init[i] = ytree_get(body[i], "init", NULL);
        if (!init[i]) continue;
        ytree_describe(init[i], got, sizeof got);
        if (init[i]->kind != YT_SCALAR || ytree_is_null(init[i]))
            return exp_fail(x, init[i], "stage '%s': init expects a stage name, got %s", names[i], got);
        for (int j = 0; j < n; j++)
            if (!strcmp(names[j], init[i]->text)) parent[i] = j;
        if (parent[i] < 0) {
            char h[1200];
            hint(h, sizeof h, init[i]->text, cand, n);
            return exp_fail(x, init[i], "stage '%s': init '%s' is not a stage%s", names[i], init[i]->text, h);
        }
    }
    for (int i = 0; i < n; i++) { // one parent each: a cycle shows up walking up n steps
        int seen[EXP_MAX_STAGES] = {0}, s = i;
        for (int step = 0; s >= 0 && !seen[s]; step++) seen[s] = 1, s = parent[s];
        if (s != i) continue;
        char cyc[1024];
        snprintf(cyc, sizeof cyc, "%s", names[i]);
        s = parent[i];
        do {
            snprintf(cyc + strlen(cyc), sizeof cyc - strlen(cyc), " -> %s", names[s]);
            if (s == i) break;
            s = parent[s];
        } while (1);
        return exp_fail(x, init[i], "stage cycle: %s (each stage's init names the next)", cyc);
    }
    if (read_budgets(x, names, body, parent, budget, blist, nb, budget_of, n) != 0) return -1;
    int order[EXP_MAX_STAGES], pos[EXP_MAX_STAGES], m = 0;
    for (int i = 0; i < n; i++) pos[i] = -1;
    for (int i = 0; i < n; i++) { // ancestors (and budget stages' chains) first, YAML order otherwise
        while (pos[i] < 0) {
            int s = i;
            for (;;) { // the first unplaced stage s depends on: its init, else its budget stages
                int next = parent[s] >= 0 && pos[parent[s]] < 0 ? parent[s] : -1;
                for (int k = 0; next < 0 && k < nb[s]; k++)
                    if (pos[blist[s][k]] < 0) next = blist[s][k];
                if (next < 0) break;
                s = next;
            }
            pos[s] = m;
            order[m++] = s;
        }
    }
    e->nstages = n;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        snprintf(e->stage_names[k], sizeof e->stage_names[k], "%s", names[i]);
        e->stage_init[k] = parent[i] >= 0 ? pos[parent[i]] : -1;
        e->stage_budget[k] = budget_of[i] >= 0 ? pos[budget_of[i]] : -1;
        x->budget_node[k] = budget[i];
        x->nbudget_also[k] = nb[i] > 0 ? nb[i] - 1 : 0;
        for (int q = 1; q < nb[i]; q++) x->budget_also[k][q - 1] = pos[blist[i][q]];
        x->stage_key[k] = key[i];
        x->stage_body[k] = body[i];
        x->init_node[k] = init[i];
    }
    return 0;
}

// ---- axes: matrix, zip, exclude ----
static int add_axis_key(exp_ctx *x, exp_axis *a, int stage, int cfg, const char *path, const ynode *key) {
    if (!strcmp(cfg_keys[cfg].key, "train.seed"))
        return exp_fail(x, key, "train.seed cannot be an axis: list the seeds under seeds: [...]");
    for (int i = 0; i <= x->e->naxes; i++) {
        const exp_axis *b = i < x->e->naxes ? &x->e->axes[i] : a;
        for (int k = 0; k < b->nkeys; k++) {
            const exp_axis_key *o = &b->keys[k];
            if (o->index == cfg && (o->stage == stage || o->stage < 0 || stage < 0))
                return exp_fail(x, key, "'%s' is already an axis ('%s' at %d:%d); a key can vary in one axis only", path,
                            o->name, b->node->line, b->node->col);
        }
    }
    if (a->nkeys >= EXP_MAX_AXIS_KEYS) return exp_fail(x, key, "zip entry has more than %d keys", EXP_MAX_AXIS_KEYS);
    exp_axis_key *k = &a->keys[a->nkeys++];
    snprintf(k->name, sizeof k->name, "%s", path);
    k->stage = stage;
    k->index = cfg;
    return 0;
}

// A key whose value is a list: one column of the axis being built (x->cur).
static int list_leaf(exp_ctx *x, int stage, int cfg, const char *path, const ynode *key, const ynode *v) {
    exp_axis *a = x->cur;
    char got[300];
    ytree_describe(v, got, sizeof got);
    if (v->kind != YT_SEQ) return exp_fail(x, v, "%s: expected a list of values such as [a, b], got %s", path, got);
    if (v->n == 0) return exp_fail(x, v, "%s: empty axis (give at least one value)", path);
    if (v->n > EXP_MAX_RUNS) // before the per-value work and the quadratic repeat check
        return exp_fail(x, v, "%s: %d values (an experiment has at most %d runs)", path, v->n, EXP_MAX_RUNS);
    if (a->nkeys && v->n != a->nvalues)
        return exp_fail(x, v, "zip: '%s' has %d values but '%s' has %d (zipped lists vary together: equal lengths)", path,
                    v->n, a->keys[0].name, a->nvalues);
    if (a->nkeys && stage != a->stage)
        return exp_fail(x, key, "zip: '%s' and '%s' belong to different stages (zip keys are all unqualified or all of one stage)",
                    path, a->keys[0].name);
    if (add_axis_key(x, a, stage, cfg, path, key) != 0) return -1;
    a->stage = stage;
    a->nvalues = v->n;
    // Regrow the [v * nkeys + k] tables with one more key column.
    int nk = a->nkeys;
    char **text = xcalloc((size_t)(v->n * nk), sizeof *text, "axis values");
    const ynode **nodes = xcalloc((size_t)(v->n * nk), sizeof *nodes, "axis values");
    for (int i = 0; i < v->n; i++)
        for (int k = 0; k < nk - 1; k++) {
            text[i * nk + k] = a->text[i * (nk - 1) + k];
            nodes[i * nk + k] = a->nodes[i * (nk - 1) + k];
        }
    free(a->text);
    free(a->nodes);
    a->text = text;
    a->nodes = nodes;
    for (int i = 0; i < v->n; i++) {
        char canon[512];
        if (scalar_value(x, cfg, v->val[i], canon, sizeof canon) != 0) return -1;
        text[i * nk + nk - 1] = xstrdup(canon, "axis value");
        nodes[i * nk + nk - 1] = v->val[i];
    }
    return 0;
}

static int repeated_values(exp_ctx *x, const exp_axis *a) { // rejects repeated values (or zip tuples)
    for (int i = 0; i < a->nvalues; i++)
        for (int j = 0; j < i; j++) {
            int same = 1;
            for (int k = 0; k < a->nkeys; k++) same &= !strcmp(a->text[i * a->nkeys + k], a->text[j * a->nkeys + k]);
            if (same) {
                const ynode *at = a->nodes[i * a->nkeys], *first = a->nodes[j * a->nkeys];
                return exp_fail(x, at, "%s%s: value %s repeats the one at %d:%d", a->keys[0].name, a->nkeys > 1 ? " (zip)" : "",
                            a->text[i * a->nkeys], first->line, first->col);
            }
        }
    return 0;
}

static int finish_axis(exp_ctx *x, exp_axis *a) {
    if (repeated_values(x, a) != 0) return -1;
    x->e->naxes++;
    x->cur = NULL;
    return 0;
}

static exp_axis *new_axis(exp_ctx *x, const ynode *at) {
    if (x->e->naxes >= EXP_MAX_AXES) {
        exp_fail(x, at, "more than %d axes", EXP_MAX_AXES);
        return NULL;
    }
    exp_axis *a = &x->e->axes[x->e->naxes];
    memset(a, 0, sizeof *a);
    a->node = at;
    return x->cur = a;
}

static int matrix_leaf(exp_ctx *x, int stage, int cfg, const char *path, const ynode *key, const ynode *v) {
    exp_axis *a = new_axis(x, key);
    if (!a || list_leaf(x, stage, cfg, path, key, v) != 0) return -1;
    return finish_axis(x, a);
}

// A scale's `matrix: {key: [values]}` replaces the values of a matrix axis of that one key
// (e.g. fewer or shorter pretraining lengths at a smaller scale). Every scale's is checked
// (the key must be such an axis, the values typed and distinct); the chosen one's applies.
static int scale_axis_leaf(exp_ctx *x, int stage, int cfg, const char *path, const ynode *key, const ynode *v) {
    experiment *e = x->e;
    exp_axis *a = NULL;
    for (int i = 0; i < e->naxes && !a; i++)
        if (e->axes[i].nkeys == 1 && e->axes[i].keys[0].index == cfg && e->axes[i].keys[0].stage == stage) a = &e->axes[i];
    if (!a) return exp_fail(x, key, "scales: matrix: '%s' is not a key of the top-level matrix (a scale replaces the values "
                            "of an existing one-key axis)", path);
    exp_axis saved = *a, fresh = {0};
    fresh.node = a->node;
    *a = fresh;
    x->cur = a;
    int rc = list_leaf(x, stage, cfg, path, key, v);
    if (rc == 0) rc = repeated_values(x, a);
    x->cur = NULL;
    if (rc != 0 || !x->scale_apply) { // checked only (or failed): the top-level values stay
        for (int i = 0; i < a->nvalues * a->nkeys; i++) free(a->text[i]);
        free(a->text);
        free(a->nodes);
        *a = saved;
        return rc;
    }
    for (int i = 0; i < saved.nvalues * saved.nkeys; i++) free(saved.text[i]);
    free(saved.text);
    free(saved.nodes);
    return 0;
}

static int scale_axes(exp_ctx *x, const ynode *scales) {
    if (!scales || scales->kind != YT_MAP) return 0;
    for (int i = 0; i < scales->n; i++) {
        const ynode *m = ytree_get(scales->val[i], "matrix", NULL);
        if (!m) continue;
        char got[300];
        ytree_describe(m, got, sizeof got);
        if (m->kind != YT_MAP) return exp_fail(x, m, "scales: %s: matrix: expected a mapping of axis key -> list of values, got %s",
                                               scales->key[i]->text, got);
        x->scale_apply = !strcmp(scales->key[i]->text, x->e->scale);
        if (walk(x, m, "", 1, NULL, scale_axis_leaf) != 0) return -1;
    }
    x->scale_apply = 0;
    return 0;
}

static int read_axes(exp_ctx *x, const ynode *matrix, const ynode *zip) {
    char got[300];
    if (matrix && !ytree_is_null(matrix)) {
        ytree_describe(matrix, got, sizeof got);
        if (matrix->kind != YT_MAP) return exp_fail(x, matrix, "matrix: expected a mapping of key -> list of values, got %s", got);
        if (walk(x, matrix, "", 1, NULL, matrix_leaf) != 0) return -1;
    }
    if (zip && !ytree_is_null(zip)) {
        ytree_describe(zip, got, sizeof got);
        if (zip->kind != YT_SEQ) return exp_fail(x, zip, "zip: expected a list of mappings (key -> list), got %s", got);
        for (int i = 0; i < zip->n; i++) {
            const ynode *m = zip->val[i];
            ytree_describe(m, got, sizeof got);
            if (m->kind != YT_MAP || m->n == 0) return exp_fail(x, m, "zip: expected a mapping of key -> list, got %s", got);
            exp_axis *a = new_axis(x, m);
            if (!a || walk(x, m, "", 1, NULL, list_leaf) != 0 || finish_axis(x, a) != 0) return -1;
        }
    }
    return 0;
}

static int exclude_leaf(exp_ctx *x, int stage, int cfg, const char *path, const ynode *key, const ynode *v) {
    excl_entry *en = &x->excl[x->nexcl];
    const experiment *e = x->e;
    for (int a = 0; a < e->naxes; a++)
        for (int k = 0; k < e->axes[a].nkeys; k++) {
            const exp_axis *ax = &e->axes[a];
            if (ax->keys[k].index != cfg || ax->keys[k].stage != stage) continue;
            char canon[512], vals[1024] = "";
            if (scalar_value(x, cfg, v, canon, sizeof canon) != 0) return -1;
            int found = 0;
            for (int i = 0; i < ax->nvalues; i++) {
                found |= !strcmp(ax->text[i * ax->nkeys + k], canon);
                snprintf(vals + strlen(vals), sizeof vals - strlen(vals), "%s%s", i ? ", " : "", ax->text[i * ax->nkeys + k]);
            }
            if (!found) return exp_fail(x, v, "exclude: %s=%s is not a value of that axis (values: %s)", path, canon, vals);
            if (en->n >= MAX_EXCL_CONDS) return exp_fail(x, key, "exclude entry has too many keys");
            excl_cond *c = &en->c[en->n++];
            c->axis = a;
            c->key = k;
            snprintf(c->text, sizeof c->text, "%s", canon);
            return 0;
        }
    char axes[2048] = "";
    for (int a = 0; a < e->naxes; a++)
        for (int k = 0; k < e->axes[a].nkeys; k++)
            snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", axes[0] ? ", " : "", e->axes[a].keys[k].name);
    return exp_fail(x, key, "exclude: '%s' is not a matrix or zip key (axes: %s)", path, axes[0] ? axes : "none");
}

static int read_exclude(exp_ctx *x, const ynode *ex) {
    if (!ex || ytree_is_null(ex)) return 0;
    char got[300];
    ytree_describe(ex, got, sizeof got);
    if (ex->kind != YT_SEQ) return exp_fail(x, ex, "exclude: expected a list of mappings (key: value), got %s", got);
    x->excl = xcalloc((size_t)ex->n + 1, sizeof *x->excl, "exclude entries");
    for (int i = 0; i < ex->n; i++) {
        const ynode *m = ex->val[i];
        ytree_describe(m, got, sizeof got);
        if (m->kind != YT_MAP || m->n == 0) return exp_fail(x, m, "exclude: expected a mapping of axis key -> value, got %s", got);
        x->excl[x->nexcl].node = m;
        if (walk(x, m, "", 1, NULL, exclude_leaf) != 0) return -1;
        x->nexcl++;
    }
    return 0;
}

// figures: each entry checked by the figure-kind registry (figure_kinds.h: kind, allowed keys,
// the kind's rules), then its stages against this experiment's.
static int read_figures(exp_ctx *x, const ynode *f) {
    if (!f || ytree_is_null(f)) return 0;
    char got[300], h[1024];
    ytree_describe(f, got, sizeof got);
    if (f->kind != YT_SEQ) return exp_fail(x, f, "figures: expected a list of mappings, each with a kind, got %s", got);
    const char *cand[80];
    int ns = stage_list(x->e, cand);
    for (int i = 0; i < f->n; i++) {
        if (figure_spec_check(x->e->path, f->val[i], NULL, x->err, x->errlen) != 0) return -1;
        const ynode *stage = ytree_get(f->val[i], "stage", NULL), *with = ytree_get(f->val[i], "with", NULL);
        for (int k = -1; k < (with ? with->n : 0); k++) {
            const ynode *w = k < 0 ? stage : with->val[k];
            if (!w || (w->kind == YT_SCALAR && experiment_stage_index(x->e, w->text) >= 0)) continue;
            ytree_describe(w, got, sizeof got);
            hint(h, sizeof h, w->kind == YT_SCALAR ? w->text : "", cand, ns);
            return exp_fail(x, w, "figures: %s%s is not a stage of this experiment%s", k < 0 ? "stage " : "with: ", got, h);
        }
    }
    return 0;
}

// labels: names for people in the figures (figure_labels.h), its stages this experiment's.
static int read_labels(exp_ctx *x, const ynode *node) {
    figure_labels *l = xcalloc(1, sizeof *l, "labels");
    int rc = figure_labels_read(x->e->path, node, l, x->err, x->errlen);
    char got[300], h[1024];
    const char *cand[80];
    int ns = stage_list(x->e, cand);
    for (int i = 0; rc == 0 && i < l->nstages; i++) {
        if (experiment_stage_index(x->e, l->stages[i].name) >= 0) continue;
        ytree_describe(l->stages[i].at, got, sizeof got);
        hint(h, sizeof h, l->stages[i].name, cand, ns);
        rc = exp_fail(x, l->stages[i].at, "labels: stages: %s is not a stage of this experiment%s", got, h);
    }
    free(l);
    return rc;
}

// ---- load ----
static int load(exp_ctx *x, const char *scale) {
    experiment *e = x->e;
    const ynode *root = e->tree;
    char got[300], h[1200];
    if (!root) return exp_fail(x, NULL, "empty experiment (expected a mapping with at least 'name')");
    ytree_describe(root, got, sizeof got);
    if (root->kind != YT_MAP) return exp_fail(x, root, "expected a mapping of experiment keys (name, base, stages, ...), got %s", got);
    for (int i = 0; i < root->n; i++) {
        int known = 0;
        for (int k = 0; k < COUNT(top_keys); k++) known |= !strcmp(root->key[i]->text, top_keys[k]);
        hint(h, sizeof h, root->key[i]->text, top_keys, COUNT(top_keys));
        if (!known) return exp_fail(x, root->key[i], "unknown key '%s'%s", root->key[i]->text, h);
    }
    const ynode *name = ytree_get(root, "name", NULL), *desc = ytree_get(root, "description", NULL);
    if (!name) return exp_fail(x, root, "missing required key 'name' (the experiment's name, [a-z0-9_-]+)");
    if (name->kind != YT_SCALAR || ytree_is_null(name) || !valid_name(name->text) || strlen(name->text) >= sizeof e->name) {
        ytree_describe(name, got, sizeof got);
        return exp_fail(x, name, "name: expected 1-127 characters of a-z, 0-9, _ and -, got %s", got);
    }
    snprintf(e->name, sizeof e->name, "%s", name->text);
    if (desc && desc->kind != YT_SCALAR) return exp_fail(x, desc, "description: expected text");
    e->description = xstrdup(desc && !ytree_is_null(desc) ? desc->text : "", "description");
    if (read_stages(x, ytree_get(root, "stages", NULL)) != 0) return -1;
    const ynode *seeds = ytree_get(root, "seeds", NULL);
    if (seeds && parse_seeds(x, seeds, e->seeds, &e->nseeds) != 0) return -1;
    const ynode *scales = ytree_get(root, "scales", NULL);
    if (read_scales(x, scales, scale) != 0) return -1;
    for (int s = 0; s < e->nstages; s++) config_defaults(&x->stage_cfg[s]);
    if (apply_body(x, ytree_get(root, "base", NULL), -1, 0, NULL, 1, "base") != 0) return -1;
    for (int s = 0; s < e->nstages; s++) {
        char what[100];
        snprintf(what, sizeof what, "stage '%s'", e->stage_names[s]);
        if (apply_body(x, x->stage_body[s], s, 0, "init", 1, what) != 0) return -1;
    }
    if (e->scale[0] && apply_body(x, ytree_get(scales, e->scale, NULL), -1, 1, "seeds", 1, "scale") != 0) return -1;
    int iseed = cfg_index("train.seed");
    for (int s = 0; s < e->nstages && e->nseeds; s++)
        if (x->origin[s][iseed])
            return exp_fail(x, x->origin[s][iseed], "train.seed is set by seeds: [...]; remove it here (or drop seeds)");
    if (read_axes(x, ytree_get(root, "matrix", NULL), ytree_get(root, "zip", NULL)) != 0) return -1;
    if (scale_axes(x, scales) != 0) return -1;
    if (read_exclude(x, ytree_get(root, "exclude", NULL)) != 0) return -1;
    e->figures = ytree_get(root, "figures", NULL);
    e->reference = ytree_get(root, "reference", NULL);
    e->findings = ytree_get(root, "findings", NULL);
    if (read_figures(x, e->figures) != 0) return -1;
    if (read_labels(x, ytree_get(root, "labels", NULL)) != 0) return -1;
    e->caveats = ytree_get(root, "caveats", NULL);
    if (caveats_check(e->path, e->caveats, x->err, x->errlen) != 0) return -1;
    return exp_expand(x);
}

int experiment_load(experiment *e, const char *path, const char *scale, char *err, size_t errlen) {
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    if (ytree_load(path, &e->tree, err, errlen) != 0) return -1;
    exp_ctx *x = xcalloc(1, sizeof *x, "experiment loader");
    x->e = e;
    x->err = err;
    x->errlen = errlen;
    config_defaults(&x->scratch);
    int rc = load(x, scale);
    if (x->cur) e->naxes++; // a half-built axis owns memory: free it with the rest
    config_free(&x->scratch);
    for (int s = 0; s < EXP_MAX_STAGES; s++) config_free(&x->stage_cfg[s]);
    free(x->excl);
    free(x);
    if (rc != 0) experiment_free(e);
    return rc;
}

void experiment_free(experiment *e) {
    for (int i = 0; i < e->nruns; i++) {
        config_free(&e->runs[i].cfg);
        free(e->runs[i].axis_value);
    }
    free(e->runs);
    for (int a = 0; a < e->naxes; a++) {
        for (int i = 0; i < e->axes[a].nvalues * e->axes[a].nkeys; i++) free(e->axes[a].text[i]);
        free(e->axes[a].text);
        free(e->axes[a].nodes);
    }
    free(e->description);
    ytree_free(e->tree);
    memset(e, 0, sizeof *e);
}

void experiment_run_path(const experiment *e, int run, const char *out_dir, char *buf, size_t len) {
    if (!out_dir[0]) die_input("--out needs a directory name (got an empty string)");
    run_path_format(buf, len, "a run's files", "%s/%s/%s/%s", out_dir, e->name, e->runs[run].stage, e->runs[run].run_id);
}

run_file_state experiment_run_file_state(const experiment *e, int run, const char *out_dir, char *why, size_t whylen) {
    char base[4096], p[4200];
    experiment_run_path(e, run, out_dir, base, sizeof base);
    run_path_format(p, sizeof p, "a run's results file", "%s.h5", base);
    return run_file_status(p, why, whylen);
}

const char *experiment_run_status(const experiment *e, int run, const char *out_dir) {
    char base[4096], p[4200];
    experiment_run_path(e, run, out_dir, base, sizeof base);
    run_file_state st = experiment_run_file_state(e, run, out_dir, NULL, 0);
    if (st != RUN_FILE_ABSENT) return run_file_state_name(st);
    snprintf(p, sizeof p, "%s.h5.partial", base);
    if (access(p, F_OK) == 0) return "partial";
    snprintf(p, sizeof p, "%s.ckpt", base);
    if (access(p, F_OK) == 0) return "partial";
    return "pending";
}
