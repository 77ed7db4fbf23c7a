// bench/report/report_index.h — `posbench report --index DIR`: one page over the sources of a
// results folder (each subfolder of DIR with run files is a source: results/mp3, results/cape,
// ...; `make reproduce-all` writes them), DIR/REPORT.md and DIR/REPORT.html:
//   - a summary table, one row per source: its experiments, runs counted, findings by verdict
//     (holds, does not hold, inconclusive, not measured), its measured wall time when
//     DIR/reproduce-times.tsv has it, the CPU time its done runs recorded (root cpu_run_s,
//     summed; "N of M done runs recorded it" when some files predate it), and links to its own
//     REPORT.md and REPORT.html;
//   - then every source's findings side by side, one table per source in the findings table's
//     columns (claim, ours, paper, verdict; REPORT.html colours them by verdict), each claim
//     led by its experiment's name, the same rows and verdicts as the source's own report (the
//     same evaluation, bench/report/findings.h, over the same runs: the source's folder);
//   - subfolders without run files are listed as not run.
// DIR/reproduce-times.tsv (written by scripts/reproduce_all.sh; optional): '#' lines ignored;
//   source<TAB>scale<TAB>device<TAB>seconds<TAB>exit
// one line per source run, seconds the wall time of its reproduce step (a whole number >= 0),
// exit its status (0, 1 or 2); a later line for a source replaces an earlier one. A bad line is
// refused naming FILE:LINE and what is valid (exit 2).
// Exit status: 0 written; 2 bad input (DIR unreadable, no source with run files, a malformed
// experiment copy or times file); 1 a file could not be written.
#pragma once
#include <stddef.h>

int report_index(const char *dir);

// The times file's lines, for tests: parses one line (no newline) into its fields. 0, or -1
// with what is wrong and what is valid in why.
typedef struct {
    char source[128], scale[32], device[32];
    long seconds;
    int exit_status;
} index_time;
int report_index_time_parse(const char *line, index_time *t, char *why, size_t len);
