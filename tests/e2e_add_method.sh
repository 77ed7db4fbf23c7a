#!/bin/sh
# tests/e2e_add_method.sh — adding a position encoding or an objective by docs/architecture.md's
# checklists ("Adding a position encoding", "Adding an objective") touches the files the
# checklist names and no others. In a copy of the tree (tracked and new files, and build/'s
# objects so the build is incremental) under a fresh git repository, it adds, one after the
# other, each committed in the copy before the next:
#   - pe.kind=fixedtab: a fixed (T, d) table added to every patch token (not learned; a
#     deterministic pattern of the token and channel index): its module models/posenc/fixedtab.c
#     and one X(fixedtab) in POSENC_KINDS;
#   - objective.name=tinycls: classification by cross-entropy with the model's classifier head
#     (objectives/supervised/supervised.h's loss), its own metrics tinycls_top1/top5: its module
#     objectives/tinycls/objective.c and one X(tinycls) in OBJECTIVE_KINDS;
# each registry line going into the file the page's Registries paragraph names for that table,
# then `make docs`, the checklists' last step. For each it checks that the tree builds,
# tests/test_registries (no name compared outside its module, the key table, the registries'
# rules) and tests/test_metric_info (each objective's metric table) pass, `posbench train --help KEY` and docs/keys.md list the new entry with its
# description, one training step (and, for the objective, its evaluation) writes the run file,
# and `git status` shows only files the checklist's section names (<name> read as the new
# name) or the registry's file, the module and the registry's file among them. The same
# comparison against a checklist without its `make docs` step fails.
# A checklist that goes stale (the registry moved to another file, a step that needs one more
# file, a file the page no longer names) fails here. Slow: it rebuilds every C object that
# includes a registry header (most of them; not the CUDA ones), twice.
# KEEP_T=1 leaves the copy in /tmp/posbench-addmethod.* for a look at what failed.
cd "$(dirname "$0")/.." || exit 1
PAGE=$(pwd)/docs/architecture.md
check() { if [ "$2" -eq 0 ]; then echo "PASS add method: $1"; else echo "FAIL add method: $1: $3"; fi; }
for tool in git tar make python3 h5dump; do
    command -v $tool > /dev/null 2>&1 || { echo "SKIP add method: $tool missing"; exit 0; }
done
[ -f build/libposbench.a ] && [ -x build/posbench ] || { echo "SKIP add method: build/posbench is not built (make)"; exit 0; }
T=$(mktemp -d /tmp/posbench-addmethod.XXXXXX) || exit 1
[ -n "$KEEP_T" ] || trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain
DATA=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz

# The file the page says defines a registry table (`POSENC_KINDS` in models/posenc/encoding.h).
registry_file() { tr '\n' ' ' < "$PAGE" | sed -n "s/.*\`$1\`[[:space:]]*in[[:space:]]*\([A-Za-z0-9_/.]*\.h\).*/\1/p"; }
PE_REG=$(registry_file POSENC_KINDS) OBJ_REG=$(registry_file OBJECTIVE_KINDS)
[ -n "$PE_REG" ] && grep -q '^#define POSENC_KINDS(X)' "$PE_REG" 2> /dev/null &&
    [ -n "$OBJ_REG" ] && grep -q '^#define OBJECTIVE_KINDS(X)' "$OBJ_REG" 2> /dev/null
check "the page names the files that define POSENC_KINDS and OBJECTIVE_KINDS" $? "page says '${PE_REG:-nothing}', '${OBJ_REG:-nothing}'"
[ -n "$PE_REG" ] && [ -n "$OBJ_REG" ] && [ -f "$PE_REG" ] && [ -f "$OBJ_REG" ] || exit 0

# Compares the copy's changed files (argument 5) with the checklist section titled $2 of page $1.
cat > "$T/against.py" << 'EOF'
import re, sys
page, title, name, reg, touched, module = sys.argv[1:7]
text = open(page, encoding='utf-8').read()
start = text.index(title)
section = text[start:text.index('**Adding', start + len(title))]
named = {p.replace('<name>', name) for p in re.findall(r'[A-Za-z0-9_<>/.-]+\.(?:c|h|md|py)\b', section)}
named |= {'docs/' + p for p in named if '/' not in p}  # [keys.md](keys.md): a page beside this one
named.add(reg)
files = [l.strip() for l in open(touched) if l.strip()]
extra = [f for f in files if f not in named]
need = [f for f in (module, reg) if f not in files]
print('touched: ' + ', '.join(files) + '; ' + ('not in the checklist: ' + ', '.join(extra) if extra else 'each named by the checklist')
      + ('; missing: ' + ', '.join(need) if need else ''))
sys.exit(1 if extra or need else 0)
EOF

# The copy: the tree as it stands (mtimes kept), its build objects, a fresh repository.
mkdir -p "$T/tree/build"
git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2> "$T/tar.err" | tar -xf - -C "$T/tree" 2>> "$T/tar.err"
for d in core models objectives datasets bench third_party; do
    [ -d build/$d ] && cp -a build/$d "$T/tree/build/"
done
cp -a build/*.stamp build/git_commit.* build/libposbench.a build/posbench "$T/tree/build/" 2>> "$T/tar.err"
cd "$T/tree" || exit 1
commit() { git add -A && git -c user.name=test -c user.email=test@localhost commit -qm "$1"; }
{ git init -q && commit base; } > "$T/git.out" 2>&1
check "a copy of the tree in a fresh repository" $? "$(cat "$T/tar.err" "$T/git.out" | head -c 300)"

# Builds the copy, runs test_registries, the help of KEY ($1) and make docs for the new entry
# NAME ($2, description starting $3), trains (the rest: key=value ...), and compares git status
# with checklist section $4 (module $5, registry file $6). Leaves the run file in $T/run-NAME.
build_and_compare() {
    key=$1 name=$2 desc=$3 title=$4 module=$5 reg=$6
    shift 6
    make -j2 build/posbench build/tests/test_registries build/tests/test_metric_info > "$T/make-$name.out" 2>&1; rc=$?
    check "$name: the tree builds" $rc "exit $rc: $(grep -m3 -E 'error|Error' "$T/make-$name.out")"
    [ $rc -eq 0 ] || return 0
    { build/tests/test_registries && build/tests/test_metric_info; } > "$T/reg-$name.out" 2>&1; rc=$?
    [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/reg-$name.out"
    check "$name: tests/test_registries and test_metric_info pass ($(grep -c '^PASS' "$T/reg-$name.out") PASS)" $? "exit $rc: $(grep -m2 '^FAIL' "$T/reg-$name.out")"
    build/posbench train --help "$key" > "$T/help-$name.out" 2>&1
    grep -q "$name ($desc" "$T/help-$name.out" && grep -q "|$name)" "$T/help-$name.out"
    check "$name: posbench train --help $key lists it with its description" $? "$(head -c 300 "$T/help-$name.out")"
    make docs > "$T/docs-$name.out" 2>&1 && grep -q "$name ($desc" docs/keys.md
    check "$name: make docs lists it in docs/keys.md" $? "$(tail -n 3 "$T/docs-$name.out")"
    if [ -f "$DATA" ]; then
        build/posbench train "$@" --threads 1 --out "$T/run-$name" > "$T/train-$name.out" 2>&1; rc=$?
        F=$(ls "$T/run-$name"/*.h5 2>/dev/null | head -n 1)
        said=$([ -n "$F" ] && h5dump -a "/config/$key" "$F" 2>/dev/null | sed -n 's/^ *(0): //p' | tr -d '"')
        [ $rc -eq 0 ] && [ "$said" = "$name" ]
        check "$name: training writes its run file (/config $key=$said)" $? "exit $rc: $(tail -n 3 "$T/train-$name.out")"
    else
        echo "SKIP add method: $name: training: Fashion-MNIST is not installed"
    fi
    git status --porcelain --untracked-files=all | sed 's/^...//' | sort > "$T/touched-$name"
    python3 "$T/against.py" "$PAGE" "$title" "$name" "$reg" "$T/touched-$name" "$module" > "$T/files-$name.out" 2>&1
    check "$name: git status shows only the checklist's files ($(paste -sd' ' "$T/touched-$name"))" $? "$(cat "$T/files-$name.out")"
    sed "/^$(echo "$title" | sed 's/\*/\\*/g')/,/^\*\*Adding/{/make docs/d}" "$PAGE" > "$T/stale.md"
    python3 "$T/against.py" "$T/stale.md" "$title" "$name" "$reg" "$T/touched-$name" "$module" > "$T/stale-$name.out" 2>&1; rc=$?
    [ $rc -eq 1 ] && grep -q 'not in the checklist: docs/keys.md' "$T/stale-$name.out"
    check "$name: the same comparison against a checklist without its make docs step fails" $? "exit $rc: $(cat "$T/stale-$name.out")"
}

# An encoding: step 1 the module, its hooks and capability flags; step 2 (its own keys) it does
# not need; step 3 one X(name) in POSENC_KINDS; step 4 make docs (build_and_compare).
cat > models/posenc/fixedtab.c << 'EOF'
// models/posenc/fixedtab.c — pe.kind=fixedtab (tests/e2e_add_method.sh adds it to a copy of the
// tree): a fixed (T, d) table added to every patch token, 0.01 ((7 t + 3 c) mod 11 - 5) at
// token t, channel c; cls gets none. Not learned.
#include "encoding.h"
#include "../api/model_view.h"

typedef struct {
    float *table, *table_host; // (T, d): backend, host staging
} fixedtab_state;

static void fixedtab_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    fixedtab_state *s = v.state;
    model_add_input(m, "pos_fixedtab", (size_t)v.T_max * v.cfg->dim, &s->table, &s->table_host);
}

static void fixedtab_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    fixedtab_state *s = v.state;
    int d = v.cfg->dim;
    for (int t = 0; t < v.T; t++)
        for (int c = 0; c < d; c++)
            s->table_host[(size_t)t * d + c] = t < v.t0 ? 0.0f : 0.01f * (float)((7 * t + 3 * c) % 11 - 5);
    model_upload(m, s->table_host, (size_t)v.T * d);
}

static const float *fixedtab_table(struct model *m) { return ((fixedtab_state *)model_pe_state(m))->table; }

const posenc_kind posenc_fixedtab = {
    .name = "fixedtab",
    .description = "a fixed table, 0.01 ((7 t + 3 c) mod 11 - 5), added to every patch token",
    .positional = 1, .has_table = 1, .grid_ok = 1,
    .state_size = sizeof(fixedtab_state),
    .declare_acts = fixedtab_declare_acts,
    .set_grid = fixedtab_set_grid,
    .table_forward = fixedtab_table,
};
EOF
sed -i 's/^\(#define POSENC_KINDS(X) .*\)$/\1 X(fixedtab)/' "$PE_REG"
grep -q '^#define POSENC_KINDS(X) .* X(fixedtab)$' "$PE_REG"
check "fixedtab: one X(fixedtab) in POSENC_KINDS ($PE_REG)" $? "$(grep '^#define POSENC_KINDS' "$PE_REG")"
build_and_compare pe.kind fixedtab "a fixed table, 0.01" '**Adding a position encoding:**' models/posenc/fixedtab.c "$PE_REG" \
    pe.kind=fixedtab train.steps=1 train.batch=16 data.limit=32 data.test_limit=16 eval.batch=16 model.dim=16 model.depth=1 \
    model.heads=2 model.patch=7
commit fixedtab > "$T/git2.out" 2>&1 || check "fixedtab: committed in the copy" 1 "$(head -c 300 "$T/git2.out")"

# An objective: step 1 the module with its description, hooks and flags; step 2 (keys) it does
# not need; step 3 its metrics table; step 4 one X(name) in OBJECTIVE_KINDS; step 5 make docs.
mkdir -p objectives/tinycls
cat > objectives/tinycls/objective.c << 'EOF'
// objectives/tinycls/objective.c — objective.name=tinycls (tests/e2e_add_method.sh adds it to a
// copy of the tree): classification by cross-entropy (no smoothing) with the model's classifier
// head, through the supervised loss; each epoch top-1 and top-5 on the test set.
#include "../objective.h"
#include "../supervised/supervised.h"
#include "../../core/common.h"
#include <stdlib.h>

typedef struct {
    supervised loss;
    int32_t *labels; // (max_batch) backend
} tinycls_state;

static void tinycls_configure_model(const objective_settings *s, model_config *mc) {
    mc->request.token_head = 0;
    mc->request.head_name = "head";
}

static void tinycls_create(objective *o) {
    tinycls_state *st = xcalloc(1, sizeof *st, "tinycls objective");
    supervised_create(&st->loss, o->ops, o->max_batch, o->model->cfg.num_classes, 0.0f);
    st->labels = o->ops->alloc((size_t)o->max_batch * sizeof(int32_t), "tinycls labels");
    o->state = st;
}

static void tinycls_free(objective *o) {
    tinycls_state *st = o->state;
    if (!st) return;
    supervised_free(&st->loss);
    o->ops->free(st->labels);
    free(st);
}

// The model's logits (B, K) of the staged batch, its labels uploaded for the loss.
static const float *tinycls_logits(objective *o, int B, const int32_t *labels, int training, rng_addr rng) {
    tinycls_state *st = o->state;
    o->ops->upload(st->labels, labels, (size_t)B * sizeof(int32_t));
    return model_forward(o->model, B, training, rng);
}

static double tinycls_train_forward(objective *o, int B, const int32_t *labels, rng_addr rng) {
    tinycls_state *st = o->state;
    const float *logits = tinycls_logits(o, B, labels, 1, rng);
    return supervised_forward(&st->loss, logits, st->labels, B);
}

static void tinycls_train_backward(objective *o, int B) {
    tinycls_state *st = o->state;
    supervised_backward(&st->loss, model_dlogits(o->model), st->labels, B);
    model_backward(o->model, B);
}

static eval_scores tinycls_evaluate(objective *o, objective_env *env) {
    tinycls_state *st = o->state;
    long top1 = 0, top5 = 0;
    double loss = 0.0;
    for (int start = 0; start < env->test_n; start += env->eval_batch) {
        int B = env->test_n - start < env->eval_batch ? env->test_n - start : env->eval_batch;
        env->load_test(env, start, B, o->s.train_size);
        const float *logits = tinycls_logits(o, B, env->labels, 0, (rng_addr){0});
        loss += supervised_forward(&st->loss, logits, st->labels, B) * B;
        supervised_count_topk(&st->loss, logits, st->labels, B, &top1, &top5);
    }
    return (eval_scores){{(double)top1 / env->test_n, (double)top5 / env->test_n}, loss / env->test_n};
}

static int tinycls_train_keys(const objective *o) { return o->model->T; }

static const metric_info tinycls_metrics[] = {
    {"tinycls_top1", "%", 100, 1, 1, NULL, 2, 0, 0, METRIC_SAMPLED},
    {"tinycls_top5", "%", 100, 1, 1, NULL, 2, 1, 0, METRIC_SAMPLED},
    {NULL},
};

const objective_kind objective_tinycls = {
    .name = "tinycls",
    .description = "a test's classifier: cross-entropy, top-1 and top-5",
    .metric_names = {"tinycls_top1", "tinycls_top5"},
    .metrics = tinycls_metrics,
    .needs_labels = 1,
    .progress = "epoch %d/%d  loss %.4f  test top1 %.2f%% top5 %.2f%%  (%.0f s)",
    .final_line = "final: tinycls_top1=%.2f%% tinycls_top5=%.2f%% time=%.0fs\n",
    .configure_model = tinycls_configure_model,
    .create = tinycls_create,
    .free = tinycls_free,
    .train_forward = tinycls_train_forward,
    .train_backward = tinycls_train_backward,
    .evaluate = tinycls_evaluate,
    .train_keys = tinycls_train_keys,
};
EOF
sed -i 's/^\(#define OBJECTIVE_KINDS(X) .*\)$/\1 X(tinycls)/' "$OBJ_REG"
grep -q '^#define OBJECTIVE_KINDS(X) .* X(tinycls)$' "$OBJ_REG"
check "tinycls: one X(tinycls) in OBJECTIVE_KINDS ($OBJ_REG)" $? "$(grep '^#define OBJECTIVE_KINDS' "$OBJ_REG")"
build_and_compare objective.name tinycls "a test's classifier" '**Adding an objective**' objectives/tinycls/objective.c "$OBJ_REG" \
    objective.name=tinycls train.epochs=1 train.batch=16 data.limit=32 data.test_limit=20 eval.batch=16 model.dim=16 \
    model.depth=1 model.heads=2 model.patch=7
if [ -f "$DATA" ]; then
    F=$(ls "$T/run-tinycls"/*.h5 2>/dev/null | head -n 1)
    top1=$([ -n "$F" ] && h5dump -a /final/tinycls_top1 "$F" 2>/dev/null | sed -n 's/^ *(0): //p')
    [ -n "$top1" ]
    check "tinycls: the run's evaluation wrote /final tinycls_top1 ($top1)" $? "$(tail -n 3 "$T/train-tinycls.out")"
fi
