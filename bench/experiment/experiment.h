// bench/experiment/experiment.h — experiment YAML: load, validate and expand into runs (docs/experiments.md,
// the schema). Everything is checked before anything runs; every error reads
// "file:line:col: message" with libyaml's 0-based marks, says what would be valid, and
// offers "did you mean" for misspelt keys, stages, scales and figure kinds.
//
// Top-level keys: name (required, [a-z0-9_-]+), description, base, stages, matrix, zip,
// exclude, seeds, scales, reference, figures, labels (names for people in the figures:
// bench/experiment/figure_labels.h), findings, caveats (a list of one-line texts the
// report prints: bench/experiment/caveats_spec.h). The YAML subset: no duplicate keys,
// no merge keys (<<), anchors, aliases or tags, one document (bench/experiment/yaml_tree.h).
//
// Config bodies (base, each stage, each scale) are maps of keys from the one key table
// (bench/config/config.c), nested (`model: {dim: 128}`) or dotted (`model.dim: 128`) or mixed.
// A plain scalar is typed by its key (config_set parses the text); a quoted scalar is a
// string, so `dim: "128"` is a type error. Booleans are true/false (True/TRUE/False/FALSE).
//
// stages: map name -> body; a body may add `init: <stage>`: that stage starts from the
//   final weights of its parent stage's run. Stage names: [a-z0-9_-]+, not a key group
//   (data, model, ...). init cycles and unknown init stages are errors. Without `stages`
//   there is one stage, `main`. Stages are kept in topological order (YAML order otherwise).
// budget: a body may instead add `budget: <stage>` (a matched-budget control): each of its runs
//   trains from scratch for as many updates as a run of <stage> and its init ancestors
//   together, and so sees as many images (every stage of that chain must have its train.batch:
//   an error otherwise, at the budget value, naming both). The updates are derived when the run
//   starts (bench/train/budget.h: train.steps, or training rows / batch x epochs, the rows
//   counted after data.limit and data.labeled_fraction), so they cannot drift from the chain's;
//   the stage's own train.steps / train.epochs are replaced. Its axes: its own, plus the
//   chain's axes over budget keys (train.steps, train.epochs, train.batch, data.*), e.g.
//   pt_updates.train.steps; its run is matched to the first run of <stage> with the same values
//   of the shared axes and the same seed. `budget: [a, b, ...]`: one control for several arms:
//   the length comes from a; each other stage's matched chain must have the same budget keys as
//   a's, stage by stage (else an error: give it its own stage). Not with init; <stage>'s chain may not contain a
//   budget stage; the budget stage's chain is ordered before it. The run id hashes the chain's
//   budget keys ("budget=<stage>:<key>=<value>"), so it changes exactly when the budget does.
// Resolution of a stage's config: defaults <- base <- stage body <- scale <- matrix/zip.
// Stage-qualified keys: in scales, matrix, zip and exclude a key may start with a stage
//   name (`pretrain.train.epochs`): it applies to that stage only; an unqualified key
//   applies to every stage (and as an axis it is ONE axis shared by all stages).
// matrix: map key -> non-empty list; the cartesian product of its axes.
// zip: list of maps key -> list, lists of equal length; each map is one axis whose keys
//   vary together. A zip's keys are all unqualified or all qualified to one stage.
// An axis value list must not repeat a value (or a zip tuple); one key is one axis only.
// exclude: list of maps key -> value (keys must be axis keys, values axis values); a
//   combination is skipped when it matches every key of one entry. An entry applies to a
//   stage when all its keys are among that stage's axes (inherited ones included). An
//   entry that skips nothing anywhere is an error (probably a typo).
// seeds: list of distinct integers >= 0; seed s sets train.seed (then train.seed may not be
//   set anywhere else). Without `seeds`, each stage has one seed: its resolved train.seed.
// scales: map name -> overrides (config keys, optionally stage-qualified, and optionally
//   `seeds: [...]` replacing the top-level seeds, and optionally `matrix: {key: [values]}`
//   replacing the values of a one-key axis of the top-level matrix, e.g. shorter pretraining
//   lengths at a smaller scale; the key must be such an axis). All scales are validated;
//   `--scale S` picks one; an unknown S lists the valid names.
// Expansion. The axes of stage S are the axes qualified to S, the unqualified axes, and
//   (when S has `init: P`) all axes of P, recursively. S has one run per combination of
//   its axes (first axis slowest) times its seeds (fastest), minus excluded combinations.
//   A run's parent is the run of P with the same values of P's axes and the same seed; so
//   a finetune stage runs once per pretrain run times its own axes. A run whose parent was
//   excluded is skipped too. A stage left with no runs is an error; so are two runs of a
//   stage with the same run id (an axis over a key that does not change results).
// Impossible combinations, checked on every resolved run: model.patch must divide the
//   image size (the dataset registry's shape, datasets/registry.h: 28 px for fashion-mnist and
//   mnist, 32 px for cifar10 and cifar100, speech frames, text bytes per sequence; not checked
//   for data.name=idx, whose size is only known from its files) and
//   model.heads must divide model.dim; model.patch must divide data.resolution (when set, it
//   replaces the dataset's size), every data.resolutions and eval.resolutions value and each
//   eval.resolutions value ± eval.tta_delta; sin1d/sin2d/cape need an even model.dim, rope a
//   head size posenc_rope_error accepts; objective mp3 needs pe.kind none and one image size
//   (no data.resolutions, eval.resolutions, eval.tta_delta). The error points at the axis
//   value (or the line that set the key) and names the combination.
// Run id: FNV-1a 64 (12 hex digits, like config_run_id) of "stage=<name>\n", then
//   "key=value\n" for every identity key whose value is not its default, in table order, then
//   "parent=<parent run id>\n" when the stage has init, and a budget stage's chain's budget keys. YAML key order and spelling
//   (nested vs dotted, 0.50 vs 0.5) do not change it; any changed value does. It differs
//   from `posbench train`'s config_run_id of the same config (the stage name is hashed).
// Files: yaml_tree.c (YAML -> node tree), experiment_types.h (the loaded experiment as data),
//   experiment.c (validation), experiment_expand.c (runs; experiment_expand.h: the state
//   experiment.c hands it), ../cli/cmd_list.c (`posbench list`).
// reference: free-form, kept as a tree (e->reference) for reports. figures: list of maps,
//   each with `kind` one of metric_vs_axis|curves|heatmap|image_grid|result_curves|spatial_weights; an
//   image_grid may add `with: [stage, ...]` (1 to 8 stages of this experiment, and a `stage`);
//   kind and with are checked; kept as e->figures. findings: kept as e->findings; reference and findings are
//   checked by `posbench run` before anything runs (bench/experiment/exp_tables.h).
// Results of run i live at <out>/<name>/<stage>/<run_id>.h5 (.h5.partial and .ckpt while
//   running or interrupted): experiment_run_path / experiment_run_status.
#pragma once
#include "experiment_types.h"
#include "../store/run_files.h"
#include <stddef.h>

// Loads, validates and expands path with scale (NULL or "" for none). Returns 0, or -1 with
// "file:line:col: message" in err (e is then empty; experiment_free is still safe).
int experiment_load(experiment *e, const char *path, const char *scale, char *err, size_t errlen);
void experiment_free(experiment *e);
int experiment_stage_index(const experiment *e, const char *stage); // -1 when unknown
// "<out_dir>/<name>/<stage>/<run_id>" (add ".h5", ".h5.partial", ".ckpt"). An empty out_dir
// or a path that does not fit in len is bad input (exit 2).
void experiment_run_path(const experiment *e, int run, const char *out_dir, char *buf, size_t len);
// The state of run i's finished file (bench/store/run_files.h: absent, done, diverged,
// damaged with why).
run_file_state experiment_run_file_state(const experiment *e, int run, const char *out_dir, char *why, size_t whylen);
// "done", "diverged" or "damaged" (the .h5 file's state, run_file_status), else "partial"
// (.h5.partial or .ckpt exists) or "pending".
const char *experiment_run_status(const experiment *e, int run, const char *out_dir);

// `posbench list EXPERIMENT.yaml [--scale S] [--out DIR]` (bench/cli/cmd_list.c); argv starts
// after "list". Returns 0; bad input exits 2 via die_input.
int cmd_list(int argc, char **argv);
