// bench/report/report_provenance.h — the generated block every REPORT.md (and so REPORT.html)
// opens with, before any table: what a reader needs to know before any number.
//   # posbench report                                  (smoke: "# posbench report — smoke scale: its
//                                                       numbers say nothing about the papers")
//   `DIR`: N runs in M stages.
//   ## Provenance
//   - scale: `small` (24 runs)                          root attr scale (posbench run --scale; "small"
//                                                       without one); "not recorded" for older files
//   - commits: `abc1234` (20 runs), ...                 root attr git_commit
//   - devices and CPU models: cpu, Intel Xeon ... (20 runs), cuda (4 runs)   device, cpu_model
//   - dates: 2026-01-01T00:00:00Z to 2026-01-02T10:00:00Z (started of the first, finished of the last)
//   then the commands, one list item each: `posbench run DIR/E/experiment.yaml --scale smoke --out
//   DIR` per experiment and scale, then `posbench report DIR`; then "Verdicts: 3 hold, 1 does not
//   hold, 5 inconclusive, 0 not measured (9 findings; ...)." and the list
//   "- holds: <claim> (experiment `E`)", holds first.
#pragma once
#include "../results/results_read.h"
#include "findings.h"
#include <stdio.h>

// The head of the report as Markdown (malloc'd; free it): the title, the runs line and the block.
char *report_head_markdown(const rr_set *set, const char *dir, const finding_row *rows, int nrows);

// The `posbench run` command of each experiment (and scale) whose copy is below dir, one line
// each ("posbench run PATH [--scale S] --out OUTDIR\n", shell-quoted), into *text (malloc'd);
// returns the number of lines; *untracked: the runs without an experiment (posbench train).
int report_run_commands(const rr_set *set, const char *dir, char **text, int *untracked);
// w as one shell word (single-quoted when the shell would read a character of it) onto out.
void report_shell_word(FILE *out, const char *w);
