// bench/experiment/experiment_types.h — a loaded experiment as plain data: stages, axes,
// seeds and the expanded runs with their resolved configs (rules: experiment.h). Header only,
// so experiment.c (which fills it) and experiment_expand.c (which adds the runs) share the
// types without including each other's interface.
#pragma once
#include "../config/config.h"
#include "yaml_tree.h"
#include <stddef.h>

#define EXP_MAX_STAGES 16
#define EXP_MAX_AXES 32
#define EXP_MAX_AXIS_KEYS 8 // keys of one zip entry
#define EXP_MAX_SEEDS 1000
#define EXP_MAX_RUNS 10000

typedef struct {
    char name[128]; // as written, dotted: "model.patch", "pretrain.objective.eta"
    int stage;      // stage index it is qualified to, or -1 (every stage)
    int index;      // cfg_keys index
} exp_axis_key;

typedef struct {
    int nkeys; // 1 for a matrix key, the zip entry's keys otherwise
    exp_axis_key keys[EXP_MAX_AXIS_KEYS];
    int nvalues;
    char **text;          // canonical value text, [v * nkeys + k] (config_value_text)
    const ynode **nodes;  // the value scalars, same layout (for marks)
    const ynode *node;    // the matrix key or zip entry
    int stage;            // stage of its keys, or -1
} exp_axis;

typedef struct {
    char stage[64];
    int stage_index;  // into e->stage_names
    config cfg;       // fully resolved
    char run_id[13];
    int parent;       // index into e->runs of the run whose weights it starts from, or -1
    int budget;       // `budget:` stages: index into e->runs of the run whose chain (it and its
                      // parents) sets this run's training length; -1 otherwise
    int seed_index;   // into e->seeds (0 when the experiment has no seeds list)
    long seed;        // = train.seed
    int *axis_value;  // [e->naxes]: value index of each axis, -1 when it is not this stage's
    char axes[1024];  // "pretrain.train.lr=0.001 model.patch=4 seed=1" (axes, then seed)
} exp_run;

// About 50 KB: make it static or heap-allocated rather than a local in a deep call chain.
typedef struct {
    char name[128];
    char *description;                 // "" when absent
    char path[4096];                   // the file, as given
    char scale[64];                    // "" when none was chosen
    int nstages;
    char stage_names[EXP_MAX_STAGES][64]; // in topological order
    int stage_init[EXP_MAX_STAGES];    // parent stage index, or -1
    int stage_budget[EXP_MAX_STAGES];  // `budget:` stage index (matched-budget control), or -1
    int stage_runs[EXP_MAX_STAGES];    // runs per stage
    int naxes;
    exp_axis axes[EXP_MAX_AXES];       // matrix keys in YAML order, then zip entries
    int nseeds;                        // 0 when there is no seeds list
    long seeds[EXP_MAX_SEEDS];
    exp_run *runs;                     // grouped by stage, stages in topological order;
    int nruns;                         // a parent always comes before its children
    ynode *tree;                       // the whole document (owned)
    const ynode *reference, *figures, *findings, *caveats; // subtrees of tree, NULL when absent
} experiment;
