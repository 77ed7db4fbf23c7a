// bench/experiment/caveats_spec.h — an experiment's `caveats:` list: what a reader of its report
// must know before trusting a number (synthesized data, a budget far from the paper's, ...),
// printed by `posbench report` under the experiment's tables and above its findings table
// (bench/report/caveats.h). A top-level key of the experiment YAML:
//   caveats:
//     - "synthesized speech: ..."
// A list of one-line texts: each item a non-empty scalar (quoted, plain or folded with >); a
// mapping, a list, an empty item or a line break inside one is an error ("file:line:col: caveats: ...", exit 2).
#pragma once
#include "yaml_tree.h"
#include <stddef.h>

// Checks node `list` (the value of `caveats:`; NULL = absent, fine) of file `path`. 0, or -1
// with "path:line:col: caveats: ..." (1-based marks) in err.
int caveats_check(const char *path, const ynode *list, char *err, size_t errlen);
