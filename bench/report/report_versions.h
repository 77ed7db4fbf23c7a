// bench/report/report_versions.h — a report counts only the runs of the current version of each
// experiment. `posbench run` keeps the experiment file it ran as DIR/<name>/experiment.yaml and
// replaces it on every run, while the run files of earlier runs stay; after an edit (e.g. of
// base.data.limit) and a rerun into the same --out, the folder holds runs of two versions, and
// pooling them mixed results the current file never asked for (a finding read "n = 6 vs 6").
// A run of experiment NAME is current when its root attr `run_id` is among the runs the copy
// (DIR/NAME/experiment.yaml, else DIR/experiment.yaml when its name is NAME) enumerates at no
// scale or at one of its `scales:` (every scale: runs of `--scale smoke` and `--scale small` are
// both the current file's). The others are left out of tables, findings and figures as
// RR_LEFT_EARLIER ("run <id> is not a run of DIR/NAME/experiment.yaml at any scale (an earlier
// version of the experiment)"), and the report says how many per experiment. An experiment
// without a copy that loads keeps all its runs, and so does one whose copy enumerates none of
// them (a file written by hand, not the one the runs were made from: a warning says so).
#pragma once
#include "../results/results_read.h"

void report_current_versions(rr_set *set, const char *dir);
// The copy of experiment `name` below dir (DIR/NAME/experiment.yaml, else DIR/experiment.yaml
// when its name is NAME) into path: 1 when one loads, else 0.
int report_copy_path(const char *dir, const char *name, char *path, size_t pathlen);
// How many runs of `experiment` were left out as an earlier version.
int report_earlier_count(const rr_set *set, const char *experiment);
// "N runs of an earlier version of this experiment are not used (...)\n\n" for experiment's
// section of the report, "" when none were left out (malloc'd; free it).
char *report_earlier_note(const rr_set *set, const char *experiment);
// The list of every file left out (set->left: damaged, duplicates, earlier versions) as a
// Markdown section ("" when none; malloc'd), and one "posbench: warning: left out PATH: why"
// line each on stderr (warn != 0).
char *report_left_markdown(const rr_set *set, int warn);
