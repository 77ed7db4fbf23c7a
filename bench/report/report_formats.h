// bench/report/report_formats.h — the machine-readable files of `posbench report DIR --format
// md,csv,json` (md, REPORT.md, is the default and always written; html: REPORT.html, report_html.h).
// Beside REPORT.md, in DIR:
//   csv:  tables/<name>.csv, one per report table (report_table.h: "<experiment>_<stage>" and
//         "<experiment>_<stage>_top1-by-size" ...), and findings.csv
//   json: tables.json (an array of the tables, report_table.h's objects) and findings.json
// findings.csv columns (findings.json: an array of objects with these keys), one row per finding
// of the report, in REPORT.md's order:
//   experiment, kind, claim, ours, paper   the Markdown row's texts (ours with its p's)
//   verdict        holds | does not hold | inconclusive | not measured
//   verdict_text   the Markdown verdict cell ("inconclusive (1 seed)")
//   p, p_holm, holm_findings   the claim's one-sided p, Holm-adjusted over holm_findings findings
//                  (empty / null when the finding has no test)
//   ci90_low, ci90_high   the 90% CI that ours states, when it states exactly one, in ours' units
//                  (top-1 in %); empty / null otherwise (exact metrics, several configurations)
//   caveats        the experiment's caveats, "; "-joined
// CSV is RFC 4180 (CRLF, quoted when needed); JSON is strict (non-finite numbers as null); both
// written atomically (core/safe_file.h: a temporary name of their own, then renamed).
#pragma once
#include "findings.h"
#include "report_table.h"
#include <stddef.h>
#include <stdio.h>

enum { REPORT_MD = 1, REPORT_CSV = 2, REPORT_JSON = 4, REPORT_HTML = 8 };

// Parses "md,csv,json,html" into REPORT_* bits (md always set). 0, or -1 with what is valid in err.
int report_parse_formats(const char *list, int *formats, char *err, size_t errlen);

// Writes text (n bytes) to path atomically (core/safe_file.h: a temporary name of this writer's
// own, renamed over path; never through a link or device at path). 0, or the exit code (1 an
// I/O failure, 2 a path that is not a regular file) with the error printed.
int report_write_file(const char *path, const char *text, size_t n);

// The verdict column's word: "holds", "does not hold", "inconclusive" or "not measured".
const char *finding_verdict_word(finding_verdict v);

// findings.csv / findings.json content.
int findings_rows_csv(const finding_row *rows, int n, FILE *out);
int findings_rows_json(const finding_row *rows, int n, FILE *out);

// Writes the csv and / or json files of the formats into dir, and removes (said on stderr) the
// regular files of an earlier report it does not rewrite: the outputs of formats not asked for
// now, tables/<name>.csv of tables it no longer has. 0, or the exit code (1 or 2, the error printed).
int report_write_formats(const char *dir, int formats, report_table *const *tables, int ntables, const finding_row *rows,
                         int nrows);
