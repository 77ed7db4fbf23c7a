// bench/train/train_types.h — what a training run is asked to do (train_options) and what it
// reports (train_result): shared by the public entry point (train.h) and the run's internals
// (train_internal.h), so the internal modules need not include the entry point.
#pragma once
#include "../config/config.h"

typedef struct {
    const char *out_dir;      // results directory (created if needed)
    const char *experiment;   // HDF5 root attribute "experiment"
    const char *stage;        // HDF5 root attribute "stage"
    const char *scale;        // HDF5 root attribute "scale": the experiment's --scale (smoke | small | paper;
                              // "small" without --scale); NULL (posbench train): not written. Not part of the run id
    long stop_after;          // > 0: checkpoint and return after this global step (simulated interruption)
    int force;                // retrain even when a finished file exists
    int fresh;                // ignore an existing checkpoint
    int lock_held;            // the caller holds the run lock (the runner); else train_run takes it
    int warn_busy_cores;      // posbench train: before the first step, the busy-cores warning (cpu_busy.h) on a CPU backend
    const char *init_weights; // start from these final weights (<run-id>.weights of another run)
    const char *device;       // --device (core/device.h; NULL = auto): the op backend; not part of the run id
    const char *run_id;       // file-name id to use (an experiment's run id); NULL: hash of the config
    const config *parent_cfg; // the config of the run init_weights came from (NULL: none); its keys are
    const char *plan_path;    // non-NULL: write the crosscheck plan here (bench/train/train_plan.c)
                              // instead of training; no lock, no results file
    const char *parent_stage; // recorded as /config attrs "<parent_stage>.<key>", so a finetune stage's
                              // report can use the pretrain axes (e.g. pretrain.objective.eta)
    // A matched-budget run (experiment stage with `budget:`): the configs of the runs whose
    // updates it matches (the budget stage's run and its init ancestors, root first) and their
    // stage names; its train.steps becomes their summed updates (bench/train/budget.h). Each is
    // also recorded as /config attrs "<stage>.<key>", so findings can pair by the chain's axes.
    const config *const *budget_cfgs;
    const char *const *budget_stages;
    int nbudget;
    // The run's ranks (core/comm.h; NULL: this process alone). Under N ranks rank r trains
    // micro-batch r of every batch (train.accumulate = N); rank 0 alone writes files (evaluations:
    // bench/train/train_eval.c).
    const struct comm *comm;
} train_options;

typedef struct {
    char run_id[13];
    char path[4096];          // the finished (or partial) HDF5 file
    char status[16];          // done | diverged | stopped | skipped | locked
    double top1, top5, seconds;
    long steps;
} train_result;
