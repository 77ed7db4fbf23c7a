// bench/run/run_names.h — readable names beside the run ids: `posbench run` (and `posbench
// sweep`) keep, in every stage folder of a results directory, a folder names/ of symbolic links
//   <out>/<experiment>/<stage>/names/pe.kind=abs,model.patch=4,seed=0 -> ../<run-id>.h5
// one per run of the experiment, named by the run's axis values (the swept keys, as the
// experiment writes them, zip keys each on their own, a finetune run's inherited axes included)
// and its seed. A link resolves once its run is done (until then it dangles: the run is queued
// or running). Names are safe file names: characters other than letters, digits and . , = + - _
// become '_', a leading '.' becomes '_', and a name longer than 200 bytes (or one two runs would
// share) ends in "~<run-id>". Rewriting is idempotent: a link already right is left alone, a
// wrong one replaced atomically (rename), links of runs no longer in the experiment removed;
// anything in names/ that is not a symbolic link is never touched. Results readers skip
// symbolic links (bench/results/results_read.h, python/posbench_results.py), so a run is never
// counted twice, and the names carry no .h5 suffix for the same reason.
#pragma once
#include "../experiment/experiment_types.h"
#include <stddef.h>

// The name of run i (rules above, without the run-id suffix) into buf.
void run_name(const experiment *e, int i, char *buf, size_t len);
// Writes (or brings up to date) the names/ folder of every stage of e under out_dir. 0, or -1
// with err set (what could not be created or renamed).
int run_names_write(const experiment *e, const char *out_dir, char *err, size_t errlen);
