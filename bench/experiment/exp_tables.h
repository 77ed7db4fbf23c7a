// bench/experiment/exp_tables.h — what `posbench run` checks before anything runs and leaves in
// the results dir (DIR = <out>/<experiment>/) for `posbench report` and `posbench plot`: a
// byte-for-byte copy of the experiment file, DIR/experiment.yaml, the only schema they read:
//   reference:   checked here (reference_spec.h); the report reads it from the copy
//   figures:     checked when the file loads (figure_kinds.h); `posbench plot` reads them from the copy
//   findings:    checked here (findings_spec.h); the report reads them from the copy (findings_load)
//   caveats:     checked when the file loads (caveats_spec.h); the report reads them from the copy
// Results folders written before issue 28 also hold reference.tsv and figures.tsv, which the
// report and plot still read when the copy does not give the list.
#pragma once
#include "experiment.h"
#include <stddef.h>

// Checks `reference:` and `findings:`; writes the copy when dir is non-NULL. Returns 0, or -1
// with "file:line:col: message" in err (findings messages start "findings: ").
int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen);
