// bench/experiment/findings_spec.h — an experiment's `findings:` list (a paper's claims) read
// from the YAML into plain structs. `posbench run` parses and checks them before anything
// runs (via exp_tables_write); `posbench report` parses them again from the copy of the
// experiment file that `posbench run` keeps in the results directory (DIR/<name>/experiment.yaml)
// and evaluates them against the run files (bench/report/findings.h: semantics and output).
//   findings:
//     - claim: "MP3 finetuning beats the supervised baseline"   # required text
//       paper: "Table 3: 84.0 vs 73.4"          # optional text, shown beside our numbers
//       source: "mp3: Table 3, CIFAR-100 column" # optional text: the paper file and the place the
//                                               # paper: text comes from (docs/paper-cells.md; not
//                                               # printed); only beside a paper: text
//       kind: greater                           # greater | at_least | at_most | peak_inside |
//                                               # increasing | decreasing | not_worse | equivalent
//       a: {stage: finetune, match: {pe.kind: abs}, metric: top1}   # the runs it is about
//       b: {stage: baseline, metric: top1}      # greater / not_worse / equivalent: the other runs
//       value: 0.95                             # at_least / at_most only: a number in the
//                                               # metric's stored units (0.95 = 95 % top1)
//       margin: 0.01                            # not_worse / equivalent only: the equivalence
//                                               # margin, a number >= 0 (> 0 for equivalent) in
//                                               # the compared quantity's units (0.01 = 1 point)
//       x: pretrain.objective.eta               # peak_inside / increasing / decreasing only
//       per: pe.kind                            # optional, any kind: checked per value
//       effect: 0.05                            # optional, any kind: the true effect to plan the
//                                               # seeds for ("needs N seeds"), in the compared
//                                               # quantity's units, in the claim's direction:
//                                               # mean(a) − mean(b) (greater, not_worse,
//                                               # equivalent), |mean(a) − value| (at_least,
//                                               # at_most), |peak − end| (peak_inside), the
//                                               # change over the x range (trends); > 0, except
//                                               # not_worse (>= 0, default 0: plans at the
//                                               # margin) and equivalent (0 <= |effect| <
//                                               # margin, default 0)
// a/b: stage required; match optional, config key -> value; metric required, a /final
// attribute name ("final.top1" is stored as "top1"; NAME@SIZE for per-size metrics);
// divide_by optional, another /final attribute of the same run: each run's observation is
// then metric / divide_by (a relative quantity: top1_drop@56 / top1@28 = the relative drop). A kind
// rejects keys it does not use. Checked against the experiment (findings_parse): stage a
// stage of the experiment; match, x and per keys a config key, or "<stage>.<config key>"
// for a stage of the experiment; each match value typed by its key. Errors read
// "file:line:col: findings: message" and offer "did you mean" for keys, stages and kinds.
#pragma once
#include "experiment.h"
#include <stddef.h>

typedef struct {
    const char *name;
    int needs_b, needs_value, needs_x, needs_margin; // which of b, value, x, margin the kind uses (each required then)
    const char *meaning;
} finding_kind_info;

extern const finding_kind_info finding_kinds[];
extern const int finding_kind_count;
enum { FINDING_GREATER, FINDING_AT_LEAST, FINDING_AT_MOST, FINDING_PEAK_INSIDE, FINDING_INCREASING,
       FINDING_DECREASING, FINDING_NOT_WORSE, FINDING_EQUIVALENT }; // finding_kinds order
int finding_kind_index(const char *name); // -1 when unknown

typedef struct {
    char *key, *value; // the YAML texts
} finding_pair;

typedef struct {
    char *stage;         // NULL for an unused side (b of a one-sided kind)
    int nmatch;
    finding_pair *match; // /config key = value, all must hold
    char *metric;        // a /final attribute name (without "final.")
    char *divide_by;     // NULL, or a /final attribute the metric is divided by, run by run
} finding_sel;

typedef struct {
    int kind;            // index into finding_kinds
    char *claim, *paper; // paper "" when absent
    finding_sel a, b;
    double value;        // at_least / at_most
    double margin;       // not_worse / equivalent
    char *x, *per;       // NULL when absent
    int has_effect;      // `effect:` given
    double effect;       // the effect to plan seeds for (see above)
} finding;

typedef struct {
    char experiment[128]; // the experiment's name
    int n;
    finding *items;       // in YAML order
} findings_list;

// Checks e->findings against e (stages, config keys, value types) into *out (empty when the
// experiment has none). 0, or -1 with "file:line:col: findings: ..." in err (*out empty).
int findings_parse(const experiment *e, findings_list *out, char *err, size_t errlen);
// Reads the findings of an experiment file kept by `posbench run` (its name and `findings:`
// only; the rest was checked when it ran, and stages and config keys are not checked again,
// so a results directory stays readable when the key table changes). 0, or -1 with
// "file:line:col: message" (or "file: cannot open: why") in err.
int findings_load(const char *path, findings_list *out, char *err, size_t errlen);
void findings_list_free(findings_list *l);
