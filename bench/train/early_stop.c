// bench/train/early_stop.c — early stopping on validation accuracy (train.early_stop; the MP3
// paper's speech recipe): every train.eval_every steps (and at the last step) the objective's
// evaluation runs on the validation split; the parameters with the best validation metric[0]
// (top-1; the first of equal ones) are kept in a backend arena; at the end they replace the
// model's, so the final test metrics, the end-of-run records and the saved weights are those of
// the chosen step (/final best_step, best_val_top1). The /val rows and the best parameters go
// into every checkpoint (checkpoint.c), so a resumed run chooses the same step bitwise. Across
// processes rank 0's /val row is broadcast (the evaluation sharded or rank 0's alone,
// train_eval.c); every rank keeps the same best state.
#include "train_internal.h"
#include "../../core/comm.h"
#include "../../core/common.h"
#include "../../datasets/registry.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const results_column val_columns[VAL_COLS] = {{"step", 'i'}, {"top1", 'd'}, {"top5", 'd'}, {"loss", 'd'}};

void early_stop_setup(run *r) {
    early_stop *es = &r->es;
    es->hist.cols = VAL_COLS;
    es->on = r->trainer.early_stop;
    if (!es->on) return;
    const char *name = r->trainer.data_name;
    const dataset_kind *kind = dataset_find(name);
    if (!kind || !kind->validation) {
        char valid[256] = "";
        for (int i = 0; dataset_at(i); i++)
            if (dataset_at(i)->validation)
                snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "data.name=%s, ", dataset_at(i)->name);
        die_input("train.early_stop=true needs a validation split, which data.name=%s does not have (valid: "
                  "%sor train.early_stop=false)", name, valid);
    }
    char err[1024];
    dataset_options opt = r->trainer.data_options;
    opt.limit = r->trainer.test_limit; // only the rows data.test_limit keeps are used
    if (dataset_load(&es->val, name, &opt, "validation", err, sizeof err) != 0) die_input("%s", err);
    dataset_limit(&es->val, r->trainer.test_limit);
    es->best_param = r->model.ops->alloc(r->model.params.total * sizeof(float), "early stopping: best parameters");
}

void early_stop_open(run *r) {
    early_stop *es = &r->es;
    if (!es->on) return;
    es->series = results_series_create(r->res, "/val", VAL_COLS, val_columns, 64);
    for (long i = 0; i < es->hist.count; i++) results_series_append(es->series, es->hist.rows + i * VAL_COLS);
}

// The objective's evaluation with the validation split in the place of the test split.
static eval_scores evaluate_validation(run *r) {
    objective_env *env = &r->env;
    int test_n = env->test_n;
    r->eval_set = &r->es.val;
    env->test_n = r->es.val.n;
    eval_scores e = train_evaluate(r);
    r->eval_set = &r->test;
    env->test_n = test_n;
    return e;
}

eval_scores early_stop_evaluate(run *r) {
    early_stop *es = &r->es;
    // Rank 0 evaluates (with the others when the evaluation is sharded: train_eval.c); every rank
    // gets its row and makes the same choice from the same numbers (a run across processes: the
    // best parameters are the same on every rank).
    double row[VAL_COLS] = {(double)r->step, NAN, NAN, NAN};
    if (train_evaluates_here(r)) {
        eval_scores e = evaluate_validation(r);
        row[1] = e.metric[0], row[2] = e.metric[1], row[3] = e.loss;
    }
    r->comm->broadcast(row, sizeof row, 0);
    history_append(&es->hist, row);
    if (es->series) results_series_append(es->series, row); // rank 0's results file
    if (isfinite(row[3]) && isfinite(row[1]) && (es->best_step == 0 || row[1] > es->best_top1)) {
        es->best_step = r->step;
        es->best_top1 = row[1];
        r->model.ops->copy(es->best_param, r->model.param, r->model.params.total * sizeof(float));
    }
    return (eval_scores){{row[1], row[2]}, row[3]};
}

void early_stop_resume_best(run *r) {
    early_stop *es = &r->es;
    if (!es->on) return;
    es->best_step = 0;
    for (long i = 0; i < es->hist.count; i++) {
        const double *row = es->hist.rows + i * VAL_COLS;
        if (isfinite(row[3]) && isfinite(row[1]) && (es->best_step == 0 || row[1] > es->best_top1)) {
            es->best_step = (long)row[0];
            es->best_top1 = row[1];
        }
    }
    if ((es->best_step > 0) != es->best_restored)
        die_input("%s: checkpoint refused, not resumed: %s (posbench train --fresh restarts the run from step 0; or "
                  "delete the file)", r->ckpt_path, es->best_restored ? "it holds best_param entries but no finite /val row"
                  : "its /val rows choose a best step but the entries best_param.* are missing");
}

void early_stop_use_best(run *r) {
    early_stop *es = &r->es;
    if (!es->on || es->best_step == 0) return;
    r->model.ops->copy(r->model.param, es->best_param, r->model.params.total * sizeof(float));
    if (r->comm->rank != 0) return; // rank 0 writes and prints
    results_attr_int(r->res, "/final", "best_step", es->best_step);
    results_attr_double(r->res, "/final", "best_val_top1", es->best_top1);
    printf("early stopping: the parameters of step %ld (validation %s %.2f%%)\n", es->best_step,
           r->obj.kind->metric_names[0], 100.0 * es->best_top1);
}

void early_stop_free(run *r) {
    early_stop *es = &r->es;
    if (es->best_param) r->model.ops->free(es->best_param);
    es->best_param = NULL;
    if (es->on) dataset_free(&es->val);
    history_free(&es->hist);
}
