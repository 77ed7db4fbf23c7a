// bench/report/findings_diff.h — `posbench report DIR --diff OLD.json`: what changed between the
// findings an earlier `posbench report --format json` wrote (OLD.json, a findings.json) and this
// report's, as a generated Markdown section, so that "what changed since the published version"
// is never written by hand.
//
// OLD.json: a JSON array of objects with at least "experiment", "claim" and "verdict" (strings),
// as report_formats.h writes findings.json (read with the YAML reader: JSON is YAML's flow
// style). Anything else (missing, unreadable, not an array of such objects) is refused with the
// path and what is wrong (the caller exits 2).
// Matching: a finding is named by (experiment, claim); the k-th finding of the same name in one
// file matches the k-th in the other.
// The section, "## Changed since `OLD.json`":
//   a summary line: findings then and now, how many verdicts moved, were added, removed, and
//   how many have other printed numbers;
//   "Verdicts that moved": experiment | claim | was | now (the verdict word, then the verdict text
//   when it carries more, e.g. "inconclusive (needs 7 seeds ...)");
//   "Findings added" / "Findings removed": experiment | claim | verdict;
//   "Numbers that moved": experiment | claim | what moved | was | now, for a finding whose printed
//   `ours` cell (means, Δ, interval, p, Holm p, n) differs: a number that moved only beyond the
//   printed digits is not a change. "what moved" names the p, Holm p and interval ends that
//   moved at their printed precision (3 decimals for p's, 2 for interval ends), or "the
//   printed numbers" when only others did;
//   "Nothing changed: ..." when the findings, verdicts and printed numbers are the same.
#pragma once
#include "findings.h"

typedef struct {
    int n;
    char **experiment, **claim, **verdict, **verdict_text, **ours;
    double *p, *p_holm, *ci_lo, *ci_hi; // NaN: null or absent
} findings_old;

// Reads path. 0, or -1 with "PATH: why" in err (not found, unreadable, not a findings file).
int findings_diff_load(const char *path, findings_old *old, char *err, size_t errlen);
void findings_diff_free(findings_old *old);
// The section (malloc'd; free it) comparing old (read from label) with this report's rows.
char *findings_diff_markdown(const findings_old *old, const char *label, const finding_row *rows, int nrows);
