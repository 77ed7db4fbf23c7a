// bench/report/budget_cells.h — the `updates` and `images seen` columns of the report's stage
// tables (bench/report/report.h): what each arm cost, so a finding that compares a pretrained
// and finetuned model with a baseline shows whether their training budgets match.
// A cell is the configuration's cumulative total over its done runs (the /final attributes
// updates_total / images_seen_total: the run and its init chain, bench/train/budget.h), followed
// by "(P + F)" when the run was initialised from another (P: the init chain's, F: its own). Runs
// that disagree (they should not: budgets do not depend on the seed) show "min–max". A file
// written before these attributes existed shows its own /final steps (and steps x
// /config train.batch) and "(own)": what its init chain added was not recorded.
#pragma once
#include "../results/results_read.h"
#include <stddef.h>

// Is /final attribute `name` one of the budget attributes (shown by these columns only, never as
// a metric column)?
int report_budget_attr(const char *name);
// The two cells of configuration c ("—" when no run is done).
void report_budget_cells(const rr_set *set, const rr_config *c, char *updates, size_t ulen, char *images, size_t ilen);
