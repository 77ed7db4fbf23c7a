// bench/report/run_select.h — which run files of a results folder count: the one selection that
// `posbench report`, `posbench plot` and `posbench export` (and, through export,
// python/posbench_results.py's load_runs) share, so that they count the same runs and say the
// same thing about the others.
//   1. every *.h5 below DIR is read (rr_scan); a file that cannot be read is left out;
//   2. a done run whose /final is damaged and every second file of a run (a copy) are left out
//      (run_screen.h);
//   3. a run of an earlier version of its experiment is left out (report_versions.h);
//   4. runs its experiment's copy enumerates (at the scales the runs recorded) with no run file
//      are counted as missing, per stage (rr_stage.nmissing), and the copy's matrix keys of a
//      stage stay its axes even where the runs left make them look constant (rr_set.hints).
// Every file left out is named on stderr, one line each: "posbench: warning: left out PATH: why"
// (an unreadable file: "posbench: warning: left out <the reader's message>"), and every
// experiment with missing runs gets one line: "posbench: warning: experiment NAME: N of M runs
// that DIR/NAME/experiment.yaml enumerates have no run file (stage S: K, ...)".
#pragma once
#include "../results/results_read.h"

// 0 ok (set filled, possibly with no runs left); -1 when dir cannot be read (err says why).
int run_select(const char *dir, int what, rr_set *set, char *err, size_t errlen);
