// bench/results/run_screen.h — which run files of a results directory may be counted: a done
// run's /final must be sound, and one run counts once however many copies of its file lie below
// the directory. rr_scan (results_read.h) applies both before grouping; what is left out goes
// to rr_set.left with the reason, and `report` and `plot` name it. rr_scan itself reads every
// file as it is (`posbench export` writes each file's row, with its status and path).
//
// A sound /final (rr_final_check, for a run whose status is `done`; other runs enter no cell):
//   - it has at least one attribute (a done run records its results there);
//   - every attribute is one value (a 2-element top1 is damaged);
//   - every attribute is an integer or a float, except `metric_info` (text, the run's metric
//     table): a string top1 is damaged, also one that reads as a number;
//   - every number is finite, except those a run writes NaN for when it could not measure them
//     (init_pe_to_content: the content's RMS was 0).
// Before this check, one such file removed the column (or, without /final, every column) for
// every configuration of its stage and still counted as done.
//
// Duplicates (rr_screen_duplicates): two files of one (experiment, stage) with the same root
// attr `run_id`, or (either without a run id) the same /config, seed included, are one run.
// The file at the run's own place, <stage>/<run-id>.h5 (the name the runner gives it, in a
// folder named after its stage), is counted; without one, the first by path. The others are
// left out as duplicates naming the counted file: a backup copy (<stage>/backup/X.h5,
// "<stage>/X copy.h5") no longer raises n and narrows intervals. Leaving the copy out, rather
// than refusing the whole report, keeps a folder with backups reportable; the numbers are the
// same as without the copy, and the report lists every copy it ignored.
#pragma once
#include "results_read.h"
#include <stddef.h>

// 0 when the done run r's /final is sound (rules above); -1 with why set ("/final top1 is a
// string ('0.9'), not a number"). Runs not `done` are not checked (0).
int rr_final_check(const rr_run *r, char *why, size_t whylen);
// Leaves out (RR_LEFT_DAMAGED) every run whose /final fails rr_final_check.
void rr_screen_damaged(rr_set *set);
// Leaves out (RR_LEFT_DUPLICATE) every second file of a run.
void rr_screen_duplicates(rr_set *set);
// Both, damaged first (a sound copy of a damaged file is then the one counted).
void rr_screen(rr_set *set);
