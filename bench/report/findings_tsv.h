// bench/report/findings_tsv.h — the findings of a results folder written before experiment
// files were copied (before 2026-11-24, commit 5a7a786): `posbench run` then wrote the checked
// findings as DIR/<name>/findings.tsv and no DIR/<name>/experiment.yaml. `posbench report`
// reads such a file where no experiment.yaml lies beside it, so an older folder keeps its
// findings (they were dropped without a word). Format (as bench/experiment/exp_tables.c wrote it
// then): '#' lines and blank lines ignored; the first other line is
//   experiment<TAB>NAME
// then one finding per line, 12 tab-separated fields (empty = absent or unused):
//   kind claim paper a.stage a.match a.metric b.stage b.match b.metric value x per
// Every field is escaped: backslash, tab, newline, CR as \\ \t \n \r; a match field is key=value
// pairs joined by ',' in which ',' and '=' inside a key or value are \, and \=. Kinds then:
// greater, at_least, at_most, peak_inside, increasing, decreasing (no margin, effect or
// divide_by existed).
#pragma once
#include "../experiment/findings_spec.h"
#include <stddef.h>

// Reads path into *out (free with findings_list_free). 0, or -1 with "path:line: message" in err.
int findings_tsv_load(const char *path, findings_list *out, char *err, size_t errlen);
